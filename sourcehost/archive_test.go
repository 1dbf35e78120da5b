package sourcehost_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

// archiveFiles reads the files of an archive (tar.gz, tar or zip) by
// their names inside it.
func archiveFiles(t *testing.T, format string, b []byte) map[string]string {
	t.Helper()
	files := map[string]string{}
	if format == "zip" {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name] = string(data)
		}
		return files
	}
	var r io.Reader = bytes.NewReader(b)
	if format != "tar" {
		gz, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = string(data)
	}
}

// TestRepositoryArchive: GET .../repository/archive[.format] is an
// archive the standard library opens, in each format, holding the
// commit's files under one directory named project-ref-sha (and path),
// the file's name in Content-Disposition; sha picks a ref, path narrows
// it to a directory; an unknown ref is 404.
func TestRepositoryArchive(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	for file, content := range map[string]string{"docs/guide.md": "# Guide\n", "docs/api/ref.md": "ref\n", "main.go": "package main\n"} {
		if _, err := tg.c.CreateFile(ctx, pid(p), file, &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: content, CommitMessage: "Add " + file}); err != nil {
			t.Fatal(err)
		}
	}
	readme, err := tg.c.GetRawFile(ctx, pid(p), "README.md", p.DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	head, err := tg.c.GetBranch(ctx, pid(p), p.DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	prefix := p.Path + "-" + p.DefaultBranch + "-" + head.Commit.ID
	want := map[string]string{prefix + "/README.md": string(readme), prefix + "/docs/guide.md": "# Guide\n",
		prefix + "/docs/api/ref.md": "ref\n", prefix + "/main.go": "package main\n"}
	for _, format := range []string{"", "tar.gz", "tar", "zip"} {
		var buf bytes.Buffer
		var info apicall.Info
		if err := tg.c.GetRepositoryArchive(apicall.Capture(ctx, &info), pid(p), &buf, &sourcehost.ArchiveOptions{Format: format}); err != nil {
			t.Fatalf("%q: %v", format, err)
		}
		ext := map[string]string{"": ".tar.gz", "tar.gz": ".tar.gz", "tar": ".tar", "zip": ".zip"}[format]
		if cd := info.Header.Get("Content-Disposition"); cd != `attachment; filename="`+prefix+ext+`"` {
			t.Errorf("%q: Content-Disposition %q", format, cd)
		}
		if diff := cmp.Diff(want, archiveFiles(t, strings.TrimPrefix(format, "tar.gz"), buf.Bytes())); diff != "" {
			t.Errorf("%q: the archive's files (-want +got):\n%s", format, diff)
		}
	}

	var buf bytes.Buffer
	if err := tg.c.GetRepositoryArchive(ctx, pid(p), &buf, &sourcehost.ArchiveOptions{Format: "zip", SHA: head.Commit.ID, Path: "docs"}); err != nil {
		t.Fatal(err)
	}
	sub := p.Path + "-" + head.Commit.ID + "-" + head.Commit.ID + "-docs"
	if diff := cmp.Diff(map[string]string{sub + "/docs/guide.md": "# Guide\n", sub + "/docs/api/ref.md": "ref\n"}, archiveFiles(t, "zip", buf.Bytes())); diff != "" {
		t.Errorf("by sha and path (-want +got):\n%s", diff)
	}
	if err := tg.c.GetRepositoryArchive(ctx, pid(p), io.Discard, &sourcehost.ArchiveOptions{SHA: "no-such-ref"}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an unknown ref: %v", err)
	}
	if err := tg.c.GetRepositoryArchive(ctx, pid(p), io.Discard, &sourcehost.ArchiveOptions{Format: "../x"}); err == nil {
		t.Fatal("a format that is no name was sent")
	}
}

// TestRepositoryArchiveAccess: a guest of a private project may not read
// its code, so not its archive (403); nor can anyone outside it (404);
// another name than archive.<format> under repository/ is no route.
func TestRepositoryArchiveAccess(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	clients, ids := users(t, srv, "gus", "out")
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["gus"], AccessLevel: sourcehost.GuestAccess}); err != nil {
		t.Fatal(err)
	}
	if err := clients["gus"].GetRepositoryArchive(ctx, pid(p), io.Discard, nil); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a guest: %v", err)
	}
	if err := clients["out"].GetRepositoryArchive(ctx, pid(p), io.Discard, nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an outsider: %v", err)
	}
	// The fake writes no bzip2 (a known difference): a clear 400.
	if err := tg.c.GetRepositoryArchive(ctx, pid(p), io.Discard, &sourcehost.ArchiveOptions{Format: "tar.bz2"}); !isStatus(err, http.StatusBadRequest) {
		t.Fatalf("tar.bz2: %v", err)
	}
	resp, err := http.Get(srv.URL() + "/api/v4/projects/" + strings.TrimSpace(p.PathWithNamespace) + "/repository/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("another name under repository/: %d", resp.StatusCode)
	}
}
