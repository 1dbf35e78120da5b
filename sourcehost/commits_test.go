package sourcehost_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestFilesCommitsAndStaleEdits(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	main := p.DefaultBranch
	if _, err := tg.c.CreateFile(ctx, pid(p), "docs/a.md", &sourcehost.CreateFileRequest{Branch: main, Content: "one\n", CommitMessage: "Add a"}); err != nil {
		t.Fatal(err)
	}
	read, err := tg.c.GetFile(ctx, pid(p), "docs/a.md", main)
	if err != nil {
		t.Fatal(err)
	}
	// An edit based on what was read goes in; a second one based on the
	// same read is stale and refused with 409.
	if _, err := tg.c.UpdateFile(ctx, pid(p), "docs/a.md", &sourcehost.UpdateFileRequest{Branch: main, Content: "two\n", CommitMessage: "Edit a", LastCommitID: read.LastCommitID}); err != nil {
		t.Fatal(err)
	}
	_, err = tg.c.UpdateFile(ctx, pid(p), "docs/a.md", &sourcehost.UpdateFileRequest{Branch: main, Content: "three\n", CommitMessage: "Edit a again", LastCommitID: read.LastCommitID})
	if !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("a stale edit: %v", err)
	}
	if got, err := tg.c.GetFile(ctx, pid(p), "docs/a.md", main); err != nil {
		t.Fatal(err)
	} else if b, _ := got.Decode(); string(b) != "two\n" {
		t.Fatalf("content %q", b)
	}
	if _, err := tg.c.UpdateFile(ctx, pid(p), "nope.md", &sourcehost.UpdateFileRequest{Branch: main, Content: "x", CommitMessage: "x"}); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("updating a missing file: %v", err)
	}
	if err := tg.c.DeleteFile(ctx, pid(p), "docs/a.md", &sourcehost.DeleteFileRequest{Branch: main, CommitMessage: "Remove a", LastCommitID: read.LastCommitID}); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("a stale delete: %v", err)
	}
	if err := tg.c.DeleteFile(ctx, pid(p), "docs/a.md", &sourcehost.DeleteFileRequest{Branch: main, CommitMessage: "Remove a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetFile(ctx, pid(p), "docs/a.md", main); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted file: %v", err)
	}

	// Each change was a commit, newest first; path narrows them.
	var titles []string
	for cm, err := range tg.c.AllCommits(ctx, pid(p), &sourcehost.ListCommitsOptions{ListOptions: sourcehost.ListOptions{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		titles = append(titles, cm.Title)
	}
	if len(titles) < 4 || !slices.Equal(titles[:3], []string{"Remove a", "Edit a", "Add a"}) {
		t.Fatalf("history %q", titles)
	}
	page, err := tg.c.ListCommits(ctx, pid(p), &sourcehost.ListCommitsOptions{RefName: main, Path: "docs"})
	if err != nil || len(page.Items) != 3 {
		t.Fatalf("commits touching docs: %+v %v", page, err)
	}
	future := time.Now().Add(24 * time.Hour)
	if page, err := tg.c.ListCommits(ctx, pid(p), &sourcehost.ListCommitsOptions{Since: &future}); err != nil || len(page.Items) != 0 {
		t.Fatalf("commits since tomorrow: %+v %v", page, err)
	}
	if page, err := tg.c.ListCommits(ctx, pid(p), &sourcehost.ListCommitsOptions{Until: &future}); err != nil || len(page.Items) != len(titles) {
		t.Fatalf("commits until tomorrow: %+v %v", page, err)
	}
	one, err := tg.c.GetCommit(ctx, pid(p), page.Items[0].ID)
	if err != nil || one.ID != page.Items[0].ID {
		t.Fatalf("get commit %+v %v", one, err)
	}
}

func TestMergeRequestCommits(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.go", "b.go"} {
		if _, err := tg.c.CreateFile(ctx, pid(p), f, &sourcehost.CreateFileRequest{Branch: "feature", Content: "package x\n", CommitMessage: "Add " + f}); err != nil {
			t.Fatal(err)
		}
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: p.DefaultBranch, Title: "Feature"})
	if err != nil {
		t.Fatal(err)
	}
	titles := func() []string {
		var out []string
		for cm, err := range tg.c.AllMergeRequestCommits(ctx, pid(p), mr.IID, nil) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, cm.Title)
		}
		return out
	}
	if got := titles(); !slices.Equal(got, []string{"Add b.go", "Add a.go"}) {
		t.Fatalf("commits of the open merge request %q", got)
	}
	if _, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, nil); err != nil {
		t.Fatal(err)
	}
	if got := titles(); !slices.Equal(got, []string{"Add b.go", "Add a.go"}) {
		t.Fatalf("commits of the merged merge request %q", got)
	}
}
