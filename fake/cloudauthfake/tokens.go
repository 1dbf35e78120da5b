package cloudauthfake

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// tokenClaims is the payload of an issued token.
type tokenClaims struct {
	jwt.RegisteredClaims
	Tenant string `json:"tenant"`
}

// IssueToken issues a token to an account as a login would, without the
// request: for tests that start logged in. It fails for an unknown or
// locked account.
func (s *Server) IssueToken(tenant, username string) (string, error) {
	if tenant == "" {
		tenant = s.cfg.defaultTenant
	}
	ok, locked, iss := s.account(tenant, username)
	switch {
	case !ok:
		return "", fmt.Errorf("%w: %q in tenant %q", errUnknownUser, username, tenant)
	case locked:
		return "", fmt.Errorf("cloudauthfake: user %q is locked", username)
	}
	return s.issue(iss, tenant, username)
}

// account reports whether an account exists and is locked, and the issuer
// its tokens get.
func (s *Server) account(tenant, username string) (ok, locked bool, iss string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.users[userKey{tenant, username}]
	return ok, ok && u.Locked, s.issuerLocked(nil)
}

// issue signs a new token.
func (s *Server) issue(iss, tenant, username string) (string, error) {
	now := s.cfg.clock.Now()
	var id [16]byte
	_, _ = rand.Read(id[:])
	cl := tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   username,
			Issuer:    iss,
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.lifetime)),
			ID:        hex.EncodeToString(id[:]),
		},
		Tenant: tenant,
	}
	raw, err := s.sign(cl) // outside the lock: signing takes a millisecond
	if err == nil {
		s.countIssued()
	}
	return raw, err
}

func (s *Server) countIssued() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issued++
}

// SignToken signs any claims with the fake's key (RS256, with its key id),
// for tests that need a token the fake would never issue: one without
// exp, from another issuer, for an unknown user.
func (s *Server) SignToken(claims jwt.Claims) (string, error) { return s.sign(claims) }

func (s *Server) sign(claims jwt.Claims) (string, error) {
	k := s.keys.Load().current
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	t.Header["kid"] = k.kid
	return t.SignedString(k.key)
}

// Issued returns how many tokens the fake has issued.
func (s *Server) Issued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.issued
}

// RevokeToken invalidates a token as a logout does. It fails, and the
// token stays valid, when the revocation list is full
// (control.WithMaxRecords) of tokens not yet expired.
func (s *Server) RevokeToken(raw string) error {
	cl, err := s.check(raw)
	if err != nil {
		return err
	}
	return s.revoke(cl)
}

// errRevocationsFull is a logout refused for want of room in the
// revocation list.
var errRevocationsFull = errors.New("too many tokens revoked: the revocation list is full until one of them expires")

// revoke adds a token to the revocation list. The list drops the tokens
// that have expired (they are refused anyway) once it holds 10,000, and
// again each time it has doubled since; it holds at most
// control.WithMaxRecords tokens not yet expired.
func (s *Server) revoke(cl *tokenClaims) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, done := s.revoked[cl.ID]; done {
		return nil
	}
	full := len(s.revoked) >= s.maxRecords()
	if full || len(s.revoked) >= max(s.pruneAt, revokedPruneFrom) {
		now := s.cfg.clock.Now()
		for id, exp := range s.revoked {
			if !now.Before(exp) {
				delete(s.revoked, id)
			}
		}
		s.pruneAt = 2 * len(s.revoked)
		if len(s.revoked) >= s.maxRecords() {
			return errRevocationsFull
		}
	}
	s.revoked[cl.ID] = cl.ExpiresAt.Time
	return nil
}

// revokedPruneFrom is the size from which the revocation list drops its
// expired tokens.
const revokedPruneFrom = 10_000

// Revoked reports whether a token was logged out.
func (s *Server) Revoked(raw string) bool {
	var cl tokenClaims
	if _, _, err := jwt.NewParser().ParseUnverified(raw, &cl); err != nil {
		return false
	}
	return s.isRevoked(cl.ID)
}

var errRevoked = errors.New("token has been revoked")

// check verifies a token as the gateway does: signed RS256 by a key it
// publishes, not expired on the fake's clock, not revoked.
func (s *Server) check(raw string) (*tokenClaims, error) {
	var cl tokenClaims
	p := jwt.NewParser(jwt.WithValidMethods([]string{"RS256"}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.cfg.clock.Now))
	_, err := p.ParseWithClaims(raw, &cl, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		pub, ok := s.keys.Load().lookup(kid)
		if !ok {
			return nil, fmt.Errorf("unknown key id %q", kid)
		}
		return pub, nil
	})
	if err != nil {
		return nil, err
	}
	if cl.ID == "" {
		return nil, errors.New("token has no id")
	}
	if s.isRevoked(cl.ID) {
		return nil, errRevoked
	}
	return &cl, nil
}

func (s *Server) isRevoked(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, revoked := s.revoked[id]
	return revoked
}

// bearer reads the token of an Authorization: Bearer header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// issuerLocked returns the iss to write; s.mu must be held. r may be nil.
func (s *Server) issuerLocked(r *http.Request) string {
	served := s.ep.URL()
	switch {
	case s.cfg.issuer != "":
		return s.cfg.issuer
	case served != "":
		return served
	case r != nil:
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		return scheme + "://" + r.Host
	}
	return "http://localhost"
}
