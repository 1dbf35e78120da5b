package gateway_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// resourceMetadata is RFC 9728's document as a client reads it.
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
}

var resourceMetadataParam = regexp.MustCompile(`resource_metadata="([^"]+)"`)

// getMetadata reads the metadata at path of srv.
func getMetadata(t *testing.T, srv *mcpfake.Server, path string) (int, resourceMetadata) {
	t.Helper()
	resp, err := http.Get(srv.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var md resourceMetadata
	if resp.StatusCode == http.StatusOK {
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		if err := json.Unmarshal(b, &md); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
	}
	return resp.StatusCode, md
}

// Finding 1: an MCP client refused with 401 finds, from the challenge, the
// protected-resource metadata (RFC 9728) and in it the authorization
// server; before, the metadata was 404 and the challenge named nothing.
func TestProtectedResourceDiscovery(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	for _, tc := range []struct {
		name, auth, wantError string
	}{
		{"no token", "", ""},
		{"unknown token", "Bearer shpat-nobody", `error="invalid_token"`},
	} {
		status, hdr, _ := post(t, srv, `{"jsonrpc":"2.0","method":"list_projects","id":1}`, "Authorization", tc.auth)
		challenge := hdr.Get("WWW-Authenticate")
		m := resourceMetadataParam.FindStringSubmatch(challenge)
		if status != http.StatusUnauthorized || m == nil || !strings.HasPrefix(challenge, "Bearer ") || !strings.Contains(challenge, tc.wantError) {
			t.Fatalf("%s: %d, WWW-Authenticate %q; want 401 naming resource_metadata", tc.name, status, challenge)
		}
		if want := srv.URL() + "/.well-known/oauth-protected-resource/mcp"; m[1] != want {
			t.Errorf("%s: resource_metadata %q, want %q", tc.name, m[1], want)
		}
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		status, md := getMetadata(t, srv, path)
		want := resourceMetadata{Resource: srv.URL() + "/mcp", AuthorizationServers: []string{"http://sourcehost.mcpfake.internal"},
			ScopesSupported: gateway.DefaultRequiredScopes, BearerMethodsSupported: []string{"header"}}
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, status)
		}
		if d := cmp.Diff(want, md); d != "" {
			t.Errorf("GET %s (-want +got):\n%s", path, d)
		}
	}
	if status, _ := getMetadata(t, srv, "/.well-known/oauth-protected-resource/other"); status != http.StatusNotFound {
		t.Errorf("metadata of another path: %d, want 404", status)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/.well-known/oauth-protected-resource", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST of the metadata: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// Behind a proxy the configured URL is the resource, and the challenge
// and the metadata follow it, whatever host the request came to.
func TestProtectedResourceConfigured(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t, mcpfake.WithConfig(gateway.Config{Resource: gateway.ResourceConfig{
		URL: "HTTPS://MCP.example.com/tools/mcp", AuthorizationServers: []string{"https://git.example.com"}, ScopesSupported: []string{"api"}}}))
	_, hdr, _ := post(t, srv, `{"jsonrpc":"2.0","method":"list_projects","id":1}`, "Authorization", "")
	if got, want := hdr.Get("WWW-Authenticate"), `Bearer realm="mcp", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/tools/mcp"`; got != want {
		t.Errorf("WWW-Authenticate %q, want %q", got, want)
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource/tools/mcp", "/.well-known/oauth-protected-resource/mcp"} {
		status, md := getMetadata(t, srv, path)
		want := resourceMetadata{Resource: "https://mcp.example.com/tools/mcp", AuthorizationServers: []string{"https://git.example.com"},
			ScopesSupported: []string{"api"}, BearerMethodsSupported: []string{"header"}}
		if d := cmp.Diff(want, md); status != http.StatusOK || d != "" {
			t.Errorf("GET %s: %d (-want +got):\n%s", path, status, d)
		}
	}
}

func TestResourceConfigRefused(t *testing.T) {
	t.Parallel()
	for _, rc := range []gateway.ResourceConfig{
		{URL: "mcp.example.com/mcp"},
		{URL: "https://mcp.example.com/mcp?x=1"},
		{URL: "https://mcp.example.com/mcp#frag"},
		{URL: "ftp://mcp.example.com/mcp"},
		{AuthorizationServers: []string{"/oauth"}},
	} {
		err := gateway.Config{Upstream: "https://git.example.com", Resource: rc}.Validate()
		var ce *gateway.ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(ce.Key, "resource.") {
			t.Errorf("%+v: %v; want a resource.* ConfigError", rc, err)
		}
	}
}
