package cloudauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/leaktest"
)

func TestLogin(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := srv.Client()
	tok, err := c.Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Subject != "admin" || tok.Tenant != cloudauthfake.DefaultTenant || tok.Issuer != srv.URL() ||
		!tok.IssuedAt.Equal(t0) || !tok.ExpiresAt.Equal(t0.Add(30*time.Minute)) ||
		tok.KeyID != "test-key" || tok.Algorithm != "RS256" || tok.Verified || tok.ID == "" {
		t.Fatalf("token %+v", tok)
	}
	if got := tok.TimeLeft(t0.Add(time.Minute)); got != 29*time.Minute {
		t.Fatalf("TimeLeft = %v", got)
	}
	reqs := srv.RequestsTo(cloudauthfake.RouteLogin)
	if len(reqs) != 1 || reqs[0].Header.Get("Content-Type") != "application/json" {
		t.Fatalf("login requests %+v", reqs)
	}
	var body map[string]any
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	// The fake's log keeps no password; that the right one was sent, the
	// caller it logged in says.
	if diff := cmp.Diff(map[string]any{"username": "admin", "password": "[REDACTED]"}, body); diff != "" || reqs[0].Caller != "admin" {
		t.Fatalf("login body (-want +got):\n%s; caller %q", diff, reqs[0].Caller)
	}
}

func TestLoginTenant(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	if err := srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "alice-pw", Tenant: "acme.example"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tok, err := srv.Client().Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "alice-pw", Tenant: "acme.example"})
	if err != nil {
		t.Fatal(err)
	}
	if tok.Tenant != "acme.example" {
		t.Fatalf("tenant %q", tok.Tenant)
	}
	var body map[string]string
	json.Unmarshal(srv.RequestsTo(cloudauthfake.RouteLogin)[0].Body, &body)
	if body["tenant"] != "acme.example" {
		t.Fatalf("the tenant did not travel in the body: %v", body)
	}
}

// TestLoginRefused: each cause the specification names answers 401, which
// the client reports with the specification's exact text.
func TestLoginRefused(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "bob", Password: "bob-secret", Tenant: "acme.example"})
	srv.AddUser(cloudauthfake.UserSeed{Username: "carol", Password: "carol-secret", Locked: true})
	c := srv.Client()
	for _, tc := range []struct {
		name string
		req  cloudauth.LoginRequest
	}{
		{"wrong password", cloudauth.LoginRequest{Username: "admin", Password: "not-the-password"}},
		{"unknown user", cloudauth.LoginRequest{Username: "nobody", Password: "whatever1"}},
		{"locked account", cloudauth.LoginRequest{Username: "carol", Password: "carol-secret"}},
		{"wrong tenant", cloudauth.LoginRequest{Username: "bob", Password: "bob-secret", Tenant: "other.example"}},
		{"default tenant, user elsewhere", cloudauth.LoginRequest{Username: "bob", Password: "bob-secret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Login(context.Background(), &tc.req)
			if err == nil {
				t.Fatal("login succeeded")
			}
			if err.Error() != "Authentication failed: 401 Unauthorized" {
				t.Fatalf("error text %q", err)
			}
			if !errors.Is(err, cloudauth.ErrUnauthorized) || errors.Is(err, cloudauth.ErrConnectionTimeout) {
				t.Fatalf("errors.Is: %v", err)
			}
			var e *cloudauth.Error
			if !errors.As(err, &e) || e.StatusCode != 401 || e.Message != "Unauthorized" || e.RequestID == "" {
				t.Fatalf("error %#v", e)
			}
			if strings.Contains(fmt.Sprintf("%v %+v %s", err, e, e.Detail()), tc.req.Password) {
				t.Fatal("the password shows in the error")
			}
		})
	}
	if n := srv.Issued(); n != 0 {
		t.Fatalf("%d tokens issued", n)
	}
}

func TestLoginUnlocked(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	ctx := context.Background()
	srv.SetLocked("", "admin", true)
	if _, err := srv.Client().Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword}); !errors.Is(err, cloudauth.ErrUnauthorized) {
		t.Fatalf("locked: %v", err)
	}
	srv.SetLocked("", "admin", false)
	if _, err := srv.Client().Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword}); err != nil {
		t.Fatalf("unlocked: %v", err)
	}
}

func TestLoginChecksInput(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := srv.Client()
	for _, req := range []*cloudauth.LoginRequest{nil, {Password: "x"}, {Username: " ", Password: "x"}, {Username: "admin"}} {
		if _, err := c.Login(context.Background(), req); err == nil {
			t.Errorf("Login(%v) accepted", req)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestLoginEchoedPasswordIsScrubbed: a server that quotes the password
// back in its error does not get it into the error.
func TestLoginEchoedPasswordIsScrubbed(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: 400, Body: `{"statusCode":400,"message":"bad password hunter22"}`})
	_, err := srv.Client().Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: "hunter22"})
	var e *cloudauth.Error
	if !errors.As(err, &e) || !errors.Is(err, cloudauth.ErrBadRequest) {
		t.Fatalf("err %v", err)
	}
	if strings.Contains(err.Error()+e.Detail()+string(e.Body), "hunter22") {
		t.Fatalf("password in the error: %v / %s", err, e.Body)
	}
}

func TestLoginAnswerWithoutToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: 200, Body: `{"token_type":"bearer"}`, Times: 1})
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: 200, Body: `{"access_token":"opaque"}`, Times: 1})
	c := srv.Client()
	req := &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword}
	if _, err := c.Login(context.Background(), req); err == nil || !strings.Contains(err.Error(), "no access_token") {
		t.Fatalf("no token: %v", err)
	}
	if _, err := c.Login(context.Background(), req); !errors.Is(err, cloudauth.ErrTokenInvalid) {
		t.Fatalf("opaque token: %v", err)
	}
}

func TestServerErrors(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	c := srv.Client(cloudauth.WithoutRetries())
	req := &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword}
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: 503, Times: 1})
	_, err := c.Login(context.Background(), req)
	if !errors.Is(err, cloudauth.ErrServer) || err.Error() != "cloudauth: POST /csp/gateway/am/api/login: 503 Service Unavailable (not retried: the call is not idempotent, and sending it again could do it twice)" {
		t.Fatalf("503: %v", err)
	}
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: 429, Times: 1})
	_, err = c.Login(context.Background(), req)
	var rl *cloudauth.RateLimitError
	if !errors.Is(err, cloudauth.ErrRateLimited) || !errors.As(err, &rl) {
		t.Fatalf("429: %v", err)
	}
}

// TestLoginRetriesRateLimit: a 429 is waited out on the fake's clock, with
// no real sleeping.
func TestLoginRetriesRateLimit(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: 429, Times: 2})
	tok, err := srv.Client().Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.RequestsTo(cloudauthfake.RouteLogin)); n != 3 {
		t.Fatalf("%d login requests", n)
	}
	// The fake asks for Retry-After: 1; the backoff doubles over it (issue
	// 34, finding 7), so the waits are 1 s and 2 s.
	if want := t0.Add(3 * time.Second); !tok.IssuedAt.Equal(want) {
		t.Fatalf("issued at %v, want %v (waits of 1 s and 2 s on the fake clock)", tok.IssuedAt, want)
	}
}

func TestUserInfoAndLogout(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	srv.AddUser(cloudauthfake.UserSeed{Username: "alice", Password: "alice-pw", Name: "Alice Liddell", Email: "alice@example.com", Roles: []string{"org_member"}})
	c := srv.Client()
	ctx := context.Background()
	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "alice-pw"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.UserInfo(ctx, tok)
	if err != nil {
		t.Fatal(err)
	}
	want := &cloudauth.UserInfo{Subject: "alice", Username: "alice", Name: "Alice Liddell", Email: "alice@example.com",
		Tenant: cloudauthfake.DefaultTenant, Roles: []string{"org_member"}}
	if diff := cmp.Diff(want, info); diff != "" {
		t.Fatalf("user info (-want +got):\n%s", diff)
	}
	if r := srv.RequestsTo(cloudauthfake.RouteUserInfo)[0]; r.Header.Get("Authorization") != "Bearer [REDACTED]" || r.Caller != "alice" {
		t.Fatalf("Authorization %q, caller %q", r.Header.Get("Authorization"), r.Caller)
	}
	if err := c.Logout(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if !srv.Revoked(tok.Raw()) {
		t.Fatal("not revoked")
	}
	if _, err := c.UserInfo(ctx, tok); !errors.Is(err, cloudauth.ErrUnauthorized) {
		t.Fatalf("user info after logout: %v", err)
	}
	if err := c.Logout(ctx, tok); !errors.Is(err, cloudauth.ErrUnauthorized) {
		t.Fatalf("second logout: %v", err)
	}
	// Another session of the same user is untouched.
	tok2, _ := c.Login(ctx, &cloudauth.LoginRequest{Username: "alice", Password: "alice-pw"})
	if _, err := c.UserInfo(ctx, tok2); err != nil {
		t.Fatal(err)
	}
	if err := c.Logout(ctx, nil); err == nil {
		t.Fatal("logout without a token")
	}
}

func TestTokenExpiresOnTheClock(t *testing.T) {
	t.Parallel()
	srv := startFake(t, cloudauthfake.WithTokenLifetime(10*time.Minute))
	c := srv.Client()
	ctx := context.Background()
	tok, err := c.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword})
	if err != nil {
		t.Fatal(err)
	}
	if !tok.ExpiresAt.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("exp %v", tok.ExpiresAt)
	}
	srv.Clock().Advance(10*time.Minute - time.Second)
	if _, err := c.UserInfo(ctx, tok); err != nil || tok.Expired(srv.Clock().Now()) {
		t.Fatalf("a second before expiry: %v", err)
	}
	srv.Clock().Advance(time.Second)
	if !tok.Expired(srv.Clock().Now()) || tok.TimeLeft(srv.Clock().Now()) != 0 {
		t.Fatal("not expired at exp")
	}
	if _, err := c.UserInfo(ctx, tok); !errors.Is(err, cloudauth.ErrUnauthorized) {
		t.Fatalf("after expiry: %v", err)
	}
	resp := srv.RequestsTo(cloudauthfake.RouteUserInfo)
	if resp[len(resp)-1].Status != http.StatusUnauthorized {
		t.Fatalf("log %+v", resp[len(resp)-1])
	}
}

func TestClientString(t *testing.T) {
	t.Parallel()
	c, err := cloudauth.New("https://cloud.example.com/")
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != "https://cloud.example.com" || fmt.Sprintf("%v %#v", c, c) != "cloudauth.Client{BaseURL: https://cloud.example.com} cloudauth.Client{BaseURL: https://cloud.example.com}" {
		t.Fatalf("%v", c)
	}
	req := cloudauth.LoginRequest{Username: "u", Password: "sekrit-pw"}
	if s := fmt.Sprintf("%v %+v %#v", req, req, req); strings.Contains(s, "sekrit") {
		t.Fatalf("password printed: %s", s)
	}
}

func TestNewChecksOptions(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]cloudauth.Option{
		"zero timeout":   {cloudauth.WithTimeout(0)},
		"huge leeway":    {cloudauth.WithLeeway(time.Hour)},
		"empty issuer":   {cloudauth.WithIssuer(" ")},
		"missing CA":     {cloudauth.WithCAFile("/nonexistent/ca.pem")},
		"TLS and client": {cloudauth.WithHTTPClient(http.DefaultClient), cloudauth.WithInsecureSkipVerify()},
	} {
		if _, err := cloudauth.New("https://cloud.example.com", opts...); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, u := range []string{"", "cloud.example.com", "ftp://x", "https://x/?q=1"} {
		if _, err := cloudauth.New(u); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
}

// TestClientStringHidesTheURLPassword: a server URL may carry a proxy's
// user and password, which net/http sends; the client prints without it.
func TestClientStringHidesTheURLPassword(t *testing.T) {
	t.Parallel()
	c, err := cloudauth.New("https://proxyuser:proxy-s3cret@cloud.example.com")
	if err != nil {
		t.Fatal(err)
	}
	leaktest.NoSecretIn(t, "the client", c, "proxy-s3cret")
	for _, s := range []string{fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		if !strings.Contains(s, "cloud.example.com") {
			t.Errorf("client printed as %s", s)
		}
	}
}

// TestEchoedSecretsAreScrubbedInEveryForm: a server that quotes the
// request it was sent quotes the password as the JSON body carried it
// (escaped: \u003c for <, \" for "), and a token as the header carried it;
// neither form reaches the error, whichever call made it (Do included).
func TestEchoedSecretsAreScrubbedInEveryForm(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	const pw = `pa<ss>&"wd\x`
	sent, _ := json.Marshal(pw)
	srv.InjectFault(cloudauthfake.RouteLogin, control.Fault{Status: 400, Times: 1,
		Body: `refused {"username":"admin","password":` + string(sent) + `}`})
	_, err := srv.Client().Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: pw})
	var e *cloudauth.Error
	if !errors.As(err, &e) || !errors.Is(err, cloudauth.ErrBadRequest) {
		t.Fatalf("err %v", err)
	}
	for _, form := range []string{pw, string(sent[1 : len(sent)-1])} {
		if s := err.Error() + e.Detail() + string(e.Body); strings.Contains(s, form) {
			t.Errorf("password (as %q) in the error: %s", form, s)
		}
	}

	c := srv.Client()
	tok, err := c.Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: cloudauthfake.AdminPassword})
	if err != nil {
		t.Fatal(err)
	}
	srv.InjectFault(cloudauthfake.RouteUserInfo, control.Fault{Status: 403, Times: 1,
		Body: `{"statusCode":403,"message":"token ` + tok.Raw() + ` may not read this"}`})
	err = c.Do(context.Background(), tok, http.MethodGet, cloudauth.UserInfoPath, nil, nil, nil)
	if !errors.As(err, &e) || !errors.Is(err, cloudauth.ErrForbidden) {
		t.Fatalf("err %v", err)
	}
	if s := err.Error() + e.Detail() + string(e.Body); strings.Contains(s, tok.Raw()) {
		t.Errorf("token in the error of Do: %s", s)
	}
}
