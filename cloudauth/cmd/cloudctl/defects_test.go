package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

// unsignedToken is a token with alg none, claiming to be srv's admin.
func unsignedToken(srv *cloudauthfake.Server) string {
	enc := base64.RawURLEncoding.EncodeToString
	payload := `{"sub":"admin","iss":"` + srv.URL() + `","tenant":"default","iat":` +
		itoa(t0.Unix()) + `,"exp":` + itoa(t0.Add(time.Hour).Unix()) + `,"jti":"x"}`
	return enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc([]byte(payload)) + "."
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// otherKey is a key no test fake publishes.
var otherKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// TestStatusChecksTheToken (issue 20, defect 1): status checks the token's
// signature against the server's keys and asks the server, and reports a
// token it cannot trust as not logged in (exit 4).
func TestStatusChecksTheToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	other, err := cloudauthfake.New(cloudauthfake.WithKey(otherKey(), "k1"), control.WithClock(srv.Clock()),
		cloudauthfake.WithIssuer(srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	forged, err := other.IssueToken("", "admin") // same kid, same issuer, another key
	if err != nil {
		t.Fatal(err)
	}
	revoked, _ := srv.IssueToken("", "admin")
	srv.RevokeToken(revoked)
	for name, tc := range map[string]struct{ token, want string }{
		"alg none":        {unsignedToken(srv), "Not logged in: the token from CLI_TOKEN does not verify against " + srv.URL()},
		"another key":     {forged, "Not logged in: the token from CLI_TOKEN does not verify against " + srv.URL()},
		"revoked":         {revoked, "Not logged in: " + srv.URL() + " no longer accepts the token from CLI_TOKEN"},
		"not even a JWT":  {"not-a-token", "Not logged in: the token from CLI_TOKEN is not a token"},
		"expired locally": {expiredToken(t, srv), "Not logged in: the token from CLI_TOKEN expired at"},
	} {
		c := newCLI(t, srv)
		c.env = map[string]string{"CLI_TOKEN": tc.token, "CLI_URL": srv.URL()}
		r := c.run("", "auth", "status")
		if r.code != 4 || !strings.HasPrefix(r.stdout, tc.want) {
			t.Errorf("%s: %+v", name, r)
		}
	}
	// A server that cannot be reached: status says it could not check.
	c := newCLI(t, srv)
	good, _ := srv.IssueToken("", "admin")
	c.env = map[string]string{"CLI_TOKEN": good, "CLI_URL": srv.URL()}
	srv.InjectFault(cloudauthfake.RoutePublicKey, control.Fault{Drop: true, Times: 2})
	r := c.run("", "auth", "status")
	if r.code != 1 || !strings.Contains(r.stderr, "Could not check the token from CLI_TOKEN with "+srv.URL()+": Authentication failed: Connection timeout") {
		t.Fatalf("unreachable: %+v", r)
	}
	// Nowhere to check it: said plainly.
	c.env = map[string]string{"CLI_TOKEN": good}
	r = c.run("", "auth", "status")
	if r.code != 1 || !strings.Contains(r.stderr, "Could not check the token from CLI_TOKEN: no server URL") {
		t.Fatalf("no URL: %+v", r)
	}
	c.env = map[string]string{"CLI_TOKEN": good, "CLI_URL": srv.URL()}
	if r := c.must("", "auth", "status"); r.stdout != "Logged in to "+srv.URL()+" as admin (tenant default)\n" {
		t.Fatalf("good token: %q", r.stdout)
	}
}

func expiredToken(t *testing.T, srv *cloudauthfake.Server) string {
	raw, err := srv.SignToken(jwt.MapClaims{"sub": "admin", "iss": srv.URL(), "tenant": "default",
		"iat": t0.Add(-2 * time.Hour).Unix(), "exp": t0.Add(-time.Hour).Unix(), "jti": "old"})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestLogoutRevokesEveryToken (issue 20, defect 2): with CLI_TOKEN set,
// logout revokes both the stored token and CLI_TOKEN's before clearing the
// store, and says what it did with each.
func TestLogoutRevokesEveryToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	c.login()
	stored, err := cloudauth.NewStore(keyringService, filepath.Join(c.dir, "tokens"), c.keyring).Load("default")
	if err != nil {
		t.Fatal(err)
	}
	env, _ := srv.IssueToken("", "admin")
	c.env = map[string]string{"CLI_TOKEN": env}
	r := c.must("", "auth", "logout")
	if !srv.Revoked(stored) || !srv.Revoked(env) || c.keyring.Len() != 0 {
		t.Fatalf("revoked: stored %v, CLI_TOKEN %v; %d keyring entries\n%+v", srv.Revoked(stored), srv.Revoked(env), c.keyring.Len(), r)
	}
	want := "Revoked the token from CLI_TOKEN on " + srv.URL() + "\n" +
		"Revoked the stored token (profile default) on " + srv.URL() + "\n" +
		"Removed the stored token (profile default)\n" +
		"Logged out of " + srv.URL() + "\n"
	if r.stdout != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	if !strings.Contains(r.stderr, "Warning: CLI_TOKEN is still set in the environment; unset it") {
		t.Fatalf("stderr %q", r.stderr)
	}
	// The revocation comes before the removal: a logout whose revocation
	// fails still removes, and says the token was not revoked.
	c = newCLI(t, srv)
	c.login()
	srv.InjectFault(cloudauthfake.RouteLogout, control.Fault{Status: 503, Times: 2})
	r = c.must("", "auth", "logout")
	if r.stdout != "Removed the stored token (profile default)\nLogged out (locally)\n" ||
		!strings.Contains(r.stderr, "Warning: could not revoke the stored token (profile default) on "+srv.URL()+": cloudauth: POST /csp/gateway/am/api/logout: 503 Service Unavailable") {
		t.Fatalf("%+v", r)
	}
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; last.Route != cloudauthfake.RouteLogout {
		t.Fatalf("last request %s", last.Route)
	}
}

// TestStatusShowsTheIssuer (issue 20, defect 3): the token's issuer is
// where the user is logged in; when the URL in use differs, both show.
func TestStatusShowsTheIssuer(t *testing.T) {
	t.Parallel()
	srv := startFake(t, cloudauthfake.WithIssuer("https://login.example.com"))
	c := newCLI(t, srv)
	c.login()
	r := c.must("", "auth", "status")
	want := "Logged in to https://login.example.com as admin (tenant default); the server URL in use is " + srv.URL() + "\n"
	if r.stdout != want {
		t.Fatalf("stdout %q, want %q", r.stdout, want)
	}
}

// TestTexts (issue 20, defect 7): the texts a user reads. A CA file that
// cannot be used is refused before any prompt; usage errors speak plainly
// and point at the command's help; a machine without a keyring is told so
// once, in the specification's words.
func TestTexts(t *testing.T) {
	t.Parallel()
	c := newCLI(t, nil)
	c.env = map[string]string{"CLI_CA_CERT": filepath.Join(t.TempDir(), "missing.pem")}
	r := c.run("admin\npw\n", "auth", "login")
	if r.code != 1 || strings.Contains(r.stderr, "Username") || !strings.HasPrefix(r.stderr, "reading CA file") {
		t.Fatalf("CA file: %+v", r)
	}
	for args, want := range map[string]string{
		"profile create":            "Error: profile create needs a profile name\nRun 'cloudctl profile create --help' for usage.\n",
		"profile use a b":           "Error: profile use takes 1 argument (the profile name), not 2: \"a\" \"b\"\nRun 'cloudctl profile use --help' for usage.\n",
		"profile create x":          "Error: profile create needs --url\nRun 'cloudctl profile create --help' for usage.\n",
		"auth status extra":         "Error: auth status takes no arguments, not \"extra\"\nRun 'cloudctl auth status --help' for usage.\n",
		"auth login --url":          "Error: flag needs an argument: --url\nRun 'cloudctl auth login --help' for usage.\n",
		"bogus":                     "Error: unknown command \"bogus\" for \"cloudctl\"\nRun 'cloudctl --help' for usage.\n",
		"auth login --bogus":        "Error: unknown flag: --bogus\nRun 'cloudctl auth login --help' for usage.\n",
		"profile delete":            "Error: profile delete needs a profile name\nRun 'cloudctl profile delete --help' for usage.\n",
		"auth bogus":                "Error: unknown command \"bogus\" for \"cloudctl auth\"\nRun 'cloudctl auth --help' for usage.\n",
		"profile bogus x":           "Error: unknown command \"bogus\" for \"cloudctl profile\"\nRun 'cloudctl profile --help' for usage.\n",
		"--output yaml auth status": "Error: --output \"yaml\": want text or json\nRun 'cloudctl auth status --help' for usage.\n",
	} {
		if r := c.run("", strings.Fields(args)...); r.code != 2 || r.stderr != want {
			t.Errorf("cloudctl %s: exit %d\n got %q\nwant %q", args, r.code, r.stderr, want)
		}
	}

	srv := startFake(t)
	c = newCLI(t, srv)
	c.keyring.SetFailure(&cloudauth.KeyringUnavailableError{Reason: "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)"})
	r = c.must(cloudauthfake.AdminPassword+"\n", "auth", "login", "-v", "--url", srv.URL(), "-u", "admin", "--tenant", "default")
	const warning = "Warning: Could not store token securely (no keyring available: no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set))\n"
	if strings.Count(r.stderr, "keyring available") != 1 || !strings.Contains(r.stderr, warning) || strings.Contains(r.stderr, "dbus-launch") {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// TestProfileDeleteRevokesWithTheTLSSettings: profile delete revokes the
// profile's token with the same certificate settings as every other
// command: CLI_VERIFY_SSL=false turns verification off there too, as
// --no-verify-ssl does, and CLI_CA_CERT is trusted as --ca-cert is.
func TestProfileDeleteRevokesWithTheTLSSettings(t *testing.T) {
	t.Parallel()
	srv := startFakeTLS(t)
	ca := srv.CACertFile(t)
	for name, tc := range map[string]struct {
		env   map[string]string
		flags []string
	}{
		"CLI_CA_CERT":          {env: map[string]string{"CLI_CA_CERT": ca}},
		"--ca-cert":            {flags: []string{"--ca-cert", ca}},
		"--no-verify-ssl":      {flags: []string{"--no-verify-ssl"}},
		"CLI_VERIFY_SSL=false": {env: map[string]string{"CLI_VERIFY_SSL": "false"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, srv)
			c.env = tc.env
			c.must(cloudauthfake.AdminPassword+"\n", append([]string{"auth", "login", "--url", srv.URL(), "-u", "admin", "--tenant", "default"}, tc.flags...)...)
			r := c.must("", append([]string{"profile", "delete", "default"}, tc.flags...)...)
			if want := "Revoked the stored token (profile default) on " + srv.URL() + "\n"; !strings.HasPrefix(r.stdout, want) {
				t.Fatalf("profile delete did not revoke the token:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
			}
		})
	}
}

// cancelAt is a standard error that cancels a context once a text has
// been written to it: the user pressing Ctrl-C at a prompt.
type cancelAt struct {
	mu     sync.Mutex
	buf    strings.Builder
	text   string
	cancel context.CancelFunc
}

func (w *cancelAt) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.text) {
		w.cancel()
	}
	return len(p), nil
}

func (w *cancelAt) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestInterruptAtAPromptEndsTheLogin: Ctrl-C at a prompt (the context
// ends: main's signal.NotifyContext keeps the signal from killing the
// process) ends auth login there, instead of the prompt waiting for a line
// and the login going on with what comes after.
func TestInterruptAtAPromptEndsTheLogin(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := newCLI(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdin, typed := io.Pipe()
	defer stdin.Close()
	stderr := &cancelAt{text: "Username: ", cancel: cancel}
	go func() {
		<-ctx.Done() // what the user types after Ctrl-C
		_, _ = typed.Write([]byte("admin\n" + cloudauthfake.AdminPassword + "\n"))
	}()
	var stdout strings.Builder
	code := run(ctx, []string{"auth", "login", "--url", srv.URL(), "--tenant", cloudauthfake.DefaultTenant}, Env{
		Stdin: stdin, Stdout: &stdout, Stderr: stderr, Getenv: func(string) string { return "" },
		ConfigDir: c.dir, Store: cloudauth.NewStore(keyringService, filepath.Join(c.dir, "tokens"), c.keyring), Clock: c.clock,
	})
	if code != exitInterrupted || !strings.HasSuffix(stderr.String(), "\ninterrupted\n") || strings.Contains(stderr.String(), "Password:") || c.keyring.Len() != 0 || len(srv.RequestsTo(cloudauthfake.RouteLogin)) != 0 {
		t.Fatalf("exit %d, %d logins sent, %d tokens kept\nstdout: %s\nstderr: %s", code, len(srv.RequestsTo(cloudauthfake.RouteLogin)), c.keyring.Len(), stdout.String(), stderr.String())
	}
}
