package gateway

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Without a configured list, loopback pages are allowed only on a
// connection that arrived on loopback: a gateway listening on a public
// address (or served in memory) lets no browser page call it.
func TestOriginDefaultFollowsTheListener(t *testing.T) {
	t.Parallel()
	p := newOriginPolicy(nil)
	on := func(local string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if local == "" {
			return r
		}
		addr, err := net.ResolveTCPAddr("tcp", local)
		if err != nil {
			t.Fatal(err)
		}
		return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
	}
	for _, c := range []struct {
		local, origin string
		want          bool
	}{
		{"127.0.0.1:8930", "http://localhost:6274", true},
		{"[::1]:8930", "http://[::1]:6274", true},
		{"127.0.0.1:8930", "http://evil.example", false},
		{"127.0.0.1:8930", "http://app.localhost", false},
		{"192.0.2.10:8930", "http://localhost:6274", false},
		{"[2001:db8::1]:8930", "http://127.0.0.1:6274", false},
		{"", "http://localhost:6274", false}, // in memory: no connection
	} {
		if got := p.allowed(on(c.local), c.origin); got != c.want {
			t.Errorf("on %q, origin %s: allowed %v, want %v", c.local, c.origin, got, c.want)
		}
	}
}

// Origins, resource.url and a token's resource are put in one canonical
// form, so that they compare equal however they are spelt. Review of issue
// 34: resource.url kept a :443 that the token's resource, written without
// it, did not have, while the origins dropped it.
func TestOneCanonicalForm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, url, origin string }{
		{"https://gw.example", "https://gw.example", "https://gw.example"},
		{"HTTPS://GW.Example:443", "https://gw.example", "https://gw.example"},
		{"https://gw.example:443/mcp/", "https://gw.example/mcp", ""},
		{"http://gw.example:80/mcp", "http://gw.example/mcp", ""},
		{"http://gw.example:443/mcp", "http://gw.example:443/mcp", ""},
		{"http://[::1]:8930/a%2Fb", "http://[::1]:8930/a%2Fb", ""},
	} {
		if got, ok := absoluteURL(c.in); !ok || got != c.url {
			t.Errorf("absoluteURL(%q) = %q %v, want %q", c.in, got, ok, c.url)
		}
		if c.origin == "" {
			continue
		}
		if got, err := canonicalOrigin(c.in); err != nil || got != c.origin {
			t.Errorf("canonicalOrigin(%q) = %q %v, want %q", c.in, got, err, c.origin)
		}
	}
	if got := metadataURL("https://gw.example:443/mcp"); got != "https://gw.example/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("metadataURL: %q", got)
	}
}
