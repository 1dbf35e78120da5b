package controlapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The cloudauth operations: rotating the login gateway's signing key, and
// making and revoking the API tokens scripts exchange for access tokens,
// so that a suite in any language can test those paths.

// MaxAPITokenTTL is the longest lifetime an API token made through the
// control API may have (a token without one never expires).
const MaxAPITokenTTL = 10 * 366 * 24 * time.Hour

// KeyRotation is what POST /api/cloudauth/rotate-key answers: the key id
// new tokens are signed under, and the one before it, which the key
// document keeps publishing so that tokens it signed verify until they
// expire (a gateway's overlap); the rotation after drops it.
type KeyRotation struct {
	KeyID         string `json:"kid"`
	PreviousKeyID string `json:"previous_kid"`
}

// APIToken is an API token POST /api/cloudauth/api-tokens made. Its string
// forms do not show the token.
type APIToken struct {
	Token    string `json:"token"`
	Username string `json:"username"`
	Tenant   string `json:"tenant"`
	// ExpiresAt is when the gateway stops taking it; nil: never.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
}

// String describes the token without the token.
func (t APIToken) String() string {
	exp := "never"
	if t.ExpiresAt != nil {
		exp = t.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return fmt.Sprintf("APIToken{Username: %q, Tenant: %q, ExpiresAt: %s, Token: [REDACTED]}", t.Username, t.Tenant, exp)
}

// GoString is String.
func (t APIToken) GoString() string { return t.String() }

func (s *Server) rotateCloudauthKey(http.ResponseWriter, *http.Request) (any, error) {
	prev := s.f.CloudAuth.KeyID()
	kid, err := s.f.CloudAuth.RotateKey(nil, "")
	if err != nil {
		return nil, &httpError{http.StatusInternalServerError, err.Error()}
	}
	return KeyRotation{KeyID: kid, PreviousKeyID: prev}, nil
}

func (s *Server) issueAPIToken(w http.ResponseWriter, r *http.Request) (any, error) {
	var in struct {
		Username string `json:"username"`
		Tenant   string `json:"tenant"`
		TTL      string `json:"ttl"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		return nil, err
	}
	if strings.TrimSpace(in.Username) == "" {
		return nil, fmt.Errorf("username is required")
	}
	var ttl time.Duration
	if in.TTL != "" {
		d, err := time.ParseDuration(in.TTL)
		if err != nil || d <= 0 || d > MaxAPITokenTTL {
			return nil, fmt.Errorf("ttl %q: want a positive Go duration of at most %.0fh (\"720h\"), or none for a token that never expires", in.TTL, MaxAPITokenTTL.Hours())
		}
		ttl = d
	}
	tenant := in.Tenant
	if tenant == "" {
		tenant = s.f.CloudAuth.DefaultTenant()
	}
	now := s.f.CloudAuth.Clock().Now()
	tok, err := s.f.CloudAuth.IssueAPIToken(tenant, in.Username, ttl)
	if err != nil {
		return nil, err
	}
	out := APIToken{Token: tok, Username: in.Username, Tenant: tenant}
	if ttl > 0 {
		exp := now.Add(ttl).UTC()
		out.ExpiresAt = &exp
	}
	return out, nil
}

func (s *Server) revokeAPIToken(w http.ResponseWriter, r *http.Request) (any, error) {
	var in struct {
		Token string `json:"token"`
	}
	if err := decodeJSON(w, r, &in); err != nil {
		return nil, err
	}
	if err := s.f.CloudAuth.RevokeAPIToken(in.Token); err != nil {
		return nil, notFound("no such API token (never made, revoked already, or the fake was reset)")
	}
	return nil, nil
}

// RotateCloudAuthKey makes the login gateway sign new tokens with a fresh
// key; tokens signed with the key before verify until they expire.
func (c *Client) RotateCloudAuthKey(ctx context.Context) (KeyRotation, error) {
	var out KeyRotation
	err := c.call(ctx, http.MethodPost, "/api/cloudauth/rotate-key", nil, "", &out)
	return out, err
}

// IssueAPIToken makes an API token for a user of the login gateway (tenant
// "" is its default tenant) that expires ttl after now on the fakes' clock
// (0: never).
func (c *Client) IssueAPIToken(ctx context.Context, tenant, username string, ttl time.Duration) (APIToken, error) {
	in := map[string]string{"username": username, "tenant": tenant}
	if ttl > 0 {
		in["ttl"] = ttl.String()
	}
	body, err := json.Marshal(in)
	if err != nil {
		return APIToken{}, err
	}
	var out APIToken
	err = c.call(ctx, http.MethodPost, "/api/cloudauth/api-tokens", strings.NewReader(string(body)), "application/json", &out)
	return out, err
}

// RevokeAPIToken revokes an API token: the gateway refuses it from then
// on; access tokens got with it stay valid until they expire.
func (c *Client) RevokeAPIToken(ctx context.Context, token string) error {
	body, err := json.Marshal(map[string]string{"token": token})
	if err != nil {
		return err
	}
	return c.call(ctx, http.MethodPost, "/api/cloudauth/api-tokens/revoke", strings.NewReader(string(body)), "application/json", nil)
}

// consoleRotateKey is the console's "rotate the signing key" button.
func (s *Server) consoleRotateKey(service string) (string, error) {
	if service != "cloudauth" {
		return "", fmt.Errorf("%s has no signing key to rotate", service)
	}
	out, err := s.rotateCloudauthKey(nil, nil)
	if err != nil {
		return "", err
	}
	rot := out.(KeyRotation)
	return "cloudauth: new tokens are signed with key " + rot.KeyID + "; key " + rot.PreviousKeyID + " stays published until the next rotation", nil
}
