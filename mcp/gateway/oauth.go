package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

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

// tokenInfo is the authorization server's GET /oauth/token/info.
type tokenInfo struct {
	ResourceOwnerID int64    `json:"resource_owner_id"`
	Scope           []string `json:"scope"`
	ExpiresIn       *int64   `json:"expires_in"`
	Resource        *string  `json:"resource"`
}

// maxTokenInfo bounds the answer read: a few hundred bytes are expected.
const maxTokenInfo = 64 << 10

// verifyOAuth fills v with the verdict on an OAuth token, or returns the
// refusal when the authorization server could not say.
func (g *Gateway) verifyOAuth(ctx context.Context, token string, v *verdict) *refusal {
	info, status, err := g.tokenInfo(ctx, token)
	switch {
	case err != nil:
		e := g.upstreamFailure(ctx, "token verification", err)
		r := &refusal{status: http.StatusBadGateway, code: e.Code, reason: "the token could not be verified: " + e.Message}
		if e.Status == http.StatusGatewayTimeout {
			r.status = http.StatusGatewayTimeout
		}
		return r
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound:
		v.Reason = "unknown, revoked or expired"
		return nil
	case status != http.StatusOK:
		return &refusal{status: http.StatusBadGateway, code: mcp.CodeUpstreamError,
			reason: "the token could not be verified: the authorization server answered " + http.StatusText(status)}
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

// tokenInfo asks the source-hosting server about token. The answer's
// status is returned with its body decoded when it is 200.
func (g *Gateway) tokenInfo(ctx context.Context, token string) (*tokenInfo, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.authorizationServer+"/oauth/token/info", nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	resp, err := g.http.Do(req)
	if err != nil {
		return nil, 0, err // a transport error names the URL, never the header
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxTokenInfo))
		return nil, resp.StatusCode, nil
	}
	var info tokenInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxTokenInfo)).Decode(&info); err != nil {
		return nil, http.StatusBadGateway, nil
	}
	return &info, http.StatusOK, nil
}
