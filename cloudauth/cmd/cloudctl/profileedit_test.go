package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
)

// TestProfileUpdate: only the settings given change; --tenant "" clears
// the tenant; a new URL warns about the token stored for the old one.
func TestProfileUpdate(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.must("", "profile", "create", "prod", "--url", srv.URL(), "--tenant", "acme", "-u", "admin")
	r := c.must("", "profile", "update", "prod", "--tenant", "")
	if r.stdout != "Updated profile prod ("+srv.URL()+", tenant the server's default, username admin)\n" || r.stderr != "" {
		t.Fatalf("update tenant: %+v", r)
	}
	c.login()
	r = c.must("", "profile", "update", "prod", "--url", "https://other.example.com", "-u", "bob")
	if !strings.Contains(r.stdout, "Updated profile prod (https://other.example.com, tenant default, username bob)") ||
		!strings.Contains(r.stderr, "the token stored for profile prod is from "+srv.URL()) {
		t.Fatalf("update URL: %+v", r)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"profile", "update", "prod"}, 2, "needs --url, --tenant or --username"},
		{[]string{"profile", "update", "nope", "--tenant", "x"}, 1, `profile "nope" does not exist`},
		{[]string{"profile", "update", "prod", "--url", "ftp://x"}, 1, "ftp"},
	} {
		if r := c.run("", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Fatalf("%v: %+v", tc.args, r)
		}
	}
}

// TestProfileRename: the profile, its unknown fields, its being current
// and its stored token all move to the new name.
func TestProfileRename(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.login() // profile "default", current, with a token
	cfgPath := filepath.Join(c.dir, cloudauth.ConfigFileName)
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	// A field of a newer cloudctl stays with the profile.
	b = []byte(strings.Replace(string(b), `"url":`, `"future":7,"url":`, 1))
	if err := os.WriteFile(cfgPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	tok := c.must("", "auth", "token").stdout
	if r := c.must("", "profile", "rename", "default", "work"); r.stdout != "Renamed profile default to work\n" {
		t.Fatalf("rename: %+v", r)
	}
	if r := c.must("", "profile", "current"); r.stdout != "work\n" {
		t.Fatalf("current: %q", r.stdout)
	}
	if got := c.must("", "auth", "token").stdout; got != tok {
		t.Fatal("the token did not move with the profile")
	}
	if _, err := cloudauth.NewStore(keyringService, filepath.Join(c.dir, "tokens"), c.keyring).Load("default"); err == nil {
		t.Fatal("the token stayed under the old name")
	}
	if b, _ := os.ReadFile(cfgPath); !strings.Contains(string(b), `"future"`) {
		t.Fatalf("the unknown field was lost: %s", b)
	}
	c.must("", "profile", "create", "other", "--url", srv.URL())
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"profile", "rename", "work", "other"}, 1, `profile "other" already exists`},
		{[]string{"profile", "rename", "nope", "x"}, 1, `profile "nope" does not exist`},
		{[]string{"profile", "rename", "work", "bad name"}, 2, "invalid profile name"},
		{[]string{"profile", "rename", "work"}, 2, "takes 2 arguments"},
	} {
		if r := c.run("", tc.args...); r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Fatalf("%v: %+v", tc.args, r)
		}
	}
}
