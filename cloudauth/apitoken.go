package cloudauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/rest"
)

// Grant is the gateway's answer to an API-token exchange
// ([Client.AuthorizeAPIToken]): an access token, the refresh token to get
// the next one with (the gateway hands the API token back), an id token,
// and the scope granted. Its string forms never show a token.
type Grant struct {
	// AccessToken is the bearer token, read but not verified.
	AccessToken *Token
	// Scope is what the gateway granted ("openid …").
	Scope string
	// ExpiresIn is the access token's lifetime as the answer states it.
	ExpiresIn time.Duration

	idToken, refreshToken string
}

// IDToken returns the id token of the answer ("" when none came).
func (g *Grant) IDToken() string { return g.idToken }

// RefreshToken returns the token the next exchange takes: the one the
// answer carries, which for an API token is the API token itself.
func (g *Grant) RefreshToken() string { return g.refreshToken }

// String describes the grant without its tokens.
func (g Grant) String() string {
	tok := "<nil>"
	if g.AccessToken != nil {
		tok = g.AccessToken.String()
	}
	return fmt.Sprintf("Grant{AccessToken: %s, Scope: %q, ExpiresIn: %s, IDToken: [REDACTED], RefreshToken: [REDACTED]}", tok, g.Scope, g.ExpiresIn)
}

// GoString is String.
func (g Grant) GoString() string { return g.String() }

// LogValue is what slog logs of a grant: no token.
func (g Grant) LogValue() slog.Value { return slog.StringValue(g.String()) }

// apiTokenAnswer is the gateway's answer to the API-token exchange.
type apiTokenAnswer struct {
	AccessToken  string `json:"access_token"`
	IDToken      string `json:"id_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
}

// AuthorizeAPIToken exchanges a long-lived API token, or the refresh token
// of an earlier exchange, for an access token: a form post of
// refresh_token to APITokenPath, as the gateway takes it. An unknown,
// expired or revoked token fails with ErrBadRequest (the gateway answers
// 400 "invalid_grant: …"). The tokens never appear in an error or a log
// line. To keep an access token valid without asking, see [Session].
//
// Login API: POST /csp/gateway/am/api/auth/api-tokens/authorize
func (c *Client) AuthorizeAPIToken(ctx context.Context, apiToken string) (*Grant, error) {
	apiToken = strings.TrimSpace(apiToken)
	if apiToken == "" {
		return nil, errors.New("cloudauth: AuthorizeAPIToken needs an API token")
	}
	c.rest.Secrets().Add(apiToken)
	var ans apiTokenAnswer
	req := &rest.Request{Method: http.MethodPost, Path: APITokenPath, Form: url.Values{"refresh_token": {apiToken}},
		Secrets: []string{apiToken}}
	if err := c.do(ctx, req, &ans); err != nil {
		return nil, err
	}
	c.rest.Secrets().Add(ans.AccessToken)
	c.rest.Secrets().Add(ans.IDToken)
	c.rest.Secrets().Add(ans.RefreshToken)
	if ans.AccessToken == "" {
		return nil, fmt.Errorf("cloudauth: POST %s: the answer carries no access_token", APITokenPath)
	}
	tok, err := ParseToken(ans.AccessToken)
	if err != nil {
		return nil, c.rest.Scrub(fmt.Errorf("cloudauth: POST %s: the access_token: %w", APITokenPath, err))
	}
	g := &Grant{AccessToken: tok, Scope: ans.Scope, ExpiresIn: time.Duration(ans.ExpiresIn) * time.Second,
		idToken: ans.IDToken, refreshToken: ans.RefreshToken}
	if g.refreshToken == "" {
		g.refreshToken = apiToken
	}
	return g, nil
}

// RenewBefore is how long before its expiry a [Session] renews an access
// token, so that a token does not expire on its way to the server.
const RenewBefore = 30 * time.Second

// ErrNoRefreshToken is a [Session] whose access token has expired and that
// holds no API or refresh token to renew it with: log in again.
var ErrNoRefreshToken = errors.New("cloudauth: the access token has expired and there is no refresh token to renew it")

// Session holds an access token and, when it has one, the API or refresh
// token to renew it with: [Session.Token] hands out the access token, and
// renews it first (AuthorizeAPIToken) when it has expired or expires
// within RenewBefore on the client's clock. Concurrent callers share one
// renewal: one request goes to the server, the others wait for its
// answer. Each renewal is logged (info, on the client's logger, WithLogger)
// with the subject and the new expiry, never a token. It is safe for
// concurrent use; its string forms show no token.
type Session struct {
	c *Client

	mu       sync.Mutex
	tok      *Token
	refresh  string
	renewal  *renewal // the renewal under way, nil when none
	onRenew  func(*Grant)
	renewals int
}

// renewal is one exchange under way, which callers that need a token
// meanwhile wait for.
type renewal struct {
	done chan struct{}
	tok  *Token
	err  error
}

// NewSession returns a session that starts with tok (nil: none yet; the
// first Token call exchanges refreshToken) and renews it with
// refreshToken, an API token or a refresh token ("" never renews).
func (c *Client) NewSession(tok *Token, refreshToken string) *Session {
	refreshToken = strings.TrimSpace(refreshToken)
	if refreshToken != "" {
		c.rest.Secrets().Add(refreshToken)
	}
	if tok != nil {
		c.rest.Secrets().Add(tok.raw)
	}
	return &Session{c: c, tok: tok, refresh: refreshToken}
}

// OnRenew makes the session call fn with each grant a renewal got, after
// it took the new tokens (cloudctl stores them). fn must not call the
// session.
func (s *Session) OnRenew(fn func(*Grant)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRenew = fn
}

// Renewals returns how many access tokens the session got from its
// refresh token, the first one included.
func (s *Session) Renewals() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.renewals
}

// RefreshToken returns the token the session renews with ("" when none).
func (s *Session) RefreshToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refresh
}

// String describes the session without its tokens.
func (s *Session) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := "<nil>"
	if s.tok != nil {
		tok = s.tok.String()
	}
	return fmt.Sprintf("cloudauth.Session{Token: %s, RefreshToken: %s}", tok, redactedIf(s.refresh != ""))
}

// GoString is String.
func (s *Session) GoString() string { return s.String() }

// LogValue is what slog logs of a session: no token.
func (s *Session) LogValue() slog.Value { return slog.StringValue(s.String()) }

func redactedIf(set bool) string {
	if set {
		return rest.Redacted
	}
	return `""`
}

// Token returns a valid access token: the one held while it has more than
// RenewBefore left, else a new one from the refresh token. It fails with
// ErrNoRefreshToken when the token has expired and there is nothing to
// renew it with, and with the exchange's error (ErrBadRequest for an API
// token the server no longer accepts) when the renewal fails; the token
// held is then kept, for a later try.
func (s *Session) Token(ctx context.Context) (*Token, error) {
	if ctx == nil {
		return nil, errors.New("cloudauth: nil context")
	}
	for {
		s.mu.Lock()
		now := s.c.clock.Now()
		if s.tok != nil && s.tok.TimeLeft(now) > RenewBefore {
			tok := s.tok
			s.mu.Unlock()
			return tok, nil
		}
		if s.refresh == "" {
			s.mu.Unlock()
			if s.tok == nil {
				return nil, errors.New("cloudauth: the session holds no token")
			}
			return nil, ErrNoRefreshToken
		}
		if r := s.renewal; r != nil {
			s.mu.Unlock()
			select {
			case <-r.done:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			// A renewal that failed because its caller gave up is tried
			// again by a caller that has not.
			if r.err != nil && (errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded)) && ctx.Err() == nil {
				continue
			}
			return r.tok, r.err
		}
		r := &renewal{done: make(chan struct{})}
		s.renewal = r
		refresh, old := s.refresh, s.tok
		s.mu.Unlock()
		return s.renew(ctx, r, refresh, old)
	}
}

// renew runs one exchange and hands its outcome to the callers waiting.
func (s *Session) renew(ctx context.Context, r *renewal, refresh string, old *Token) (*Token, error) {
	g, err := s.c.AuthorizeAPIToken(ctx, refresh)
	s.mu.Lock()
	s.renewal = nil
	if err == nil {
		s.tok, r.tok = g.AccessToken, g.AccessToken
		s.refresh = g.refreshToken
		s.renewals++
	}
	r.err = err
	onRenew := s.onRenew
	s.mu.Unlock()
	close(r.done)
	if err != nil {
		s.c.log.LogAttrs(ctx, slog.LevelWarn, "cloudauth: renewing the access token failed", slog.String("error", err.Error()))
		return nil, err
	}
	why := "none held"
	if old != nil {
		why = "expired"
		if !old.Expired(s.c.clock.Now()) {
			why = "expiring"
		}
	}
	s.c.log.LogAttrs(ctx, slog.LevelInfo, "cloudauth: renewed the access token with the refresh token",
		slog.String("reason", why), slog.String("subject", g.AccessToken.Subject), slog.String("tenant", g.AccessToken.Tenant),
		slog.Time("expires_at", g.AccessToken.ExpiresAt))
	if onRenew != nil {
		onRenew(g)
	}
	return g.AccessToken, nil
}

// Do is Client.Do with the session's access token, renewed first when it
// has expired.
func (s *Session) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	tok, err := s.Token(ctx)
	if err != nil {
		return err
	}
	return s.c.Do(ctx, tok, method, path, query, body, out)
}

// UserInfo is Client.UserInfo with the session's access token.
func (s *Session) UserInfo(ctx context.Context) (*UserInfo, error) {
	tok, err := s.Token(ctx)
	if err != nil {
		return nil, err
	}
	return s.c.UserInfo(ctx, tok)
}
