package gateway_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/sourcehost"
)

// oauthGateway serves a gateway on a loopback port in front of a
// source-hosting fake that is its authorization server, with resource.url
// the URL it is served at.
func oauthGateway(t *testing.T) (up *sourcehostfake.Server, mcpURL string) {
	t.Helper()
	up = sourcehostfake.Start(t)
	return up, serveOAuthGateway(t, up, gateway.Config{})
}

// serveOAuthGateway serves a gateway configured as cfg in front of up on a
// loopback port, with up's clock and resource.url the URL it is served at,
// which it returns; up gets a private project "shop".
func serveOAuthGateway(t *testing.T, up *sourcehostfake.Server, cfg gateway.Config) string {
	t.Helper()
	if _, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "private"}); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mcpURL := "http://" + l.Addr().String() + "/mcp"
	cfg.Upstream, cfg.Clock, cfg.Resource.URL = up.URL(), up.Clock(), mcpURL
	gw, err := gateway.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(gw)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return mcpURL
}

// oauthTokenFor is an access token up issued to a new application for
// root, asked for resource ("" for none) and scopes (none: the
// application's): authorization code with PKCE, root's consent given by
// Server.Authorize.
func oauthTokenFor(t *testing.T, up *sourcehostfake.Server, resource string, scopes ...string) string {
	t.Helper()
	clientID, _, err := up.AddOAuthApplication(sourcehostfake.OAuthApplicationSeed{Name: "app", RedirectURIs: []string{"http://127.0.0.1:9/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := oauth2.Config{ClientID: clientID, RedirectURL: "http://127.0.0.1:9/cb", Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: up.URL() + "/oauth/authorize", TokenURL: up.URL() + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", resource))
	}
	back, err := up.Authorize("root", cfg.AuthCodeURL("s", opts...))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(back)
	ctx := context.WithValue(t.Context(), oauth2.HTTPClient, up.RawClient())
	tok, err := cfg.Exchange(ctx, u.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

// fakeClockSource is an oauth2.TokenSource that judges expiry on the
// fake's clock (oauth2's own reads the wall clock) and refreshes then, as
// a client's would once that much time had passed.
type fakeClockSource struct {
	cfg *oauth2.Config
	clk clock.Clock

	mu        sync.Mutex
	tok       *oauth2.Token
	expires   time.Time
	refreshed int
}

func (s *fakeClockSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clk.Now().Before(s.expires) {
		return s.tok, nil
	}
	next, err := s.cfg.TokenSource(context.Background(), &oauth2.Token{RefreshToken: s.tok.RefreshToken}).Token()
	if err != nil {
		return nil, err
	}
	s.refreshed++
	s.set(next)
	return next, nil
}

func (s *fakeClockSource) set(tok *oauth2.Token) {
	s.tok, s.expires = tok, s.clk.Now().Add(time.Duration(tok.ExpiresIn)*time.Second)
}

func (s *fakeClockSource) current() *oauth2.Token {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tok
}

// The whole flow as an MCP client runs it (the official Go SDK's client
// with its OAuth handler): a POST without a token is 401, whose
// resource_metadata leads to the protected-resource metadata, then to the
// authorization server's metadata; the client registers itself, the user
// approves (Server.Authorize, as the login page would), the code is
// exchanged with PKCE for a token for this gateway, and initialize and
// tools/call run with it. Two hours later on the fake clock the token has
// expired: the client refreshes (the refresh token rotates) and goes on.
// Once revoked, the token is refused with 401.
func TestOAuthEndToEnd(t *testing.T) {
	t.Parallel()
	up, mcpURL := oauthGateway(t)
	ctx := context.Background()
	var source *fakeClockSource
	var fetched []string
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "apitwin e2e", RedirectURIs: []string{"http://127.0.0.1:33418/callback"}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}}},
		AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			fetched = append(fetched, args.URL)
			back, err := up.Authorize("root", args.URL)
			if err != nil {
				return nil, err
			}
			u, err := url.Parse(back)
			if err != nil || u.Query().Get("code") == "" {
				return nil, fmt.Errorf("no code in %s", back)
			}
			return &auth.AuthorizationResult{Code: u.Query().Get("code"), State: u.Query().Get("state")}, nil
		},
		NewTokenSource: func(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			source = &fakeClockSource{cfg: cfg, clk: up.Clock()}
			source.set(tok)
			return source, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "apitwin-e2e", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcpsdk.StreamableClientTransport{Endpoint: mcpURL, OAuthHandler: h}, nil)
	if err != nil {
		t.Fatalf("initialize through OAuth: %v", err)
	}
	defer session.Close()
	if len(fetched) != 1 || !strings.Contains(fetched[0], "resource="+url.QueryEscape(mcpURL)) || !strings.Contains(fetched[0], "code_challenge_method=S256") {
		t.Fatalf("authorization URLs opened: %q", fetched)
	}
	call := func(what string) {
		t.Helper()
		res, err := session.CallTool(ctx, &mcpsdk.CallToolParams{Name: "list_projects", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s: tools/call: %v %+v", what, err, res)
		}
	}
	call("first call")
	first := source.current()
	if up.RequestsTo("POST /oauth/register") == nil || len(up.RequestsTo("GET /.well-known/oauth-authorization-server")) == 0 {
		t.Error("the client did not read the metadata and register")
	}

	up.Clock().Advance(sourcehostfake.OAuthTokenLifetime + time.Minute)
	call("after expiry")
	if source.refreshed != 1 || source.current().AccessToken == first.AccessToken || source.current().RefreshToken == first.RefreshToken {
		t.Fatalf("refreshed %d times; want one refresh with a new access and refresh token", source.refreshed)
	}
	// The old pair is gone with its rotation.
	status, _, _ := rawPost(t, mcpURL, first.AccessToken)
	if status != http.StatusUnauthorized {
		t.Errorf("the rotated-out access token: %d, want 401", status)
	}

	// Revoked (RFC 7009): refused once the gateway asks again (at most
	// verify.ttl_seconds later; a call the upstream refuses forgets it at
	// once).
	cur := source.current()
	resp, err := http.PostForm(up.URL()+"/oauth/revoke", url.Values{"client_id": {source.cfg.ClientID}, "token": {cur.AccessToken}})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %v %v", resp, err)
	}
	resp.Body.Close()
	up.Clock().Advance(time.Duration(gateway.DefaultVerifyTTL+1) * time.Second)
	status, hdr, body := rawPost(t, mcpURL, cur.AccessToken)
	if status != http.StatusUnauthorized || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="invalid_token"`) ||
		!strings.Contains(hdr.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("a revoked token: %d %s, WWW-Authenticate %q", status, body, hdr.Get("WWW-Authenticate"))
	}
}

// rawPost sends list_projects with token.
func rawPost(t *testing.T, mcpURL, token string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, mcpURL, strings.NewReader(`{"jsonrpc":"2.0","method":"list_projects","id":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// The audience (RFC 8707): a token the authorization server issued for
// another resource, or for none, is refused with 401, however valid it is
// at the source-hosting API; one issued for this gateway is served, and
// personal access tokens work as ever.
func TestOAuthAudienceChecked(t *testing.T) {
	t.Parallel()
	up, mcpURL := oauthGateway(t)
	tokenFor := func(resource string) string { return oauthTokenFor(t, up, resource) }
	for _, tc := range []struct {
		name, resource string
		want           int
		reason         string
	}{
		{"this gateway", mcpURL, http.StatusOK, ""},
		{"this gateway, spelt in capitals", strings.Replace(mcpURL, "http://", "HTTP://", 1), http.StatusOK, ""},
		{"another resource", "https://other.example.com/mcp", http.StatusUnauthorized, "issued for another resource"},
		{"no resource", "", http.StatusUnauthorized, "issued for no resource"},
	} {
		status, hdr, body := rawPost(t, mcpURL, tokenFor(tc.resource))
		if status != tc.want || !strings.Contains(body, tc.reason) {
			t.Errorf("%s: %d %s (WWW-Authenticate %q), want %d %q", tc.name, status, body, hdr.Get("WWW-Authenticate"), tc.want, tc.reason)
		}
	}
	if status, _, body := rawPost(t, mcpURL, up.Token()); status != http.StatusOK {
		t.Errorf("a personal access token: %d %s", status, body)
	}
}

// The gateway's upstream is configured in one place: a source-hosting
// server served over TLS with a private CA, trusted by the HTTP client
// given once (as Config.HTTPClient or UpstreamCAFile, or in
// UpstreamOptions), is reached
// with it by an OAuth token's verification as by the tools, so a token
// issued for the gateway is verified and its call served.
func TestOAuthUpstreamWithPrivateCA(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T, up *sourcehostfake.Server) gateway.Config
	}{
		// RawClient trusts the fake's own certificate, and nothing else
		// trusts it: the CA given once.
		{"Config.HTTPClient", func(_ *testing.T, up *sourcehostfake.Server) gateway.Config {
			return gateway.Config{HTTPClient: up.RawClient()}
		}},
		{"UpstreamOptions HTTP client", func(_ *testing.T, up *sourcehostfake.Server) gateway.Config {
			return gateway.Config{UpstreamOptions: []sourcehost.Option{sourcehost.WithHTTPClient(up.RawClient())}}
		}},
		// A CA file, as the config's docs offer: it was refused ("TLS
		// options cannot be combined with a custom HTTP client"), the
		// gateway always giving the client an HTTP client of its own.
		{"UpstreamOptions CA file", func(t *testing.T, up *sourcehostfake.Server) gateway.Config {
			return gateway.Config{UpstreamOptions: []sourcehost.Option{sourcehost.WithCAFile(up.CACertFile(t))}}
		}},
		// The same from mcp-gateway's YAML (upstream_ca_file).
		{"Config.UpstreamCAFile", func(t *testing.T, up *sourcehostfake.Server) gateway.Config {
			return gateway.Config{UpstreamCAFile: up.CACertFile(t)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			up := sourcehostfake.Start(t, control.WithTLS())
			mcpURL := serveOAuthGateway(t, up, tc.cfg(t, up))
			status, _, body := rawPost(t, mcpURL, oauthTokenFor(t, up, mcpURL))
			if status != http.StatusOK || !strings.Contains(body, "shop") {
				t.Errorf("%d %s", status, body)
			}
			if n := len(up.RequestsTo("GET /oauth/token/info")); n != 1 {
				t.Errorf("the token was looked up %d times, want once", n)
			}
		})
	}
}

// When the authorization server cannot say what an OAuth token is, the
// request is refused with the status and reason of an upstream that
// failed, and no verdict is remembered: an error answer is 502 naming its
// status, a dropped connection 502 "could not be reached", an answer that
// is no token information 502 "could not be read". Once the server
// answers again, the token is served.
func TestOAuthLookupFailures(t *testing.T) {
	t.Parallel()
	up, mcpURL := oauthGateway(t)
	token := oauthTokenFor(t, up, mcpURL)
	for _, tc := range []struct {
		name   string
		fault  control.Fault
		reason string
	}{
		{"an error answer", control.Fault{Status: http.StatusInternalServerError}, "the authorization server answered Internal Server Error"},
		{"a rate limit", control.Fault{Status: http.StatusTooManyRequests}, "the authorization server answered Too Many Requests"},
		{"a dropped connection", control.Fault{Drop: true}, "could not be reached"},
		{"not JSON", control.Fault{Status: http.StatusOK, Body: "<html>sign in</html>", Header: http.Header{"Content-Type": {"text/html"}}},
			"the authorization server's answer could not be read"},
	} {
		if err := up.InjectFault("GET /oauth/token/info", tc.fault); err != nil {
			t.Fatal(err)
		}
		status, _, body := rawPost(t, mcpURL, token)
		if status != http.StatusBadGateway || !strings.Contains(body, tc.reason) || strings.Contains(body, token) {
			t.Errorf("%s: %d %s, want 502 %q", tc.name, status, body, tc.reason)
		}
		up.ClearFaults()
	}
	if status, _, body := rawPost(t, mcpURL, token); status != http.StatusOK {
		t.Errorf("once the server answers: %d %s", status, body)
	}
}

// The verdicts on OAuth tokens the authorization server describes: one it
// calls unknown (401) is 401 "unknown, revoked or expired", and so is one
// it says has no time left (expires_in 0); one without
// the scopes the gateway needs is 403 naming them; and a gateway without
// resource.url has no audience to check, so it takes no OAuth token.
func TestOAuthVerdicts(t *testing.T) {
	t.Parallel()
	up, mcpURL := oauthGateway(t)
	unknown := oauthTokenFor(t, up, mcpURL)
	if err := up.InjectFault("GET /oauth/token/info", control.Fault{Status: http.StatusUnauthorized}); err != nil {
		t.Fatal(err)
	}
	status, hdr, body := rawPost(t, mcpURL, unknown)
	if status != http.StatusUnauthorized || !strings.Contains(body, "unknown, revoked or expired") ||
		!strings.Contains(hdr.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("a token the server calls unknown: %d %s, WWW-Authenticate %q", status, body, hdr.Get("WWW-Authenticate"))
	}
	up.ClearFaults()
	// An authorization server that answers for a token with no time left
	// rather than refusing it.
	spent := oauthTokenFor(t, up, mcpURL)
	if err := up.InjectFault("GET /oauth/token/info", control.Fault{Status: http.StatusOK,
		Body: `{"resource_owner_id":1,"scope":["api"],"expires_in":0,"application":{"uid":"x"},"created_at":1,"resource":"` + mcpURL + `"}`}); err != nil {
		t.Fatal(err)
	}
	if status, _, body := rawPost(t, mcpURL, spent); status != http.StatusUnauthorized || !strings.Contains(body, "revoked or expired") {
		t.Errorf("a token with no time left: %d %s, want 401", status, body)
	}
	up.ClearFaults()

	narrow := oauthTokenFor(t, up, mcpURL, "read_api")
	if status, _, body := rawPost(t, mcpURL, narrow); status != http.StatusForbidden || !strings.Contains(body, "lacks the required scopes: api") {
		t.Errorf("a token with read_api alone: %d %s, want 403 naming the scope it lacks", status, body)
	}

	gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Clock: up.Clock()})
	if err != nil {
		t.Fatal(err)
	}
	noAudience := httptest.NewServer(gw)
	t.Cleanup(noAudience.Close)
	status, _, body = rawPost(t, noAudience.URL+"/mcp", oauthTokenFor(t, up, mcpURL))
	if status != http.StatusUnauthorized || !strings.Contains(body, "no resource.url") {
		t.Errorf("a gateway without resource.url: %d %s, want 401", status, body)
	}
}
