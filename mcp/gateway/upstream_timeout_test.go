package gateway_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// silentUpstream is a source-hosting API that accepts connections and
// never answers (until the test ends), except, when verifies is set, the
// gateway's token verification. It reports each request it holds.
func silentUpstream(t *testing.T, verifies bool) (url string, held <-chan string) {
	t.Helper()
	release := make(chan struct{})
	got := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if verifies && r.URL.Path == "/api/v4/personal_access_tokens/self" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":7,"name":"t","active":true,"revoked":false,"user_id":1,"scopes":["api","read_user","read_repository"],"created_at":"2026-01-01T00:00:00Z"}`))
			return
		}
		select {
		case got <- r.URL.Path:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: the held handlers return
	return srv.URL, got
}

// An upstream that accepts the call and never answers holds it no longer
// than Config.UpstreamHeaderTimeoutSeconds, even for a caller with no
// deadline: the call is -32603 with data.status 504, and a verification
// that never comes back is an HTTP 504 refusal.
func TestSilentUpstreamTimesOut(t *testing.T) {
	t.Parallel()
	// A short timeout is the configuration under test, not a wait for the
	// default.
	const timeout = 0.05
	t.Run("call", func(t *testing.T) {
		t.Parallel()
		url, held := silentUpstream(t, true)
		gw, err := gateway.New(gateway.Config{Upstream: url, UpstreamHeaderTimeoutSeconds: timeout})
		if err != nil {
			t.Fatal(err)
		}
		front := httptest.NewServer(gw)
		t.Cleanup(front.Close)
		c, err := mcp.New(front.URL+"/mcp", mcp.WithToken("glpat-silent"), mcp.WithoutRetries())
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.ListProjects(context.Background(), nil) // no deadline of its own
		var e *mcp.Error
		if !errors.As(err, &e) || e.Code != mcp.CodeInternalError || e.Status != http.StatusGatewayTimeout ||
			!strings.Contains(e.Detail, "did not answer") || !errors.Is(err, mcp.ErrServer) {
			t.Fatalf("got %v, want -32603 with data.status 504", err)
		}
		// On a loaded machine the 50 ms may pass before the upstream's
		// handler runs at all: then nothing was held, and waiting for it
		// would hang. What was held must be the projects list.
		select {
		case p := <-held:
			if p != "/api/v4/projects" {
				t.Errorf("the upstream held %s, want the projects list", p)
			}
		default:
		}
	})
	t.Run("verification", func(t *testing.T) {
		t.Parallel()
		url, _ := silentUpstream(t, false)
		gw, err := gateway.New(gateway.Config{Upstream: url, UpstreamHeaderTimeoutSeconds: timeout})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","method":"list_projects","id":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer glpat-silent")
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		if rec.Code != http.StatusGatewayTimeout || !strings.Contains(rec.Body.String(), `"code":-32603`) ||
			!strings.Contains(rec.Body.String(), "did not answer") {
			t.Errorf("got %d %s, want 504 with -32603", rec.Code, rec.Body)
		}
	})
}

func TestUpstreamHeaderTimeoutConfig(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{-1, math.NaN(), math.Inf(1), 86401} {
		err := gateway.Config{Upstream: "https://git.example.com", UpstreamHeaderTimeoutSeconds: v}.Validate()
		var ce *gateway.ConfigError
		if !errors.As(err, &ce) || ce.Key != "upstream_header_timeout_seconds" {
			t.Errorf("%v: got %v, want a ConfigError for upstream_header_timeout_seconds", v, err)
		}
	}
	if err := (gateway.Config{Upstream: "https://git.example.com", UpstreamHeaderTimeoutSeconds: 2.5}).Validate(); err != nil {
		t.Errorf("2.5 s: %v", err)
	}
}

// upstream_ca_file is read when the config is checked: a missing file or
// one with no certificate is a ConfigError naming the key, and so is the
// key beside an HTTPClient, whose transport holds its own trust.
func TestUpstreamCAFileConfig(t *testing.T) {
	t.Parallel()
	garbage := filepath.Join(t.TempDir(), "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]gateway.Config{
		"missing":            {UpstreamCAFile: filepath.Join(t.TempDir(), "missing.pem")},
		"no certificate":     {UpstreamCAFile: garbage},
		"with an HTTPClient": {UpstreamCAFile: garbage, HTTPClient: &http.Client{}},
	} {
		c.Upstream = "https://git.example.com"
		var ce *gateway.ConfigError
		if err := c.Validate(); !errors.As(err, &ce) || ce.Key != "upstream_ca_file" {
			t.Errorf("%s: got %v, want a ConfigError for upstream_ca_file", name, err)
		}
	}
}
