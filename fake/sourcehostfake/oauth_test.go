package sourcehostfake_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// web reaches the fakes whichever way they serve: on their ports, or in
// memory (a run with -fakes.inmemory), where their ".invalid" hosts are
// dialled without any network, as their own clients do.
var web = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
	if c, ok, err := fakekit.DialInMemory(ctx, addr); ok {
		return c, err
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}}}

// viaWeb is ctx with web as the client oauth2 makes its requests with.
func viaWeb(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, web)
}

// oauthClient is a public client registered at srv, and what it needs
// for one authorization.
type oauthClient struct {
	srv      *sourcehostfake.Server
	id       string
	redirect string
	verifier string
	cfg      oauth2.Config
}

// register registers a public client as an MCP client does (RFC 7591).
func register(t *testing.T, srv *sourcehostfake.Server, body string) (int, map[string]any) {
	t.Helper()
	resp, err := web.Post(srv.URL()+"/oauth/register", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func newOAuthClient(t *testing.T, srv *sourcehostfake.Server) *oauthClient {
	t.Helper()
	redirect := "http://127.0.0.1:7777/callback"
	status, reg := register(t, srv, `{"client_name":"Test","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`)
	if status != http.StatusCreated {
		t.Fatalf("register: %d %v", status, reg)
	}
	id, _ := reg["client_id"].(string)
	return &oauthClient{srv: srv, id: id, redirect: redirect, verifier: oauth2.GenerateVerifier(), cfg: oauth2.Config{
		ClientID: id, RedirectURL: redirect, Scopes: []string{"api"},
		Endpoint: oauth2.Endpoint{AuthURL: srv.URL() + "/oauth/authorize", TokenURL: srv.URL() + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams},
	}}
}

// authURL is the URL the client opens, for resource.
func (c *oauthClient) authURL(state, resource string) string {
	return c.cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(c.verifier), oauth2.SetAuthURLParam("resource", resource))
}

// login approves as user through the test helper and exchanges the code.
func (c *oauthClient) login(t *testing.T, user, resource string) *oauth2.Token {
	t.Helper()
	back, err := c.srv.Authorize(user, c.authURL("st4te", resource))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	if got := u.Query().Get("state"); got != "st4te" || u.Query().Get("code") == "" {
		t.Fatalf("redirect %s: want a code and the state", back)
	}
	tok, err := c.cfg.Exchange(viaWeb(context.Background()), u.Query().Get("code"), oauth2.VerifierOption(c.verifier), oauth2.SetAuthURLParam("resource", resource))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func getJSON(t *testing.T, rawURL, bearer string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, rawURL, nil)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := web.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func postForm(t *testing.T, rawURL string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := web.PostForm(rawURL, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// The whole code flow: metadata, registration, authorization with PKCE, a
// token that works on the API with its scopes and names its resource,
// expiry on the fake clock, rotation of the refresh token, revocation.
func TestOAuthCodeFlow(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	status, md := getJSON(t, srv.URL()+"/.well-known/oauth-authorization-server", "")
	if status != http.StatusOK || md["issuer"] != srv.URL() || md["registration_endpoint"] != srv.URL()+"/oauth/register" ||
		md["token_endpoint"] != srv.URL()+"/oauth/token" || !contains(md["code_challenge_methods_supported"], "S256") || contains(md["code_challenge_methods_supported"], "plain") {
		t.Fatalf("metadata: %d %v", status, md)
	}
	// MCP clients try OpenID Connect discovery after RFC 8414's path:
	// GitLab answers the same document there (404 before).
	if status, oidc := getJSON(t, srv.URL()+"/.well-known/openid-configuration", ""); status != http.StatusOK {
		t.Errorf("openid-configuration: %d", status)
	} else if diff := cmp.Diff(md, oidc); diff != "" {
		t.Errorf("openid-configuration differs from the RFC 8414 metadata (-8414 +oidc):\n%s", diff)
	}
	c := newOAuthClient(t, srv)
	const resource = "https://mcp.example.com/mcp"
	tok := c.login(t, "root", resource)
	if tok.TokenType != "Bearer" || tok.RefreshToken == "" || tok.Expiry.IsZero() {
		t.Fatalf("token %+v", tok)
	}
	// The token is a token of the whole API, with its scopes.
	api, err := sourcehost.New(srv.URL(), sourcehost.WithToken(tok.AccessToken), sourcehost.WithHTTPClient(web))
	if err != nil {
		t.Fatal(err)
	}
	if u, err := api.CurrentUser(context.Background()); err != nil || u.Username != "root" {
		t.Fatalf("current user with the OAuth token: %v %v", u, err)
	}
	if _, err := api.CurrentToken(context.Background()); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Errorf("personal_access_tokens/self with an OAuth token: %v, want 404", err)
	}
	status, info := getJSON(t, srv.URL()+"/oauth/token/info", tok.AccessToken)
	if status != http.StatusOK || info["resource"] != resource || info["expires_in"] != float64(7200) ||
		info["application"].(map[string]any)["uid"] != c.id || !contains(info["scope"], "api") {
		t.Fatalf("token info: %d %v", status, info)
	}

	// Two hours on the fake clock: expired, on the API and in the info.
	srv.Clock().Advance(sourcehostfake.OAuthTokenLifetime)
	if _, err := api.CurrentUser(context.Background()); !errors.Is(err, sourcehost.ErrUnauthorized) {
		t.Fatalf("expired token: %v", err)
	}
	if status, _ := getJSON(t, srv.URL()+"/oauth/token/info", tok.AccessToken); status != http.StatusUnauthorized {
		t.Errorf("info of an expired token: %d", status)
	}

	// Refresh: a new pair, the old refresh token refused after use, and
	// its reuse revokes the family.
	refresh := url.Values{"grant_type": {"refresh_token"}, "client_id": {c.id}, "refresh_token": {tok.RefreshToken}}
	status, fresh := postForm(t, srv.URL()+"/oauth/token", refresh)
	if status != http.StatusOK || fresh["refresh_token"] == tok.RefreshToken || fresh["access_token"] == "" {
		t.Fatalf("refresh: %d %v", status, fresh)
	}
	access2, _ := fresh["access_token"].(string)
	if status, info := getJSON(t, srv.URL()+"/oauth/token/info", access2); status != http.StatusOK || info["resource"] != resource {
		t.Fatalf("info of the refreshed token: %d %v", status, info)
	}
	if status, body := postForm(t, srv.URL()+"/oauth/token", refresh); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Fatalf("the rotated refresh token again: %d %v", status, body)
	}
	if status, _ := getJSON(t, srv.URL()+"/oauth/token/info", access2); status != http.StatusUnauthorized {
		t.Errorf("after reuse of a rotated refresh token, the family's live token answers %d, want 401", status)
	}

	// Revocation (RFC 7009) of a fresh login's token: 200, then refused.
	tok3 := c.login(t, "root", resource)
	for i := range 2 { // an unknown or revoked token is no error
		if status, _ := postForm(t, srv.URL()+"/oauth/revoke", url.Values{"client_id": {c.id}, "token": {tok3.AccessToken}}); status != http.StatusOK {
			t.Fatalf("revoke #%d: %d", i, status)
		}
	}
	if status, _ := getJSON(t, srv.URL()+"/oauth/token/info", tok3.AccessToken); status != http.StatusUnauthorized {
		t.Errorf("a revoked token's info: %d", status)
	}
	if status, body := postForm(t, srv.URL()+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {c.id},
		"refresh_token": {tok3.RefreshToken}}); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("refresh of a revoked row: %d %v", status, body)
	}

	// Secrets never reach the request log.
	for _, r := range srv.Requests() {
		for _, s := range []string{tok.AccessToken, tok.RefreshToken, access2, tok3.AccessToken, c.verifier} {
			if strings.Contains(string(r.Body)+string(r.ResponseBody)+r.Query.Encode(), s) {
				t.Errorf("%s %s: the log holds a secret", r.Method, r.Path)
			}
		}
	}
}

func contains(v any, s string) bool {
	list, _ := v.([]any)
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// What the authorization and token endpoints refuse, each as OAuth says.
func TestOAuthRefusals(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	c := newOAuthClient(t, srv)
	good := c.authURL("s", "https://mcp.example.com/mcp")
	with := func(pairs ...string) string {
		u, _ := url.Parse(good)
		q := u.Query()
		for i := 0; i+1 < len(pairs); i += 2 {
			if pairs[i+1] == "" {
				q.Del(pairs[i])
			} else {
				q.Set(pairs[i], pairs[i+1])
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, tc := range []struct {
		name, url, wantErr string
	}{
		{"plain PKCE", with("code_challenge_method", "plain"), "invalid_request"},
		{"no PKCE", with("code_challenge", "", "code_challenge_method", ""), "invalid_request"},
		{"unknown scope", with("scope", "api sudo"), "invalid_scope"},
		{"token response", with("response_type", "token"), "unsupported_response_type"},
		{"resource with a fragment", with("resource", "https://mcp.example.com/mcp#x"), "invalid_target"},
	} {
		back, err := srv.Authorize("root", tc.url)
		u, _ := url.Parse(back)
		if err != nil || u.Query().Get("error") != tc.wantErr || u.Query().Get("state") != "s" || u.Query().Get("code") != "" {
			t.Errorf("%s: %s %v; want a redirect with error %s and the state", tc.name, back, err, tc.wantErr)
		}
	}
	// Nowhere safe to redirect: an error, no redirect.
	for _, u := range []string{with("client_id", "nobody"), with("redirect_uri", "https://evil.example/cb")} {
		if back, err := srv.Authorize("root", u); err == nil {
			t.Errorf("%s: redirected to %s", u, back)
		}
	}
	// A loopback redirect URI may change its port (RFC 8252 §7.3).
	if back, err := srv.Authorize("root", with("redirect_uri", "http://127.0.0.1:50123/callback")); err != nil || !strings.HasPrefix(back, "http://127.0.0.1:50123/callback?code=") {
		t.Errorf("another loopback port: %s %v", back, err)
	}

	back, _ := srv.Authorize("root", good)
	code := mustQuery(t, back, "code")
	exchange := url.Values{"grant_type": {"authorization_code"}, "client_id": {c.id}, "code": {code}, "redirect_uri": {c.redirect}}
	if status, body := postForm(t, srv.URL()+"/oauth/token", exchange); status != http.StatusBadRequest || body["error"] != "invalid_request" {
		t.Errorf("no code_verifier: %d %v", status, body)
	}
	back, _ = srv.Authorize("root", good)
	exchange.Set("code", mustQuery(t, back, "code"))
	exchange.Set("code_verifier", oauth2.GenerateVerifier())
	if status, body := postForm(t, srv.URL()+"/oauth/token", exchange); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("a wrong verifier: %d %v", status, body)
	}
	exchange.Set("code_verifier", c.verifier) // the code was spent by the failed attempt
	if status, body := postForm(t, srv.URL()+"/oauth/token", exchange); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("a code used twice: %d %v", status, body)
	}
	back, _ = srv.Authorize("root", good)
	exchange.Set("code", mustQuery(t, back, "code"))
	exchange.Set("resource", "https://other.example.com/mcp")
	if status, body := postForm(t, srv.URL()+"/oauth/token", exchange); status != http.StatusBadRequest || body["error"] != "invalid_target" {
		t.Errorf("another resource at the exchange: %d %v", status, body)
	}
	back, _ = srv.Authorize("root", good)
	exchange.Set("code", mustQuery(t, back, "code"))
	exchange.Del("resource")
	srv.Clock().Advance(11 * time.Minute)
	if status, body := postForm(t, srv.URL()+"/oauth/token", exchange); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Errorf("an expired code: %d %v", status, body)
	}
	exchange.Set("client_id", "nobody")
	if status, body := postForm(t, srv.URL()+"/oauth/token", exchange); status != http.StatusUnauthorized || body["error"] != "invalid_client" {
		t.Errorf("an unknown client: %d %v", status, body)
	}
	if status, body := postForm(t, srv.URL()+"/oauth/token", url.Values{"grant_type": {"password"}, "client_id": {c.id}}); status != http.StatusBadRequest || body["error"] != "unsupported_grant_type" {
		t.Errorf("the password grant: %d %v", status, body)
	}
}

func mustQuery(t *testing.T, raw, name string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Query().Get(name) == "" {
		t.Fatalf("%s: no %s", raw, name)
	}
	return u.Query().Get(name)
}

// Registration's bounds: field sizes, redirect URIs, public clients only,
// and WithMaxRecords.
func TestOAuthRegistrationBounds(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, control.WithMaxRecords(2))
	for _, tc := range []struct{ body, wantErr string }{
		{`{"redirect_uris":[]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["http://evil.example/cb"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["javascript:alert(1)"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["https://app.example/cb#frag"]}`, "invalid_redirect_uri"},
		{`{"redirect_uris":["https://app.example/cb"],"client_name":"` + strings.Repeat("n", 201) + `"}`, "invalid_client_metadata"},
		{`{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, "invalid_client_metadata"},
		{`{"redirect_uris":["https://app.example/` + strings.Repeat("p", 70<<10) + `"]}`, "invalid_client_metadata"},
		{`[1]`, "invalid_client_metadata"},
	} {
		if status, body := register(t, srv, tc.body); status != http.StatusBadRequest || body["error"] != tc.wantErr {
			t.Errorf("%.80s: %d %v, want 400 %s", tc.body, status, body, tc.wantErr)
		}
	}
	// A lone string is taken as GitLab takes it; the name is marked.
	status, body := register(t, srv, `{"redirect_uris":"http://localhost:3334/oauth/callback","client_name":"mcp-remote"}`)
	if status != http.StatusCreated || body["client_name"] != "[Unverified Dynamic Application] mcp-remote" || body["token_endpoint_auth_method"] != "none" {
		t.Errorf("register: %d %v", status, body)
	}
	if status, body := register(t, srv, `{"redirect_uris":["https://app.example/cb"],"scope":"openid api offline_access"}`); status != http.StatusCreated || body["scope"] != "api" {
		t.Errorf("scopes the server does not know are left out: %d %v", status, body)
	}
	if status, body := register(t, srv, `{"redirect_uris":["https://app.example/cb"]}`); status != http.StatusBadRequest || !strings.Contains(toJSON(body), "OAuth applications") {
		t.Errorf("past WithMaxRecords: %d %v", status, body)
	}
}

func toJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

var hiddenField = regexp.MustCompile(`name="(pending|authenticity_token)" value="([^"]+)"`)

// The login page as a browser without JavaScript uses it: a form posted
// with its cookie signs in and sends a code back; one without the cookie
// (posted from another site) is refused, a wrong password shows the page
// again, and Deny sends access_denied back.
func TestOAuthLoginPage(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	if _, err := srv.AddUser(sourcehostfake.UserSeed{Username: "jane"}); err != nil {
		t.Fatal(err)
	}
	pat, err := srv.IssueToken("jane", "read_user")
	if err != nil {
		t.Fatal(err)
	}
	c := newOAuthClient(t, srv)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Transport: web.Transport, Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	open := func() map[string]string {
		resp, err := browser.Get(c.authURL("xyz", "https://mcp.example.com/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(string(b), "[Unverified Dynamic Application] Test") || strings.Contains(string(b), "<script") ||
			resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("page: %d %s", resp.StatusCode, b)
		}
		fields := map[string]string{}
		for _, m := range hiddenField.FindAllStringSubmatch(string(b), -1) {
			fields[m[1]] = m[2]
		}
		return fields
	}
	submit := func(cl *http.Client, fields map[string]string, extra ...string) (*http.Response, string) {
		form := url.Values{"pending": {fields["pending"]}, "authenticity_token": {fields["authenticity_token"]}}
		for i := 0; i+1 < len(extra); i += 2 {
			form.Set(extra[i], extra[i+1])
		}
		resp, err := cl.PostForm(srv.URL()+"/oauth/authorize", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	fields := open()
	noCookies := &http.Client{Transport: web.Transport, CheckRedirect: browser.CheckRedirect}
	if resp, _ := submit(noCookies, fields, "username", "jane", "password", pat, "decision", "approve"); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a form without its cookie: %d, want 422", resp.StatusCode)
	}
	if resp, body := submit(browser, fields, "username", "jane", "password", "wrong", "decision", "approve"); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Invalid login or password.") {
		t.Errorf("a wrong password: %d", resp.StatusCode)
	}
	resp, _ := submit(browser, fields, "username", "jane", "password", pat, "decision", "approve")
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc, c.redirect+"?") || mustQuery(t, loc, "state") != "xyz" {
		t.Fatalf("approve: %d %s", resp.StatusCode, loc)
	}
	tok, err := c.cfg.Exchange(viaWeb(context.Background()), mustQuery(t, loc, "code"), oauth2.VerifierOption(c.verifier))
	if err != nil {
		t.Fatal(err)
	}
	if status, info := getJSON(t, srv.URL()+"/oauth/token/info", tok.AccessToken); status != http.StatusOK || info["resource_owner_id"] != float64(2) {
		t.Errorf("jane's token: %d %v", status, info)
	}
	if resp, _ := submit(browser, fields, "username", "jane", "password", pat, "decision", "approve"); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("the same form twice: %d, want 422", resp.StatusCode)
	}
	resp, _ = submit(browser, open(), "decision", "deny")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || mustQuery(t, loc, "error") != "access_denied" {
		t.Errorf("deny: %d %s", resp.StatusCode, loc)
	}
}
