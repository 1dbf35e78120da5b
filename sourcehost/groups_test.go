package sourcehost_test

import (
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestGroupsSubgroupsAndProjectsByPath: a group, a subgroup in it and a
// project in the subgroup's namespace, each reachable by id and by its
// full path (group%2Fsub%2Fproject on the wire), as GitLab takes them.
func TestGroupsSubgroupsAndProjectsByPath(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	c := tg.c
	me, err := c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	top := "apitwin-test-" + unique()
	g, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "Top " + top, Path: top, Description: "the top", Visibility: sourcehost.Internal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.DeleteGroup(ctx, sourcehost.GroupID(g.ID)) })
	if g.FullPath != top || g.ParentID != 0 || g.Visibility != sourcehost.Internal || g.Description != "the top" || g.CreatedAt.IsZero() {
		t.Fatalf("group %+v", g)
	}
	sub, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "Sub", Path: "sub", ParentID: g.ID})
	if err != nil {
		t.Fatal(err)
	}
	if sub.FullPath != top+"/sub" || sub.ParentID != g.ID || sub.FullName != "Top "+top+" / Sub" || sub.Visibility != sourcehost.Private {
		t.Fatalf("subgroup %+v", sub)
	}
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "app", NamespaceID: sub.ID, InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.PathWithNamespace != top+"/sub/app" || p.NameWithNamespace != "Top "+top+" / Sub / app" || p.Namespace.FullPath != top+"/sub" {
		t.Fatalf("project in the subgroup %+v (namespace %+v)", p, p.Namespace)
	}
	byPath, err := c.GetProject(ctx, sourcehost.ProjectPath(top+"/sub/app"), nil)
	if err != nil || byPath.ID != p.ID {
		t.Fatalf("the project by its path: %+v %v", byPath, err)
	}
	if _, err := c.ListIssues(ctx, sourcehost.ProjectPath(top+"/sub/app"), nil); err != nil {
		t.Fatalf("a project's issues by its path: %v", err)
	}
	got, err := c.GetGroup(ctx, sourcehost.GroupPath(top+"/sub"))
	if err != nil || got.ID != sub.ID || len(got.Projects) != 1 || got.Projects[0].ID != p.ID {
		t.Fatalf("the subgroup by its path: %+v %v", got, err)
	}

	subs, err := c.ListSubgroups(ctx, sourcehost.GroupID(g.ID), nil)
	if err != nil || len(subs.Items) != 1 || subs.Items[0].ID != sub.ID {
		t.Fatalf("subgroups %+v %v", subs, err)
	}
	projectIDs := func(opts *sourcehost.ListGroupProjectsOptions) []int64 {
		t.Helper()
		var out []int64
		for pr, err := range c.AllGroupProjects(ctx, sourcehost.GroupPath(top), opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, pr.ID)
		}
		return out
	}
	if got := projectIDs(nil); len(got) != 0 {
		t.Fatalf("the top group's own projects: %v", got)
	}
	if got := projectIDs(&sourcehost.ListGroupProjectsOptions{IncludeSubgroups: sourcehost.Ptr(true)}); !slices.Equal(got, []int64{p.ID}) {
		t.Fatalf("with its subgroups': %v", got)
	}
	members, err := c.ListGroupMembers(ctx, sourcehost.GroupID(g.ID), nil)
	if err != nil || len(members.Items) != 1 || members.Items[0].ID != me.ID || members.Items[0].AccessLevel != sourcehost.OwnerAccess {
		t.Fatalf("the group's members: %+v %v", members, err)
	}
	inherited, err := c.ListAllGroupMembers(ctx, sourcehost.GroupID(sub.ID), nil)
	if err != nil || len(inherited.Items) != 1 || inherited.Items[0].ID != me.ID || inherited.Items[0].AccessLevel != sourcehost.OwnerAccess {
		t.Fatalf("the subgroup's members with inherited ones: %+v %v", inherited, err)
	}

	renamed := top + "-renamed"
	up, err := c.UpdateGroup(ctx, sourcehost.GroupID(g.ID), &sourcehost.UpdateGroupRequest{Path: &renamed, Description: sourcehost.Ptr("moved")})
	if err != nil || up.FullPath != renamed || up.Description != "moved" {
		t.Fatalf("update %+v %v", up, err)
	}
	t.Cleanup(func() { _ = c.DeleteGroup(ctx, sourcehost.GroupID(g.ID)) })
	moved, err := c.GetProject(ctx, sourcehost.ProjectPath(renamed+"/sub/app"), nil)
	if err != nil || moved.ID != p.ID || moved.PathWithNamespace != renamed+"/sub/app" {
		t.Fatalf("the project after its group moved: %+v %v", moved, err)
	}

	if tg.fake == nil {
		return // a real server may keep a deleted group for days
	}
	if err := c.DeleteGroup(ctx, sourcehost.GroupID(g.ID)); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		func() error { _, err := c.GetGroup(ctx, sourcehost.GroupID(sub.ID)); return err }(),
		func() error { _, err := c.GetProject(ctx, pid(p), nil); return err }(),
	} {
		if !errors.Is(err, sourcehost.ErrNotFound) {
			t.Fatalf("after deleting the group: %v", err)
		}
	}
}

func TestGroupRefusals(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	clients, _ := users(t, srv, "alice", "dev", "outsider")
	if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "team", Visibility: "private",
		Members: []sourcehostfake.MemberSeed{{Username: "alice", AccessLevel: sourcehostfake.Owner}, {Username: "dev", AccessLevel: sourcehostfake.Developer}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "taken"}); err != nil {
		t.Fatal(err)
	}
	team := sourcehost.GroupPath("team")
	teamID := func() int64 {
		g, err := clients["alice"].GetGroup(ctx, team)
		if err != nil {
			t.Fatal(err)
		}
		return g.ID
	}()
	deep := teamID
	for range 19 { // 20 levels: team and 19 below it
		g, err := clients["alice"].CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "level", Path: "level", ParentID: deep})
		if err != nil {
			t.Fatal(err)
		}
		deep = g.ID
	}
	for _, tc := range []struct {
		name    string
		call    func() error
		status  int
		message string
	}{
		{"a private group to an outsider", func() error { _, err := clients["outsider"].GetGroup(ctx, team); return err },
			http.StatusNotFound, "404 Group Not Found"},
		{"an update by a developer", func() error {
			_, err := clients["dev"].UpdateGroup(ctx, team, &sourcehost.UpdateGroupRequest{Name: sourcehost.Ptr("mine")})
			return err
		}, http.StatusForbidden, "403 Forbidden"},
		{"a deletion by a developer", func() error { return clients["dev"].DeleteGroup(ctx, team) }, http.StatusForbidden, "403 Forbidden"},
		{"a subgroup by a developer", func() error {
			_, err := clients["dev"].CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "s", Path: "s", ParentID: teamID})
			return err
		}, http.StatusForbidden, "403 Forbidden"},
		{"a path a user holds", func() error {
			_, err := clients["alice"].CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "t", Path: "taken"})
			return err
		}, http.StatusBadRequest, "path has already been taken"},
		{"a subgroup more visible than its parent", func() error {
			_, err := clients["alice"].CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "p", Path: "p", ParentID: teamID, Visibility: sourcehost.Public})
			return err
		}, http.StatusBadRequest, "visibility_level public is not allowed since the parent group has a private visibility."},
		{"a 21st level", func() error {
			_, err := clients["alice"].CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "d", Path: "d", ParentID: deep})
			return err
		}, http.StatusBadRequest, "parent_id has too deep level of nesting"},
		{"a bad path", func() error {
			_, err := clients["alice"].CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "b", Path: "-bad.git"})
			return err
		}, http.StatusBadRequest, "path can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'"},
		{"no such parent", func() error {
			_, err := clients["alice"].CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "n", Path: "n", ParentID: 9999})
			return err
		}, http.StatusNotFound, "404 Group Not Found"},
	} {
		status, msg := statusOf(tc.call())
		if status != tc.status || msg != tc.message {
			t.Errorf("%s: %d %q, want %d %q", tc.name, status, msg, tc.status, tc.message)
		}
	}
}

func TestListGroupsAsUsersSeeThem(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	clients, _ := users(t, srv, "alice")
	for _, g := range []sourcehostfake.GroupSeed{
		{Path: "zeta", Visibility: "public"},
		{Path: "alpha", Visibility: "internal"},
		{Path: "mine", Visibility: "private", Members: []sourcehostfake.MemberSeed{{Username: "alice", AccessLevel: sourcehostfake.Reporter}}},
		{Path: "hidden", Visibility: "private"},
		{Path: "inner", Parent: "mine", Visibility: "private"},
	} {
		if _, err := srv.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	paths := func(c *sourcehost.Client, opts *sourcehost.ListGroupsOptions) []string {
		t.Helper()
		var out []string
		for g, err := range c.AllGroups(ctx, opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, g.FullPath)
		}
		return out
	}
	anon, err := sourcehost.New(srv.URL(), sourcehost.WithHTTPClient(srv.RawClient()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		c    *sourcehost.Client
		opts *sourcehost.ListGroupsOptions
		want []string
	}{
		{"the admin: all, by name", srv.Client(), nil, []string{"alpha", "hidden", "mine/inner", "mine", "zeta"}},
		{"the admin: top-level, by path, descending", srv.Client(), &sourcehost.ListGroupsOptions{TopLevelOnly: sourcehost.Ptr(true), OrderBy: "path", Sort: "desc"},
			[]string{"zeta", "mine", "hidden", "alpha"}},
		{"a user: those they are a member of", clients["alice"], nil, []string{"mine/inner", "mine"}},
		{"a user: all they see", clients["alice"], &sourcehost.ListGroupsOptions{AllAvailable: sourcehost.Ptr(true)},
			[]string{"alpha", "mine/inner", "mine", "zeta"}},
		{"a user: searching", clients["alice"], &sourcehost.ListGroupsOptions{AllAvailable: sourcehost.Ptr(true), Search: "ALP"}, []string{"alpha"}},
		{"a user: at least developer", clients["alice"], &sourcehost.ListGroupsOptions{MinAccessLevel: sourcehost.DeveloperAccess}, nil},
		{"anonymous: public ones", anon, nil, []string{"zeta"}},
	} {
		if got := paths(tc.c, tc.opts); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestGroupsAndTokensCountAgainstMaxRecords: a group is a namespace and a
// token a token under WithMaxRecords: one past the bound is refused as the
// real service refuses a record past a limit, and nothing is made.
func TestGroupsAndTokensCountAgainstMaxRecords(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, control.WithMaxRecords(2)) // root and its namespace and token take one each
	c := srv.Client()
	if _, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "one", Path: "one"}); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "two", Path: "two"})
	if status, msg := statusOf(err); status != http.StatusBadRequest || msg != "Maximum number of namespaces (2) exceeded" {
		t.Fatalf("a group past the bound: %d %q", status, msg)
	}
	me, err := c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req := &sourcehost.CreatePersonalAccessTokenRequest{Name: "t", Scopes: []string{sourcehost.ScopeReadAPI}}
	if _, err := c.CreatePersonalAccessToken(ctx, me.ID, req); err != nil {
		t.Fatal(err)
	}
	_, err = c.CreatePersonalAccessToken(ctx, me.ID, req)
	if status, msg := statusOf(err); status != http.StatusBadRequest || msg != "Maximum number of personal access tokens (2) exceeded" {
		t.Fatalf("a token past the bound: %d %q", status, msg)
	}
	if err := c.DeleteGroup(ctx, sourcehost.GroupPath("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateGroup(ctx, &sourcehost.CreateGroupRequest{Name: "two", Path: "two"}); err != nil {
		t.Fatalf("a deleted group makes room: %v", err)
	}
}

// TestGroupVisibilityBetweenParentAndChildren: a group is never more
// visible than its parent, nor less than its subgroups and projects.
func TestGroupVisibilityBetweenParentAndChildren(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	c := srv.Client()
	for _, g := range []sourcehostfake.GroupSeed{{Path: "top", Visibility: "internal"}, {Path: "sub", Parent: "top", Visibility: "internal"}} {
		if _, err := srv.AddGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.AddGroup(sourcehostfake.GroupSeed{Path: "loud", Parent: "top", Visibility: "public"}); err == nil {
		t.Fatal("a seed more visible than its parent was taken")
	}
	update := func(g string, v sourcehost.Visibility) (int, string) {
		_, err := c.UpdateGroup(ctx, sourcehost.GroupPath(g), &sourcehost.UpdateGroupRequest{Visibility: v})
		return statusOf(err)
	}
	for _, tc := range []struct {
		group   string
		to      sourcehost.Visibility
		status  int
		message string
	}{
		{"top", sourcehost.Private, http.StatusBadRequest, "visibility_level private is not allowed since there are sub-groups with higher visibility."},
		{"top/sub", sourcehost.Public, http.StatusBadRequest, "visibility_level public is not allowed since the parent group has a internal visibility."},
		{"top", sourcehost.Public, 0, ""},
		{"top/sub", sourcehost.Public, 0, ""},
	} {
		if status, msg := update(tc.group, tc.to); status != tc.status || tc.status != 0 && msg != tc.message {
			t.Errorf("%s to %s: %d %q, want %d %q", tc.group, tc.to, status, msg, tc.status, tc.message)
		}
	}
	sub, err := c.GetGroup(ctx, sourcehost.GroupPath("top/sub"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "open", NamespaceID: sub.ID, Visibility: sourcehost.Public}); err != nil {
		t.Fatal(err)
	}
	if status, msg := update("top/sub", sourcehost.Internal); status != http.StatusBadRequest ||
		msg != "visibility_level internal is not allowed since this group contains projects with higher visibility." {
		t.Fatalf("a group below its project's visibility: %d %q", status, msg)
	}
}
