package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// mapResolver answers host names from a table, and counts what it is
// asked; no name is looked up anywhere else.
type mapResolver struct {
	names map[string][]string
	asked atomic.Int64
}

func (r *mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.asked.Add(1)
	addrs, ok := r.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// hookGateway is a gateway with sec's security settings in front of a
// source-hosting fake with one project, resolving names with r.
func hookGateway(t *testing.T, sec gateway.SecurityConfig, r gateway.Resolver) (configure func(url string) *rpcError, hooks func() int) {
	t.Helper()
	up := sourcehostfake.Start(t)
	pid, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Security: sec, Resolver: r})
	if err != nil {
		t.Fatal(err)
	}
	configure = func(url string) *rpcError {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"configure_webhook","params":{"project_id":%d,"url":%q},"id":1}`, pid, url)
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.RemoteAddr = "192.0.2.1:1000"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+up.Token())
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		var ans struct {
			Result json.RawMessage
			Error  *rpcError
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &ans); rec.Code != 200 || err != nil || (ans.Error == nil) == (ans.Result == nil) {
			t.Fatalf("configure_webhook %s: %d %s", url, rec.Code, rec.Body)
		}
		return ans.Error
	}
	return configure, func() int { return len(up.Hooks(pid)) }
}

// rpcError is a JSON-RPC error as the tests read it.
type rpcError struct {
	Code int `json:"code"`
	Data struct {
		Param  string `json:"param"`
		Reason string `json:"reason"`
	} `json:"data"`
}

// The gateway refuses hook URLs whose host is, or resolves to, an address
// off the public internet, however it is written, with GitLab's words, as
// -32602 on url; and the source-hosting API never hears of them. (Every one
// of these was configured on the old gateway.)
func TestWebhookToLocalNetworkRefused(t *testing.T) {
	t.Parallel()
	r := &mapResolver{names: map[string][]string{
		"hooks.example.com": {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"intranet.example":  {"10.20.30.40"},
		"mixed.example":     {"93.184.215.14", "192.168.0.7"},
		"meta.example":      {"169.254.169.254"},
		"mapped.example":    {"::ffff:127.0.0.1"},
	}}
	configure, hooks := hookGateway(t, gateway.SecurityConfig{}, r)
	const (
		localhost = "is blocked: Requests to localhost are not allowed"
		loopback  = "is blocked: Requests to loopback addresses are not allowed"
		local     = "is blocked: Requests to the local network are not allowed"
		linkLocal = "is blocked: Requests to the link local network are not allowed"
		shared    = "is blocked: Requests to the shared address space are not allowed"
		metadata  = "is blocked: Requests to cloud metadata services are not allowed"
		reserved  = "is blocked: Requests to reserved addresses are not allowed"
		broadcast = "is blocked: Requests to the limited broadcast address are not allowed"
	)
	for url, want := range map[string]string{
		"http://127.0.0.1:8080/hook":               loopback,
		"http://localhost/hook":                    loopback,
		"http://api.LOCALHOST./hook":               loopback,
		"http://[::1]/hook":                        loopback,
		"http://2130706433/hook":                   loopback,
		"http://0x7f.1/hook":                       loopback,
		"http://0177.0.0.1/hook":                   loopback,
		"http://127.1/hook":                        loopback,
		"http://[::ffff:127.0.0.1]/hook":           loopback,
		"http://[::ffff:7f00:1]/hook":              loopback,
		"http://mapped.example/hook":               loopback,
		"http://0.0.0.0/hook":                      localhost,
		"http://[::]/hook":                         localhost,
		"http://10.0.0.1/hook":                     local,
		"http://172.16.5.4/hook":                   local,
		"https://192.168.1.10/hook":                local,
		"http://[fd12::1]/hook":                    local,
		"http://intranet.example/hook":             local,
		"http://mixed.example/hook":                local,
		"http://169.254.1.2/hook":                  linkLocal,
		"http://[fe80::1%25eth0]/hook":             linkLocal,
		"http://169.254.169.254/latest/meta-data/": metadata,
		"http://0xa9fea9fe/latest/meta-data/":      metadata,
		"http://[fd00:ec2::254]/latest/meta-data/": metadata,
		"http://100.100.100.200/latest/meta-data/": metadata,
		"http://meta.example/computeMetadata/v1/":  metadata,
		"http://100.64.0.1/hook":                   shared,
		"http://255.255.255.255/hook":              broadcast,
		"http://203.0.113.9/hook":                  reserved,
		"http://[2001:db8::1]/hook":                reserved,
		"http://nowhere.example/hook":              "is blocked: Host cannot be resolved or invalid",
		"http://1.1.1.1.1/hook":                    "is blocked: Hostname or IP address invalid",
		"http://b\u00fccher.example/hook":          "is blocked: Hostname or IP address invalid",
		"http://hooks.example.com@127.0.0.1/x":     loopback,
	} {
		e := configure(url)
		switch {
		case e == nil:
			t.Errorf("%s: configured, want refused (%s)", url, want)
		case e.Code != mcp.CodeInvalidParams || e.Data.Param != "url" || e.Data.Reason != want:
			t.Errorf("%s: %+v, want -32602 on url: %s", url, e, want)
		}
	}
	if n := hooks(); n != 0 {
		t.Errorf("the upstream holds %d hooks after refusals only", n)
	}
	asked := r.asked.Load()
	for _, url := range []string{"https://hooks.example.com/x", "http://93.184.215.14:8080/hook", "https://[2606:4700::1111]/hook"} {
		if e := configure(url); e != nil {
			t.Errorf("%s: %+v, want configured", url, e)
		}
	}
	if n := r.asked.Load() - asked; n != 1 {
		t.Errorf("the resolver was asked %d times for one name and two addresses", n)
	}
}

// The Model Context Protocol's tools/call runs the same check: the refusal
// is a tool result with isError, as the protocol has tool failures.
func TestWebhookToLocalNetworkRefusedOverMCP(t *testing.T) {
	t.Parallel()
	up := sourcehostfake.Start(t)
	pid, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Resolver: &mapResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"configure_webhook","arguments":{"project_id":%d,"url":"http://169.254.169.254/"}},"id":1}`, pid)
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.RemoteAddr = "192.0.2.1:1000"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+up.Token())
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, req)
	if !strings.Contains(rec.Body.String(), `"isError":true`) || !strings.Contains(rec.Body.String(), "Requests to cloud metadata services are not allowed") {
		t.Errorf("tools/call configure_webhook to the metadata service: %d %s", rec.Code, rec.Body)
	}
	if n := len(up.Hooks(pid)); n != 0 {
		t.Errorf("the upstream holds %d hooks", n)
	}
}

// AllowLocalWebhooks lets hooks go to loopback and private networks, never
// to link-local addresses or the metadata services; the allow list lets
// exactly what it names through, those included.
func TestWebhookToLocalNetworkAllowed(t *testing.T) {
	t.Parallel()
	r := &mapResolver{names: map[string][]string{"intranet.example": {"10.20.30.40"}}}
	for _, tc := range []struct {
		name    string
		sec     gateway.SecurityConfig
		allowed []string
		refused []string
	}{
		{"allow_local_webhooks", gateway.SecurityConfig{AllowLocalWebhooks: true},
			[]string{"http://127.0.0.1:8080/hook", "http://localhost/hook", "http://10.0.0.1/hook", "http://intranet.example/hook", "http://[fd12::1]/hook", "http://100.64.0.1/hook"},
			[]string{"http://169.254.1.2/hook", "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://100.100.100.200/", "http://[fe80::1]/"}},
		{"local_webhook_allowlist", gateway.SecurityConfig{LocalWebhookAllowlist: []string{"10.20.0.0/16", "::ffff:192.168.7.0/120", "169.254.169.254"}},
			[]string{"http://intranet.example/hook", "http://192.168.7.9/hook", "http://[::ffff:192.168.7.9]/hook"},
			[]string{"http://10.0.0.1/hook", "http://127.0.0.1/hook", "http://192.168.8.1/hook", "http://169.254.169.253/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			configure, _ := hookGateway(t, tc.sec, r)
			for _, url := range tc.allowed {
				if e := configure(url); e != nil {
					t.Errorf("%s: %+v, want configured", url, e)
				}
			}
			for _, url := range tc.refused {
				if e := configure(url); e == nil || !strings.HasPrefix(e.Data.Reason, "is blocked: ") {
					t.Errorf("%s: %+v, want refused", url, e)
				}
			}
			if len(tc.sec.LocalWebhookAllowlist) > 0 {
				// Listed, so the gateway lets it through; the fake, as
				// a careful source-hosting server would, refuses it still.
				if e := configure("http://169.254.169.254/"); e == nil || e.Code != mcp.CodeUpstreamError {
					t.Errorf("an allow-listed metadata address: %+v, want the upstream's refusal", e)
				}
			}
		})
	}
}

// The allow list is checked with the rest of the configuration.
func TestWebhookAllowlistConfig(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"not-a-range", "0.0.0.0/0", "::/0"} {
		err := gateway.Config{Upstream: "http://127.0.0.1:1", Security: gateway.SecurityConfig{LocalWebhookAllowlist: []string{v}}}.Validate()
		var ce *gateway.ConfigError
		if !errors.As(err, &ce) || ce.Key != "security.local_webhook_allowlist" {
			t.Errorf("local_webhook_allowlist %q: %v", v, err)
		}
	}
}
