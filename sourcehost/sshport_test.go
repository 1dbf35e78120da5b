package sourcehost_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestProjectSSHURLOnAnotherPort: with SSH on a port other than 22
// (sourcehostfake.WithSSHPort), ssh_url_to_repo is the ssh:// form GitLab
// writes then, ssh://git@host:port/ns/p.git; port 22 keeps the scp form.
func TestProjectSSHURLOnAnotherPort(t *testing.T) {
	t.Parallel()
	for port, form := range map[int]string{2222: "ssh://git@%h:2222/%p.git", 22: "git@%h:%p.git"} {
		srv := sourcehostfake.Start(t, sourcehostfake.WithSSHPort(port))
		c := srv.Client()
		p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		u, err := url.Parse(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		want := strings.NewReplacer("%h", u.Hostname(), "%p", p.PathWithNamespace).Replace(form)
		if p.SSHURLToRepo != want {
			t.Errorf("port %d: ssh_url_to_repo %q, want %q", port, p.SSHURLToRepo, want)
		}
		if page, err := c.ListProjects(ctx, nil); err != nil || len(page.Items) != 1 || page.Items[0].SSHURLToRepo != want {
			t.Errorf("port %d: listed %+v %v", port, page, err)
		}
	}
	for _, bad := range []int{-1, 65536} {
		if _, err := sourcehostfake.New(sourcehostfake.WithSSHPort(bad)); err == nil {
			t.Errorf("WithSSHPort(%d) taken", bad)
		}
	}
}
