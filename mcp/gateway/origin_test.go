package gateway_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/mcp/gateway"
)

const listProjectsCall = `{"jsonrpc":"2.0","method":"list_projects","id":1}`

// preflight sends a browser's CORS preflight for a POST from origin and
// returns the answer's status and headers.
func preflight(t *testing.T, srv *mcpfake.Server, origin string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodOptions, srv.URL()+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-protocol-version")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// A browser page of another site reaches a gateway on loopback only
// through the user's browser (DNS rebinding, or a page posting to
// localhost): its Origin is refused with 403 before the token is even
// looked at, and no upstream request is made. Callers that send no Origin
// (every client that is not a browser) are served as before. On the old
// gateway the evil origin was served and OPTIONS answered 405.
func TestOriginChecked(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	up := srv.Upstream()
	up.ResetRequests()

	status, hdr, body := post(t, srv, listProjectsCall, "Origin", "http://evil.example")
	var refused struct {
		Error struct {
			Code int `json:"code"`
			Data struct {
				Status int `json:"status"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &refused); err != nil || status != http.StatusForbidden ||
		refused.Error.Code != -32000 || refused.Error.Data.Status != http.StatusForbidden {
		t.Errorf("evil origin: %d %s, want 403 with -32000 data.status 403", status, body)
	}
	if hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("evil origin given Access-Control-Allow-Origin %q", hdr.Get("Access-Control-Allow-Origin"))
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("%d upstream requests for a refused origin", n)
	}
	if status, _, body := post(t, srv, listProjectsCall, "Origin", "null"); status != http.StatusForbidden {
		t.Errorf(`Origin "null": %d %s, want 403`, status, body)
	}

	// No Origin: served, with no CORS headers.
	status, hdr, body = post(t, srv, listProjectsCall)
	if status != http.StatusOK || !strings.Contains(body, `"shop"`) || hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("no origin: %d %s (ACAO %q)", status, body, hdr.Get("Access-Control-Allow-Origin"))
	}

	// A page on loopback, by default allowed on a gateway reached on
	// loopback: served, and told it may read the answer and its headers.
	for _, origin := range []string{"http://localhost:6274", "http://127.0.0.1:5173", "http://[::1]:3000", "https://localhost"} {
		status, hdr, body = post(t, srv, listProjectsCall, "Origin", origin)
		if status != http.StatusOK || !strings.Contains(body, `"shop"`) {
			t.Errorf("origin %s: %d %s", origin, status, body)
		}
		if got := hdr.Get("Access-Control-Allow-Origin"); got != origin {
			t.Errorf("origin %s: Access-Control-Allow-Origin %q", origin, got)
		}
		if got := hdr.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "Mcp-Session-Id") || !strings.Contains(got, "WWW-Authenticate") {
			t.Errorf("origin %s: Access-Control-Expose-Headers %q", origin, got)
		}
		if !strings.Contains(strings.Join(hdr.Values("Vary"), ","), "Origin") {
			t.Errorf("origin %s: Vary %q lacks Origin", origin, hdr.Values("Vary"))
		}
	}
	// The Model Context Protocol's side, the same.
	status, hdr, body = post(t, srv, `{"jsonrpc":"2.0","method":"tools/list","id":1}`, "Origin", "http://localhost:6274",
		"Accept", "application/json, text/event-stream")
	if status != http.StatusOK || !strings.Contains(body, `"tools"`) || hdr.Get("Access-Control-Allow-Origin") != "http://localhost:6274" {
		t.Errorf("tools/list from loopback: %d %.200s (ACAO %q)", status, body, hdr.Get("Access-Control-Allow-Origin"))
	}
	if status, _, body = post(t, srv, `{"jsonrpc":"2.0","method":"tools/list","id":1}`, "Origin", "http://evil.example",
		"Accept", "application/json, text/event-stream"); status != http.StatusForbidden {
		t.Errorf("tools/list from evil: %d %.200s", status, body)
	}

	// A refusal a browser client must read (401 and its WWW-Authenticate)
	// carries the CORS headers too.
	status, hdr, _ = post(t, srv, listProjectsCall, "Origin", "http://localhost:6274", "Authorization", "")
	if status != http.StatusUnauthorized || hdr.Get("Access-Control-Allow-Origin") != "http://localhost:6274" {
		t.Errorf("401 to an allowed origin: %d, ACAO %q", status, hdr.Get("Access-Control-Allow-Origin"))
	}

	// Preflights: 204 with what MCP needs for an allowed origin, 403 for
	// another.
	up.ResetRequests()
	status, hdr = preflight(t, srv, "http://localhost:6274")
	if status != http.StatusNoContent || hdr.Get("Access-Control-Allow-Origin") != "http://localhost:6274" {
		t.Errorf("preflight from loopback: %d, ACAO %q", status, hdr.Get("Access-Control-Allow-Origin"))
	}
	if got := hdr.Get("Access-Control-Allow-Methods"); !strings.Contains(got, "POST") {
		t.Errorf("Access-Control-Allow-Methods %q", got)
	}
	allowed := strings.ToLower(hdr.Get("Access-Control-Allow-Headers"))
	for _, h := range []string{"mcp-session-id", "mcp-protocol-version", "authorization", "content-type", "last-event-id"} {
		if !strings.Contains(allowed, h) {
			t.Errorf("Access-Control-Allow-Headers %q lacks %s", allowed, h)
		}
	}
	if got := hdr.Get("Access-Control-Max-Age"); got == "" {
		t.Error("no Access-Control-Max-Age")
	}
	if status, hdr = preflight(t, srv, "http://evil.example"); status != http.StatusForbidden || hdr.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight from evil: %d, ACAO %q", status, hdr.Get("Access-Control-Allow-Origin"))
	}
	if n := len(up.Requests()); n != 0 {
		t.Errorf("%d upstream requests for preflights", n)
	}
}

// A configured list replaces the loopback default: its origins are
// allowed (compared without case and default ports), the rest refused;
// an empty list refuses every browser.
func TestOriginList(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t, mcpfake.WithConfig(gateway.Config{AllowedOrigins: []string{"https://App.Example.com:443", "http://10.0.0.5:8080"}}))
	for origin, want := range map[string]int{
		"https://app.example.com":   http.StatusOK,
		"http://10.0.0.5:8080":      http.StatusOK,
		"http://app.example.com":    http.StatusForbidden,
		"https://app.example.com:8": http.StatusForbidden,
		"http://localhost:6274":     http.StatusForbidden,
	} {
		if status, _, body := post(t, srv, listProjectsCall, "Origin", origin); status != want {
			t.Errorf("origin %s: %d %s, want %d", origin, status, body, want)
		}
	}
	none, _ := seeded(t, mcpfake.WithConfig(gateway.Config{AllowedOrigins: []string{}}))
	if status, _ := preflight(t, none, "http://localhost:6274"); status != http.StatusForbidden {
		t.Errorf("empty list, loopback preflight: %d, want 403", status)
	}
	if status, _, _ := post(t, none, listProjectsCall); status != http.StatusOK {
		t.Errorf("empty list, no origin: %d, want 200", status)
	}
}

func TestOriginListChecked(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"*", "null", "app.example.com", "https://app.example.com/mcp", "ftp://app.example.com", "https://user@app.example.com", "https://"} {
		_, err := gateway.New(gateway.Config{Upstream: "http://127.0.0.1:1", AllowedOrigins: []string{bad}})
		if err == nil || !strings.Contains(err.Error(), "allowed_origins") {
			t.Errorf("allowed_origins %q: %v, want an error naming allowed_origins", bad, err)
		}
	}
}

// The protected-resource metadata is public: a browser-based MCP client
// of any origin reads it (its discovery sends MCP-Protocol-Version, so a
// preflight comes first).
func TestMetadataReadableFromAnyPage(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	const path = "/.well-known/oauth-protected-resource/mcp"
	req, _ := http.NewRequest(http.MethodOptions, srv.URL()+path, nil)
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header.Set("Access-Control-Request-Headers", "mcp-protocol-version")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "MCP-Protocol-Version") {
		t.Errorf("metadata preflight: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ = http.NewRequest(http.MethodGet, srv.URL()+path, nil)
	req.Header.Set("Origin", "https://app.example.com")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("metadata GET from a page: %d, ACAO %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}
