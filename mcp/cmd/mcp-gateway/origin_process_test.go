package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

// The program on loopback, as users start it: a page of another site is
// refused (403) though its token is good, a page on loopback and a client
// with no Origin are served, and a browser's preflight is answered; with
// allowed_origins in the file, that list decides instead.
func TestOriginOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	t.Parallel()
	pt := &procTest{bin: testtools.ProgramPath(t, "mcp-gateway")}
	up := upstream(t)
	tok := newToken(t, up)
	preflight := func(p *proc, origin string) (int, http.Header) {
		req, err := http.NewRequest(http.MethodOptions, p.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-session-id")
		code, hdr, _ := do(t, req)
		return code, hdr
	}

	def := pt.start(t, fmt.Sprintf("upstream: %s\n", up.URL()), nil)
	if code, _, body := post(t, def.url, tok, listProjects, "Origin", "http://evil.example"); code != http.StatusForbidden || !strings.Contains(body, `"status":403`) {
		t.Errorf("evil origin: %d %s, want 403", code, body)
	}
	if code, hdr, body := post(t, def.url, tok, listProjects, "Origin", "http://localhost:6274"); code != http.StatusOK || hdr.Get("Access-Control-Allow-Origin") != "http://localhost:6274" {
		t.Errorf("loopback origin: %d %s (ACAO %q)", code, body, hdr.Get("Access-Control-Allow-Origin"))
	}
	if code, _, body := post(t, def.url, tok, listProjects); code != http.StatusOK {
		t.Errorf("no origin: %d %s", code, body)
	}
	code, hdr := preflight(def, "http://127.0.0.1:6274")
	if code != http.StatusNoContent || !strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") ||
		!strings.Contains(hdr.Get("Access-Control-Allow-Headers"), "MCP-Protocol-Version") {
		t.Errorf("loopback preflight: %d %v", code, hdr)
	}
	if code, _ := preflight(def, "http://evil.example"); code != http.StatusForbidden {
		t.Errorf("evil preflight: %d, want 403", code)
	}

	listed := pt.start(t, fmt.Sprintf("upstream: %s\nallowed_origins:\n  - https://app.example.com\n", up.URL()), nil)
	if code, _, body := post(t, listed.url, tok, listProjects, "Origin", "https://app.example.com"); code != http.StatusOK {
		t.Errorf("listed origin: %d %s", code, body)
	}
	if code, _, body := post(t, listed.url, tok, listProjects, "Origin", "http://localhost:6274"); code != http.StatusForbidden {
		t.Errorf("loopback origin not in the list: %d %s, want 403", code, body)
	}

	// A bad entry stops the program with the key named.
	var out, errOut bytes.Buffer
	cfg := writeFile(t, "bad.yaml", fmt.Sprintf("upstream: %s\nallowed_origins: [\"https://app.example.com/mcp\"]\n", up.URL()))
	if code := run(context.Background(), []string{"-config", cfg, "-listen", "127.0.0.1:0"}, env(), &out, &errOut); code == 0 || !strings.Contains(errOut.String(), "allowed_origins") {
		t.Errorf("a path in allowed_origins: exit %d, stderr %q", code, errOut.String())
	}
}
