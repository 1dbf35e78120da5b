package cloudauthfake_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
)

// TestAPITokenExchange: an API token the fake issued is exchanged for an
// access token at the gateway's path, in the form field or the query
// parameter refresh_token, until it expires or is revoked; every refusal
// is a 400 in the gateway's shape that does not quote the token.
func TestAPITokenExchange(t *testing.T) {
	t.Parallel()
	srv := start(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "bob", Password: "pw-bob", Tenant: "acme"})
	apiTok, err := srv.IssueAPIToken("acme", "bob", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(apiTok) != 64 {
		t.Fatalf("API token of %d characters", len(apiTok))
	}
	u := srv.URL() + cloudauth.APITokenPath
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	resp, m := send(t, srv.RawClient(), "POST", u, url.Values{"refresh_token": {apiTok}}.Encode(), form)
	if resp.StatusCode != 200 || m["token_type"] != "bearer" || m["expires_in"] != float64(1800) ||
		m["refresh_token"] != apiTok || m["scope"] != cloudauthfake.DefaultAPITokenScope || resp.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("exchange: %d %v", resp.StatusCode, m)
	}
	access := mustParse(t, m["access_token"].(string))
	if access.Subject != "bob" || access.Tenant != "acme" || !access.ExpiresAt.Equal(t0.Add(30*time.Minute)) {
		t.Fatalf("access token %v", access)
	}
	if _, err := srv.Client().UserInfo(t.Context(), access); err != nil {
		t.Fatalf("the access token is refused: %v", err)
	}
	// The id token names the user but is no bearer token.
	id := mustParse(t, m["id_token"].(string))
	if id.Subject != "bob" {
		t.Fatalf("id token %v", id)
	}
	if _, err := srv.Client().UserInfo(t.Context(), id); err == nil {
		t.Fatal("the id token was taken as a bearer token")
	}
	// The query parameter, as scripts send it.
	if resp, m := send(t, srv.RawClient(), "POST", u+"?refresh_token="+url.QueryEscape(apiTok), "", http.Header{"Content-Type": {"application/json"}}); resp.StatusCode != 200 {
		t.Fatalf("in the query: %d %v", resp.StatusCode, m)
	}

	refused := func(name, body string, h http.Header, msg string) {
		t.Helper()
		resp, m := send(t, srv.RawClient(), "POST", u, body, h)
		if resp.StatusCode != 400 || m["statusCode"] != float64(400) || m["message"] != msg || m["requestId"] == "" {
			t.Fatalf("%s: %d %v", name, resp.StatusCode, m)
		}
		if strings.Contains(m["message"].(string), apiTok[:16]) {
			t.Fatalf("%s: the answer quotes the token", name)
		}
	}
	refused("no token", "", form, "invalid_request: refresh_token is required")
	refused("JSON body", `{"refresh_token":"`+apiTok+`"}`, http.Header{"Content-Type": {"application/json"}}, "invalid_request: refresh_token is required")
	refused("unknown token", "refresh_token=not-a-token-of-ours", form, "invalid_grant: Invalid refresh token")

	// A locked account's token is refused, and accepted again once
	// unlocked.
	must(t, srv.SetLocked("acme", "bob", true))
	refused("locked", "refresh_token="+apiTok, form, "invalid_grant: Invalid refresh token")
	must(t, srv.SetLocked("acme", "bob", false))
	// Expiry on the fake's clock.
	srv.Clock().Advance(time.Hour)
	refused("expired", "refresh_token="+apiTok, form, "invalid_grant: Invalid refresh token")
	// Revocation: access tokens exchanged before stay valid until they
	// expire, as the gateway's do.
	never, err := srv.IssueAPIToken("", "admin", 0)
	must(t, err)
	g, err := srv.Client().AuthorizeAPIToken(t.Context(), never)
	must(t, err)
	must(t, srv.RevokeAPIToken(never))
	refused("revoked", "refresh_token="+never, form, "invalid_grant: Invalid refresh token")
	if _, err := srv.Client().UserInfo(t.Context(), g.AccessToken); err != nil {
		t.Fatalf("an access token of a revoked API token: %v", err)
	}
	if err := srv.RevokeAPIToken(never); err == nil {
		t.Fatal("revoked twice")
	}

	// The request log keeps no token: form field and query parameter
	// are masked.
	for _, r := range srv.RequestsTo(cloudauthfake.RouteAPIToken) {
		if strings.Contains(string(r.Body)+r.Query.Encode()+string(r.ResponseBody), apiTok) ||
			strings.Contains(string(r.Body)+r.Query.Encode(), never) {
			t.Fatalf("the request log keeps a token: %+v", r)
		}
	}
	// Reset forgets every API token.
	tok2, err := srv.IssueAPIToken("", "admin", 0)
	must(t, err)
	srv.Reset()
	if srv.APITokens() != 0 {
		t.Fatalf("%d API tokens after Reset", srv.APITokens())
	}
	refused("after reset", "refresh_token="+tok2, form, "invalid_grant: Invalid refresh token")
}

// TestAPITokensAreBounded: the fake holds at most WithMaxRecords API
// tokens not yet expired; the expired make room.
func TestAPITokensAreBounded(t *testing.T) {
	t.Parallel()
	srv := start(t, control.WithMaxRecords(3))
	for range 3 {
		if _, err := srv.IssueAPIToken("", "admin", time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.IssueAPIToken("", "admin", time.Minute); err == nil || !strings.Contains(err.Error(), "at most 3 API tokens") {
		t.Fatalf("one over the bound: %v", err)
	}
	srv.Clock().Advance(time.Minute)
	if _, err := srv.IssueAPIToken("", "admin", 0); err != nil {
		t.Fatalf("after the others expired: %v", err)
	}
	if srv.APITokens() != 1 {
		t.Fatalf("%d API tokens", srv.APITokens())
	}
	for _, bad := range []struct{ tenant, user string }{{"", "nobody"}, {"other", "admin"}} {
		if _, err := srv.IssueAPIToken(bad.tenant, bad.user, 0); err == nil {
			t.Fatalf("issued to %v", bad)
		}
	}
	if _, err := srv.IssueAPIToken("", "admin", -time.Second); err == nil {
		t.Fatal("a negative lifetime was taken")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAPITokensInTheSnapshot: a restored fake takes the API tokens the
// snapshot held (neither revoked nor expired), and the snapshot holds
// their hashes, not the tokens.
func TestAPITokensInTheSnapshot(t *testing.T) {
	t.Parallel()
	src := start(t)
	kept, err := src.IssueAPIToken("", "admin", 0)
	must(t, err)
	expiring, err := src.IssueAPIToken("", "admin", time.Hour)
	must(t, err)
	revoked, err := src.IssueAPIToken("", "admin", 0)
	must(t, err)
	must(t, src.RevokeAPIToken(revoked))
	data, err := src.Snapshot()
	must(t, err)
	for _, tok := range []string{kept, expiring, revoked} {
		if strings.Contains(string(data), tok) {
			t.Fatal("the snapshot holds an API token")
		}
	}
	dst := start(t)
	must(t, dst.Restore(data))
	if n := dst.APITokens(); n != 2 {
		t.Fatalf("%d API tokens restored", n)
	}
	c := dst.Client()
	for _, tok := range []string{kept, expiring} {
		if _, err := c.AuthorizeAPIToken(t.Context(), tok); err != nil {
			t.Fatalf("a restored API token: %v", err)
		}
	}
	dst.Clock().Advance(time.Hour)
	if _, err := c.AuthorizeAPIToken(t.Context(), expiring); err == nil {
		t.Fatal("a restored API token outlived its expiry")
	}
	if _, err := c.AuthorizeAPIToken(t.Context(), revoked); err == nil {
		t.Fatal("a revoked API token came back")
	}
	bad := regexp.MustCompile(`("sha256":\s*")`).ReplaceAllString(string(data), "${1}zz")
	if err := dst.Restore([]byte(bad)); err == nil || !strings.Contains(err.Error(), "api_tokens[") {
		t.Fatalf("a bad hash: %v", err)
	}
}
