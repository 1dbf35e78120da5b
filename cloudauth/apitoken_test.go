package cloudauth_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/internal/leaktest"
)

// TestAuthorizeAPIToken: an API token is exchanged for an access token
// the server's keys verify, the refresh token is the API token, and a
// token the server no longer accepts is ErrBadRequest with the gateway's
// message and no token in it.
func TestAuthorizeAPIToken(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	apiTok, err := srv.IssueAPIToken("", "admin", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	g, err := c.AuthorizeAPIToken(t.Context(), apiTok)
	if err != nil {
		t.Fatal(err)
	}
	if g.AccessToken.Subject != "admin" || g.RefreshToken() != apiTok || g.IDToken() == "" || g.ExpiresIn != 30*time.Minute ||
		g.Scope != cloudauthfake.DefaultAPITokenScope {
		t.Fatalf("grant %v", g)
	}
	if _, err := c.VerifyToken(t.Context(), g.AccessToken.Raw()); err != nil {
		t.Fatalf("the access token does not verify: %v", err)
	}
	leaktest.NoSecretIn(t, "grant", g, apiTok, g.AccessToken.Raw(), g.IDToken())
	if _, err := c.AuthorizeAPIToken(t.Context(), " "); err == nil {
		t.Fatal("an empty API token was sent")
	}
	if err := srv.RevokeAPIToken(apiTok); err != nil {
		t.Fatal(err)
	}
	_, err = c.AuthorizeAPIToken(t.Context(), apiTok)
	var ce *cloudauth.Error
	if !errors.Is(err, cloudauth.ErrBadRequest) || !errors.As(err, &ce) || ce.Message != "invalid_grant: Invalid refresh token" {
		t.Fatalf("a revoked API token: %v", err)
	}
	leaktest.NoSecretIn(t, "refusal", err, apiTok)
}

// TestSessionRenewsOnExpiry: a session exchanges its API token when it
// needs a token, keeps the access token while it has more than
// RenewBefore left, renews it by itself after (on the client's clock),
// and says so in the client's log without a token.
func TestSessionRenewsOnExpiry(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	apiTok, err := srv.IssueAPIToken("", "admin", 0)
	if err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	var mu sync.Mutex
	c := srv.Client(cloudauth.WithLogger(slog.New(slog.NewTextHandler(&lockedWriter{w: &logBuf, mu: &mu}, nil))))
	s := c.NewSession(nil, apiTok)
	var stored []string
	s.OnRenew(func(g *cloudauth.Grant) { stored = append(stored, g.AccessToken.Raw()) })
	exchanges := func() int { return len(srv.RequestsTo(cloudauthfake.RouteAPIToken)) }

	first, err := s.Token(t.Context())
	if err != nil || exchanges() != 1 {
		t.Fatalf("first token: %v, %d exchanges", err, exchanges())
	}
	if info, err := s.UserInfo(t.Context()); err != nil || info.Username != "admin" || exchanges() != 1 {
		t.Fatalf("userinfo: %v %v, %d exchanges", info, err, exchanges())
	}
	srv.Clock().Advance(29 * time.Minute) // a minute left: kept
	if tok, _ := s.Token(t.Context()); tok != first || exchanges() != 1 {
		t.Fatalf("renewed with a minute left (%d exchanges)", exchanges())
	}
	srv.Clock().Advance(2 * time.Minute) // expired: renewed
	var info cloudauth.UserInfo
	if err := s.Do(t.Context(), http.MethodGet, cloudauth.UserInfoPath, nil, nil, &info); err != nil || info.Username != "admin" {
		t.Fatalf("a call after expiry: %v", err)
	}
	second, _ := s.Token(t.Context())
	if second == first || exchanges() != 2 || s.Renewals() != 2 || len(stored) != 2 || stored[1] != second.Raw() {
		t.Fatalf("after expiry: %d exchanges, %d renewals, %d stored", exchanges(), s.Renewals(), len(stored))
	}
	mu.Lock()
	logged := logBuf.String()
	mu.Unlock()
	if strings.Count(logged, "renewed the access token") != 2 || !strings.Contains(logged, "reason=expired") {
		t.Fatalf("log:\n%s", logged)
	}
	leaktest.NoSecretIn(t, "log", logged, apiTok, first.Raw(), second.Raw())
	leaktest.NoSecretIn(t, "session", s, apiTok, second.Raw())

	// A revoked API token: the renewal fails, clearly, and the session
	// keeps what it had.
	if err := srv.RevokeAPIToken(apiTok); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(time.Hour)
	if _, err := s.Token(t.Context()); !errors.Is(err, cloudauth.ErrBadRequest) {
		t.Fatalf("renewal with a revoked API token: %v", err)
	}
	// Without a refresh token, an expired token is the end.
	if _, err := c.NewSession(second, "").Token(t.Context()); !errors.Is(err, cloudauth.ErrNoRefreshToken) {
		t.Fatalf("no refresh token: %v", err)
	}
}

// TestSessionRenewsOnceUnderConcurrency: callers that find the token
// expired at the same time share one exchange.
func TestSessionRenewsOnceUnderConcurrency(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	apiTok, err := srv.IssueAPIToken("", "admin", 0)
	if err != nil {
		t.Fatal(err)
	}
	// The first exchange is held until every caller has started.
	release := make(chan struct{})
	var held atomic.Int32
	c := srv.Client(cloudauth.WithTransport(func(next http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.URL.Path == cloudauth.APITokenPath && held.Add(1) == 1 {
				select {
				case <-release:
				case <-time.After(30 * time.Second): // failsafe of a failing test
				}
			}
			return next.RoundTrip(r)
		})
	}))
	s := c.NewSession(nil, apiTok)
	const callers = 16
	var started sync.WaitGroup
	started.Add(callers)
	toks := make(chan *cloudauth.Token, callers)
	errs := make(chan error, callers)
	for range callers {
		go func() {
			started.Done()
			tok, err := s.Token(t.Context())
			toks <- tok
			errs <- err
		}()
	}
	started.Wait()
	close(release)
	var first *cloudauth.Token
	for range callers {
		tok, err := <-toks, <-errs
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = tok
		}
		if tok.Raw() != first.Raw() {
			t.Fatal("callers got different tokens")
		}
	}
	if n := len(srv.RequestsTo(cloudauthfake.RouteAPIToken)); n != 1 || s.Renewals() != 1 {
		t.Fatalf("%d exchanges, %d renewals for %d callers", n, s.Renewals(), callers)
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
