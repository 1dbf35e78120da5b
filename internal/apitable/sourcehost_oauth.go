package apitable

import "sync"

// SourcehostOAuth is the source-hosting server's OAuth 2.1 authorization
// server (GitLab's, Doorkeeper's): its endpoints live at the server's root,
// not under /api/v4, so they are a table of their own, of package
// sourcehost and fake/sourcehostfake like Sourcehost. Its rows link to
// GitLab's documentation, and to the RFC where GitLab's has no page of its
// own (the metadata, registration and introspection), so its DocsPrefix
// is only the scheme both share. Shared: read it, never change it.
func SourcehostOAuth() *Table { return sourcehostOAuth() }

var sourcehostOAuth = sync.OnceValue(func() *Table {
	const (
		gl  = "https://docs.gitlab.com/"
		rfc = "https://www.rfc-editor.org/rfc/"
		// forClients is why no method of the API client calls a row: an
		// OAuth client (an MCP client's OAuth library) does.
		forClients = "an OAuth client's own step: "
	)
	return &Table{
		Name: "sourcehost oauth", Label: "GitLab OAuth", Root: "",
		Client: "github.com/apitwin/apitwin/sourcehost", Fake: "github.com/apitwin/apitwin/fake/sourcehostfake",
		DocsPrefix: "https://",
		Endpoints: []Endpoint{
			{"GET", "/.well-known/oauth-authorization-server", "oauthMetadata", nil,
				forClients + "discovery (RFC 8414)", rfc + "rfc8414"},
			{"GET", "/.well-known/openid-configuration", "openIDConfiguration", nil,
				forClients + "discovery at OpenID Connect's path, tried after RFC 8414's", gl + "integration/openid_connect_provider/"},
			{"POST", "/oauth/register", "oauthRegister", nil,
				forClients + "registration (RFC 7591)", rfc + "rfc7591"},
			{"GET", "/oauth/authorize", "oauthAuthorizePage", nil,
				forClients + "the user's login and consent, in a browser", gl + "api/oauth2/#authorization-code-with-proof-key-for-code-exchange-pkce"},
			{"POST", "/oauth/authorize", "oauthAuthorizeSubmit", nil,
				"the login and consent page's form, which the browser submits", gl + "api/oauth2/#authorization-code-with-proof-key-for-code-exchange-pkce"},
			{"POST", "/oauth/token", "oauthToken", nil,
				forClients + "a code or a refresh token exchanged for tokens", gl + "api/oauth2/#authorization-code-with-proof-key-for-code-exchange-pkce"},
			{"POST", "/oauth/revoke", "oauthRevoke", nil,
				forClients + "revocation (RFC 7009)", gl + "api/oauth2/#revoke-a-token"},
			{"GET", "/oauth/token/info", "oauthTokenInfo", []string{"OAuthTokenInfo"}, "", gl + "api/oauth2/#retrieve-the-token-information"},
			{"POST", "/oauth/introspect", "oauthIntrospect", nil,
				"introspection (RFC 7662) tells a client of its own tokens; a resource server asks GET /oauth/token/info", rfc + "rfc7662"},
		},
	}
})
