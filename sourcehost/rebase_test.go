package sourcehost_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// rebaseFixture is a project whose "feature" branch made one commit
// (feature.txt, and shared.txt as feature) while the default branch moved
// on with one of its own (main.txt, and shared.txt as sharedOnMain when
// it is not ""), and an open merge request of feature into the default
// branch.
func rebaseFixture(t *testing.T, tg *target, sharedOnMain string) (*sourcehost.Project, *sourcehost.MergeRequest) {
	t.Helper()
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateFile(ctx, pid(p), "shared.txt", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "base\n", CommitMessage: "Add shared"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "feature.txt", &sourcehost.CreateFileRequest{Branch: "feature", Content: "f\n", CommitMessage: "Add feature"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.UpdateFile(ctx, pid(p), "shared.txt", &sourcehost.UpdateFileRequest{Branch: "feature", Content: "feature\n", CommitMessage: "Shared as feature"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "main.txt", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "m\n", CommitMessage: "Add main"}); err != nil {
		t.Fatal(err)
	}
	if sharedOnMain != "" {
		if _, err := tg.c.UpdateFile(ctx, pid(p), "shared.txt", &sourcehost.UpdateFileRequest{Branch: p.DefaultBranch, Content: sharedOnMain, CommitMessage: "Shared on main"}); err != nil {
			t.Fatal(err)
		}
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature", TargetBranch: p.DefaultBranch, Title: "Feature"})
	if err != nil {
		t.Fatal(err)
	}
	return p, mr
}

// rebaseDone asks until the rebase is no longer in progress (the fake's
// is over by the time it answers 202; a real server's worker takes a
// moment), a bounded number of times.
func rebaseDone(t *testing.T, tg *target, p *sourcehost.Project, iid int64) *sourcehost.MergeRequestRebase {
	t.Helper()
	for range 1000 {
		st, err := tg.c.GetMergeRequestRebase(ctx, pid(p), iid)
		if err != nil {
			t.Fatal(err)
		}
		if !st.RebaseInProgress {
			return st
		}
	}
	t.Fatal("the rebase is still in progress")
	return nil
}

// TestRebaseMergeRequest: PUT .../rebase answers 202
// {"rebase_in_progress":true}; the source branch's commits are then
// replayed onto the target's head (same messages and changes, new ids),
// merge_error empty.
func TestRebaseMergeRequest(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p, mr := rebaseFixture(t, tg, "")
	before, err := tg.c.GetBranch(ctx, pid(p), "feature")
	if err != nil {
		t.Fatal(err)
	}
	st, err := tg.c.RebaseMergeRequest(ctx, pid(p), mr.IID, nil)
	if err != nil || !st.RebaseInProgress {
		t.Fatalf("rebase %+v %v", st, err)
	}
	if st := rebaseDone(t, tg, p, mr.IID); st.MergeError != "" {
		t.Fatalf("merge_error %q", st.MergeError)
	}
	main, err := tg.c.GetBranch(ctx, pid(p), p.DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	after, err := tg.c.GetBranch(ctx, pid(p), "feature")
	if err != nil {
		t.Fatal(err)
	}
	if after.Commit.ID == before.Commit.ID || after.Commit.Title != "Shared as feature" {
		t.Fatalf("the source head after the rebase: %+v", after.Commit)
	}
	first, err := tg.c.GetCommit(ctx, pid(p), after.Commit.ParentIDs[0])
	if err != nil || first.Title != "Add feature" || len(first.ParentIDs) != 1 || first.ParentIDs[0] != main.Commit.ID {
		t.Fatalf("the replayed first commit %+v %v (target head %s)", first, err, main.Commit.ID)
	}
	for file, want := range map[string]string{"feature.txt": "f\n", "shared.txt": "feature\n", "main.txt": "m\n"} {
		if got, err := tg.c.GetRawFile(ctx, pid(p), file, "feature"); err != nil || string(got) != want {
			t.Errorf("%s on feature: %q %v", file, got, err)
		}
	}
	commits, err := tg.c.ListMergeRequestCommits(ctx, pid(p), mr.IID, nil)
	if err != nil || len(commits.Items) != 2 {
		t.Fatalf("the merge request's commits %+v %v", commits, err)
	}
	got, err := tg.c.GetMergeRequest(ctx, pid(p), mr.IID)
	if err != nil || got.SHA != after.Commit.ID || got.MergeError != "" {
		t.Fatalf("the merge request %+v %v", got, err)
	}
}

// TestRebaseMergeRequestConflict: a commit that cannot be replayed leaves
// the source branch as it was and sets merge_error as GitLab words it; a
// user who may not push to the source branch is 403.
func TestRebaseMergeRequestConflict(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p, mr := rebaseFixture(t, tg, "main\n")
	before, err := tg.c.GetBranch(ctx, pid(p), "feature")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.RebaseMergeRequest(ctx, pid(p), mr.IID, nil); err != nil {
		t.Fatal(err)
	}
	const want = "Rebase failed: Rebase locally, resolve all conflicts, then push the branch."
	if st := rebaseDone(t, tg, p, mr.IID); st.MergeError != want {
		t.Fatalf("merge_error %q, want %q", st.MergeError, want)
	}
	if after, err := tg.c.GetBranch(ctx, pid(p), "feature"); err != nil || after.Commit.ID != before.Commit.ID {
		t.Fatalf("the source branch moved: %+v %v", after, err)
	}

	srv := tg.needFake(t)
	clients, ids := users(t, srv, "rita")
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["rita"], AccessLevel: sourcehost.ReporterAccess}); err != nil {
		t.Fatal(err)
	}
	if _, err := clients["rita"].RebaseMergeRequest(ctx, pid(p), mr.IID, nil); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a reporter rebased: %v", err)
	}
	if _, err := tg.c.RebaseMergeRequest(ctx, pid(p), mr.IID+100, nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("no such merge request: %v", err)
	}
}

// TestRebaseMergeRequestSkipCI: a rebase pushes the source branch, which
// runs its pipeline, unless skip_ci; a closed merge request is not
// rebased (409).
func TestRebaseMergeRequestSkipCI(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p, mr := rebaseFixture(t, tg, "")
	if _, err := tg.c.CreateFile(ctx, pid(p), sourcehostfake.CIFile, &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "build:\n  script: make\n", CommitMessage: "CI"}); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n := 0
		for _, pl := range srv.Pipelines(p.ID) {
			if pl.Ref == "feature" {
				n++
			}
		}
		return n
	}
	if _, err := tg.c.RebaseMergeRequest(ctx, pid(p), mr.IID, &sourcehost.RebaseMergeRequestOptions{SkipCI: true}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d pipelines on feature after a rebase with skip_ci", n)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "more.txt", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "x", CommitMessage: "More"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.RebaseMergeRequest(ctx, pid(p), mr.IID, nil); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d pipelines on feature after a rebase", n)
	}
	if _, err := tg.c.UpdateMergeRequest(ctx, pid(p), mr.IID, &sourcehost.UpdateMergeRequestRequest{StateEvent: "close"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.RebaseMergeRequest(ctx, pid(p), mr.IID, nil); !isStatus(err, http.StatusConflict) {
		t.Fatalf("a closed merge request rebased: %v", err)
	}
}

func isStatus(err error, status int) bool {
	var e *sourcehost.Error
	return errors.As(err, &e) && e.StatusCode == status
}
