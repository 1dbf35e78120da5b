package sourcehost_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// oauthToken is an OAuth access token the fake issued to a new
// application for the user named, asked for resource ("" for none), as an
// OAuth client gets one: authorization code with PKCE.
func oauthToken(t *testing.T, srv *sourcehostfake.Server, user, resource string, scopes ...string) (token, clientID string) {
	t.Helper()
	const redirect = "http://127.0.0.1:9/cb"
	clientID, secret, err := srv.AddOAuthApplication(sourcehostfake.OAuthApplicationSeed{Name: "app", RedirectURIs: []string{redirect},
		Scopes: scopes, Confidential: true})
	if err != nil {
		t.Fatal(err)
	}
	cfg := oauth2.Config{ClientID: clientID, ClientSecret: secret, RedirectURL: redirect, Scopes: scopes,
		Endpoint: oauth2.Endpoint{AuthURL: srv.URL() + "/oauth/authorize", TokenURL: srv.URL() + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", resource))
	}
	back, err := srv.Authorize(user, cfg.AuthCodeURL("state", opts...))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(back)
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("no code in %q (%v)", back, err)
	}
	ctx := context.WithValue(t.Context(), oauth2.HTTPClient, srv.RawClient())
	tok, err := cfg.Exchange(ctx, u.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken, clientID
}

// OAuthTokenInfo reads what the authorization server says of a token it
// issued, under GitLab's names: the user, the scopes, the time left on the
// fake's clock, the application, and the resource (RFC 8707) the token
// was asked for, nil for one asked for none.
func TestOAuthTokenInfo(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	c := srv.Client()
	root, err := c.CurrentUser(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	const resource = "https://mcp.example.com/mcp"
	for _, tc := range []struct {
		name, resource string
		scopes         []string
	}{
		{"for a resource", resource, []string{"read_api", "read_user"}},
		{"for none", "", []string{"api"}},
	} {
		token, clientID := oauthToken(t, srv, "root", tc.resource, tc.scopes...)
		got, err := c.OAuthTokenInfo(t.Context(), token)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := &sourcehost.OAuthTokenInfo{ResourceOwnerID: root.ID, Scope: tc.scopes, ExpiresIn: sourcehost.Ptr(int64(7200)),
			Application: sourcehost.OAuthTokenApplication{UID: clientID}, CreatedAt: srv.Clock().Now().Unix()}
		if tc.resource != "" {
			want.Resource = sourcehost.Ptr(tc.resource)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, d)
		}
	}
	if got := srv.RequestsTo("GET /oauth/token/info"); len(got) != 2 {
		t.Errorf("the fake logged %d token lookups on its route, want 2", len(got))
	}
}

// A token that is unknown, revoked, or no OAuth token (a personal access
// token) is 401, ErrUnauthorized; an OAuth token once expired on the
// fake's clock is too.
func TestOAuthTokenInfoRefused(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	c := srv.Client()
	token, _ := oauthToken(t, srv, "root", "", "api")
	expiring, _ := oauthToken(t, srv, "root", "", "api")
	srv.Clock().Advance(sourcehostfake.OAuthTokenLifetime + 1)
	for name, tok := range map[string]string{"unknown": "not-a-token", "a personal access token": srv.Token(), "expired": expiring, "expired too": token} {
		_, err := c.OAuthTokenInfo(t.Context(), tok)
		var se *sourcehost.Error
		if !errors.Is(err, sourcehost.ErrUnauthorized) || !errors.As(err, &se) || se.Path != "/oauth/token/info" {
			t.Errorf("%s: %v, want a 401 *Error of GET /oauth/token/info", name, err)
		}
	}
}

// The lookup goes to the server's root, however deep the API is mounted
// ("/gitlab/api/v4": "/gitlab/oauth/token/info"), with the token as its
// bearer and none of the client's own credentials (its PRIVATE-TOKEN, its
// Sudo).
func TestOAuthTokenInfoRequest(t *testing.T) {
	t.Parallel()
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"resource_owner_id":7,"scope":["api"],"expires_in":null,"application":{"uid":"u"},"created_at":1}`)
	}))
	t.Cleanup(srv.Close)
	c, err := sourcehost.New(srv.URL+"/gitlab", sourcehost.WithToken("glpat-own"), sourcehost.WithSudo("alice"))
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.OAuthTokenInfo(t.Context(), "oauth-access")
	if err != nil {
		t.Fatal(err)
	}
	if got.URL.Path != "/gitlab/oauth/token/info" || got.Header.Get("Authorization") != "Bearer oauth-access" ||
		got.Header.Get("Private-Token") != "" || got.Header.Get("Sudo") != "" {
		t.Errorf("sent %s with headers %v", got.URL.Path, got.Header)
	}
	if info.ResourceOwnerID != 7 || info.ExpiresIn != nil || info.Resource != nil {
		t.Errorf("read %+v", info)
	}
}

// What fails is the client's own error, never showing the token: 5xx
// ErrServer (the fake's fault on its route), a server that cannot be
// reached a transport error, an answer that is no token information or is
// longer than MaxOAuthTokenInfo a decoding error, an empty token or one
// with a line break refused before anything is sent.
func TestOAuthTokenInfoFailures(t *testing.T) {
	t.Parallel()
	const token = "oauth-SECRET-token-1234"
	fake := sourcehostfake.Start(t)
	if err := fake.InjectFault("GET /oauth/token/info", control.Fault{Status: http.StatusServiceUnavailable}); err != nil {
		t.Fatal(err)
	}
	_, err := fake.Client(sourcehost.WithoutRetries()).OAuthTokenInfo(t.Context(), token)
	if !errors.Is(err, sourcehost.ErrServer) {
		t.Errorf("a 503: %v, want ErrServer", err)
	}

	answer := func(body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":"invalid_token","error_description":"%s is no token"}`, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	t.Cleanup(echo.Close)
	for _, tc := range []struct {
		name, url, token, want string
		is                     error
	}{
		{"unreachable", closed.URL, token, "connect", nil},
		{"not JSON", answer(`<html>login</html>`), token, "reading response", nil},
		{"not token information", answer(`["a"]`), token, "reading response", nil},
		{"too long", answer(`{"scope":["` + strings.Repeat("x", sourcehost.MaxOAuthTokenInfo) + `"]}`), token, "longer than 65536 bytes", nil},
		{"a 401 that echoes the token", echo.URL, token, "[REDACTED] is no token", sourcehost.ErrUnauthorized},
		{"empty token", answer(`{}`), " ", "empty token", nil},
		{"a line break", answer(`{}`), token + "\r\nX: y", "line break", nil},
	} {
		c, err := sourcehost.New(tc.url, sourcehost.WithoutRetries())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.OAuthTokenInfo(t.Context(), tc.token)
		if err == nil || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
			continue
		}
		var se *sourcehost.Error
		if tc.is == nil && errors.As(err, &se) {
			t.Errorf("%s: %v is an answer's *Error", tc.name, err)
		}
		for _, shown := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(shown, token) {
				t.Errorf("%s: the error shows the token: %s", tc.name, shown)
			}
		}
	}
}
