package sourcehost_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestFilesTreeCommitsBranches(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	for _, f := range []struct{ path, content string }{
		{"src/main.go", "package main\n"},
		{"src/util/strings.go", "package util\n"},
		{"docs/guide.md", "# Guide\n"},
	} {
		if _, err := tg.c.CreateFile(ctx, pid(p), f.path, &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: f.content, CommitMessage: "Add " + f.path}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := tg.c.GetFile(ctx, pid(p), "src/main.go", p.DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	content, err := f.Decode()
	if err != nil || string(content) != "package main\n" || f.Encoding != "base64" || f.FileName != "main.go" || f.Size != 13 || f.LastCommitID == "" {
		t.Fatalf("file %+v %q %v", f, content, err)
	}
	last, err := tg.c.GetCommit(ctx, pid(p), f.LastCommitID)
	if err != nil || last.Title != "Add src/main.go" {
		t.Fatalf("last commit %+v %v", last, err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "src/main.go", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "x", CommitMessage: "again"}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("creating an existing file: %v", err)
	}
	if _, err := tg.c.GetFile(ctx, pid(p), "nope.txt", p.DefaultBranch); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	for _, ref := range []string{p.DefaultBranch, f.LastCommitID, ""} {
		if raw, err := tg.c.GetRawFile(ctx, pid(p), "src/main.go", ref); err != nil || string(raw) != "package main\n" {
			t.Fatalf("raw file at %q: %q %v", ref, raw, err)
		}
	}
	if _, err := tg.c.GetRawFile(ctx, pid(p), "nope.txt", ""); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("missing raw file: %v", err)
	}
	if _, err := tg.c.GetRawFile(ctx, pid(p), "", ""); err == nil {
		t.Fatal("an empty path accepted by the client")
	}

	paths := func(opts *sourcehost.ListTreeOptions) []string {
		t.Helper()
		var out []string
		for n, err := range tg.c.AllTree(ctx, pid(p), opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, n.Type+":"+n.Path)
		}
		return out
	}
	if got, want := paths(nil), []string{"tree:docs", "tree:src", "blob:README.md"}; !slices.Equal(got, want) {
		t.Fatalf("root tree %v, want %v", got, want)
	}
	if got, want := paths(&sourcehost.ListTreeOptions{Path: "src", Recursive: sourcehost.Ptr(true)}),
		[]string{"tree:src/util", "blob:src/main.go", "blob:src/util/strings.go"}; !slices.Equal(got, want) {
		t.Fatalf("recursive src %v, want %v", got, want)
	}
	if _, err := tg.c.ListTree(ctx, pid(p), &sourcehost.ListTreeOptions{Path: "nowhere"}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("missing tree: %v", err)
	}

	b, err := tg.c.CreateBranch(ctx, pid(p), "release/1.0", p.DefaultBranch)
	if err != nil || b.Name != "release/1.0" || b.Commit == nil {
		t.Fatalf("branch %+v %v", b, err)
	}
	if _, err := tg.c.CreateBranch(ctx, pid(p), "release/1.0", p.DefaultBranch); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("duplicate branch: %v", err)
	}
	if _, err := tg.c.CreateBranch(ctx, pid(p), "x", "no-such-ref"); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("bad ref: %v", err)
	}
	branches, err := tg.c.ListBranches(ctx, pid(p), nil)
	if err != nil || len(branches.Items) != 2 || !branches.Items[0].Default {
		t.Fatalf("branches %+v %v", branches, err)
	}
	onBranch, err := tg.c.GetFile(ctx, pid(p), "docs/guide.md", "release/1.0")
	if err != nil || onBranch.CommitID != b.Commit.ID {
		t.Fatalf("file on branch %+v %v", onBranch, err)
	}
}
