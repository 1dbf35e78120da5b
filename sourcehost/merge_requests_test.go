package sourcehost_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

func TestMergeRequestLifecycle(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateBranch(ctx, pid(p), "feature/pay", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "pay.go", &sourcehost.CreateFileRequest{Branch: "feature/pay", Content: "package pay\n", CommitMessage: "Add pay"}); err != nil {
		t.Fatal(err)
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{
		SourceBranch: "feature/pay", TargetBranch: p.DefaultBranch, Title: "Add payments", Labels: sourcehost.Labels{"feature"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if mr.IID != 1 || mr.State != sourcehost.StateOpened || mr.SourceBranch != "feature/pay" || mr.SHA == "" {
		t.Fatalf("created %+v", mr)
	}

	// A second open merge request for the same branches conflicts (409).
	_, err = tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "feature/pay", TargetBranch: p.DefaultBranch, Title: "again"})
	var e *sourcehost.Error
	if !errors.Is(err, sourcehost.ErrConflict) || !errors.As(err, &e) || !strings.Contains(e.Message, "Another open merge request already exists") {
		t.Fatalf("duplicate: %v", err)
	}

	closed, err := tg.c.UpdateMergeRequest(ctx, pid(p), mr.IID, &sourcehost.UpdateMergeRequestRequest{StateEvent: sourcehost.StateEventClose})
	if err != nil || closed.State != sourcehost.StateClosed {
		t.Fatalf("close %+v %v", closed, err)
	}
	if _, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, nil); !errors.Is(err, sourcehost.ErrMethodNotAllowed) {
		t.Fatalf("merging a closed merge request: %v", err)
	}
	if _, err := tg.c.UpdateMergeRequest(ctx, pid(p), mr.IID, &sourcehost.UpdateMergeRequestRequest{StateEvent: sourcehost.StateEventReopen}); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, &sourcehost.AcceptMergeRequestRequest{SHA: strings.Repeat("0", 40)}); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("merge with a stale sha: %v", err)
	}
	merged, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, &sourcehost.AcceptMergeRequestRequest{ShouldRemoveSourceBranch: sourcehost.Ptr(true)})
	if err != nil || merged.State != sourcehost.StateMerged || merged.MergeCommitSHA == "" || merged.MergedAt == nil {
		t.Fatalf("merge %+v %v", merged, err)
	}
	f, err := tg.c.GetFile(ctx, pid(p), "pay.go", p.DefaultBranch)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := f.Decode(); string(b) != "package pay\n" {
		t.Fatalf("merged content %q", b)
	}
	head, err := tg.c.GetCommit(ctx, pid(p), p.DefaultBranch)
	if err != nil || head.ID != merged.MergeCommitSHA || len(head.ParentIDs) != 2 {
		t.Fatalf("merge commit %+v %v", head, err)
	}

	list, err := tg.c.ListMergeRequests(ctx, pid(p), &sourcehost.ListMergeRequestsOptions{State: sourcehost.StateMerged})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("merged list %+v %v", list, err)
	}
	if list, _ := tg.c.ListMergeRequests(ctx, pid(p), &sourcehost.ListMergeRequestsOptions{State: sourcehost.StateOpened}); len(list.Items) != 0 {
		t.Fatalf("opened list %+v", list.Items)
	}
}

func TestMergeRequestBranchValidation(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	for _, tc := range []struct {
		name           string
		source, target string
		msg            string
	}{
		{"same branch", p.DefaultBranch, p.DefaultBranch, "You can't use same project/branch for source and target"},
		{"missing source", "nope", p.DefaultBranch, `Source branch "nope" does not exist`},
		{"missing target", p.DefaultBranch, "gone", `Target branch "gone" does not exist`},
	} {
		_, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: tc.source, TargetBranch: tc.target, Title: "t"})
		var e *sourcehost.Error
		if !errors.Is(err, sourcehost.ErrUnprocessable) || !errors.As(err, &e) || e.Message != tc.msg {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestMergeConflict(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	tg.c.CreateBranch(ctx, pid(p), "left", p.DefaultBranch)
	for _, branch := range []string{"left", p.DefaultBranch} {
		if _, err := tg.c.CreateFile(ctx, pid(p), "conf.txt", &sourcehost.CreateFileRequest{Branch: branch, Content: branch, CommitMessage: "conf on " + branch}); err != nil {
			t.Fatal(err)
		}
	}
	mr, err := tg.c.CreateMergeRequest(ctx, pid(p), &sourcehost.CreateMergeRequestRequest{SourceBranch: "left", TargetBranch: p.DefaultBranch, Title: "conflict"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.AcceptMergeRequest(ctx, pid(p), mr.IID, nil); !errors.Is(err, sourcehost.ErrUnprocessable) {
		t.Fatalf("conflicting merge: %v", err)
	}
}
