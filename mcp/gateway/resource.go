package gateway

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/mcp"
)

// The gateway as an OAuth 2.1 protected resource, as the Model Context
// Protocol's authorization (2025-06-18) has one: a client refused with 401
// reads resource_metadata in WWW-Authenticate, fetches the protected-
// resource metadata (RFC 9728) it names, and learns there which
// authorization server to log in at, for which resource and scopes.

// wellKnownResource is the metadata's well-known path (RFC 9728 §3). The
// metadata of a resource whose URL has a path is at that path appended to
// it (§3.1): /.well-known/oauth-protected-resource/mcp for …/mcp.
const wellKnownResource = "/.well-known/oauth-protected-resource"

// protectedResourceMetadata is the document of RFC 9728 §2, with the
// members the gateway has something to say in.
type protectedResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
}

// withDefaults checks the resource settings and fills their defaults: the
// authorization server is the upstream, the scopes those required. The URL
// is kept canonical (scheme and host in lower case, RFC 8707 §2), since
// the audience of a token is compared with it byte for byte.
func (rc ResourceConfig) withDefaults(upstream string, required []string, bad func(key, format string, args ...any)) ResourceConfig {
	if rc.URL != "" {
		if u, ok := absoluteURL(rc.URL); !ok {
			bad("resource.url", "must be an absolute http or https URL without a query or a fragment, got %q", redactUpstream(rc.URL))
		} else {
			rc.URL = u
		}
	}
	if rc.AuthorizationServers == nil {
		if u, ok := upstreamRoot(upstream); ok {
			rc.AuthorizationServers = []string{u}
		}
	}
	for _, as := range rc.AuthorizationServers {
		if _, ok := absoluteURL(as); !ok {
			bad("resource.authorization_servers", "%q is not an absolute http or https URL without a query or a fragment", redactUpstream(as))
		}
	}
	if rc.ScopesSupported == nil {
		rc.ScopesSupported = required
	}
	return rc
}

// upstreamRoot is the source-hosting server's root URL, canonical: the
// upstream may be written with its API root, which the source-hosting
// client strips too. It issues OAuth tokens and describes them.
func upstreamRoot(upstream string) (string, bool) {
	return absoluteURL(strings.TrimSuffix(strings.TrimSuffix(upstream, "/"), "/api/v4"))
}

// absoluteURL is raw canonical (its origin as originOf writes it: scheme
// and host lower case, no default port; then its path without a trailing
// slash), when it is an http or https URL with a host and without
// credentials, query or fragment.
func absoluteURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", false
	}
	return originOf(u) + strings.TrimSuffix(u.EscapedPath(), "/"), true
}

// resourceURL is the gateway's canonical URL: the configured one, else
// the URL r was sent to (for the metadata alone: never an audience).
func (g *Gateway) resourceURL(r *http.Request) string {
	if g.cfg.Resource.URL != "" {
		return g.cfg.Resource.URL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + strings.ToLower(r.Host) + g.cfg.Path
}

// resourceMetadata is where the protected-resource metadata is served
// and named, worked out once from the configuration.
type resourceMetadata struct {
	// path is the configured resource URL's path, without a trailing
	// slash ("" when none is configured).
	path string
	// url is the metadata's URL for the configured resource URL, "" when
	// none is configured (then it follows each request, see resourceURL).
	url string
}

func newResourceMetadata(resource string) resourceMetadata {
	if resource == "" {
		return resourceMetadata{}
	}
	u, err := url.Parse(resource)
	if err != nil { // checked by withDefaults
		return resourceMetadata{}
	}
	return resourceMetadata{path: strings.TrimSuffix(u.EscapedPath(), "/"), url: metadataURLOf(u)}
}

// metadataURL is where the metadata of the resource at resource is: its
// origin, the well-known path, then its own path (RFC 9728 §3.1).
func metadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil { // checked by withDefaults, or made by resourceURL
		return wellKnownResource
	}
	return metadataURLOf(u)
}

// metadataURLOf is metadataURL of a parsed resource URL.
func metadataURLOf(u *url.URL) string {
	return originOf(u) + wellKnownResource + strings.TrimSuffix(u.EscapedPath(), "/")
}

// isMetadataPath reports whether path is one the metadata is served at:
// the well-known path alone, or followed by the gateway's path or the
// configured URL's (the latter differs behind a proxy that strips a
// prefix).
func (g *Gateway) isMetadataPath(path string) bool {
	rest, ok := strings.CutPrefix(path, wellKnownResource)
	// (With no resource configured, metadata.path is "", already taken.)
	return ok && (rest == "" || rest == g.cfg.Path || rest == g.metadata.path)
}

// metadataURLFor is the metadata's URL for a request r refused: the
// configured resource's, else the one of the URL r was sent to.
func (g *Gateway) metadataURLFor(r *http.Request) string {
	if g.metadata.url != "" {
		return g.metadata.url
	}
	return metadataURL(g.resourceURL(r))
}

// serveMetadata answers GET (or HEAD) of the protected-resource metadata.
// It is public, as RFC 9728 has it, except to addresses the gateway
// refuses anyway.
func (g *Gateway) serveMetadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		refuse(w, http.StatusMethodNotAllowed, mcp.CodeInvalidRequest, "the metadata is read with GET")
		return
	}
	if addr, ok := g.ips.clientAddr(r); !ok || !g.ips.allowed(addr) {
		refuse(w, http.StatusForbidden, mcp.CodeUpstreamError, "requests from this address are not allowed")
		return
	}
	b, _ := json.Marshal(protectedResourceMetadata{ // plain strings: cannot fail
		Resource:               g.resourceURL(r),
		AuthorizationServers:   nonNil(g.cfg.Resource.AuthorizationServers),
		ScopesSupported:        nonNil(g.cfg.Resource.ScopesSupported),
		BearerMethodsSupported: []string{"header"},
	})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "max-age=3600")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(b)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// challenge completes the WWW-Authenticate of a refusal: every 401, and a
// 403 for scopes, names the metadata (resource_metadata, RFC 9728 §5.1),
// where an MCP client starts its login.
func (g *Gateway) challenge(rf *refusal, r *http.Request) {
	if rf.status != http.StatusUnauthorized && !strings.Contains(rf.authHeader, "insufficient_scope") {
		return
	}
	if rf.authHeader == "" {
		rf.authHeader = `Bearer realm="mcp"`
	}
	rf.authHeader += `, resource_metadata="` + g.metadataURLFor(r) + `"`
}
