package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// TestEmptyTenantIsTheServersChoice (issue 37, finding 4): a user who
// gives no tenant logs in to the server's default tenant, whatever it is
// called: cloudctl sends none and fills in no default of its own.
func TestEmptyTenantIsTheServersChoice(t *testing.T) {
	t.Parallel()
	srv := startFake(t, cloudauthfake.WithDefaultTenant("corp"))
	c := newCLI(t, srv)
	r := c.run(cloudauthfake.AdminPassword, "auth", "login", "--url", srv.URL(), "-u", "admin", "--password-stdin")
	if r.code != 0 || r.stdout != "Logged in to "+srv.URL()+" as admin (tenant corp)\n" {
		t.Fatalf("login without a tenant: %+v", r)
	}
	logins := srv.RequestsTo(cloudauthfake.RouteLogin)
	if len(logins) != 1 {
		t.Fatalf("%d logins", len(logins))
	}
	var body map[string]any
	if err := json.Unmarshal(logins[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if _, sent := body["tenant"]; sent {
		t.Fatalf("a tenant was sent: %s", logins[0].Body)
	}
	// The profile remembers no tenant either: the next login is the
	// server's choice again.
	if r := c.must("", "profile", "current", "-v"); strings.Contains(r.stdout, "corp") {
		t.Fatalf("the profile holds the server's default: %q", r.stdout)
	}

	// At the prompt, an empty tenant is the server's choice too.
	c = newCLI(t, srv)
	r = c.must("admin\n"+cloudauthfake.AdminPassword+"\n"+srv.URL()+"\n\n", "auth", "login")
	if want := "Username: \nPassword: \nServer URL: \nTenant (empty: the server's default): \n"; r.stderr != want {
		t.Fatalf("prompts %q, want %q", r.stderr, want)
	}
	if r.stdout != "Logged in to "+srv.URL()+" as admin (tenant corp)\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
}

// TestNoDefaultTenantInHelp: the help names no tenant of its own.
func TestNoDefaultTenantInHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	for _, args := range [][]string{{"--help"}, {"auth", "login", "--help"}, {"profile", "create", "--help"}} {
		r := c.must("", args...)
		if !strings.Contains(r.stdout, "server's default") {
			t.Fatalf("%v does not say an empty tenant is the server's default:\n%s", args, r.stdout)
		}
	}
}
