package sourcehost_test

import (
	"net/http"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
)

// TestProjectNoMoreVisibleThanItsGroup: a project in a group may not be
// more visible than the group, as GitLab's Project validation
// (visibility_level_allowed_by_group) refuses it: creating or updating one
// so is 400 {"message":{"visibility_level":["public is not allowed in a
// private group."]}}; transferring a project into a less visible group
// lowers it to the group's visibility (GitLab's TransferService), and a
// fork into one is made at most as visible as it.
func TestProjectNoMoreVisibleThanItsGroup(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	g, err := tg.c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "vis-" + unique(), Path: "vis-" + unique(), Visibility: sourcehost.Internal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.c.DeleteGroup(ctx, sourcehost.GroupID(g.ID)) })
	const refused = "visibility_level public is not allowed in a internal group."
	_, err = tg.c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "loud-" + unique(), NamespaceID: g.ID, Visibility: sourcehost.Public})
	if status, msg := statusOf(err); status != http.StatusBadRequest || msg != refused {
		t.Fatalf("a public project in an internal group: %d %q", status, msg)
	}
	in, err := tg.c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "quiet-" + unique(), NamespaceID: g.ID, Visibility: sourcehost.Internal})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tg.c.UpdateProject(ctx, pid(in), &sourcehost.UpdateProjectRequest{Visibility: sourcehost.Public})
	if status, msg := statusOf(err); status != http.StatusBadRequest || msg != refused {
		t.Fatalf("made public in an internal group: %d %q", status, msg)
	}
	if got, err := tg.c.GetProject(ctx, pid(in), nil); err != nil || got.Visibility != sourcehost.Internal {
		t.Fatalf("after the refusal %+v %v", got, err)
	}

	pub := tg.project(t, sourcehost.Public)
	moved, err := tg.c.TransferProject(ctx, pid(pub), g.FullPath)
	if err != nil {
		t.Fatal(err)
	}
	if moved.Visibility != sourcehost.Internal || moved.Namespace.ID != g.ID {
		t.Fatalf("transferred into an internal group: %s in %d", moved.Visibility, moved.Namespace.ID)
	}
	src := tg.project(t, sourcehost.Public)
	fork, err := tg.c.ForkProject(ctx, pid(src), &sourcehost.ForkProjectRequest{NamespaceID: g.ID, Path: "fork-" + unique(), Name: "fork-" + unique()})
	if err != nil {
		t.Fatal(err)
	}
	if fork.Visibility != sourcehost.Internal {
		t.Fatalf("a fork into an internal group is %s", fork.Visibility)
	}
}
