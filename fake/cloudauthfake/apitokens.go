package cloudauthfake

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// apiToken is a long-lived API token the fake issued. The fake keeps its
// SHA-256, never the token: the state, a snapshot and a heap dump hold
// nothing a caller could present.
type apiToken struct {
	Tenant   string
	Username string
	// Expires is when the token stops being accepted; zero: never.
	Expires time.Time
}

// IssueAPIToken issues a long-lived API token to an account, as the
// gateway's console does: the token is exchanged for access tokens at
// POST /csp/gateway/am/api/auth/api-tokens/authorize (refresh_token form
// field) until it expires (ttl after now on the fake's clock; 0 means
// never) or is revoked (RevokeAPIToken). Tenant "" is the default tenant.
// It fails for an unknown or locked account, a negative ttl, and when the
// fake holds control.WithMaxRecords API tokens not yet expired.
func (s *Server) IssueAPIToken(tenant, username string, ttl time.Duration) (string, error) {
	if ttl < 0 {
		return "", fmt.Errorf("cloudauthfake: API token lifetime %v is negative", ttl)
	}
	if tenant == "" {
		tenant = s.cfg.defaultTenant
	}
	var b [48]byte
	_, _ = rand.Read(b[:])
	raw := base64.RawURLEncoding.EncodeToString(b[:]) // 64 characters, as the gateway's
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[userKey{tenant, username}]
	switch {
	case !ok:
		return "", fmt.Errorf("%w: %q in tenant %q", errUnknownUser, username, tenant)
	case u.Locked:
		return "", fmt.Errorf("cloudauthfake: user %q is locked", username)
	}
	now := s.cfg.clock.Now()
	if len(s.apiTokens) >= s.maxRecords() {
		for h, t := range s.apiTokens {
			if !t.Expires.IsZero() && !now.Before(t.Expires) {
				delete(s.apiTokens, h)
			}
		}
		if len(s.apiTokens) >= s.maxRecords() {
			return "", fmt.Errorf("cloudauthfake: the fake keeps at most %d API tokens (control.WithMaxRecords)", s.maxRecords())
		}
	}
	t := &apiToken{Tenant: tenant, Username: username}
	if ttl > 0 {
		t.Expires = now.Add(ttl)
	}
	s.apiTokens[apiTokenHash(raw)] = t
	return raw, nil
}

// errUnknownAPIToken is RevokeAPIToken's error for a token the fake does
// not hold (never issued, revoked already, or reset).
var errUnknownAPIToken = errors.New("cloudauthfake: no such API token")

// RevokeAPIToken revokes an API token: the gateway refuses it from then on
// (400 invalid_grant). The access tokens it was exchanged for stay valid
// until they expire, as the gateway's do.
func (s *Server) RevokeAPIToken(raw string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := apiTokenHash(raw)
	if _, ok := s.apiTokens[h]; !ok {
		return errUnknownAPIToken
	}
	delete(s.apiTokens, h)
	return nil
}

// APITokens returns how many API tokens the fake holds (issued, not
// revoked; the expired are counted until they are dropped).
func (s *Server) APITokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.apiTokens)
}

func apiTokenHash(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// The API-token exchange's 400 messages, in the OAuth error words the
// gateway puts first. The token is never quoted back.
const (
	missingRefreshToken = "invalid_request: refresh_token is required"
	invalidRefreshToken = "invalid_grant: Invalid refresh token"
)

// DefaultAPITokenScope is the scope the fake's API-token exchange answers.
const DefaultAPITokenScope = "openid offline_access"

// authorizeAPIToken exchanges an API token for an access token. The token
// comes in the form field refresh_token (Content-Type
// application/x-www-form-urlencoded), or as the query parameter of that
// name, which the gateway reads too; JSON bodies are not read.
func (s *Server) authorizeAPIToken(r *http.Request) fakekit.Answer {
	raw := r.URL.Query().Get("refresh_token")
	if raw == "" {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
			if err := r.ParseForm(); err != nil {
				return errorAnswer(r, http.StatusBadRequest, "invalid_request: the form body cannot be read")
			}
			raw = r.PostForm.Get("refresh_token")
		}
	}
	if raw == "" {
		return errorAnswer(r, http.StatusBadRequest, missingRefreshToken)
	}
	s.mu.Lock()
	t, ok := s.apiTokens[apiTokenHash(raw)]
	var tok apiToken
	if ok {
		tok = *t
		u, found := s.users[userKey{t.Tenant, t.Username}]
		ok = found && !u.Locked && (t.Expires.IsZero() || s.cfg.clock.Now().Before(t.Expires))
	}
	iss := s.issuerLocked(r)
	s.mu.Unlock()
	if !ok {
		return errorAnswer(r, http.StatusBadRequest, invalidRefreshToken)
	}
	fakekit.ExchangeFrom(r.Context()).SetCaller(tok.Username)
	access, err := s.issue(iss, tok.Tenant, tok.Username)
	if err != nil {
		return errorAnswer(r, http.StatusInternalServerError, "signing the token failed")
	}
	// The id token names the user to the client; it has no jti, so it is
	// no bearer token here.
	now := s.cfg.clock.Now()
	id, err := s.sign(tokenClaims{RegisteredClaims: jwt.RegisteredClaims{
		Subject: tok.Username, Issuer: iss, IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.lifetime)),
	}, Tenant: tok.Tenant})
	if err != nil {
		return errorAnswer(r, http.StatusInternalServerError, "signing the token failed")
	}
	return noStore(apiTokenAnswer{
		AccessToken:  access,
		IDToken:      id,
		RefreshToken: raw, // the gateway hands the API token back as the refresh token
		TokenType:    "bearer",
		ExpiresIn:    int64(s.cfg.lifetime.Seconds()),
		Scope:        DefaultAPITokenScope,
	})
}

// apiTokenAnswer is the gateway's answer to the API-token exchange.
type apiTokenAnswer struct {
	IDToken      string `json:"id_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	Scope        string `json:"scope"`
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
}
