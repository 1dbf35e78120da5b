package sourcehostfake_test

import (
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// gitlabClient is the published GitLab Go client pointed at srv as root.
func gitlabClient(t *testing.T, srv *sourcehostfake.Server) *gitlab.Client {
	t.Helper()
	gl, err := gitlab.NewClient(srv.Token(), gitlab.WithBaseURL(srv.URL()+"/api/v4"), gitlab.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	return gl
}

func TestGitLabClientCurrentUser(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	u, _, err := gl.Users.CurrentUser()
	if err != nil || u.Username != "root" || !u.IsAdmin {
		t.Fatalf("current user %+v %v", u, err)
	}
}

func TestGitLabClientProjectMembers(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	uid, err := srv.AddUser(sourcehostfake.UserSeed{Username: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := gl.ProjectMembers.AddProjectMember(pid, &gitlab.AddProjectMemberOptions{UserID: uid, AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions)})
	if err != nil || m.Username != "alice" || m.AccessLevel != gitlab.DeveloperPermissions || m.CreatedAt == nil {
		t.Fatalf("add %+v %v", m, err)
	}
	_, resp, err := gl.ProjectMembers.AddProjectMember(pid, &gitlab.AddProjectMemberOptions{UserID: uid, AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions)})
	if err == nil || resp.StatusCode != 409 {
		t.Fatalf("added twice: %v", err)
	}
	m, _, err = gl.ProjectMembers.EditProjectMember(pid, uid, &gitlab.EditProjectMemberOptions{AccessLevel: gitlab.Ptr(gitlab.MaintainerPermissions), ExpiresAt: gitlab.Ptr("2030-01-31")})
	if err != nil || m.AccessLevel != gitlab.MaintainerPermissions || m.ExpiresAt == nil || m.ExpiresAt.String() != "2030-01-31" {
		t.Fatalf("edit %+v %v", m, err)
	}
	list, resp, err := gl.ProjectMembers.ListProjectMembers(pid, &gitlab.ListProjectMembersOptions{})
	if err != nil || len(list) != 2 || resp.TotalItems != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
	all, _, err := gl.ProjectMembers.ListAllProjectMembers(pid, nil)
	if err != nil || len(all) != 2 {
		t.Fatalf("all %+v %v", all, err)
	}
	if m, _, err = gl.ProjectMembers.GetProjectMember(pid, uid); err != nil || m.ID != uid {
		t.Fatalf("get %+v %v", m, err)
	}
	if m, _, err = gl.ProjectMembers.GetInheritedProjectMember(pid, uid); err != nil || m.ID != uid {
		t.Fatalf("get inherited %+v %v", m, err)
	}
	if _, err := gl.ProjectMembers.DeleteProjectMember(pid, uid); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := gl.ProjectMembers.GetProjectMember(pid, uid); err == nil || resp.StatusCode != 404 {
		t.Fatalf("deleted member: %v", err)
	}
}
