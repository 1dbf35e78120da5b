package sourcehost

import (
	"context"
	"fmt"
	"net/http"

	"github.com/apitwin/apitwin/internal/rest"
)

// MaxOAuthTokenInfo bounds the answer OAuthTokenInfo reads: a few hundred
// bytes are expected, and an answer longer than this fails the call.
const MaxOAuthTokenInfo = 64 << 10

// OAuthTokenInfo is what the server's OAuth authorization server says of
// an access token it issued, under the names of its answer.
type OAuthTokenInfo struct {
	// ResourceOwnerID is the user who authorized the token (0 for a token
	// no user did, which GitLab answers with null).
	ResourceOwnerID int64 `json:"resource_owner_id"`
	// Scope lists the token's scopes: ScopeAPI, ScopeReadUser, …
	Scope []string `json:"scope"`
	// ExpiresIn is how many seconds the token has left; nil for a token
	// that does not expire.
	ExpiresIn *int64 `json:"expires_in"`
	// Application is the OAuth application the token was issued to.
	Application OAuthTokenApplication `json:"application"`
	// CreatedAt is when the token was issued, in Unix seconds.
	CreatedAt int64 `json:"created_at"`
	// Resource is the resource (RFC 8707) the token was issued for, which
	// the client named when it asked for it: the token's audience. The
	// fake records it and answers it; nil when the token was asked for
	// none, or the server does not say.
	Resource *string `json:"resource"`
}

// OAuthTokenApplication names an OAuth application.
type OAuthTokenApplication struct {
	// UID is the application's client_id.
	UID string `json:"uid"`
}

// OAuthTokenInfo asks the server's OAuth authorization server what token
// is: whose, with which scopes, for how long, for which resource. It is
// what a resource server (an MCP gateway in front of the API, say) asks of
// a token presented to it before serving it.
//
// The endpoint is at the server's root, not under /api/v4, and the request
// carries token as its bearer instead of the client's own credentials
// (nor its Sudo); it goes through the client otherwise (its transport,
// TLS settings, retries, hook and logger), and token is kept out of its
// errors and log lines like the client's own. A token that is unknown,
// expired or revoked (or no OAuth token) is refused with an *Error
// matching ErrUnauthorized; an answer that is not token information, or
// longer than MaxOAuthTokenInfo bytes, is an error saying so.
//
// GitLab OAuth: [GET /oauth/token/info]
//
// [GET /oauth/token/info]: https://docs.gitlab.com/api/oauth2/#retrieve-the-token-information
func (c *Client) OAuthTokenInfo(ctx context.Context, token string) (*OAuthTokenInfo, error) {
	if err := checkToken(token); err != nil {
		return nil, fmt.Errorf("sourcehost: OAuthTokenInfo: %w", err)
	}
	info := new(OAuthTokenInfo)
	req := &rest.Request{Method: http.MethodGet, Path: "/oauth/token/info", AtServerRoot: true, MaxBody: MaxOAuthTokenInfo}
	if _, err := c.rest.WithAuth(bearerAuth(token), token).Do(ctx, req, info); err != nil {
		return nil, err
	}
	return info, nil
}
