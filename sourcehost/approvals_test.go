package sourcehost_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestMergeRequestApprovals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	mr := featureMR(t, tg, p)
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}

	a, err := tg.c.GetMergeRequestApprovals(ctx, pid(p), mr.IID)
	if err != nil || a.Approved || !a.UserCanApprove || a.UserHasApproved || len(a.ApprovedBy) != 0 || a.IID != mr.IID {
		t.Fatalf("before any approval %+v %v", a, err)
	}
	// An approval of another version than the source's head is refused.
	if _, err := tg.c.ApproveMergeRequest(ctx, pid(p), mr.IID, &sourcehost.ApproveMergeRequestRequest{SHA: "0123456789abcdef0123456789abcdef01234567"}); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("approving a stale sha: %v", err)
	}
	a, err = tg.c.ApproveMergeRequest(ctx, pid(p), mr.IID, &sourcehost.ApproveMergeRequestRequest{SHA: mr.SHA})
	if err != nil || !a.Approved || !a.UserHasApproved || a.UserCanApprove || len(a.ApprovedBy) != 1 ||
		a.ApprovedBy[0].User.Username != me.Username {
		t.Fatalf("approved %+v %v", a, err)
	}
	if _, err := tg.c.ApproveMergeRequest(ctx, pid(p), mr.IID, nil); !errors.Is(err, sourcehost.ErrNotModified) {
		t.Fatalf("approving twice: %v", err)
	}
	if got, err := tg.c.GetMergeRequestApprovals(ctx, pid(p), mr.IID); err != nil || !got.Approved || len(got.ApprovedBy) != 1 {
		t.Fatalf("read back %+v %v", got, err)
	}

	a, err = tg.c.UnapproveMergeRequest(ctx, pid(p), mr.IID)
	if err != nil || a.Approved || a.UserHasApproved || !a.UserCanApprove || len(a.ApprovedBy) != 0 {
		t.Fatalf("unapproved %+v %v", a, err)
	}
	if _, err := tg.c.UnapproveMergeRequest(ctx, pid(p), mr.IID); !errors.Is(err, sourcehost.ErrNotModified) {
		t.Fatalf("unapproving twice: %v", err)
	}
	if _, err := tg.c.ApproveMergeRequest(ctx, pid(p), mr.IID+100, nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("an unknown merge request: %v", err)
	}
}

// Developers approve; reporters see the approvals but may not approve.
func TestMergeRequestApprovalAccess(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	mr := featureMR(t, tg, p)
	for _, u := range []struct {
		name  string
		level int
	}{{"dev", sourcehostfake.Developer}, {"rep", sourcehostfake.Reporter}} {
		if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: u.name}); err != nil {
			t.Fatal(err)
		}
		if err := srv.AddProjectMember(p.ID, u.name, u.level); err != nil {
			t.Fatal(err)
		}
	}
	devTok, _ := srv.IssueToken("dev", sourcehost.ScopeAPI)
	repTok, _ := srv.IssueToken("rep", sourcehost.ScopeAPI)
	dev, rep := srv.ClientWithToken(devTok), srv.ClientWithToken(repTok)

	if _, err := tg.c.ApproveMergeRequest(ctx, pid(p), mr.IID, nil); err != nil {
		t.Fatal(err)
	}
	a, err := dev.ApproveMergeRequest(ctx, pid(p), mr.IID, nil)
	if err != nil || len(a.ApprovedBy) != 2 || a.ApprovedBy[1].User.Username != "dev" {
		t.Fatalf("second approval %+v %v", a, err)
	}
	if _, err := rep.ApproveMergeRequest(ctx, pid(p), mr.IID, nil); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a reporter approving: %v", err)
	}
	got, err := rep.GetMergeRequestApprovals(ctx, pid(p), mr.IID)
	if err != nil || !got.Approved || got.UserCanApprove || len(got.ApprovedBy) != 2 {
		t.Fatalf("as a reporter %+v %v", got, err)
	}
	// A snapshot keeps them.
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	restored := sourcehostfake.Start(t)
	if err := restored.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if again, err := restored.Client().GetMergeRequestApprovals(ctx, pid(p), mr.IID); err != nil || len(again.ApprovedBy) != 2 {
		t.Fatalf("restored %+v %v", again, err)
	}
}
