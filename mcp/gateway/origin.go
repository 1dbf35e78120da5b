package gateway

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/apitwin/apitwin/mcp"
)

// Origin validation and CORS. The MCP transport asks a server to check
// the Origin header of every request, against DNS rebinding: a page of
// another site, in the user's browser, that reaches a gateway on the
// user's machine (or network) through a name resolved to it. Browsers
// send Origin on every cross-origin request and on every POST; other
// clients (SDKs, IDEs, mcp-remote, curl) send none, and are served as
// before. An allowed browser page needs CORS to read the answers: its
// preflight (OPTIONS) is answered, and every answer to it, refusals
// included, says which headers it may read (WWW-Authenticate among them,
// for the 401 an OAuth client starts from).

// originPolicy decides which Origin headers are allowed.
type originPolicy struct {
	// list, when configured (AllowedOrigins not nil), is every allowed
	// origin in canonical form; nil means the loopback default.
	list       map[string]bool
	configured bool
}

// The CORS answers' fixed headers. Methods: the gateway answers POST
// only (it is stateless: no GET stream, no DELETE of a session), and
// OPTIONS. The request headers are the ones the MCP transport and
// authorization use, and the gateway's signature.
const (
	corsAllowMethods = "POST, OPTIONS"
	corsAllowHeaders = "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, " + mcp.SignatureHeader
	corsExpose       = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset"
	// corsMaxAge is how long (seconds) a browser may keep a preflight's
	// answer: ten minutes, so a changed list reaches browsers soon.
	corsMaxAge = "600"
)

// newOriginPolicy reads allowed (Config.AllowedOrigins, checked already).
func newOriginPolicy(allowed []string) *originPolicy {
	if allowed == nil {
		return &originPolicy{}
	}
	p := &originPolicy{list: make(map[string]bool, len(allowed)), configured: true}
	for _, o := range allowed {
		if c, err := canonicalOrigin(o); err == nil {
			p.list[c] = true
		}
	}
	return p
}

// canonicalOrigin is origin as scheme://host[:port], lower case, without
// the scheme's default port, or an error saying why it is not an http or
// https origin.
func canonicalOrigin(origin string) (string, error) {
	u, err := url.Parse(origin)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.Opaque != "":
		return "", fmt.Errorf("%q is not an http or https origin (scheme://host[:port])", origin)
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(origin, "/"):
		return "", fmt.Errorf("%q is not an origin: only scheme://host[:port], no user, path, query or fragment", origin)
	}
	return originOf(u), nil
}

// originOf is u's scheme://host[:port], lower case, without the scheme's
// default port: the one form every URL the gateway compares is put in
// (origins, resource.url, a token's resource).
func originOf(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return scheme + "://" + host + ":" + port
	}
	return scheme + "://" + host
}

// allowed reports whether a request from origin may be served: by the
// configured list, or, without one, when both the page and the connection
// are on loopback (a gateway listening on loopback, called from a page
// served on the same machine). "null" (sandboxed pages, files) never is.
func (p *originPolicy) allowed(r *http.Request, origin string) bool {
	c, err := canonicalOrigin(origin)
	if err != nil {
		return false
	}
	if p.configured {
		return p.list[c]
	}
	u, _ := url.Parse(c)
	return isLoopbackHost(u.Hostname()) && arrivedOnLoopback(r)
}

// isLoopbackHost reports whether host is localhost or a loopback address.
// (A name under .localhost is not: it may resolve anywhere.)
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// arrivedOnLoopback reports whether r came in on a loopback address of
// this machine: true for a gateway that listens on loopback only. A
// request with no connection (served in memory) did not.
func arrivedOnLoopback(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	ap, err := netip.ParseAddrPort(a.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// cors applies the origin policy to r before anything else: a refused
// origin is 403, a preflight of an allowed one is answered 204, and an
// allowed one's answer is given the headers that let the page read it. It
// reports whether r was answered.
func (g *Gateway) cors(w http.ResponseWriter, r *http.Request) bool {
	origin, sent := r.Header["Origin"]
	if !sent {
		if r.Method == http.MethodOptions {
			// Not a preflight: what the endpoint allows.
			w.Header().Set("Allow", corsAllowMethods)
			w.WriteHeader(http.StatusNoContent)
			return true
		}
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	if len(origin) != 1 || !g.origins.allowed(r, origin[0]) {
		g.metrics.refused.Add(1)
		refuse(w, http.StatusForbidden, mcp.CodeUpstreamError, "requests from this origin are not allowed")
		return true
	}
	h.Set("Access-Control-Allow-Origin", origin[0])
	if r.Method == http.MethodOptions {
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
		h.Set("Access-Control-Allow-Methods", corsAllowMethods)
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", corsMaxAge)
		w.WriteHeader(http.StatusNoContent)
		return true
	}
	h.Set("Access-Control-Expose-Headers", corsExpose)
	return false
}

// metadataCORS lets a page of any origin read the protected-resource
// metadata, which is public (RFC 9728) and where a browser-based MCP
// client starts its login, and answers its preflight (the MCP SDKs send
// MCP-Protocol-Version with it). It reports whether r was answered.
func metadataCORS(w http.ResponseWriter, r *http.Request) bool {
	if _, sent := r.Header["Origin"]; !sent {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "MCP-Protocol-Version")
	h.Set("Access-Control-Max-Age", corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
	return true
}
