package gateway

import (
	"context"
	"errors"
	"net/http"

	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// The gateway as an OAuth 2.1 resource server. A bearer token that is no
// personal access token (GET /personal_access_tokens/self answers 404) is
// taken for an OAuth token of the source-hosting server, which issued it:
// GET /oauth/token/info there says whose it is, its scopes, and the
// resource it was issued for (RFC 8707). The gateway accepts it only when
// that resource is its own canonical URL (resource.url), so that a token a
// client obtained for another service is refused here, however valid it
// is there. The verdict is remembered like a personal access token's
// (under the token's SHA-256, verify.ttl_seconds fresh, in the bounded
// store), and the rate limit counts it by its digest.

// verifyOAuth fills v with the verdict on an OAuth token, or returns the
// refusal when the authorization server could not say. The lookup goes
// through the gateway's source-hosting client, with its transport, TLS
// settings and timeouts: the upstream is configured in one place.
func (g *Gateway) verifyOAuth(ctx context.Context, token string, v *verdict) *refusal {
	info, err := g.upstream.OAuthTokenInfo(ctx, token)
	var se *sourcehost.Error
	switch {
	case errors.As(err, &se) && (se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden || se.StatusCode == http.StatusNotFound):
		v.Reason = "unknown, revoked or expired"
		return nil
	case errors.As(err, &se):
		return &refusal{status: http.StatusBadGateway, code: mcp.CodeUpstreamError,
			reason: "the token could not be verified: the authorization server answered " + http.StatusText(se.StatusCode)}
	case errors.Is(err, rest.ErrUnreadableAnswer):
		// An answer came, but no token information (not JSON, or longer
		// than sourcehost.MaxOAuthTokenInfo).
		return &refusal{status: http.StatusBadGateway, code: mcp.CodeUpstreamError,
			reason: "the token could not be verified: the authorization server's answer could not be read"}
	case err != nil:
		return g.unverified(ctx, err)
	case info.ExpiresIn != nil && *info.ExpiresIn <= 0:
		v.Reason = "revoked or expired"
		return nil
	}
	want := g.cfg.Resource.URL
	switch {
	case want == "":
		v.Reason = "OAuth tokens are not accepted: the gateway has no resource.url to check their audience against"
		return nil
	case info.Resource == nil:
		v.Reason = "the token was issued for no resource (RFC 8707); this gateway is " + want
		return nil
	}
	if got, ok := absoluteURL(*info.Resource); !ok || got != want {
		v.Reason = "the token was issued for another resource; this gateway is " + want
		return nil
	}
	v.OK, v.UserID = true, info.ResourceOwnerID
	for _, s := range g.cfg.Security.RequiredScopes {
		if !sourcehost.ScopesGrant(info.Scope, s) {
			v.Missing = append(v.Missing, s)
		}
	}
	return nil
}
