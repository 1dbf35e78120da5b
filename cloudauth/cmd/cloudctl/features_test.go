package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/version"
)

// storedToken reads the token cloudctl stored for a profile.
func (c *cli) storedToken(profile string) string {
	c.t.Helper()
	raw, err := cloudauth.NewStore(keyringService, filepath.Join(c.dir, "tokens"), c.keyring).Load(profile)
	if err != nil {
		c.t.Fatal(err)
	}
	return raw
}

// decode reads a command's JSON output.
func decode(t *testing.T, r result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	return m
}

func TestAuthToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	if r := c.run("", "auth", "token"); r.code != 4 || r.stdout != "" || !strings.Contains(r.stderr, "Not logged in (profile default)") {
		t.Fatalf("before login: %+v", r)
	}
	c.login()
	raw := c.storedToken("default")
	if r := c.must("", "auth", "token"); r.stdout != raw+"\n" || r.stderr != "" {
		t.Fatalf("token: %+v", r)
	}
	m := decode(t, c.must("", "auth", "token", "--output", "json"))
	if m["token"] != raw || m["profile"] != "default" || m["token_source"] != "the token store" || m["expires_at"] != "2026-05-01T09:30:00Z" {
		t.Fatalf("json: %v", m)
	}
	// CLI_TOKEN wins, as for every command.
	other, _ := srv.IssueToken("", "admin")
	c.env = map[string]string{"CLI_TOKEN": other}
	if r := c.must("", "auth", "token"); r.stdout != other+"\n" {
		t.Fatalf("CLI_TOKEN: %q", r.stdout)
	}
	c.env = nil
	srv.Clock().Advance(time.Hour)
	if r := c.run("", "auth", "token"); r.code != 4 || r.stdout != "" || !strings.Contains(r.stderr, "expired at 2026-05-01T09:30:00Z") {
		t.Fatalf("expired: %+v", r)
	}
}

func TestAuthWhoami(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "alice-pw", Tenant: "acme", Name: "Alice Liddell",
		Email: "alice@example.com", Roles: []string{"org_member", "viewer"}})
	c := newCLI(t, srv)
	if r := c.run("", "auth", "whoami"); r.code != 4 || !strings.Contains(r.stderr, "Not logged in") {
		t.Fatalf("before login: %+v", r)
	}
	c.must("alice-pw\n", "auth", "login", "--url", srv.URL(), "-u", "alice", "--tenant", "acme")
	r := c.must("", "auth", "whoami")
	want := "Username: alice\nName:     Alice Liddell\nEmail:    alice@example.com\nTenant:   acme\nRoles:    org_member, viewer\nServer:   " + srv.URL() + "\n"
	if r.stdout != want {
		t.Fatalf("whoami:\n%s\nwant:\n%s", r.stdout, want)
	}
	m := decode(t, c.must("", "auth", "whoami", "-o", "json"))
	if m["username"] != "alice" || m["sub"] != "alice" || m["tenant"] != "acme" || m["server_url"] != srv.URL() || len(m["roles"].([]any)) != 2 {
		t.Fatalf("json: %v", m)
	}
	srv.InjectFault(cloudauthfake.RouteUserInfo, control.Fault{Status: 500, Times: 2})
	if r := c.run("", "auth", "whoami"); r.code != 1 || !strings.Contains(r.stderr, "500") {
		t.Fatalf("server error: %+v", r)
	}
	srv.RevokeToken(c.storedToken("default"))
	if r := c.run("", "auth", "whoami"); r.code != 4 || !strings.Contains(r.stderr, "does not accept the token from the token store") {
		t.Fatalf("revoked: %+v", r)
	}
}

func TestProfileDelete(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.must("", "profile", "create", "dev", "--url", srv.URL(), "--tenant", "default", "-u", "admin")
	c.must("", "profile", "create", "prod", "--url", "https://cloud.example.com")
	c.must(cloudauthfake.AdminPassword+"\n", "auth", "login")
	raw := c.storedToken("dev")
	r := c.must("", "profile", "delete", "dev")
	want := "Revoked the stored token (profile dev) on " + srv.URL() + "\nRemoved the stored token (profile dev)\nDeleted profile dev\n" +
		"No profile is current now; choose one with: cloudctl profile use <name>\n"
	if r.stdout != want {
		t.Fatalf("delete:\n%s\nwant:\n%s", r.stdout, want)
	}
	if !srv.Revoked(raw) || c.keyring.Len() != 0 {
		t.Fatalf("revoked %v, %d keyring entries", srv.Revoked(raw), c.keyring.Len())
	}
	m := decode(t, c.must("", "profile", "list", "-o", "json"))
	if ps := m["profiles"].([]any); len(ps) != 1 || m["current_profile"] != "" {
		t.Fatalf("after delete: %v", m)
	}
	if r := c.run("", "profile", "delete", "dev"); r.code != 1 || r.stderr != "profile \"dev\" does not exist\n" {
		t.Fatalf("delete twice: %+v", r)
	}
	// A profile without a token, not current: deleted, nothing else said.
	if r := c.must("", "profile", "delete", "prod"); r.stdout != "Deleted profile prod\n" {
		t.Fatalf("%q", r.stdout)
	}
}

func TestOutputJSON(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	m := decode(t, c.run("", "auth", "status", "-o", "json"))
	if m["logged_in"] != false || m["profile"] != "default" || !strings.Contains(m["reason"].(string), "no token") {
		t.Fatalf("status before login: %v", m)
	}
	if m := decode(t, c.must("", "profile", "list", "-o", "json")); len(m["profiles"].([]any)) != 0 {
		t.Fatalf("empty list: %v", m)
	}
	c.login()
	m = decode(t, c.must("", "auth", "status", "--output=json"))
	if m["logged_in"] != true || m["issuer"] != srv.URL() || m["server_url"] != srv.URL() || m["subject"] != "admin" ||
		m["tenant"] != "default" || m["expires_at"] != "2026-05-01T09:30:00Z" || m["token_source"] != "the token store" {
		t.Fatalf("status: %v", m)
	}
	m = decode(t, c.must("", "profile", "list", "-o", "json"))
	p := m["profiles"].([]any)[0].(map[string]any)
	if m["current_profile"] != "default" || p["name"] != "default" || p["url"] != srv.URL() || p["current"] != true || p["username"] != "admin" {
		t.Fatalf("list: %v", m)
	}
	m = decode(t, c.must("", "profile", "current", "-o", "json"))
	if m["name"] != "default" || m["url"] != srv.URL() || m["source"] != "current profile" {
		t.Fatalf("current: %v", m)
	}
	srv.Clock().Advance(time.Hour)
	r := c.run("", "auth", "status", "-o", "json")
	if m := decode(t, r); r.code != 4 || m["logged_in"] != false || !strings.Contains(m["reason"].(string), "expired") {
		t.Fatalf("expired: %+v", r)
	}
}

func TestPasswordStdin(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "bob", Password: "two words\tand a tab", Tenant: "default"})
	c := newCLI(t, srv)
	r := c.must("two words\tand a tab\n", "auth", "login", "--password-stdin", "--url", srv.URL(), "-u", "bob")
	if r.stderr != "" || r.stdout != "Logged in to "+srv.URL()+" as bob (tenant default)\n" {
		t.Fatalf("%+v", r)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"pw", []string{"--url", srv.URL()}, 2, "Error: --password-stdin needs a username"},
		{"pw", []string{"-u", "bob", "--profile", "nope"}, 1, `profile "nope" does not exist`},
		{"", []string{"--url", srv.URL(), "-u", "bob"}, 1, "--password-stdin: standard input is empty"},
		{"wrong\n", []string{"--url", srv.URL(), "-u", "bob"}, 1, "Authentication failed: 401 Unauthorized"},
		{strings.Repeat("x", maxPasswordSize+1), []string{"--url", srv.URL(), "-u", "bob"}, 1, "more than 65536 bytes"},
	} {
		c := newCLI(t, srv)
		r := c.run(tc.stdin, append([]string{"auth", "login", "--password-stdin"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "Password:") {
			t.Errorf("%v: %+v", tc.args, r)
		}
	}
	// Without --url but with a profile that has one.
	c = newCLI(t, srv)
	c.must("", "profile", "create", "p", "--url", srv.URL(), "-u", "bob")
	if r := c.must("two words\tand a tab", "auth", "login", "--password-stdin"); !strings.Contains(r.stdout, "as bob") {
		t.Fatalf("%+v", r)
	}
}

func TestTimeoutFlag(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	r := c.run("pw\n", "auth", "login", "--timeout", "50ms", "--url", silentServer(t), "-u", "admin", "--tenant", "t")
	if r.code != 1 || r.stderr != "Password: \nAuthentication failed: Connection timeout\n" {
		t.Fatalf("%+v", r)
	}
	for _, bad := range []string{"-1s", "soon"} {
		if r := c.run("", "auth", "status", "--timeout", bad); r.code != 2 || !strings.Contains(r.stderr, "--timeout") {
			t.Errorf("--timeout %s: %+v", bad, r)
		}
	}
}

func TestVersionAndCompletion(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	if r := c.must("", "--version"); r.stdout != "cloudctl version "+version.Version+"\n" {
		t.Fatalf("--version: %q", r.stdout)
	}
	for shell, marker := range map[string]string{
		"bash": "__start_cloudctl", "zsh": "#compdef cloudctl", "fish": "complete -c cloudctl", "powershell": "Register-ArgumentCompleter",
	} {
		if r := c.must("", "completion", shell); !strings.Contains(r.stdout, marker) {
			t.Errorf("completion %s: no %q in %.200s", shell, marker, r.stdout)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if r := c.run("", args...); r.code != 2 {
			t.Errorf("%v: %+v", args, r)
		}
	}
	// What the scripts ask cloudctl: commands, flags and profile names.
	c.must("", "profile", "create", "dev", "--url", "https://dev.example.com")
	c.must("", "profile", "create", "prod", "--url", "https://prod.example.com")
	if r := c.must("", "__complete", "profile", "use", ""); !strings.HasPrefix(r.stdout, "dev\thttps://dev.example.com\nprod\thttps://prod.example.com\n:4\n") {
		t.Fatalf("profile names: %q", r.stdout)
	}
	if r := c.must("", "__complete", "auth", ""); !strings.Contains(r.stdout, "whoami") || !strings.Contains(r.stdout, "token") {
		t.Fatalf("auth subcommands: %q", r.stdout)
	}
	if r := c.must("", "__complete", "auth", "status", "--output", ""); !strings.HasPrefix(r.stdout, "text\njson\n") {
		t.Fatalf("--output values: %q", r.stdout)
	}
}

// TestExitCodes: each documented status, from its real cause.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"profile", "list"}, 0},
		{[]string{"--version"}, 0},
		{[]string{"profile", "use", "nope"}, 1},
		{[]string{"auth", "login", "--url", srv.URL(), "-u", "admin", "--tenant", "default", "--password-stdin"}, 1}, // empty stdin
		{[]string{"bogus"}, 2},
		{[]string{"auth", "status", "--output", "xml"}, 2},
		{[]string{"auth", "status"}, 4},
		{[]string{"auth", "token"}, 4},
		{[]string{"auth", "whoami"}, 4},
	} {
		if r := c.run("", tc.args...); r.code != tc.code {
			t.Errorf("cloudctl %s: exit %d, want %d\n%+v", strings.Join(tc.args, " "), r.code, tc.code, r)
		}
	}
}

// TestHelpListsTheCommands: --help names every command and global flag,
// and documents the exit statuses.
func TestHelpListsTheCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	for args, wants := range map[string][]string{
		"--help":            {"auth", "profile", "completion", "--output", "--timeout", "--version", "Exit status:", "4    not authenticated", "130  interrupted"},
		"auth --help":       {"login", "status", "whoami", "token", "logout"},
		"profile --help":    {"create", "use", "list", "current", "delete"},
		"auth login --help": {"--password-stdin"},
	} {
		r := c.must("", strings.Fields(args)...)
		for _, w := range wants {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("cloudctl %s: no %q in\n%s", args, w, r.stdout)
			}
		}
	}
}
