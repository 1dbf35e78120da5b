package sourcehost_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

// featureMR makes a branch "feature" that adds a.txt and changes
// README.md, and a merge request of it into the default branch.
func featureMR(t *testing.T, tg *target, p *sourcehost.Project) *sourcehost.MergeRequest {
	t.Helper()
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "a.txt", &sourcehost.CreateFileRequest{Branch: "feature", Content: "hello\n", CommitMessage: "Add a"}); err != nil {
		t.Fatal(err)
	}
	readme, err := tg.c.GetRawFile(ctx, pid(p), "README.md", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.UpdateFile(ctx, pid(p), "README.md", &sourcehost.UpdateFileRequest{Branch: "feature",
		Content: string(readme) + "\nA new line.\n", CommitMessage: "Extend the readme"}); err != nil {
		t.Fatal(err)
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: p.DefaultBranch, Title: "Feature"})
	if err != nil {
		t.Fatal(err)
	}
	return mr
}

func TestMergeRequestChangesAndDiffs(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	mr := featureMR(t, tg, p)

	ch, err := tg.c.GetMergeRequestChanges(ctx, pid(p), mr.IID)
	if err != nil {
		t.Fatal(err)
	}
	if ch.IID != mr.IID || ch.Title != "Feature" || ch.Overflow || ch.ChangesCount != "2" || len(ch.Changes) != 2 {
		t.Fatalf("changes %+v", ch)
	}
	byPath := map[string]*sourcehost.Diff{}
	for _, d := range ch.Changes {
		byPath[d.NewPath] = d
	}
	if a := byPath["a.txt"]; a == nil || !a.NewFile || a.DeletedFile || a.Diff != "@@ -0,0 +1 @@\n+hello\n" {
		t.Fatalf("a.txt %+v", a)
	}
	if r := byPath["README.md"]; r == nil || r.NewFile || !strings.HasPrefix(r.Diff, "@@ -") || !strings.Contains(r.Diff, "\n+A new line.\n") {
		t.Fatalf("README.md %+v", r)
	}

	// The diffs, a page at a time, are the same files.
	page, err := tg.c.ListMergeRequestDiffs(ctx, pid(p), mr.IID, &sourcehost.ListOptions{PerPage: 1})
	if err != nil || len(page.Items) != 1 || page.NextPage != 2 {
		t.Fatalf("first page of diffs %+v %v", page, err)
	}
	n := 0
	for d, err := range tg.c.AllMergeRequestDiffs(ctx, pid(p), mr.IID, &sourcehost.ListOptions{PerPage: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		if byPath[d.NewPath] == nil || d.Diff != byPath[d.NewPath].Diff {
			t.Fatalf("diff %+v", d)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d diffs", n)
	}

	// Merged, it shows what it brought still.
	if _, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, nil); err != nil {
		t.Fatal(err)
	}
	if after, err := tg.c.GetMergeRequestChanges(ctx, pid(p), mr.IID); err != nil || len(after.Changes) != 2 || after.State != "merged" {
		t.Fatalf("changes once merged %+v %v", after, err)
	}
	if _, err := tg.c.GetMergeRequestChanges(ctx, pid(p), mr.IID+100); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an unknown merge request: %v", err)
	}
}

func TestCompareAndRawBlob(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	main := p.DefaultBranch
	featureMR(t, tg, p)
	// main moves on after feature left it.
	if _, err := tg.c.CreateFile(ctx, pid(p), "b.txt", &sourcehost.CreateFileRequest{Branch: main, Content: "b\n", CommitMessage: "Add b"}); err != nil {
		t.Fatal(err)
	}

	cmp, err := tg.c.Compare(ctx, pid(p), &sourcehost.CompareOptions{From: main, To: "feature"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Commits) != 2 || cmp.Commits[0].Title != "Add a" || cmp.Commits[1].Title != "Extend the readme" ||
		cmp.Commit == nil || cmp.Commit.ID != cmp.Commits[1].ID || cmp.CompareSameRef {
		t.Fatalf("compare %+v", cmp)
	}
	if paths := diffPaths(cmp.Diffs); paths != "README.md a.txt" {
		t.Fatalf("from the merge base: %s", paths)
	}
	// Straight, main's own change shows as undone.
	straight, err := tg.c.Compare(ctx, pid(p), &sourcehost.CompareOptions{From: main, To: "feature", Straight: true})
	if err != nil {
		t.Fatal(err)
	}
	if paths := diffPaths(straight.Diffs); paths != "README.md a.txt b.txt" {
		t.Fatalf("straight: %s", paths)
	}
	for _, d := range straight.Diffs {
		if d.NewPath == "b.txt" && (!d.DeletedFile || d.Diff != "@@ -1 +0,0 @@\n-b\n") {
			t.Fatalf("b.txt %+v", d)
		}
	}
	same, err := tg.c.Compare(ctx, pid(p), &sourcehost.CompareOptions{From: main, To: main})
	if err != nil || !same.CompareSameRef || len(same.Commits) != 0 || same.Commit != nil || len(same.Diffs) != 0 {
		t.Fatalf("compare with itself %+v %v", same, err)
	}
	if _, err := tg.c.Compare(ctx, pid(p), &sourcehost.CompareOptions{From: main, To: "no-such-branch"}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an unknown ref: %v", err)
	}
	if err := tg.c.Do(ctx, "GET", "/projects/"+itoa(p.ID)+"/repository/compare", nil, nil, nil); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("no refs: %v", err)
	}

	f, err := tg.c.GetFile(ctx, pid(p), "a.txt", "feature")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := tg.c.GetRawBlob(ctx, pid(p), f.BlobID); err != nil || string(b) != "hello\n" {
		t.Fatalf("raw blob %q %v", b, err)
	}
	if _, err := tg.c.GetRawBlob(ctx, pid(p), strings.Repeat("0", 40)); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an unknown blob: %v", err)
	}
}

func diffPaths(ds []*sourcehost.Diff) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.NewPath)
	}
	return strings.Join(out, " ")
}
