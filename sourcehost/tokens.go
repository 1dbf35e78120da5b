package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/apitwin/apitwin/internal/rest"
)

// CreatePersonalAccessTokenRequest is the body of POST
// /users/:user_id/personal_access_tokens.
type CreatePersonalAccessTokenRequest struct {
	Name string `json:"name"`
	// Scopes are what the token may do: ScopeAPI, ScopeReadAPI, … (at
	// least one).
	Scopes []string `json:"scopes"`
	// ExpiresAt is the day the token stops working; nil leaves it to the
	// server.
	ExpiresAt   *Date  `json:"expires_at,omitempty"`
	Description string `json:"description,omitempty"`
}

// NewPersonalAccessToken is a token just created, with its secret, which
// the server shows this once. Printed (%v, %+v, %#v, slog), the secret is
// [REDACTED].
type NewPersonalAccessToken struct {
	PersonalAccessToken
	Token string `json:"token"`
}

// String describes the token without its secret.
func (t NewPersonalAccessToken) String() string {
	secret := ""
	if t.Token != "" {
		secret = rest.Redacted
	}
	return fmt.Sprintf("sourcehost.NewPersonalAccessToken{ID: %d, Name: %q, UserID: %d, Scopes: %q, Token: %s}",
		t.ID, t.Name, t.UserID, t.Scopes, secret)
}

// GoString is String, for %#v.
func (t NewPersonalAccessToken) GoString() string { return t.String() }

// Format prints String for every verb, so that %+v shows no secret either.
func (t NewPersonalAccessToken) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(t.String())) }

// LogValue logs the token without its secret.
func (t NewPersonalAccessToken) LogValue() slog.Value { return slog.StringValue(t.String()) }

// CreatePersonalAccessToken makes a personal access token for a user with
// exactly the scopes asked for; it takes an administrator (403 otherwise).
// The client keeps the new secret out of its errors and logs from then on.
//
// GitLab API: [POST /users/{user_id}/personal_access_tokens]
//
// [POST /users/{user_id}/personal_access_tokens]: https://docs.gitlab.com/api/user_tokens/#create-a-personal-access-token-for-a-user
func (c *Client) CreatePersonalAccessToken(ctx context.Context, userID int64, req *CreatePersonalAccessTokenRequest) (*NewPersonalAccessToken, error) {
	if userID <= 0 {
		return nil, fmt.Errorf("sourcehost: invalid user id %d", userID)
	}
	if req == nil || req.Name == "" || len(req.Scopes) == 0 {
		return nil, errors.New("sourcehost: CreatePersonalAccessToken needs a name and at least one scope")
	}
	t, err := do[NewPersonalAccessToken](ctx, c, http.MethodPost, "/users/"+strconv.FormatInt(userID, 10)+"/personal_access_tokens", nil, req)
	if err != nil {
		return nil, err
	}
	c.rest.Secrets().Add(t.Token)
	return t, nil
}

// ListPersonalAccessTokensOptions filters and pages personal access tokens.
type ListPersonalAccessTokensOptions struct {
	ListOptions
	// UserID narrows an administrator's list to one user's tokens; another
	// user may name only themselves.
	UserID  int64  `url:"user_id,omitempty"`
	Revoked *bool  `url:"revoked,omitempty"`
	State   string `url:"state,omitempty"`  // active or inactive
	Search  string `url:"search,omitempty"` // in the name
}

// ListPersonalAccessTokens returns one page of tokens: the caller's own,
// or, for an administrator, everyone's. Secrets are never listed.
//
// GitLab API: [GET /personal_access_tokens]
//
// [GET /personal_access_tokens]: https://docs.gitlab.com/api/personal_access_tokens/#list-all-personal-access-tokens
func (c *Client) ListPersonalAccessTokens(ctx context.Context, opts *ListPersonalAccessTokensOptions) (*Page[PersonalAccessToken], error) {
	return list[PersonalAccessToken](ctx, c, "/personal_access_tokens", opts)
}

// AllPersonalAccessTokens iterates what ListPersonalAccessTokens pages.
//
// GitLab API: [GET /personal_access_tokens]
//
// [GET /personal_access_tokens]: https://docs.gitlab.com/api/personal_access_tokens/#list-all-personal-access-tokens
func (c *Client) AllPersonalAccessTokens(ctx context.Context, opts *ListPersonalAccessTokensOptions) iter.Seq2[*PersonalAccessToken, error] {
	return all[PersonalAccessToken](ctx, c, "/personal_access_tokens", opts)
}

// GetPersonalAccessToken describes a token by id: one of the caller's, or
// any for an administrator (another user gets 401 for a token not theirs).
//
// GitLab API: [GET /personal_access_tokens/{token_id}]
//
// [GET /personal_access_tokens/{token_id}]: https://docs.gitlab.com/api/personal_access_tokens/#get-details-on-a-personal-access-token
func (c *Client) GetPersonalAccessToken(ctx context.Context, tokenID int64) (*PersonalAccessToken, error) {
	if tokenID <= 0 {
		return nil, fmt.Errorf("sourcehost: invalid token id %d", tokenID)
	}
	return do[PersonalAccessToken](ctx, c, http.MethodGet, "/personal_access_tokens/"+strconv.FormatInt(tokenID, 10), nil, nil)
}

// RevokePersonalAccessToken revokes a token by id: one of the caller's, or
// any for an administrator.
//
// GitLab API: [DELETE /personal_access_tokens/{token_id}]
//
// [DELETE /personal_access_tokens/{token_id}]: https://docs.gitlab.com/api/personal_access_tokens/#revoke-a-personal-access-token
func (c *Client) RevokePersonalAccessToken(ctx context.Context, tokenID int64) error {
	if tokenID <= 0 {
		return fmt.Errorf("sourcehost: invalid token id %d", tokenID)
	}
	_, err := c.call(ctx, http.MethodDelete, "/personal_access_tokens/"+strconv.FormatInt(tokenID, 10), nil, nil, nil)
	return err
}

// RevokeCurrentToken revokes the token the client authenticates with: the
// client's calls are refused (401) from then on.
//
// GitLab API: [DELETE /personal_access_tokens/self]
//
// [DELETE /personal_access_tokens/self]: https://docs.gitlab.com/api/personal_access_tokens/#self-revoke
func (c *Client) RevokeCurrentToken(ctx context.Context) error {
	_, err := c.call(ctx, http.MethodDelete, "/personal_access_tokens/self", nil, nil, nil)
	return err
}
