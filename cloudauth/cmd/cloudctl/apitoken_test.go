package main

import (
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
)

// TestLoginWithToken: auth login --with-token reads an API token from
// standard input, stores the access token it is exchanged for and the API
// token, and every command renews the expired token by itself.
func TestLoginWithToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "bot", Password: "pw-bot", Tenant: "acme"})
	apiTok, err := srv.IssueAPIToken("acme", "bot", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := newCLI(t, srv)
	r := c.must(apiTok+"\n", "auth", "login", "--url", srv.URL(), "--with-token")
	if r.stdout != "Logged in to "+srv.URL()+" as bot (tenant acme)\n" || strings.Contains(r.stdout+r.stderr, apiTok) {
		t.Fatalf("login: %+v", r)
	}
	exchanges := func() int { return len(srv.RequestsTo(cloudauthfake.RouteAPIToken)) }
	first := c.must("", "auth", "token").stdout
	if exchanges() != 1 {
		t.Fatalf("%d exchanges", exchanges())
	}
	// Expired: status renews it first, says so with -v, without a token.
	srv.Clock().Advance(31 * time.Minute)
	r = c.must("", "auth", "status", "-v")
	if !strings.Contains(r.stdout, "as bot (tenant acme)") || !strings.Contains(r.stderr, "renewed the token of profile default") ||
		exchanges() != 2 || strings.Contains(r.stdout+r.stderr, apiTok) {
		t.Fatalf("status after expiry: %+v, %d exchanges", r, exchanges())
	}
	second := c.must("", "auth", "token").stdout
	if second == first || exchanges() != 2 {
		t.Fatalf("the renewed token was not stored (%d exchanges)", exchanges())
	}
	// auth refresh renews now.
	srv.Clock().Advance(time.Minute)
	r = c.must("", "auth", "refresh")
	if !strings.HasPrefix(r.stdout, "Renewed the token of profile default; it expires at 2026-05-01T10:02:00Z") || exchanges() != 3 {
		t.Fatalf("refresh: %+v", r)
	}
	// A revoked API token: the expired token cannot be renewed, and
	// cloudctl says so.
	if err := srv.RevokeAPIToken(apiTok); err != nil {
		t.Fatal(err)
	}
	r = c.run("", "auth", "refresh")
	if r.code != 1 || !strings.Contains(r.stderr, "invalid_grant") {
		t.Fatalf("refresh with a revoked API token: %+v", r)
	}
	srv.Clock().Advance(time.Hour)
	r = c.run("", "auth", "token")
	if r.code != 4 || !strings.Contains(r.stderr, "could not be renewed") || !strings.Contains(r.stderr, "expired at") {
		t.Fatalf("token after revocation and expiry: %+v", r)
	}
	// A bad API token logs nobody in and stores nothing.
	c2 := newCLI(t, srv)
	if r := c2.run("not-a-token\n", "auth", "login", "--url", srv.URL(), "--with-token"); r.code != 1 || !strings.Contains(r.stderr, "invalid_grant") || c2.keyring.Len() != 0 {
		t.Fatalf("a bad API token: %+v", r)
	}
	if r := c2.run("", "auth", "login", "--url", srv.URL(), "--with-token"); r.code != 1 || !strings.Contains(r.stderr, "standard input is empty") {
		t.Fatalf("no token: %+v", r)
	}
	if r := c2.run(apiTok, "auth", "login", "--with-token"); r.code != 2 || !strings.Contains(r.stderr, "needs a server URL") {
		t.Fatalf("no URL: %+v", r)
	}
	if r := c2.run(apiTok, "auth", "login", "--url", srv.URL(), "--with-token", "--password-stdin"); r.code != 2 {
		t.Fatalf("both flags: %+v", r)
	}
}

// TestLoginWithAccessToken: an access token on standard input is stored
// as it is, once the server takes it, and cannot be renewed.
func TestLoginWithAccessToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	raw, err := srv.IssueToken("", "admin")
	if err != nil {
		t.Fatal(err)
	}
	c := newCLI(t, srv)
	if r := c.must(raw, "auth", "login", "--url", srv.URL(), "--with-token"); !strings.Contains(r.stdout, "as admin") {
		t.Fatalf("login: %+v", r)
	}
	if got := strings.TrimSpace(c.must("", "auth", "token").stdout); got != raw {
		t.Fatal("the access token was not stored as it is")
	}
	if r := c.run("", "auth", "refresh"); r.code != 4 || !strings.Contains(r.stderr, "cannot be renewed") {
		t.Fatalf("refresh: %+v", r)
	}
	if err := srv.RevokeToken(raw); err != nil {
		t.Fatal(err)
	}
	c2 := newCLI(t, srv)
	if r := c2.run(raw, "auth", "login", "--url", srv.URL(), "--with-token"); r.code != 1 || r.stderr != cloudauth.ErrUnauthorized.Error()+"\n" {
		t.Fatalf("a revoked access token: %+v", r)
	}
}
