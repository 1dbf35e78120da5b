package cloudauth

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Token is a bearer token the gateway issued: a JWT signed with RS256
// whose payload carries sub, iss, exp, iat and tenant.
//
// Its string forms (%v, %+v, %#v) never show the token itself; only
// [Token.Raw] gives it out.
type Token struct {
	raw string

	// Subject is the user the token was issued to (sub).
	Subject string
	// Issuer is the server that issued it (iss), its base URL.
	Issuer string
	// Tenant is the tenant the user logged in to.
	Tenant string
	// ExpiresAt is when the token stops being valid (exp); zero when the
	// token carries no exp (which VerifyToken refuses).
	ExpiresAt time.Time
	// IssuedAt is when the token was issued (iat); zero when absent.
	IssuedAt time.Time
	// ID is the token's unique id (jti), when it has one.
	ID string
	// KeyID names the key that signed it (kid in the header).
	KeyID string
	// Algorithm is the signing algorithm its header names (alg).
	Algorithm string
	// Verified is true for a token whose signature and claims VerifyToken
	// checked, false for one only read (ParseToken, Login).
	Verified bool
}

// Raw returns the token as the server sent it, for an Authorization:
// Bearer header or a token store.
func (t *Token) Raw() string { return t.raw }

// Expired reports whether the token's exp time is at or before now. A token
// without exp never expires by this test.
func (t *Token) Expired(now time.Time) bool {
	return !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt)
}

// TimeLeft returns how long the token stays valid after now: zero or less
// once it has expired, and the largest duration for a token without exp.
func (t *Token) TimeLeft(now time.Time) time.Duration {
	if t.ExpiresAt.IsZero() {
		return time.Duration(1<<63 - 1)
	}
	return t.ExpiresAt.Sub(now)
}

// String describes the token without the token itself.
func (t Token) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Token{Subject: %q, Tenant: %q, Issuer: %q", t.Subject, t.Tenant, t.Issuer)
	if !t.ExpiresAt.IsZero() {
		fmt.Fprintf(&b, ", ExpiresAt: %s", t.ExpiresAt.UTC().Format(time.RFC3339))
	}
	b.WriteString(", Raw: [REDACTED]}")
	return b.String()
}

// GoString is String, so that %#v does not print the token either.
func (t Token) GoString() string { return t.String() }

// claims is the payload of a gateway token.
type claims struct {
	jwt.RegisteredClaims
	Tenant string `json:"tenant"`
}

// MaxTokenSize bounds the tokens this package reads: larger input is
// refused before it is decoded.
const MaxTokenSize = 64 << 10

// ParseToken reads a token without verifying it, for display (who, which
// tenant, when it expires). Never trust what it returns for a decision
// about access: use [Client.VerifyToken] or [KeySet.Verify].
func ParseToken(raw string) (*Token, error) {
	if err := checkShape(raw); err != nil {
		return nil, err
	}
	var cl claims
	tok, _, err := jwt.NewParser().ParseUnverified(raw, &cl)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenInvalid, err)
	}
	return newToken(raw, tok, &cl, false), nil
}

// checkShape refuses what cannot be a JWT before any decoding.
func checkShape(raw string) error {
	switch {
	case raw == "":
		return fmt.Errorf("%w: empty token", ErrTokenInvalid)
	case len(raw) > MaxTokenSize:
		return fmt.Errorf("%w: token of %d bytes is larger than %d", ErrTokenInvalid, len(raw), MaxTokenSize)
	case strings.Count(raw, ".") != 2:
		return fmt.Errorf("%w: not a JWT (want three dot-separated parts)", ErrTokenInvalid)
	}
	return nil
}

func newToken(raw string, tok *jwt.Token, cl *claims, verified bool) *Token {
	t := &Token{raw: raw, Subject: cl.Subject, Issuer: cl.Issuer, Tenant: cl.Tenant, ID: cl.ID, Verified: verified}
	if cl.ExpiresAt != nil {
		t.ExpiresAt = cl.ExpiresAt.Time
	}
	if cl.IssuedAt != nil {
		t.IssuedAt = cl.IssuedAt.Time
	}
	if tok != nil {
		t.KeyID, _ = tok.Header["kid"].(string)
		t.Algorithm, _ = tok.Header["alg"].(string)
	}
	return t
}

// VerifyOptions says what a token must satisfy besides a good signature.
type VerifyOptions struct {
	// Issuer is the iss the token must carry; empty skips the check.
	Issuer string
	// Now is the time to check exp and iat against; zero means time.Now().
	Now time.Time
	// Leeway is the clock skew allowed (0 allows none).
	Leeway time.Duration
}

// verifyError maps jwt's errors onto the package's sentinels, keeping jwt's
// for errors.Is (jwt.ErrTokenExpired, jwt.ErrTokenSignatureInvalid, …).
func verifyError(err error) error {
	if errors.Is(err, jwt.ErrTokenExpired) {
		return fmt.Errorf("%w: %w", ErrTokenExpired, err)
	}
	return fmt.Errorf("%w: %w", ErrTokenInvalid, err)
}
