package sourcehostfake

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// TokenSeed is a personal access token to add (AddToken, Seed.Tokens).
type TokenSeed struct {
	// Username is the user the token belongs to.
	Username string `json:"username" yaml:"username"`
	// Name is the token's name; empty means "token-<id>".
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Token is the secret to present in PRIVATE-TOKEN; empty means a
	// random one, which AddToken returns.
	Token string `json:"token,omitempty" yaml:"token,omitempty"`
	// Scopes are at least one of api, read_api, read_user,
	// read_repository, write_repository, read_registry, write_registry,
	// sudo, admin_mode.
	Scopes []string `json:"scopes" yaml:"scopes"`
	// ExpiresAt is the day (YYYY-MM-DD, UTC) the token stops working, at
	// its start; empty means never.
	ExpiresAt string `json:"expires_at,omitempty" yaml:"expires_at,omitempty"`
	// Revoked tokens are refused with 401.
	Revoked bool `json:"revoked,omitempty" yaml:"revoked,omitempty"`
}

// knownScopes are the token scopes the fake accepts.
var knownScopes = []string{"api", "read_api", "read_user", "read_repository", "write_repository", "read_registry",
	"write_registry", "sudo", "admin_mode"}

// AddToken gives a user a personal access token and returns its secret.
func (s *Server) AddToken(seed TokenSeed) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.seedRoom(recordNeed{"token", 1}); err != nil {
		return "", err
	}
	t, err := s.st.seedToken(seed)
	if err != nil {
		return "", err
	}
	return t.secret, nil
}

// seedToken checks and adds a token. s.mu must be held.
func (st *state) seedToken(seed TokenSeed) (*token, error) {
	if len(seed.Scopes) == 0 {
		return nil, errors.New("sourcehostfake: a token needs at least one scope")
	}
	for _, sc := range seed.Scopes {
		if !slices.Contains(knownScopes, sc) {
			return nil, fmt.Errorf("sourcehostfake: unknown scope %q", sc)
		}
	}
	if seed.Token != "" && !validSecret(seed.Token) {
		return nil, errors.New("sourcehostfake: a token secret is 1 to 255 printable ASCII characters, without spaces")
	}
	var expires *time.Time
	if seed.ExpiresAt != "" {
		day, err := time.Parse(time.DateOnly, seed.ExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("sourcehostfake: expires_at %q is not a date (YYYY-MM-DD)", seed.ExpiresAt)
		}
		expires = &day
	}
	u, err := st.userNamed(seed.Username)
	if err != nil {
		return nil, err
	}
	name := firstNonEmpty(seed.Name, "token-"+strconv.FormatInt(st.seq["token"]+1, 10))
	t, err := st.addToken(u, name, seed.Token, seed.Scopes, expires)
	if err != nil {
		return nil, err
	}
	t.revoked = seed.Revoked
	return t, nil
}

// validSecret: what can travel in a header as it is.
func validSecret(s string) bool {
	if len(s) > 255 {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// IssueToken gives a user a personal access token with the scopes named
// (sourcehost.ScopeAPI, …) and returns its secret: AddToken in short.
func (s *Server) IssueToken(username string, scopes ...string) (string, error) {
	return s.AddToken(TokenSeed{Username: username, Scopes: scopes})
}

// IssueTokenExpiring is IssueToken for a token that stops working when
// the fake clock reaches the start of the day expires (UTC).
func (s *Server) IssueTokenExpiring(username string, expires time.Time, scopes ...string) (string, error) {
	return s.AddToken(TokenSeed{Username: username, Scopes: scopes, ExpiresAt: expires.UTC().Format(time.DateOnly)})
}

// RevokeToken revokes a token: requests with it are refused with 401.
func (s *Server) RevokeToken(secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.tokens[secret]
	if t == nil {
		return errors.New("sourcehostfake: no such token")
	}
	t.revoked = true
	return nil
}

type tokenJSON struct {
	ID          int64    `json:"id"`
	Name        string   `json:"name"`
	Revoked     bool     `json:"revoked"`
	CreatedAt   stamp    `json:"created_at"`
	Description string   `json:"description"`
	Scopes      []string `json:"scopes"`
	UserID      int64    `json:"user_id"`
	LastUsedAt  *stamp   `json:"last_used_at"`
	Active      bool     `json:"active"`
	ExpiresAt   *string  `json:"expires_at"`
}

func (c *call) currentToken() fakekit.Answer {
	t := c.tok
	out := tokenJSON{ID: t.id, Name: t.name, Revoked: t.revoked, CreatedAt: stamp(t.createdAt), Scopes: append([]string{}, t.scopes...),
		UserID: t.user.id, LastUsedAt: stampPtr(t.lastUsed), Active: c.st.tokenState(t) == ""}
	if t.expiresAt != nil {
		d := t.expiresAt.Format(time.DateOnly)
		out.ExpiresAt = &d
	}
	return ok(out)
}
