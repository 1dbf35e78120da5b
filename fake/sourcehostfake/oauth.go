package sourcehostfake

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/apitable"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// The fake is an OAuth 2.1 authorization server as GitLab's (Doorkeeper)
// is one, with what MCP clients need of it: metadata (RFC 8414), dynamic
// registration of public clients (RFC 7591), the authorization code grant
// with PKCE (S256 only), refresh tokens that rotate, revocation (RFC
// 7009), token information and introspection (RFC 7662), and the resource
// a token is for (RFC 8707). Its access tokens are tokens of the whole API
// with their scopes, as GitLab's are. See doc.go, "OAuth", for the bounds
// and the differences.

// OAuth lifetimes and bounds.
const (
	// OAuthTokenLifetime is how long an access token works (GitLab's
	// default: two hours), on the fake's clock.
	OAuthTokenLifetime = 2 * time.Hour
	// oauthCodeLifetime is how long a code, and a login page, may be used
	// (Doorkeeper's default: ten minutes).
	oauthCodeLifetime = 10 * time.Minute
	// maxOAuthPending bounds the login pages and codes waiting at once;
	// past it the oldest goes.
	maxOAuthPending = 1000
	// maxRegistrationBody bounds a registration's JSON.
	maxRegistrationBody = 64 << 10
	// maxClientName is GitLab's bound of a dynamic client's name.
	maxClientName = 200
	// maxRedirectURIs and maxRedirectURI bound a client's redirect URIs.
	maxRedirectURIs = 10
	maxRedirectURI  = 2000
	// maxResource bounds a resource indicator.
	maxResource = 2000
	// dynamicPrefix is put before a dynamic client's name, as GitLab
	// does, so that the consent page does not vouch for it.
	dynamicPrefix = "[Unverified Dynamic Application] "
)

// defaultDynamicScopes are a dynamic client's scopes when it names none.
var defaultDynamicScopes = []string{"api", "read_api", "read_user", "read_repository", "write_repository"}

// oauthState is the authorization server's part of the state.
type oauthState struct {
	apps    map[string]*oauthApp     // by client_id
	pending map[string]*oauthPending // login pages, by id
	codes   map[string]*oauthCode    // by code
	refresh map[string]*oauthToken   // by refresh token: the live ones, and each family's last rotated one
	waiting []string                 // pending ids and codes, oldest first, to drop past maxOAuthPending
}

func newOAuthState() *oauthState {
	return &oauthState{apps: map[string]*oauthApp{}, pending: map[string]*oauthPending{}, codes: map[string]*oauthCode{},
		refresh: map[string]*oauthToken{}}
}

// oauthApp is a registered client.
type oauthApp struct {
	id           int64
	clientID     string
	secret       string // "" for a public client
	name         string
	redirectURIs []string
	scopes       []string
	dynamic      bool
	createdAt    time.Time
}

// oauthRequest is an authorization request, checked.
type oauthRequest struct {
	app         *oauthApp
	redirectURI string
	state       string
	scopes      []string
	challenge   string // the S256 code challenge
	resource    string // "" when none was named
}

// oauthPending is a login page shown: the request it answers, and the
// token its form must carry back (with the same value in a cookie).
type oauthPending struct {
	req     oauthRequest
	csrf    string
	expires time.Time
}

// oauthCode is a code issued and not yet exchanged.
type oauthCode struct {
	req     oauthRequest
	user    *user
	expires time.Time
}

// oauthToken is an access token with its refresh token, as Doorkeeper
// keeps them (one row): revoking one revokes both. The access token is a
// token of the API (state.tokens), its oauth field pointing here.
type oauthToken struct {
	access   *token
	refresh  string
	app      *oauthApp
	resource string
	// previous is the row this one's refresh made, kept (revoked) so that
	// its refresh token used again is known as reuse.
	previous *oauthToken
	// next is the row a refresh of this one made; nil while it is live.
	next *oauthToken
}

// oauthError is an OAuth error answer (RFC 6749 §5.2), as Doorkeeper words
// each.
func oauthError(status int, code string) fakekit.Answer {
	return fakekit.Answer{Status: status, Body: map[string]string{"error": code, "error_description": oauthErrorText[code]},
		Header: http.Header{"Cache-Control": {"no-store"}, "Pragma": {"no-cache"}}}
}

var oauthErrorText = map[string]string{
	"invalid_request":           "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
	"invalid_client":            "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
	"invalid_grant":             "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
	"unsupported_grant_type":    "The authorization grant type is not supported by the authorization server.",
	"invalid_scope":             "The requested scope is invalid, unknown, or malformed.",
	"unsupported_response_type": "The authorization server does not support this response type.",
	"access_denied":             "The resource owner or authorization server denied the request.",
	"invalid_redirect_uri":      "The requested redirect uri is malformed or doesn't match client redirect URI.",
	"invalid_target":            "The requested resource is invalid, unknown, or malformed.",
	"invalid_token":             "The access token is invalid",
	"invalid_client_metadata":   "The value of one of the client metadata fields is invalid.",
	"unauthorized_client":       "You are not authorized to revoke this token",
}

// oauthDetail is oauthError with a description of its own.
func oauthDetail(status int, code, description string) fakekit.Answer {
	a := oauthError(status, code)
	a.Body = map[string]string{"error": code, "error_description": description}
	return a
}

// oauthHandlers binds each row of the authorization server's table
// (apitable.SourcehostOAuth, at the server's root) to its handler, by the
// row's Handler name, as handlers does the API's.
var oauthHandlers = map[string]func(s *Server, w http.ResponseWriter, r *http.Request){
	"oauthMetadata":        (*Server).oauthMetadata,
	"openIDConfiguration":  (*Server).oauthMetadata,
	"oauthRegister":        (*Server).oauthRegister,
	"oauthAuthorizePage":   (*Server).oauthAuthorizePage,
	"oauthAuthorizeSubmit": (*Server).oauthAuthorizeSubmit,
	"oauthToken":           (*Server).oauthToken,
	"oauthRevoke":          (*Server).oauthRevoke,
	"oauthTokenInfo":       (*Server).oauthTokenInfo,
	"oauthIntrospect":      (*Server).oauthIntrospect,
}

// registerOAuth adds the authorization server's routes from its table.
func registerOAuth(rt *fakekit.Routes[*Server]) error {
	return fakekit.RegisterTable(apitable.SourcehostOAuth(), oauthHandlers, func(_ apitable.Endpoint, pattern string, h func(*Server, http.ResponseWriter, *http.Request)) {
		rt.Handle(pattern, func(s *Server, w http.ResponseWriter, r *http.Request) {
			if s.admit(w, r) {
				h(s, w, r)
			}
		})
	})
}

// authorizationServerMetadata is RFC 8414's document.
type authorizationServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	IntrospectionEndpoint             string   `json:"introspection_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
}

// oauthMetadata is GET /.well-known/oauth-authorization-server, and GET
// /.well-known/openid-configuration, where GitLab serves the same document
// (OpenID Connect discovery, which MCP clients try after RFC 8414's path).
// The OpenID Connect members of GitLab's (jwks_uri, userinfo_endpoint,
// id_token_signing_alg_values_supported, subject_types_supported, claims)
// are left out: the fake issues no ID tokens.
func (s *Server) oauthMetadata(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	base := s.externalFor(r)
	s.mu.Unlock()
	fakekit.WriteAnswer(w, ok(authorizationServerMetadata{
		Issuer: base, AuthorizationEndpoint: base + "/oauth/authorize", TokenEndpoint: base + "/oauth/token",
		RevocationEndpoint: base + "/oauth/revoke", IntrospectionEndpoint: base + "/oauth/introspect",
		RegistrationEndpoint: base + "/oauth/register", ScopesSupported: slices.Clone(knownScopes),
		ResponseTypesSupported: []string{"code"}, ResponseModesSupported: []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none", "client_secret_basic", "client_secret_post"},
		CodeChallengeMethodsSupported:     []string{"S256"},
	}))
}

// --- registration (RFC 7591) ---

// registrationRequest is the client metadata the fake reads; others are
// ignored, as RFC 7591 §2 allows.
type registrationRequest struct {
	ClientName              string          `json:"client_name"`
	RedirectURIs            json.RawMessage `json:"redirect_uris"`
	Scope                   string          `json:"scope"`
	TokenEndpointAuthMethod string          `json:"token_endpoint_auth_method"`
	GrantTypes              []string        `json:"grant_types"`
	ResponseTypes           []string        `json:"response_types"`
}

type registrationJSON struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
}

// oauthRegister is POST /oauth/register: a public client registers itself
// (201 with its client_id), as GitLab lets MCP clients do.
func (s *Server) oauthRegister(w http.ResponseWriter, r *http.Request) {
	fakekit.WriteAnswer(w, s.register(r))
}

func (s *Server) register(r *http.Request) fakekit.Answer {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxRegistrationBody+1))
	if err != nil {
		return oauthDetail(http.StatusBadRequest, "invalid_client_metadata", "the body could not be read")
	}
	if len(b) > maxRegistrationBody {
		return oauthDetail(http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("the registration is larger than %d bytes", maxRegistrationBody))
	}
	var req registrationRequest
	if err := json.Unmarshal(b, &req); err != nil {
		return oauthDetail(http.StatusBadRequest, "invalid_client_metadata", "the registration is not a JSON object of client metadata")
	}
	var uris []string
	var one string
	if json.Unmarshal(req.RedirectURIs, &uris) != nil {
		if json.Unmarshal(req.RedirectURIs, &one) != nil || one == "" { // GitLab takes a lone string too
			return oauthDetail(http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required: an array of URIs")
		}
		uris = []string{one}
	}
	switch {
	case len(uris) == 0:
		return oauthDetail(http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required: an array of URIs")
	case len(uris) > maxRedirectURIs:
		return oauthDetail(http.StatusBadRequest, "invalid_redirect_uri", fmt.Sprintf("at most %d redirect_uris", maxRedirectURIs))
	}
	for _, u := range uris {
		if why := checkRedirectURI(u); why != "" {
			return oauthDetail(http.StatusBadRequest, "invalid_redirect_uri", why)
		}
	}
	if m := req.TokenEndpointAuthMethod; m != "" && m != "none" {
		return oauthDetail(http.StatusBadRequest, "invalid_client_metadata", "only public clients register: token_endpoint_auth_method must be none")
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return oauthDetail(http.StatusBadRequest, "invalid_client_metadata", "grant_types may hold authorization_code and refresh_token only")
		}
	}
	for _, rt := range req.ResponseTypes {
		if rt != "code" {
			return oauthDetail(http.StatusBadRequest, "invalid_client_metadata", "response_types may hold code only")
		}
	}
	name := strings.TrimSpace(req.ClientName)
	if name == "" {
		name = "MCP client"
	}
	if len([]rune(name)) > maxClientName {
		return oauthDetail(http.StatusBadRequest, "invalid_client_metadata", fmt.Sprintf("client_name is too long (maximum is %d characters)", maxClientName))
	}
	// Scopes the server does not know (openid, offline_access, which
	// generic clients ask for) are left out rather than refused, as RFC
	// 7591 §2 lets a server register other scopes than those asked; the
	// answer says which were registered.
	var scopes []string
	for _, sc := range strings.Fields(req.Scope) {
		if slices.Contains(knownScopes, sc) && !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) == 0 {
		scopes = defaultDynamicScopes
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if fail := s.roomFor([]recordNeed{{"oauth_application", 1}}); fail != nil {
		return *fail
	}
	st := s.st
	app := &oauthApp{id: st.next("oauth_application"), clientID: randomSecret("", 32), name: dynamicPrefix + name, redirectURIs: uris,
		scopes: slices.Clone(scopes), dynamic: true, createdAt: st.clock.Now()}
	st.oauth.apps[app.clientID] = app
	return created(registrationJSON{ClientID: app.clientID, ClientIDIssuedAt: app.createdAt.Unix(), ClientName: app.name,
		RedirectURIs: slices.Clone(uris), TokenEndpointAuthMethod: "none", GrantTypes: []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"}, Scope: strings.Join(app.scopes, " ")})
}

// checkRedirectURI says what is wrong with a redirect URI a client
// registers, or "": absolute, no fragment, at most maxRedirectURI bytes;
// https anywhere, http only to this machine (RFC 8252 §7.3: a native
// app's loopback listener), or a private-use scheme of a native app
// (com.example.app:/cb); never a scheme a browser runs (javascript, data).
func checkRedirectURI(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case len(raw) > maxRedirectURI:
		return fmt.Sprintf("a redirect URI is at most %d bytes", maxRedirectURI)
	case err != nil || !u.IsAbs():
		return fmt.Sprintf("%q is not an absolute URI", raw)
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Sprintf("%q has a fragment", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return ""
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return ""
		}
		return fmt.Sprintf("%q: http only to a loopback address (127.0.0.1, [::1], localhost)", raw)
	case "javascript", "data", "file", "vbscript", "blob", "about":
		return fmt.Sprintf("%q: that scheme is not a redirect", raw)
	}
	return ""
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redirectMatches reports whether a redirect URI of a request is one the
// client registered: the same string, or, for a loopback http URI, the
// same but for the port (RFC 8252 §7.3: a native app listens on whatever
// port it gets).
func (a *oauthApp) redirectMatches(raw string) bool {
	if slices.Contains(a.redirectURIs, raw) {
		return true
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || !isLoopbackHost(u.Hostname()) {
		return false
	}
	for _, reg := range a.redirectURIs {
		ru, err := url.Parse(reg)
		if err == nil && ru.Scheme == "http" && ru.Hostname() == u.Hostname() && ru.Path == u.Path && ru.RawQuery == u.RawQuery {
			return true
		}
	}
	return false
}

// --- authorization ---

// checkAuthorize reads an authorization request. A request that names no
// known client or a redirect URI it did not register is an error page (no
// redirect to a URI nobody vouched for: fail is set, redirect is not);
// others are refused by a redirect back with the error (redirect set).
func (st *state) checkAuthorize(q url.Values) (req oauthRequest, fail *fakekit.Answer, redirect string) {
	app := st.oauth.apps[q.Get("client_id")]
	if app == nil {
		return req, errAnswer(oauthError(http.StatusUnauthorized, "invalid_client")), ""
	}
	ru := q.Get("redirect_uri")
	if ru == "" && len(app.redirectURIs) == 1 {
		ru = app.redirectURIs[0]
	}
	if !app.redirectMatches(ru) {
		return req, errAnswer(oauthError(http.StatusBadRequest, "invalid_redirect_uri")), ""
	}
	req = oauthRequest{app: app, redirectURI: ru, state: q.Get("state")}
	back := func(code, description string) (oauthRequest, *fakekit.Answer, string) {
		return req, nil, errorRedirect(req, code, description)
	}
	if q.Get("response_type") != "code" {
		return back("unsupported_response_type", oauthErrorText["unsupported_response_type"])
	}
	req.challenge = q.Get("code_challenge")
	switch m := q.Get("code_challenge_method"); {
	case req.challenge == "":
		return back("invalid_request", "code_challenge is required (PKCE, S256)")
	case m != "S256":
		return back("invalid_request", "code_challenge_method must be S256: plain is not allowed (OAuth 2.1)")
	case len(req.challenge) < 43 || len(req.challenge) > 128:
		return back("invalid_request", "code_challenge must be 43 to 128 characters")
	}
	req.scopes = app.scopes
	if sc := q.Get("scope"); sc != "" {
		req.scopes = strings.Fields(sc)
		for _, s := range req.scopes {
			if !slices.Contains(app.scopes, s) {
				return back("invalid_scope", oauthErrorText["invalid_scope"])
			}
		}
	}
	if res := q["resource"]; len(res) > 0 {
		if len(res) > 1 || !validResource(res[0]) {
			return back("invalid_target", oauthErrorText["invalid_target"])
		}
		req.resource = res[0]
	}
	return req, nil, ""
}

// validResource: an absolute URI without a fragment (RFC 8707 §2), of a
// bounded length.
func validResource(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.IsAbs() && u.Host != "" && u.Fragment == "" && !strings.Contains(raw, "#") && len(raw) <= maxResource
}

// errorRedirect is the redirect URI with an error and the state.
func errorRedirect(req oauthRequest, code, description string) string {
	return withQuery(req.redirectURI, "error", code, "error_description", description, "state", req.state)
}

// withQuery adds pairs to raw's query (a pair with an empty value is left
// out).
func withQuery(raw string, pairs ...string) string {
	u, err := url.Parse(raw)
	if err != nil { // checked when registered and matched
		return raw
	}
	q := u.Query()
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// remember keeps a login page or a code, dropping the oldest past
// maxOAuthPending, and the expired.
func (o *oauthState) remember(key string, now time.Time) {
	o.waiting = append(o.waiting, key)
	kept := o.waiting[:0]
	for i, k := range o.waiting {
		p, c := o.pending[k], o.codes[k]
		expired := p != nil && !now.Before(p.expires) || c != nil && !now.Before(c.expires)
		if p == nil && c == nil || expired || len(o.waiting)-i > maxOAuthPending {
			delete(o.pending, k)
			delete(o.codes, k)
			continue
		}
		kept = append(kept, k)
	}
	clear(o.waiting[len(kept):])
	o.waiting = kept
}

// issueCode approves req as u: a code, and the redirect that carries it.
// s.mu must be held.
func (st *state) issueCode(req oauthRequest, u *user) string {
	code := randomSecret("", 32)
	now := st.clock.Now()
	st.oauth.codes[code] = &oauthCode{req: req, user: u, expires: now.Add(oauthCodeLifetime)}
	st.oauth.remember(code, now)
	return withQuery(req.redirectURI, "code", code, "state", req.state)
}

// Authorize approves an authorization request as the user named, without
// a browser: authorizeURL is the URL an OAuth client would open
// (…/oauth/authorize?client_id=…&code_challenge=…), checked as the login
// page checks it, and the answer is where the page would send the
// browser: the client's redirect URI with a code and the state, or with
// an error (a bad scope, no PKCE). It is an error only when there is no
// redirect to make (an unknown client, a redirect URI it did not
// register, no such user). It is Go only, for tests: nothing on the wire
// signs a user in without the user's credentials.
func (s *Server) Authorize(username, authorizeURL string) (string, error) {
	u, err := url.Parse(authorizeURL)
	if err != nil {
		return "", fmt.Errorf("sourcehostfake: authorize URL: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	usr, err := s.st.userNamed(username)
	if err != nil {
		return "", err
	}
	req, fail, redirect := s.st.checkAuthorize(u.Query())
	switch {
	case fail != nil:
		b, _ := json.Marshal(fail.Body)
		return "", fmt.Errorf("sourcehostfake: authorize: %d %s", fail.Status, b)
	case redirect != "":
		return redirect, nil
	}
	return s.st.issueCode(req, usr), nil
}

// --- tokens ---

// tokenJSONOAuth is the token endpoint's answer.
type oauthTokenJSON struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
	CreatedAt    int64  `json:"created_at"`
}

// oauthToken is POST /oauth/token: a code (with its PKCE verifier) or a
// refresh token for a new access token and refresh token.
func (s *Server) oauthToken(w http.ResponseWriter, r *http.Request) {
	p, perr := readParams(r)
	s.mu.Lock()
	a := s.tokenGrant(r, p, perr)
	s.mu.Unlock()
	fakekit.WriteAnswer(w, a)
}

// clientOf authenticates the client of a request to the token, revocation
// or introspection endpoint: HTTP Basic or client_id (and client_secret)
// in the parameters. A public client names itself; a confidential one
// proves it with its secret. s.mu must be held.
func (st *state) clientOf(r *http.Request, p *params) *oauthApp {
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, _ = p.str("client_id")
		secret, _ = p.str("client_secret")
	}
	app := st.oauth.apps[id]
	if app == nil || app.secret != "" && subtle.ConstantTimeCompare([]byte(app.secret), []byte(secret)) != 1 {
		return nil
	}
	return app
}

func (s *Server) tokenGrant(r *http.Request, p *params, perr string) fakekit.Answer {
	if perr != "" {
		return oauthDetail(http.StatusBadRequest, "invalid_request", perr)
	}
	st := s.st
	grant, _ := p.str("grant_type")
	if grant != "authorization_code" && grant != "refresh_token" {
		if grant == "" {
			return oauthDetail(http.StatusBadRequest, "invalid_request", "Missing required parameter: grant_type.")
		}
		return oauthError(http.StatusBadRequest, "unsupported_grant_type")
	}
	app := st.clientOf(r, p)
	if app == nil {
		return oauthError(http.StatusUnauthorized, "invalid_client")
	}
	resources := p.query["resource"]
	if v, ok := p.str("resource"); ok && len(resources) == 0 {
		resources = []string{v}
	}
	if len(resources) > 1 || len(resources) == 1 && !validResource(resources[0]) {
		return oauthError(http.StatusBadRequest, "invalid_target")
	}
	if grant == "refresh_token" {
		return s.refreshGrant(app, p, resources)
	}
	code, _ := p.str("code")
	verifier, _ := p.str("code_verifier")
	switch {
	case code == "":
		return oauthDetail(http.StatusBadRequest, "invalid_request", "Missing required parameter: code.")
	case verifier == "":
		return oauthDetail(http.StatusBadRequest, "invalid_request", "Missing required parameter: code_verifier.")
	}
	c := st.oauth.codes[code]
	if c == nil {
		return oauthError(http.StatusBadRequest, "invalid_grant")
	}
	delete(st.oauth.codes, code) // once, whatever follows
	ru, _ := p.str("redirect_uri")
	switch {
	case !st.clock.Now().Before(c.expires), c.req.app != app, ru != "" && ru != c.req.redirectURI:
		return oauthError(http.StatusBadRequest, "invalid_grant")
	case !pkceMatches(c.req.challenge, verifier):
		return oauthDetail(http.StatusBadRequest, "invalid_grant", "The code_verifier does not match the code_challenge.")
	case len(resources) == 1 && c.req.resource != "" && resources[0] != c.req.resource:
		return oauthError(http.StatusBadRequest, "invalid_target")
	}
	resource := c.req.resource
	if resource == "" && len(resources) == 1 {
		resource = resources[0]
	}
	if fail := s.roomFor([]recordNeed{{"token", 1}}); fail != nil {
		return *fail
	}
	return s.newOAuthToken(app, c.user, c.req.scopes, resource, nil)
}

// pkceMatches: BASE64URL(SHA256(verifier)) is the challenge (RFC 7636
// §4.6), the verifier 43 to 128 unreserved characters.
func pkceMatches(challenge, verifier string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

// refreshGrant rotates a refresh token: a new row, the old one revoked
// (its access token with it, as Doorkeeper revokes the row). A refresh
// token used again after it was rotated is reuse, which OAuth 2.1 (§4.3.1)
// takes for theft: the whole family, the live row included, is revoked.
func (s *Server) refreshGrant(app *oauthApp, p *params, resources []string) fakekit.Answer {
	st := s.st
	rt, _ := p.str("refresh_token")
	if rt == "" {
		return oauthDetail(http.StatusBadRequest, "invalid_request", "Missing required parameter: refresh_token.")
	}
	old := st.oauth.refresh[rt]
	if old == nil || old.app != app {
		return oauthError(http.StatusBadRequest, "invalid_grant")
	}
	if old.next != nil || old.access.revoked {
		if old.next != nil { // reuse of a rotated one: the family goes
			for t := old.next; t != nil; t = t.next {
				t.access.revoked = true
			}
		}
		return oauthError(http.StatusBadRequest, "invalid_grant")
	}
	if len(resources) == 1 && resources[0] != old.resource {
		return oauthError(http.StatusBadRequest, "invalid_target")
	}
	scopes := old.access.scopes
	if sc, ok := p.str("scope"); ok && sc != "" {
		scopes = strings.Fields(sc)
		for _, s := range scopes {
			if !slices.Contains(old.access.scopes, s) {
				return oauthError(http.StatusBadRequest, "invalid_scope")
			}
		}
	}
	if fail := s.roomFor([]recordNeed{{"token", 1}}); fail != nil {
		return *fail
	}
	return s.newOAuthToken(app, old.access.user, scopes, old.resource, old)
}

// newOAuthToken makes a row, after prev when it is a refresh of it. Of a
// family, the live row and the one before it are kept (that one for its
// refresh token's reuse to be seen); older ones are dropped. s.mu must be
// held.
func (s *Server) newOAuthToken(app *oauthApp, u *user, scopes []string, resource string, prev *oauthToken) fakekit.Answer {
	st := s.st
	now := st.clock.Now()
	expires := now.Add(OAuthTokenLifetime)
	access, err := st.addToken(u, "oauth:"+app.clientID[:8], randomSecret("shoat-", 32), scopes, &expires)
	if err != nil { // a random secret that clashes: not in this universe
		return message(http.StatusInternalServerError, "500 Internal Server Error")
	}
	row := &oauthToken{access: access, refresh: randomSecret("short-", 32), app: app, resource: resource, previous: prev}
	access.oauth = row
	st.oauth.refresh[row.refresh] = row
	if prev != nil {
		prev.next = row
		prev.access.revoked = true
		if gone := prev.previous; gone != nil {
			prev.previous = nil
			delete(st.oauth.refresh, gone.refresh)
			delete(st.tokens, gone.access.secret)
			s.removed("token", 1)
		}
	}
	a := ok(oauthTokenJSON{AccessToken: access.secret, TokenType: "Bearer", ExpiresIn: int64(OAuthTokenLifetime / time.Second),
		RefreshToken: row.refresh, Scope: strings.Join(scopes, " "), CreatedAt: now.Unix()})
	a.Header = http.Header{"Cache-Control": {"no-store"}, "Pragma": {"no-cache"}}
	return a
}

// oauthRevoke is POST /oauth/revoke (RFC 7009): the access or refresh
// token named is revoked with its row, 200 {} whether or not it was one
// (an unknown token is not an error); a token of another client is 403
// unauthorized_client, as Doorkeeper answers.
func (s *Server) oauthRevoke(w http.ResponseWriter, r *http.Request) {
	p, perr := readParams(r)
	s.mu.Lock()
	a := func() fakekit.Answer {
		if perr != "" {
			return oauthDetail(http.StatusBadRequest, "invalid_request", perr)
		}
		app := s.st.clientOf(r, p)
		if app == nil {
			return oauthError(http.StatusUnauthorized, "invalid_client")
		}
		tok, _ := p.str("token")
		if tok == "" {
			return oauthDetail(http.StatusBadRequest, "invalid_request", "Missing required parameter: token.")
		}
		row := s.st.oauthRow(tok)
		if row == nil {
			return ok(map[string]any{})
		}
		if row.app != app {
			return oauthError(http.StatusForbidden, "unauthorized_client")
		}
		row.access.revoked = true
		return ok(map[string]any{})
	}()
	s.mu.Unlock()
	fakekit.WriteAnswer(w, a)
}

// oauthRow is the row of an access or refresh token. s.mu must be held.
func (st *state) oauthRow(secret string) *oauthToken {
	if t := st.tokens[secret]; t != nil && t.oauth != nil {
		return t.oauth
	}
	return st.oauth.refresh[secret]
}

// tokenInfoJSON is GET /oauth/token/info's answer, as GitLab's (scope and
// scopes, expires_in and expires_in_seconds both), and the resource the
// token was issued for (RFC 8707), which the fake adds.
type tokenInfoJSON struct {
	ResourceOwnerID  int64           `json:"resource_owner_id"`
	Scope            []string        `json:"scope"`
	Scopes           []string        `json:"scopes"`
	ExpiresIn        int64           `json:"expires_in"`
	ExpiresInSeconds int64           `json:"expires_in_seconds"`
	Application      applicationJSON `json:"application"`
	CreatedAt        int64           `json:"created_at"`
	Resource         *string         `json:"resource"`
}

type applicationJSON struct {
	UID string `json:"uid"`
}

// oauthTokenInfo is GET /oauth/token/info: what the access token the
// request carries (Authorization: Bearer, or access_token) is; 401
// invalid_token for one that is unknown, expired or revoked, or no OAuth
// token.
func (s *Server) oauthTokenInfo(w http.ResponseWriter, r *http.Request) {
	secret := presentedToken(r)
	if secret == "" {
		secret = r.URL.Query().Get("access_token")
	}
	s.mu.Lock()
	a := func() fakekit.Answer {
		t := s.st.tokens[secret]
		if t == nil || t.oauth == nil || s.st.tokenState(t) != "" {
			return oauthError(http.StatusUnauthorized, "invalid_token")
		}
		left := int64(t.expiresAt.Sub(s.st.clock.Now()) / time.Second)
		info := tokenInfoJSON{ResourceOwnerID: t.user.id, Scope: slices.Clone(t.scopes), Scopes: slices.Clone(t.scopes), ExpiresIn: left,
			ExpiresInSeconds: left, Application: applicationJSON{UID: t.oauth.app.clientID}, CreatedAt: t.createdAt.Unix()}
		if t.oauth.resource != "" {
			info.Resource = &t.oauth.resource
		}
		return ok(info)
	}()
	s.mu.Unlock()
	fakekit.WriteAnswer(w, a)
}

// introspectionJSON is RFC 7662's answer.
type introspectionJSON struct {
	Active    bool   `json:"active"`
	Scope     string `json:"scope,omitempty"`
	ClientID  string `json:"client_id,omitempty"`
	Username  string `json:"username,omitempty"`
	TokenType string `json:"token_type,omitempty"`
	Exp       int64  `json:"exp,omitempty"`
	Iat       int64  `json:"iat,omitempty"`
	Sub       string `json:"sub,omitempty"`
	Aud       string `json:"aud,omitempty"`
	Iss       string `json:"iss,omitempty"`
}

// oauthIntrospect is POST /oauth/introspect (RFC 7662), authenticated as
// Doorkeeper has it: by a client (its secret, for a confidential one; a
// public client's id alone proves nothing and is 401), which learns of its
// own tokens, or by a bearer access token, which learns of itself and of
// the tokens of its own client. Any other token, and one unknown, expired
// or revoked, is {"active":false}.
func (s *Server) oauthIntrospect(w http.ResponseWriter, r *http.Request) {
	p, perr := readParams(r)
	s.mu.Lock()
	a := func() fakekit.Answer {
		if perr != "" {
			return oauthDetail(http.StatusBadRequest, "invalid_request", perr)
		}
		st := s.st
		var caller *oauthApp
		if bearer := presentedToken(r); bearer != "" && r.Header.Get("Private-Token") == "" {
			if t := st.tokens[bearer]; t != nil && t.oauth != nil && st.tokenState(t) == "" {
				caller = t.oauth.app
			}
		} else if app := st.clientOf(r, p); app != nil && app.secret != "" {
			caller = app
		}
		if caller == nil {
			return oauthError(http.StatusUnauthorized, "invalid_client")
		}
		tok, _ := p.str("token")
		if tok == "" {
			return oauthDetail(http.StatusBadRequest, "invalid_request", "Missing required parameter: token.")
		}
		row := st.oauthRow(tok)
		if row == nil || row.app != caller || st.tokenState(row.access) != "" {
			return ok(introspectionJSON{})
		}
		t := row.access
		return ok(introspectionJSON{Active: true, Scope: strings.Join(t.scopes, " "), ClientID: row.app.clientID, Username: t.user.username,
			TokenType: "Bearer", Exp: t.expiresAt.Unix(), Iat: t.createdAt.Unix(), Sub: strconv.FormatInt(t.user.id, 10),
			Aud: row.resource, Iss: s.externalFor(r)})
	}()
	s.mu.Unlock()
	fakekit.WriteAnswer(w, a)
}

// OAuthApplicationSeed is an OAuth application to add (AddOAuthApplication).
type OAuthApplicationSeed struct {
	Name         string
	RedirectURIs []string
	// Scopes default to api, read_api, read_user, read_repository and
	// write_repository.
	Scopes []string
	// Confidential applications get a secret (client_secret) to
	// authenticate with; public ones (the default) name themselves.
	Confidential bool
}

// AddOAuthApplication adds an application, as an administrator adds one in
// GitLab's settings, and returns its client_id and, for a confidential
// one, its secret.
func (s *Server) AddOAuthApplication(seed OAuthApplicationSeed) (clientID, secret string, err error) {
	if len(seed.RedirectURIs) == 0 || len(seed.RedirectURIs) > maxRedirectURIs {
		return "", "", fmt.Errorf("sourcehostfake: an application needs 1 to %d redirect URIs", maxRedirectURIs)
	}
	for _, u := range seed.RedirectURIs {
		if why := checkRedirectURI(u); why != "" {
			return "", "", errors.New("sourcehostfake: " + why)
		}
	}
	scopes := seed.Scopes
	if len(scopes) == 0 {
		scopes = defaultDynamicScopes
	}
	for _, sc := range scopes {
		if !slices.Contains(knownScopes, sc) {
			return "", "", fmt.Errorf("sourcehostfake: unknown scope %q", sc)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.seedRoom(recordNeed{"oauth_application", 1}); err != nil {
		return "", "", err
	}
	st := s.st
	app := &oauthApp{id: st.next("oauth_application"), clientID: randomSecret("", 32), name: firstNonEmpty(seed.Name, "application"),
		redirectURIs: slices.Clone(seed.RedirectURIs), scopes: slices.Clone(scopes), createdAt: st.clock.Now()}
	if seed.Confidential {
		app.secret = randomSecret("gloas-", 32)
	}
	st.oauth.apps[app.clientID] = app
	return app.clientID, app.secret, nil
}
