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
