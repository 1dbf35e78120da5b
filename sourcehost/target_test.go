package sourcehost_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// target is where a behaviour test runs: the fake by default, or a real
// server when SOURCEHOST_URL and SOURCEHOST_TOKEN (or SOURCEHOST_TEST_URL
// and SOURCEHOST_TEST_TOKEN) are set (the token needs the api scope; tests
// create projects with unique names).
type target struct {
	c    *sourcehost.Client
	fake *sourcehostfake.Server // nil against a real server
}

func newTarget(t *testing.T, opts ...sourcehostfake.Option) *target {
	t.Helper()
	if url, token := realServer(); url != "" && token != "" {
		c, err := sourcehost.New(url, sourcehost.WithToken(token))
		if err != nil {
			t.Fatal(err)
		}
		return &target{c: c}
	}
	srv := sourcehostfake.Start(t, opts...)
	return &target{c: srv.Client(), fake: srv}
}

// realServer is the address and token of a real server to run the
// behaviour tests against, or "" and "".
func realServer() (url, token string) {
	for _, names := range [][2]string{{"SOURCEHOST_URL", "SOURCEHOST_TOKEN"}, {"SOURCEHOST_TEST_URL", "SOURCEHOST_TEST_TOKEN"}} {
		if url, token = os.Getenv(names[0]), os.Getenv(names[1]); url != "" && token != "" {
			return url, token
		}
	}
	return "", ""
}

// needFake returns the fake, skipping the test against a real server,
// for tests that use the fake's controls.
func (tg *target) needFake(t *testing.T) *sourcehostfake.Server {
	t.Helper()
	if tg.fake == nil {
		t.Skip("uses the fake's controls")
	}
	return tg.fake
}

// project creates a project with a unique name and an initial commit.
func (tg *target) project(t *testing.T, visibility sourcehost.Visibility) *sourcehost.Project {
	t.Helper()
	p, err := tg.c.CreateProject(context.Background(), &sourcehost.CreateProjectRequest{
		Name: "apitwin-test-" + unique(), Visibility: visibility, InitializeWithReadme: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func unique() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func pid(p *sourcehost.Project) sourcehost.ProjectID { return sourcehost.ProjectID(p.ID) }

var ctx = context.Background()
