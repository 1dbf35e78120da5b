package sourcehost_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestUpdateProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	newName, newPath := p.Name+"-renamed", p.Path+"-renamed"
	got, err := tg.c.UpdateProject(ctx, pid(p), &sourcehost.UpdateProjectRequest{Name: &newName, Path: &newPath,
		Description: sourcehost.Ptr("the shop"), Visibility: sourcehost.Internal, Topics: &[]string{"go", "web"}})
	if err != nil || got.Name != newName || got.Path != newPath || got.Description != "the shop" || got.Visibility != sourcehost.Internal ||
		!slices.Equal(got.Topics, []string{"go", "web"}) || !strings.HasSuffix(got.PathWithNamespace, "/"+newPath) {
		t.Fatalf("updated %+v %v", got, err)
	}
	// The project answers at its new path, not at its old one.
	if byPath, err := tg.c.GetProject(ctx, sourcehost.ProjectPath(got.PathWithNamespace), nil); err != nil || byPath.ID != p.ID {
		t.Fatalf("by its new path: %+v %v", byPath, err)
	}
	if _, err := tg.c.GetProject(ctx, sourcehost.ProjectPath(p.PathWithNamespace), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("by its old path: %v", err)
	}

	var e *sourcehost.Error
	if _, err := tg.c.UpdateProject(ctx, pid(p), &sourcehost.UpdateProjectRequest{DefaultBranch: sourcehost.Ptr("no-such-branch")}); !errors.As(err, &e) ||
		e.StatusCode != 400 || e.Message != "Could not set the default branch" {
		t.Fatalf("a default branch that is not there: %v", err)
	}
	other := tg.project(t, sourcehost.Private)
	if _, err := tg.c.UpdateProject(ctx, pid(p), &sourcehost.UpdateProjectRequest{Path: &other.Path}); !errors.As(err, &e) || e.StatusCode != 400 ||
		!slices.Contains(e.Fields["path"], "has already been taken") {
		t.Fatalf("another project's path: %v", err)
	}
	if _, err := tg.c.UpdateProject(ctx, pid(p), &sourcehost.UpdateProjectRequest{Name: sourcehost.Ptr("-bad name!")}); !errors.As(err, &e) || len(e.Fields["name"]) == 0 {
		t.Fatalf("a bad name: %v", err)
	}
	if err := tg.c.Do(ctx, "PUT", "/projects/"+itoa(p.ID), nil, map[string]any{}, nil); !errors.As(err, &e) || e.StatusCode != 400 {
		t.Fatalf("nothing to change: %v", err)
	}
	if _, err := tg.c.UpdateProject(ctx, pid(p), &sourcehost.UpdateProjectRequest{}); err == nil {
		t.Fatal("the client sent an update that changes nothing")
	}

	srv := tg.needFake(t)
	as, ids := users(t, srv, "devi")
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["devi"], AccessLevel: sourcehost.DeveloperAccess}); err != nil {
		t.Fatal(err)
	}
	if _, err := as["devi"].UpdateProject(ctx, pid(p), &sourcehost.UpdateProjectRequest{Description: sourcehost.Ptr("mine")}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a developer changes the project: %v", err)
	}
}

// DELETE /projects/:id answers 202 {"message":"202 Accepted"} and the
// project is gone (it was 405), with its records counted out.
func TestDeleteProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, control.WithMaxRecords(3))
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "bug"}); err != nil {
		t.Fatal(err)
	}
	var answer struct{ Message string }
	if err := tg.c.Do(ctx, "DELETE", "/projects/"+itoa(p.ID), nil, nil, &answer); err != nil || answer.Message != "202 Accepted" {
		t.Fatalf("delete: %+v %v", answer, err)
	}
	if _, err := tg.c.GetProject(ctx, pid(p), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a deleted project: %v", err)
	}
	if err := tg.c.DeleteProject(ctx, pid(p)); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted twice: %v", err)
	}

	srv := tg.needFake(t)
	// Its records made room: three more projects fit under the bound of
	// three, where the deleted one still held one.
	for range 3 {
		q := tg.project(t, sourcehost.Private)
		if _, err := tg.c.CreateIssue(ctx, pid(q), &sourcehost.CreateIssueRequest{Title: "bug"}); err != nil {
			t.Fatal(err)
		}
		if err := tg.c.DeleteProject(ctx, pid(q)); err != nil {
			t.Fatal(err)
		}
	}
	as, ids := users(t, srv, "mara")
	q := tg.project(t, sourcehost.Private)
	if _, err := tg.c.AddProjectMember(ctx, pid(q), &sourcehost.AddProjectMemberRequest{UserID: ids["mara"], AccessLevel: sourcehost.MaintainerAccess}); err != nil {
		t.Fatal(err)
	}
	if err := as["mara"].DeleteProject(ctx, pid(q)); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a maintainer deletes the project: %v", err)
	}

	// A deleted project's pipeline moves on no more, and its hooks hear
	// nothing more.
	rc := newReceiver(t, "")
	if _, err := tg.c.AddProjectHook(ctx, pid(q), &sourcehost.AddProjectHookRequest{URL: rc.srv.URL, PushEvents: sourcehost.Ptr(false), PipelineEvents: sourcehost.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.PushFile(q.ID, q.DefaultBranch, sourcehostfake.CIFile, "test:\n  script: go test ./...\n", "Add CI"); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	before := len(srv.Deliveries())
	if err := tg.c.DeleteProject(ctx, pid(q)); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(time.Hour)
	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	if after := len(srv.Deliveries()); after != before {
		t.Fatalf("%d deliveries after the project was deleted", after-before)
	}
}

func TestUnstarProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.UnstarProject(ctx, pid(p)); !errors.Is(err, sourcehost.ErrNotModified) {
		t.Fatalf("unstar a project not starred: %v", err)
	}
	if s, err := tg.c.StarProject(ctx, pid(p)); err != nil || s.StarCount != 1 {
		t.Fatalf("star %+v %v", s, err)
	}
	s, err := tg.c.UnstarProject(ctx, pid(p))
	if err != nil || s.StarCount != 0 {
		t.Fatalf("unstar %+v %v", s, err)
	}
	starred, err := tg.c.ListProjects(ctx, &sourcehost.ListProjectsOptions{Starred: sourcehost.Ptr(true)})
	if err != nil || slices.ContainsFunc(starred.Items, func(x *sourcehost.Project) bool { return x.ID == p.ID }) {
		t.Fatalf("starred after unstarring: %+v %v", starred, err)
	}
}

// An archived project reads as before and takes no writes to what it
// holds (403), until it is unarchived; its settings still change.
func TestArchiveProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	got, err := tg.c.ArchiveProject(ctx, pid(p))
	if err != nil || !got.Archived {
		t.Fatalf("archived %+v %v", got, err)
	}
	if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "bug"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("an issue in an archived project: %v", err)
	}
	if _, err := tg.c.CreateFile(ctx, pid(p), "x.txt", &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "x", CommitMessage: "x"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a commit to an archived project: %v", err)
	}
	if _, err := tg.c.CreateLabel(ctx, pid(p), &sourcehost.CreateLabelRequest{Name: "bug", Color: "#fff"}); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a label in an archived project: %v", err)
	}
	if g, err := tg.c.GetProject(ctx, pid(p), nil); err != nil || !g.Archived {
		t.Fatalf("read: %+v %v", g, err)
	}
	if _, err := tg.c.ListTree(ctx, pid(p), nil); err != nil {
		t.Fatalf("its code reads: %v", err)
	}
	if _, err := tg.c.UpdateProject(ctx, pid(p), &sourcehost.UpdateProjectRequest{Description: sourcehost.Ptr("old")}); err != nil {
		t.Fatalf("its settings: %v", err)
	}
	archived, err := tg.c.ListProjects(ctx, &sourcehost.ListProjectsOptions{Archived: sourcehost.Ptr(true), Owned: sourcehost.Ptr(true)})
	if err != nil || !slices.ContainsFunc(archived.Items, func(x *sourcehost.Project) bool { return x.ID == p.ID }) {
		t.Fatalf("archived=true: %+v %v", archived, err)
	}
	active, err := tg.c.ListProjects(ctx, &sourcehost.ListProjectsOptions{Archived: sourcehost.Ptr(false), Owned: sourcehost.Ptr(true)})
	if err != nil || slices.ContainsFunc(active.Items, func(x *sourcehost.Project) bool { return x.ID == p.ID }) {
		t.Fatalf("archived=false: %+v %v", active, err)
	}
	if got, err = tg.c.UnarchiveProject(ctx, pid(p)); err != nil || got.Archived {
		t.Fatalf("unarchived %+v %v", got, err)
	}
	if _, err := tg.c.CreateIssue(ctx, pid(p), &sourcehost.CreateIssueRequest{Title: "bug"}); err != nil {
		t.Fatalf("an issue once unarchived: %v", err)
	}

	srv := tg.needFake(t)
	as, ids := users(t, srv, "mara")
	if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids["mara"], AccessLevel: sourcehost.MaintainerAccess}); err != nil {
		t.Fatal(err)
	}
	if _, err := as["mara"].ArchiveProject(ctx, pid(p)); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a maintainer archives the project: %v", err)
	}
}

func TestTransferProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	as, ids := users(t, srv, "olga")
	if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "platform", Members: []sourcehostfake.MemberSeed{{Username: "olga", AccessLevel: sourcehostfake.Developer}}}); err != nil {
		t.Fatal(err)
	}
	p := tg.project(t, sourcehost.Private)
	got, err := tg.c.TransferProject(ctx, pid(p), "platform")
	if err != nil || got.PathWithNamespace != "platform/"+p.Path || got.Namespace.FullPath != "platform" || got.Namespace.Kind != "group" {
		t.Fatalf("transferred %+v %v", got, err)
	}
	if _, err := tg.c.GetProject(ctx, sourcehost.ProjectPath(p.PathWithNamespace), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("by its old path: %v", err)
	}
	var e *sourcehost.Error
	if _, err := tg.c.TransferProject(ctx, pid(p), "platform"); !errors.As(err, &e) || e.StatusCode != 400 ||
		e.Message != `Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}` {
		t.Fatalf("to where it is: %v", err)
	}
	if _, err := tg.c.TransferProject(ctx, pid(p), "nowhere"); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("to no namespace: %v", err)
	}
	// Back to root's namespace by id, where a project of that path may
	// not be made twice.
	back, err := tg.c.TransferProject(ctx, pid(p), itoa(p.Namespace.ID))
	if err != nil || back.PathWithNamespace != p.PathWithNamespace {
		t.Fatalf("back %+v %v", back, err)
	}
	// olga's own project cannot go to a group she only develops in.
	mine, err := as["olga"].CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := as["olga"].TransferProject(ctx, pid(mine), "platform"); !errors.As(err, &e) || e.StatusCode != 400 || !strings.Contains(e.Message, "permission") {
		t.Fatalf("to a group she may not make projects in: %v", err)
	}
	// To one she maintains she may; she stays the project's owner there.
	if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "tools", Members: []sourcehostfake.MemberSeed{{Username: "olga", AccessLevel: sourcehostfake.Maintainer}}}); err != nil {
		t.Fatal(err)
	}
	if moved, err := as["olga"].TransferProject(ctx, pid(mine), "tools"); err != nil || moved.PathWithNamespace != "tools/mine" {
		t.Fatalf("to a group she maintains: %+v %v", moved, err)
	}
	m, err := tg.c.GetProjectMember(ctx, pid(mine), ids["olga"])
	if err != nil || m.AccessLevel != sourcehost.OwnerAccess {
		t.Fatalf("the former owner's membership: %+v %v", m, err)
	}
	if _, err := as["olga"].ArchiveProject(ctx, pid(mine)); err != nil {
		t.Fatalf("the owner archives her moved project: %v", err)
	}
}

func TestForkProject(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	as, ids := users(t, srv, "rita", "bob")
	src := tg.project(t, sourcehost.Internal)
	if _, err := tg.c.AddProjectMember(ctx, pid(src), &sourcehost.AddProjectMemberRequest{UserID: ids["rita"], AccessLevel: sourcehost.ReporterAccess}); err != nil {
		t.Fatal(err)
	}
	fork, err := as["rita"].ForkProject(ctx, pid(src), &sourcehost.ForkProjectRequest{Visibility: sourcehost.Public})
	if err != nil || fork.ForkedFromProject == nil || fork.ForkedFromProject.ID != src.ID || fork.Namespace.FullPath != "rita" ||
		fork.Name != src.Name || fork.Visibility != sourcehost.Internal {
		t.Fatalf("fork %+v %v", fork, err)
	}
	// It holds the repository as it was.
	if f, err := as["rita"].GetFile(ctx, pid(fork), "README.md", fork.DefaultBranch); err != nil || f.FilePath != "README.md" {
		t.Fatalf("the fork's README: %+v %v", f, err)
	}
	if got, err := tg.c.GetProject(ctx, pid(src), nil); err != nil || got.ForksCount != 1 {
		t.Fatalf("the source after a fork: %+v %v", got, err)
	}
	if _, err := as["rita"].ForkProject(ctx, pid(src), nil); !errors.Is(err, sourcehost.ErrConflict) {
		t.Fatalf("forked twice into one namespace: %v", err)
	}
	named, err := as["rita"].ForkProject(ctx, pid(src), &sourcehost.ForkProjectRequest{Name: "other", Path: "other"})
	if err != nil || named.Path != "other" {
		t.Fatalf("a fork named otherwise: %+v %v", named, err)
	}
	forks, err := tg.c.ListProjectForks(ctx, pid(src), nil)
	if err != nil || len(forks.Items) != 2 {
		t.Fatalf("forks %+v %v", forks, err)
	}
	var all []int64
	for f, err := range tg.c.AllProjectForks(ctx, pid(src), &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, f.ID)
	}
	if len(all) != 2 {
		t.Fatalf("all forks %v", all)
	}
	if _, err := as["rita"].ForkProject(ctx, pid(src), &sourcehost.ForkProjectRequest{NamespacePath: "root", Path: "x"}); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("into another's namespace: %v", err)
	}
	private := tg.project(t, sourcehost.Private)
	if _, err := as["bob"].ForkProject(ctx, pid(private), nil); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a project bob cannot see: %v", err)
	}

	// A deleted source leaves its forks forks of nothing.
	if err := tg.c.DeleteProject(ctx, pid(src)); err != nil {
		t.Fatal(err)
	}
	if got, err := as["rita"].GetProject(ctx, pid(fork), nil); err != nil || got.ForkedFromProject != nil {
		t.Fatalf("a fork of a deleted project: %+v %v", got, err)
	}
}
