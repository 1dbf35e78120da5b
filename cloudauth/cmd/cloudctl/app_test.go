package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// testKey is shared by the tests' fakes: making a key costs tens of
// milliseconds.
var testKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// cli runs cloudctl in-process against a fake, with an in-memory keyring
// behind the real store and a temporary configuration directory.
type cli struct {
	t       *testing.T
	srv     *cloudauthfake.Server
	dir     string
	keyring *cloudauth.MemoryKeyring
	env     map[string]string
	clock   clock.Clock
	timeout time.Duration
}

func newCLI(t *testing.T, srv *cloudauthfake.Server) *cli {
	t.Helper()
	c := &cli{t: t, srv: srv, dir: t.TempDir(), keyring: cloudauth.NewMemoryKeyring(), env: map[string]string{}}
	if srv != nil {
		c.clock = srv.Clock()
	}
	return c
}

func startFake(t *testing.T, opts ...cloudauthfake.Option) *cloudauthfake.Server {
	t.Helper()
	return cloudauthfake.Start(t, append([]cloudauthfake.Option{
		cloudauthfake.WithKey(testKey(), "k1"), control.WithClock(clock.NewFake(t0)),
	}, opts...)...)
}

func startFakeTLS(t *testing.T) *cloudauthfake.Server {
	t.Helper()
	return cloudauthfake.Start(t, control.WithTLS(), cloudauthfake.WithKey(testKey(), "k1"), control.WithClock(clock.NewFake(t0)))
}

type result struct {
	code           int
	stdout, stderr string
}

func (c *cli) run(stdin string, args ...string) result {
	c.t.Helper()
	var out, errOut bytes.Buffer
	env := Env{
		Stdin:     strings.NewReader(stdin),
		Stdout:    &out,
		Stderr:    &errOut,
		Getenv:    func(k string) string { return c.env[k] },
		ConfigDir: c.dir,
		Store:     cloudauth.NewStore(keyringService, filepath.Join(c.dir, "tokens"), c.keyring),
		Clock:     c.clock,
		Timeout:   c.timeout,
	}
	code := run(context.Background(), args, env)
	r := result{code, out.String(), errOut.String()}
	for _, bad := range []string{"goroutine ", "panic", ".go:"} {
		if strings.Contains(r.stderr, bad) {
			c.t.Fatalf("stack trace on stderr:\n%s", r.stderr)
		}
	}
	return r
}

// must runs a command that has to succeed.
func (c *cli) must(stdin string, args ...string) result {
	c.t.Helper()
	r := c.run(stdin, args...)
	if r.code != 0 {
		c.t.Fatalf("cloudctl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

func (c *cli) login() result {
	c.t.Helper()
	return c.must(cloudauthfake.AdminPassword+"\n", "auth", "login", "--url", c.srv.URL(), "--username", "admin", "--tenant", cloudauthfake.DefaultTenant)
}

func TestLoginWithFlags(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	r := c.login()
	if want := "Logged in to " + srv.URL() + " as admin (tenant default)\n"; r.stdout != want {
		t.Fatalf("stdout %q, want %q", r.stdout, want)
	}
	if strings.Contains(r.stdout+r.stderr, cloudauthfake.AdminPassword) {
		t.Fatal("the password was echoed")
	}
	if c.keyring.Len() != 1 {
		t.Fatalf("%d keyring entries", c.keyring.Len())
	}
	// The login is remembered as the default profile.
	r = c.must("", "profile", "current", "--verbose")
	if !strings.HasPrefix(r.stdout, "default\n") || !strings.Contains(r.stdout, srv.URL()) {
		t.Fatalf("profile current: %q", r.stdout)
	}
	if n := srv.Issued(); n != 1 {
		t.Fatalf("%d tokens issued", n)
	}
}

func TestLoginWithEnvironment(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "alice-pw", Tenant: "acme.example"})
	c := newCLI(t, srv)
	c.env = map[string]string{"CLI_URL": srv.URL(), "CLI_USERNAME": "alice", "CLI_TENANT": "acme.example"}
	r := c.must("alice-pw\n", "auth", "login")
	if r.stdout != "Logged in to "+srv.URL()+" as alice (tenant acme.example)\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	if strings.Contains(r.stderr, "Username") || strings.Contains(r.stderr, "Tenant") || !strings.Contains(r.stderr, "Password: ") {
		t.Fatalf("asked for more than the password: %q", r.stderr)
	}
	if r := c.must("", "auth", "status"); !strings.Contains(r.stdout, "as alice (tenant acme.example)") {
		t.Fatalf("status %q", r.stdout)
	}
}

// TestLoginPrompts: with nothing given, cloudctl asks for each setting in
// the specification's order and reads the answers from standard input; an
// empty tenant takes the default.
func TestLoginPrompts(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	r := c.must("admin\n"+cloudauthfake.AdminPassword+"\n"+srv.URL()+"\n\n", "auth", "login")
	want := "Username: \nPassword: \nServer URL: \nTenant (empty: the server's default): \n"
	if r.stderr != want {
		t.Fatalf("prompts %q, want %q", r.stderr, want)
	}
	if !strings.HasPrefix(r.stdout, "Logged in to "+srv.URL()+" as admin (tenant default)") {
		t.Fatalf("stdout %q", r.stdout)
	}
	// The login is remembered: the next one asks only for the password.
	r = c.must(cloudauthfake.AdminPassword+"\n", "auth", "login")
	if r.stderr != "Password: \n" {
		t.Fatalf("prompts %q", r.stderr)
	}
	// Standard input that runs out before the password is an error.
	c = newCLI(t, srv)
	r = c.run("admin\n", "auth", "login", "--url", srv.URL())
	if r.code != 1 || !strings.Contains(r.stderr, "password: no answer on standard input") {
		t.Fatalf("%+v", r)
	}
	// A tenant typed at the prompt is used.
	srv.AddUser(cloudauthfake.UserSeed{Username: "bob", Password: "bob-pw", Tenant: "t2"})
	c = newCLI(t, srv)
	r = c.must("bob\nbob-pw\nt2\n", "auth", "login", "--url", srv.URL())
	if !strings.Contains(r.stdout, "as bob (tenant t2)") {
		t.Fatalf("stdout %q", r.stdout)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	r := c.run("", "auth", "status")
	if r.code != 4 || r.stdout != "Not logged in: no token for profile default. Log in with: cloudctl auth login\n" {
		t.Fatalf("before login: %+v", r)
	}
	c.login()
	r = c.must("", "auth", "status")
	if r.stdout != "Logged in to "+srv.URL()+" as admin (tenant default)\n" {
		t.Fatalf("after login: %q", r.stdout)
	}
	r = c.must("", "auth", "status", "--verbose")
	if !strings.Contains(r.stdout, "Token expires at 2026-05-01T09:30:00Z (in 30m0s)") {
		t.Fatalf("verbose: %q", r.stdout)
	}
	srv.Clock().Advance(29 * time.Minute)
	if r := c.must("", "auth", "status", "-v"); !strings.Contains(r.stdout, "(in 1m0s)") {
		t.Fatalf("a minute left: %q", r.stdout)
	}
	srv.Clock().Advance(time.Minute)
	r = c.run("", "auth", "status")
	if r.code != 4 || !strings.Contains(r.stdout, "Not logged in: the token from the token store expired at 2026-05-01T09:30:00Z") {
		t.Fatalf("after expiry: %+v", r)
	}
}

func TestLogout(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.login()
	raw, _ := cloudauth.NewStore(keyringService, filepath.Join(c.dir, "tokens"), c.keyring).Load("default")
	r := c.must("", "auth", "logout")
	if r.stdout != "Revoked the stored token (profile default) on "+srv.URL()+"\nRemoved the stored token (profile default)\nLogged out of "+srv.URL()+"\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	if !srv.Revoked(raw) || c.keyring.Len() != 0 {
		t.Fatalf("revoked %v, %d keyring entries", srv.Revoked(raw), c.keyring.Len())
	}
	if r := c.run("", "auth", "status"); r.code != 4 {
		t.Fatalf("status after logout: %+v", r)
	}
	if r := c.must("", "auth", "logout"); !strings.Contains(r.stdout, "nothing to do") {
		t.Fatalf("second logout: %q", r.stdout)
	}
}

// TestLogoutServerUnreachable: the stored token goes even when the server
// cannot be told, and cloudctl says so.
func TestLogoutServerUnreachable(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.login()
	srv.InjectFault(cloudauthfake.RouteLogout, control.Fault{Drop: true})
	r := c.must("", "auth", "logout")
	if r.stdout != "Removed the stored token (profile default)\nLogged out (locally)\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	if !strings.Contains(r.stderr, "Warning: could not revoke the stored token (profile default) on "+srv.URL()+": Authentication failed: Connection timeout\n") {
		t.Fatalf("stderr %q", r.stderr)
	}
	if c.keyring.Len() != 0 {
		t.Fatal("token kept")
	}
}

func TestLogoutAfterExpiry(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.login()
	srv.Clock().Advance(time.Hour)
	r := c.must("", "auth", "logout")
	if !strings.Contains(r.stdout, "The stored token (profile default) had already been ended by "+srv.URL()) || c.keyring.Len() != 0 {
		t.Fatalf("%+v", r)
	}
}

// TestErrorTexts: each of the specification's error texts, produced by its
// real cause, alone on standard error, with exit status 1.
func TestErrorTexts(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "locked", Password: "locked-pw", Locked: true})
	srv.AddUser(cloudauthfake.UserSeed{Username: "elsewhere", Password: "elsewhere-pw", Tenant: "other"})
	tlsSrv := startFakeTLS(t)

	const (
		unauthorized = "Authentication failed: 401 Unauthorized\n"
		certificate  = "Authentication failed: SSL: CERTIFICATE_VERIFY_FAILED\n"
		timeout      = "Authentication failed: Connection timeout\n"
	)
	cases := []struct {
		name    string
		url     string
		user    string
		stdin   string
		timeout time.Duration
		want    string
	}{
		{"wrong password", srv.URL(), "admin", "wrong-password\n", 0, unauthorized},
		{"unknown user", srv.URL(), "nobody", "whatever\n", 0, unauthorized},
		{"locked account", srv.URL(), "locked", "locked-pw\n", 0, unauthorized},
		{"wrong tenant", srv.URL(), "elsewhere", "elsewhere-pw\n", 0, unauthorized},
		{"untrusted certificate", tlsSrv.URL(), "admin", cloudauthfake.AdminPassword + "\n", 0, certificate},
		{"server does not answer", silentServer(t), "admin", "pw\n", 50 * time.Millisecond, timeout},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, srv)
			c.timeout = tc.timeout
			r := c.run(tc.stdin, "auth", "login", "--url", tc.url, "--username", tc.user, "--tenant", cloudauthfake.DefaultTenant)
			if r.code != 1 {
				t.Fatalf("exit %d", r.code)
			}
			if got := strings.TrimPrefix(r.stderr, "Password: \n"); got != tc.want {
				t.Fatalf("stderr %q, want %q", got, tc.want)
			}
			if r.stdout != "" || c.keyring.Len() != 0 {
				t.Fatalf("stdout %q, %d tokens stored", r.stdout, c.keyring.Len())
			}
		})
	}
}

func TestVerboseErrorShowsCause(t *testing.T) {
	t.Parallel()
	c := newCLI(t, startFakeTLS(t))
	r := c.run("pw\n", "auth", "login", "--verbose", "--url", c.srv.URL(), "-u", "admin", "--tenant", "t")
	if r.code != 1 || !strings.Contains(r.stderr, "Authentication failed: SSL: CERTIFICATE_VERIFY_FAILED\n  cause: ") ||
		!strings.Contains(r.stderr, "certificate") {
		t.Fatalf("%+v", r)
	}
}

// silentServer accepts connections and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
	)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, conn := range conns {
			conn.Close()
		}
	})
	return "http://" + l.Addr().String()
}

func TestTLS(t *testing.T) {
	t.Parallel()
	srv := startFakeTLS(t)
	ca := srv.CACertFile(t)
	for name, tc := range map[string]struct {
		env   map[string]string
		flags []string
		warn  bool
	}{
		"CLI_CA_CERT":          {env: map[string]string{"CLI_CA_CERT": ca}},
		"--ca-cert":            {flags: []string{"--ca-cert", ca}},
		"--no-verify-ssl":      {flags: []string{"--no-verify-ssl"}, warn: true},
		"CLI_VERIFY_SSL=false": {env: map[string]string{"CLI_VERIFY_SSL": "false"}, warn: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, srv)
			c.env = tc.env
			args := append([]string{"auth", "login", "--url", srv.URL(), "-u", "admin", "--tenant", "default"}, tc.flags...)
			r := c.must(cloudauthfake.AdminPassword+"\n", args...)
			if got := strings.Contains(r.stderr, "Warning: TLS certificate verification is off"); got != tc.warn {
				t.Fatalf("warning %v: %q", got, r.stderr)
			}
			// Logout reaches the TLS server with the same settings.
			args = append([]string{"auth", "logout"}, tc.flags...)
			if r := c.must("", args...); !strings.HasSuffix(r.stdout, "Removed the stored token (profile default)\nLogged out of "+srv.URL()+"\n") {
				t.Fatalf("logout %q", r.stdout)
			}
		})
	}
}

// TestKeyringFails: a keyring that refuses gives the specification's
// warning, and the login still works through the private file.
func TestKeyringFails(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.keyring.SetFailure(errors.New("dbus: no Secret Service"))
	r := c.login()
	if !strings.Contains(r.stderr, "Warning: Could not store token securely (keyring: storing the token: dbus: no Secret Service)\n") {
		t.Fatalf("stderr %q", r.stderr)
	}
	if r := c.must("", "auth", "status"); !strings.HasPrefix(r.stdout, "Logged in to") {
		t.Fatalf("status %q", r.stdout)
	}
	file := filepath.Join(c.dir, "tokens", "default.token")
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(file)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("token file: %v %v", fi, err)
		}
		if di, _ := os.Stat(filepath.Dir(file)); di.Mode().Perm() != 0o700 {
			t.Fatalf("token dir mode %v", di.Mode())
		}
	}
	r = c.run("", "auth", "login", "-v", "--url", srv.URL(), "-u", "admin", "--tenant", "default")
	_ = r // standard input is empty: only checking --verbose on a failed prompt does not panic
	r = c.must(cloudauthfake.AdminPassword+"\n", "auth", "login", "-v", "--url", srv.URL(), "-u", "admin", "--tenant", "default")
	if strings.Count(r.stderr, "dbus: no Secret Service") != 1 || !strings.Contains(r.stderr, file) {
		t.Fatalf("verbose warning %q", r.stderr)
	}
	c.must("", "auth", "logout")
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("token file left after logout: %v", err)
	}
}

func TestCLIToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	raw, err := srv.IssueToken("", "admin")
	if err != nil {
		t.Fatal(err)
	}
	c := newCLI(t, srv)
	c.env = map[string]string{"CLI_TOKEN": raw, "CLI_URL": srv.URL()}
	if r := c.must("", "auth", "status", "-v"); !strings.Contains(r.stdout, "as admin") || !strings.Contains(r.stdout, "Token from: CLI_TOKEN") {
		t.Fatalf("status %q", r.stdout)
	}
	r := c.must("", "auth", "logout")
	if !strings.Contains(r.stderr, "CLI_TOKEN is still set in the environment") || !srv.Revoked(raw) {
		t.Fatalf("%+v", r)
	}
	c.env["CLI_TOKEN"] = "not-a-token"
	if r := c.run("", "auth", "status"); r.code != 4 || !strings.Contains(r.stdout, "is not a token the server issued") {
		t.Fatalf("%+v", r)
	}
}

func TestProfiles(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "alice-pw", Tenant: "acme"})
	c := newCLI(t, srv)
	if r := c.must("", "profile", "list"); !strings.HasPrefix(r.stdout, "No profiles.") {
		t.Fatalf("empty list %q", r.stdout)
	}
	if r := c.run("", "profile", "current"); r.code != 1 || !strings.Contains(r.stderr, "No profile in use") {
		t.Fatalf("no current: %+v", r)
	}
	r := c.must("", "profile", "create", "dev", "--url", srv.URL(), "--tenant", "acme", "--username", "alice")
	if !strings.Contains(r.stdout, "Created profile dev") || !strings.Contains(r.stdout, "Now using profile dev") {
		t.Fatalf("create %q", r.stdout)
	}
	r = c.must("", "profile", "create", "prod", "--url", "https://cloud.example.com", "--tenant", "default")
	if strings.Contains(r.stdout, "Now using") {
		t.Fatalf("the second profile became current: %q", r.stdout)
	}
	if r := c.run("", "profile", "create", "prod", "--url", "https://other.example.com"); r.code != 1 || !strings.Contains(r.stderr, "already exists") {
		t.Fatalf("duplicate: %+v", r)
	}
	c.must("", "profile", "create", "prod", "--url", "https://cloud.example.com", "--tenant", "default", "--force")
	r = c.must("", "profile", "list")
	want := "  NAME  URL                        TENANT   USERNAME\n" +
		"* dev   " + srv.URL() + strings.Repeat(" ", 27-len(srv.URL())) + "acme     alice\n" +
		"  prod  https://cloud.example.com  default  -\n"
	if len(srv.URL()) <= 25 && r.stdout != want {
		t.Fatalf("list:\n%s\nwant:\n%s", r.stdout, want)
	}
	if r := c.must("", "profile", "current"); r.stdout != "dev\n" {
		t.Fatalf("current %q", r.stdout)
	}
	// Logging in with the profile takes url, tenant and username from it.
	r = c.must("alice-pw\n", "auth", "login")
	if r.stdout != "Logged in to "+srv.URL()+" as alice (tenant acme)\n" || r.stderr != "Password: \n" {
		t.Fatalf("login %+v", r)
	}
	c.must("", "profile", "use", "prod")
	if r := c.must("", "profile", "current"); r.stdout != "prod\n" {
		t.Fatalf("current %q", r.stdout)
	}
	if r := c.run("", "auth", "status"); r.code != 4 {
		t.Fatal("logged in on prod, where nobody logged in")
	}
	c.env["CLI_PROFILE"] = "dev"
	if r := c.must("", "profile", "current"); r.stdout != "dev\n" {
		t.Fatalf("CLI_PROFILE: %q", r.stdout)
	}
	if r := c.must("", "auth", "status"); !strings.Contains(r.stdout, "as alice") {
		t.Fatalf("status with CLI_PROFILE: %q", r.stdout)
	}
	if r := c.must("", "profile", "current", "--profile", "prod"); r.stdout != "prod\n" {
		t.Fatalf("--profile: %q", r.stdout)
	}
	c.env["CLI_PROFILE"] = "staging"
	if r := c.run("", "auth", "status"); r.code != 1 || !strings.Contains(r.stderr, `profile "staging" does not exist`) {
		t.Fatalf("missing CLI_PROFILE: %+v", r)
	}
	if r := c.run("", "profile", "use", "nope"); r.code != 1 || !strings.Contains(r.stderr, `profile "nope" does not exist`) {
		t.Fatalf("use missing: %+v", r)
	}
	if r := c.run("", "profile", "create", "../x", "--url", "https://x"); r.code != 1 {
		t.Fatalf("bad name: %+v", r)
	}
}

func TestHelpEverywhere(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	for _, args := range [][]string{
		{}, {"--help"}, {"auth", "--help"}, {"auth", "login", "--help"}, {"auth", "status", "--help"}, {"auth", "logout", "--help"},
		{"profile", "--help"}, {"profile", "create", "--help"}, {"profile", "use", "--help"}, {"profile", "list", "--help"},
		{"profile", "current", "--help"}, {"help", "auth"},
	} {
		r := c.must("", args...)
		if !strings.Contains(r.stdout, "Usage:") || !strings.Contains(r.stdout, "--no-verify-ssl") {
			t.Errorf("cloudctl %v: %q", args, r.stdout)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	for _, args := range [][]string{
		{"bogus"}, {"auth", "login", "--bogus"}, {"auth", "status", "extra"}, {"profile", "create"},
		{"profile", "create", "x"}, {"profile", "use"}, {"profile", "use", "a", "b"}, {"auth", "login", "--url"},
	} {
		r := c.run("", args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "Error: ") || !strings.Contains(r.stderr, "--help' for usage.") {
			t.Errorf("cloudctl %v: %+v", args, r)
		}
	}
}

func TestBadEnvironment(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	c.env = map[string]string{"CLI_VERIFY_SSL": "maybe"}
	if r := c.run("", "auth", "status"); r.code != 1 || r.stderr != "CLI_VERIFY_SSL=\"maybe\": want true or false\n" {
		t.Fatalf("%+v", r)
	}
	c.env = map[string]string{"CLI_CA_CERT": filepath.Join(t.TempDir(), "missing.pem"), "CLI_URL": "https://127.0.0.1:1"}
	if r := c.run("pw\n", "auth", "login", "-u", "admin", "--tenant", "t"); r.code != 1 || !strings.Contains(r.stderr, "reading CA file") {
		t.Fatalf("%+v", r)
	}
	c.env = nil
	if r := c.run("admin\npw\nnot-a-url\n", "auth", "login"); r.code != 1 || !strings.Contains(r.stderr, "invalid server URL") {
		t.Fatalf("%+v", r)
	}
}

// TestParallelProfileCreate (issue 20, defect 5): twenty "profile create"
// at once keep twenty profiles, and the temporary file of a writer killed
// before its rename is cleaned up by the next command that writes.
func TestParallelProfileCreate(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	left := filepath.Join(c.dir, ".config.json.4242.tmp")
	if err := os.WriteFile(left, []byte(`{"profi`), 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			name := "p" + string(rune('a'+i))
			if r := c.run("", "profile", "create", name, "--url", "https://"+name+".example.com"); r.code != 0 {
				t.Errorf("create %s: %+v", name, r)
			}
		})
	}
	wg.Wait()
	cfg, err := cloudauth.LoadConfig(c.dir)
	if err != nil || len(cfg.Profiles) != 20 {
		t.Fatalf("%d profiles kept of 20: %v", len(cfg.Profiles), err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Fatalf("leftover temporary file: %v", err)
	}
}

// TestConfigWithUnknownFields (issue 20, defect 4): a field cloudctl does
// not know does not break any command and survives a write; a bad value
// is refused naming the file, the field and the problem.
func TestConfigWithUnknownFields(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	path := filepath.Join(c.dir, "config.json")
	os.WriteFile(path, []byte(`{"current_profile":"dev","theme":"dark","profiles":{"dev":{"url":"`+srv.URL()+`","color":"blue"}}}`), 0o600)
	c.must("", "profile", "list")
	c.must("", "profile", "current")
	c.must(cloudauthfake.AdminPassword+"\n", "auth", "login", "-u", "admin", "--tenant", "default")
	c.must("", "profile", "create", "prod", "--url", "https://cloud.example.com")
	c.must("", "auth", "status")
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"theme": "dark"`) || !strings.Contains(string(b), `"color": "blue"`) {
		t.Fatalf("unknown fields lost:\n%s", b)
	}
	os.WriteFile(path, []byte(`{"profiles":{"dev":{"url":42}}}`), 0o600)
	r := c.run("", "profile", "list")
	if r.code != 1 || r.stderr != path+": profiles.dev.url: want a string, got a number\n" {
		t.Fatalf("%+v", r)
	}
}
