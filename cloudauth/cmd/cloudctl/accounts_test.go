package main

import (
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// TestAuthSwitch: a login as another user on a profile keeps the account
// before it; auth status lists it; auth switch makes it the active one and
// back; rename carries every account; another server drops them.
func TestAuthSwitch(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "bob@example.com", Password: "pw-bob"})
	srv.AddUser(cloudauthfake.UserSeed{Username: "carol", Password: "pw-carol"})
	c := newCLI(t, srv)
	if r := c.run("", "auth", "switch"); r.code != 1 || !strings.Contains(r.stderr, "no other account") {
		t.Fatalf("switch with one account: %+v", r)
	}
	c.login() // admin
	adminTok := c.must("", "auth", "token").stdout
	r := c.must("pw-bob", "auth", "login", "-u", "bob@example.com", "--password-stdin")
	if !strings.Contains(r.stdout, "Kept the login of admin on profile default") || !strings.Contains(r.stdout, "as bob@example.com") {
		t.Fatalf("second login: %+v", r)
	}
	bobTok := c.must("", "auth", "token").stdout
	if r := c.must("", "auth", "status"); !strings.Contains(r.stdout, "as bob@example.com") || !strings.Contains(r.stdout, "Also logged in as admin (cloudctl auth switch)") {
		t.Fatalf("status: %q", r.stdout)
	}
	if r := c.must("", "auth", "switch"); r.stdout != "Switched profile default to account admin on "+srv.URL()+"\n" {
		t.Fatalf("switch: %+v", r)
	}
	if c.must("", "auth", "token").stdout != adminTok {
		t.Fatal("the active token is not admin's after the switch")
	}
	if r := c.must("", "auth", "whoami", "-o", "json"); !strings.Contains(r.stdout, `"username": "admin"`) {
		t.Fatalf("whoami: %q", r.stdout)
	}
	c.must("pw-carol", "auth", "login", "-u", "carol", "--password-stdin")
	if r := c.run("", "auth", "switch"); r.code != 2 || !strings.Contains(r.stderr, "carol, active; bob@example.com, admin") {
		t.Fatalf("switch among three without --user: %+v", r)
	}
	if r := c.run("", "auth", "switch", "--user", "dave"); r.code != 1 || !strings.Contains(r.stderr, "dave is not logged in") {
		t.Fatalf("switch to a stranger: %+v", r)
	}
	c.must("", "auth", "switch", "--user", "bob@example.com")
	if c.must("", "auth", "token").stdout != bobTok {
		t.Fatal("the active token is not bob's")
	}
	// A rename carries every account.
	c.must("", "profile", "rename", "default", "work")
	c.must("", "auth", "switch", "--user", "admin")
	if c.must("", "auth", "token").stdout != adminTok {
		t.Fatal("admin's token did not move with the rename")
	}
	// A login to another server on the profile drops the others.
	other := startFake(t)
	c.srv = other
	r = c.must(cloudauthfake.AdminPassword, "auth", "login", "--url", other.URL(), "-u", "admin", "--password-stdin")
	if strings.Contains(r.stdout, "Kept") {
		t.Fatalf("login to another server: %q", r.stdout)
	}
	if r := c.must("", "auth", "status"); strings.Contains(r.stdout, "Also logged in") {
		t.Fatalf("status on another server: %q", r.stdout)
	}
}
