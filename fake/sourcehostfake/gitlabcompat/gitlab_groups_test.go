package gitlabcompat_test

import (
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// TestGitLabClientGroups: the published client makes a group and a
// subgroup, a project in the subgroup's namespace, reads them by path,
// lists them, updates and deletes the group.
func TestGitLabClientGroups(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	g, _, err := gl.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("Team"), Path: gitlab.Ptr("team"),
		Visibility: gitlab.Ptr(gitlab.InternalVisibility)})
	if err != nil || g.FullPath != "team" || g.Visibility != gitlab.InternalVisibility || g.CreatedAt == nil {
		t.Fatalf("create %+v %v", g, err)
	}
	sub, _, err := gl.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("Backend"), Path: gitlab.Ptr("backend"), ParentID: gitlab.Ptr(g.ID)})
	if err != nil || sub.FullPath != "team/backend" || sub.ParentID != g.ID || sub.FullName != "Team / Backend" {
		t.Fatalf("subgroup %+v %v", sub, err)
	}
	p, _, err := gl.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.Ptr("api"), NamespaceID: gitlab.Ptr(sub.ID)})
	if err != nil || p.PathWithNamespace != "team/backend/api" || p.Namespace.FullPath != "team/backend" {
		t.Fatalf("project %+v %v", p, err)
	}
	if got, _, err := gl.Projects.GetProject("team/backend/api", nil); err != nil || got.ID != p.ID {
		t.Fatalf("project by path %+v %v", got, err)
	}
	//lint:ignore SA1019 GitLab's GET /groups/:id still answers projects, and clients still read them
	if got, _, err := gl.Groups.GetGroup("team/backend", nil); err != nil || got.ID != sub.ID || len(got.Projects) != 1 {
		t.Fatalf("group by path %+v %v", got, err)
	}
	groups, resp, err := gl.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.Ptr("team")})
	if err != nil || len(groups) != 1 || groups[0].ID != g.ID || resp.TotalItems != 1 {
		t.Fatalf("list %+v %v", groups, err)
	}
	subs, _, err := gl.Groups.ListSubGroups(g.ID, nil)
	if err != nil || len(subs) != 1 || subs[0].ID != sub.ID {
		t.Fatalf("subgroups %+v %v", subs, err)
	}
	projects, _, err := gl.Groups.ListGroupProjects("team", &gitlab.ListGroupProjectsOptions{IncludeSubGroups: gitlab.Ptr(true)})
	if err != nil || len(projects) != 1 || projects[0].ID != p.ID {
		t.Fatalf("group projects %+v %v", projects, err)
	}
	members, _, err := gl.Groups.ListGroupMembers(g.ID, nil)
	if err != nil || len(members) != 1 || members[0].Username != "root" || members[0].AccessLevel != gitlab.OwnerPermissions {
		t.Fatalf("members %+v %v", members, err)
	}
	up, _, err := gl.Groups.UpdateGroup(g.ID, &gitlab.UpdateGroupOptions{Description: gitlab.Ptr("all of us")})
	if err != nil || up.Description != "all of us" {
		t.Fatalf("update %+v %v", up, err)
	}
	if resp, err := gl.Groups.DeleteGroup(g.ID, nil); err != nil || resp.StatusCode != 202 {
		t.Fatalf("delete %v %v", resp, err)
	}
	if _, resp, err := gl.Groups.GetGroup(sub.ID, nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("a deleted group's subgroup: %v", err)
	}
}

// TestGitLabClientUsersTokensAndSudo: users by username, a token made by
// the admin for a user with the scopes asked, listed and revoked, and
// sudo, with the published client's own ways of sending them (its
// WithSudo, an OAuth client).
func TestGitLabClientUsersTokensAndSudo(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	uid, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	users, _, err := gl.Users.ListUsers(&gitlab.ListUsersOptions{Username: gitlab.Ptr("alice"), Active: gitlab.Ptr(true)})
	if err != nil || len(users) != 1 || users[0].ID != uid {
		t.Fatalf("users %+v %v", users, err)
	}
	if u, _, err := gl.Users.GetUser(uid, gitlab.GetUsersOptions{}); err != nil || u.Username != "alice" {
		t.Fatalf("user %+v %v", u, err)
	}
	expires := gitlab.ISOTime(srv.Clock().Now().AddDate(0, 0, 30))
	tok, _, err := gl.Users.CreatePersonalAccessToken(uid, &gitlab.CreatePersonalAccessTokenOptions{Name: gitlab.Ptr("ci"),
		Scopes: &[]string{"read_api"}, ExpiresAt: &expires})
	if err != nil || tok.Token == "" || len(tok.Scopes) != 1 || tok.Scopes[0] != "read_api" || tok.ExpiresAt == nil {
		t.Fatalf("token %+v %v", tok, err)
	}
	//lint:ignore SA1019 the constructor most users still call: it sends the token as an OAuth bearer
	oauth, err := gitlab.NewOAuthClient(tok.Token, gitlab.WithBaseURL(srv.URL()+"/api/v4"), gitlab.WithoutRetries(), gitlab.WithHTTPClient(srv.RawClient()))
	if err != nil {
		t.Fatal(err)
	}
	self, _, err := oauth.PersonalAccessTokens.GetSinglePersonalAccessToken()
	if err != nil || self.ID != tok.ID {
		t.Fatalf("the token as an OAuth bearer reads itself: %+v %v", self, err)
	}
	if _, resp, err := oauth.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.Ptr("x")}); err == nil || resp.StatusCode != 403 {
		t.Fatalf("read_api writing: %v", err)
	}
	list, _, err := gl.PersonalAccessTokens.ListPersonalAccessTokens(&gitlab.ListPersonalAccessTokensOptions{UserID: gitlab.Ptr(uid)})
	if err != nil || len(list) != 1 || list[0].ID != tok.ID {
		t.Fatalf("alice's tokens %+v %v", list, err)
	}
	if _, err := gl.PersonalAccessTokens.RevokePersonalAccessTokenByID(tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := oauth.Users.CurrentUser(); err == nil || resp.StatusCode != 401 {
		t.Fatalf("a revoked token: %v", err)
	}

	sudoToken, err := srv.IssueToken(sourcehostfake.RootUsername, "api", "sudo")
	if err != nil {
		t.Fatal(err)
	}
	admin, err := gitlab.NewClient(sudoToken, gitlab.WithBaseURL(srv.URL()+"/api/v4"), gitlab.WithoutRetries(), gitlab.WithHTTPClient(srv.RawClient()))
	if err != nil {
		t.Fatal(err)
	}
	me, _, err := admin.Users.CurrentUser(gitlab.WithSudo("alice"))
	if err != nil || me.Username != "alice" {
		t.Fatalf("sudo alice: %+v %v", me, err)
	}
	if _, resp, err := gl.Users.CurrentUser(gitlab.WithSudo(uid)); err == nil || resp.StatusCode != 403 {
		t.Fatalf("sudo without the scope: %v", err)
	}
}
