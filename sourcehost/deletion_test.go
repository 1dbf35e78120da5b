package sourcehost_test

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestDelayedProjectDeletion: with a deletion adjourned period, DELETE
// marks a project (202): archived, renamed "-deletion_scheduled-<id>",
// marked_for_deletion_on today; it is gone once the fake clock passes the
// period; restored before, it has its name back; permanently_remove with
// its full path deletes a marked one at once, GitLab's 400s otherwise.
func TestDelayedProjectDeletion(t *testing.T) {
	t.Parallel()
	const week = 7 * 24 * time.Hour
	srv := sourcehostfake.Start(t, sourcehostfake.WithDeletionAdjournedPeriod(week))
	c := srv.Client()
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteProject(ctx, pid(p)); err != nil {
		t.Fatal(err)
	}
	suffix := "-deletion_scheduled-" + strconv.FormatInt(p.ID, 10)
	marked, err := c.GetProject(ctx, pid(p), nil)
	if err != nil {
		t.Fatal(err)
	}
	today := srv.Clock().Now().UTC().Format(sourcehost.DateLayout)
	if !marked.Archived || marked.Path != "shop"+suffix || marked.Name != "shop"+suffix || marked.MarkedForDeletionOn == nil ||
		marked.MarkedForDeletionOn.Format(sourcehost.DateLayout) != today {
		t.Fatalf("marked: %+v", marked)
	}
	if err := c.DeleteProject(ctx, pid(p)); !isStatus(err, http.StatusBadRequest) {
		t.Fatalf("deleted twice: %v", err)
	}
	// Its old path is free meanwhile.
	if _, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "other", Path: "shop2"}); err != nil {
		t.Fatal(err)
	}
	back, err := c.RestoreProject(ctx, pid(p))
	if err != nil || back.Path != "shop" || back.Archived || back.MarkedForDeletionOn != nil {
		t.Fatalf("restored %+v %v", back, err)
	}
	if _, err := c.RestoreProject(ctx, pid(p)); !isStatus(err, http.StatusBadRequest) {
		t.Fatalf("restoring one not marked: %v", err)
	}

	// Marked again, it goes when the period has passed, not before.
	if err := c.DeleteProject(ctx, pid(p)); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(week - time.Second)
	if _, err := c.GetProject(ctx, pid(p), nil); err != nil {
		t.Fatalf("a second before the period ends: %v", err)
	}
	srv.Clock().Advance(time.Second)
	if _, err := c.GetProject(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("after the period: %v", err)
	}

	// permanently_remove: only a marked project, only by its full path.
	q, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "quick"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteProjectPermanently(ctx, pid(q), q.PathWithNamespace); !isStatus(err, http.StatusBadRequest) {
		t.Fatalf("an unmarked project deleted permanently: %v", err)
	}
	if err := c.DeleteProject(ctx, pid(q)); err != nil {
		t.Fatal(err)
	}
	var e *sourcehost.Error
	if err := c.DeleteProjectPermanently(ctx, pid(q), q.PathWithNamespace); !errors.As(err, &e) ||
		e.Message != "`full_path` is incorrect. You must enter the complete path for the project." {
		t.Fatalf("the path before marking: %v", err)
	}
	if err := c.DeleteProjectPermanently(ctx, pid(q), q.PathWithNamespace+"-deletion_scheduled-"+strconv.FormatInt(q.ID, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetProject(ctx, pid(q), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted permanently: %v", err)
	}
	// A snapshot keeps the mark.
	r, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteProject(ctx, pid(r)); err != nil {
		t.Fatal(err)
	}
	snap, err := srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	again := sourcehostfake.Start(t, sourcehostfake.WithDeletionAdjournedPeriod(week))
	if err := again.Restore(snap); err != nil {
		t.Fatal(err)
	}
	again.Clock().Set(srv.Clock().Now().Add(week))
	if _, err := again.Client().GetProject(ctx, pid(r), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a restored mark past its period: %v", err)
	}
}

// TestDelayedGroupDeletion: with a deletion adjourned period, DELETE
// /groups/:id marks the group (renamed with its projects' paths following
// it, marked_for_deletion_on set); restore gives its path back; once the
// clock passes the period the group and its projects are gone; without
// the option the group goes at once, as before.
func TestDelayedGroupDeletion(t *testing.T) {
	t.Parallel()
	const period = 3 * 24 * time.Hour
	srv := sourcehostfake.Start(t, sourcehostfake.WithDeletionAdjournedPeriod(period))
	c := srv.Client()
	g, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "team", Path: "team"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "svc", NamespaceID: g.ID})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteGroup(ctx, sourcehost.GroupID(g.ID)); err != nil {
		t.Fatal(err)
	}
	marked, err := c.GetGroup(ctx, sourcehost.GroupID(g.ID))
	suffix := "-deletion_scheduled-" + strconv.FormatInt(g.ID, 10)
	if err != nil || marked.FullPath != "team"+suffix || marked.MarkedForDeletionOn == nil {
		t.Fatalf("marked %+v %v", marked, err)
	}
	if got, err := c.GetProject(ctx, pid(p), nil); err != nil || got.PathWithNamespace != "team"+suffix+"/svc" {
		t.Fatalf("its project %+v %v", got, err)
	}
	if err := c.DeleteGroupPermanently(ctx, sourcehost.GroupID(g.ID), "team"); !isStatus(err, http.StatusBadRequest) {
		t.Fatalf("by its old path: %v", err)
	}
	back, err := c.RestoreGroup(ctx, sourcehost.GroupID(g.ID))
	if err != nil || back.FullPath != "team" || back.MarkedForDeletionOn != nil {
		t.Fatalf("restored %+v %v", back, err)
	}
	if _, err := c.RestoreGroup(ctx, sourcehost.GroupID(g.ID)); !isStatus(err, http.StatusBadRequest) {
		t.Fatalf("restoring one not marked: %v", err)
	}
	if err := c.DeleteGroup(ctx, sourcehost.GroupID(g.ID)); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(period)
	if _, err := c.GetGroup(ctx, sourcehost.GroupID(g.ID)); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("after the period: %v", err)
	}
	if _, err := c.GetProject(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("its project after the period: %v", err)
	}

	now := sourcehostfake.Start(t)
	h, err := now.Client().CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "h", Path: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if err := now.Client().DeleteGroup(ctx, sourcehost.GroupID(h.ID)); err != nil {
		t.Fatal(err)
	}
	if _, err := now.Client().GetGroup(ctx, sourcehost.GroupID(h.ID)); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted at once without the option: %v", err)
	}
}
