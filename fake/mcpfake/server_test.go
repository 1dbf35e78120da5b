package mcpfake_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

func TestSharedClockAndUpstream(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := mcpfake.Start(t, control.WithClock(clk), mcpfake.WithConfig(gateway.Config{RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 1}}))
	if srv.Clock() != clk || srv.Upstream().Clock() != clk {
		t.Fatal("the gateway and the upstream do not share the clock given")
	}
	c := srv.Client(mcp.WithoutRetries())
	ctx := context.Background()
	if _, err := c.ListProjects(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListProjects(ctx, nil); !errors.Is(err, mcp.ErrRateLimited) {
		t.Fatalf("second call in the same second: %v", err)
	}
	clk.Advance(time.Second)
	if _, err := c.ListProjects(ctx, nil); err != nil {
		t.Fatalf("after a second on the shared clock: %v", err)
	}
}

func TestWithExistingUpstream(t *testing.T) {
	t.Parallel()
	up := sourcehostfake.Start(t)
	id, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpfake.Start(t, mcpfake.WithUpstream(up))
	if srv.Upstream() != up || srv.Clock() != up.Clock() {
		t.Fatal("the given upstream is not the one used")
	}
	p, err := srv.Client().GetProject(context.Background(), &mcp.GetProjectParams{ProjectID: id})
	if err != nil || p.Name != "shop" {
		t.Fatalf("%+v %v", p, err)
	}
}

// newFake is New, which fails the test on an error.
func newFake(tb testing.TB, opts ...mcpfake.Option) *mcpfake.Server {
	tb.Helper()
	s, err := mcpfake.New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestListen(t *testing.T) {
	t.Parallel()
	srv, err := mcpfake.New()
	if err != nil {
		t.Fatal(err)
	}
	u, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if u != srv.URL() || !strings.HasPrefix(u, "http://127.0.0.1:") {
		t.Fatalf("Listen = %q, URL %q", u, srv.URL())
	}
	if _, err := srv.Client().ListProjects(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := newFake(t).Listen(strings.TrimPrefix(u, "http://")); err == nil || !strings.Contains(err.Error(), "already in use") {
		t.Errorf("a port in use: %v", err)
	}
}

func TestBadConfig(t *testing.T) {
	t.Parallel()
	_, err := mcpfake.New(mcpfake.WithConfig(gateway.Config{Security: gateway.SecurityConfig{BlockedIPs: []string{"x"}}}))
	if err == nil || !strings.Contains(err.Error(), "blocked_ips") {
		t.Fatalf("New: %v", err)
	}
}

// TestInMemory: New serves nothing, yet its client reaches the gateway,
// and the gateway its upstream, in-process.
func TestInMemory(t *testing.T) {
	t.Parallel()
	srv, err := mcpfake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.URL() != "" || srv.Upstream().URL() != "" {
		t.Fatalf("New serves: %q %q", srv.URL(), srv.Upstream().URL())
	}
	id, err := srv.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := srv.Client().GetProject(context.Background(), &mcp.GetProjectParams{ProjectID: id})
	if err != nil || p.Name != "shop" {
		t.Fatalf("%+v %v", p, err)
	}
	if n := len(srv.Upstream().RequestsTo("GET /api/v4/projects/{id}")); n != 1 {
		t.Fatalf("the upstream saw %d project reads", n)
	}
}

func TestControlsAndLog(t *testing.T) {
	t.Parallel()
	srv := mcpfake.Start(t, control.WithFault("POST /mcp", control.Fault{Status: 503, Times: 1}))
	c := srv.Client(mcp.WithoutRetries())
	ctx := context.Background()
	_, err := c.ListProjects(ctx, nil)
	var e *mcp.Error
	if !errors.As(err, &e) || e.HTTPStatus != 503 || e.Code != mcp.CodeInternalError || e.Status != 503 {
		t.Fatalf("injected 503: %v (%+v)", err, e)
	}
	if _, err := c.ListProjects(ctx, nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.RequestsTo("POST /mcp")
	if len(reqs) != 2 || !reqs[0].Fault || reqs[0].Status != 503 || reqs[1].Status != 200 || !strings.Contains(string(reqs[1].Body), `"list_projects"`) {
		t.Fatalf("log %v", reqs)
	}

	// A body over the limit: refused before the gateway reads it, in the
	// gateway's own shape.
	small := mcpfake.Start(t, control.WithMaxBody(64))
	resp, body := postRaw(t, small, `{"jsonrpc":"2.0","id":1,"method":"list_projects","params":{"search":"`+strings.Repeat("x", 100)+`"}}`)
	if resp.StatusCode != 413 || body != `{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":{"status":413,"message":"the body is larger than 64 bytes"}},"id":null}` {
		t.Fatalf("413: %d %s", resp.StatusCode, body)
	}

	// Reset: a fresh gateway (full rate-limit bucket), no faults, no log,
	// and the upstream it made reset too.
	limited := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 1}}))
	lc := limited.Client(mcp.WithoutRetries())
	if _, err := limited.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "gone"}); err != nil {
		t.Fatal(err)
	}
	lc.ListProjects(ctx, nil)
	if _, err := lc.ListProjects(ctx, nil); !errors.Is(err, mcp.ErrRateLimited) {
		t.Fatalf("second call: %v", err)
	}
	limited.InjectFault("", control.Fault{Status: 500})
	limited.Reset()
	if len(limited.Faults()) != 0 || len(limited.Requests()) != 0 {
		t.Fatalf("after Reset: %v %v", limited.Faults(), limited.Requests())
	}
	list, err := lc.ListProjects(ctx, nil)
	if err != nil || len(list.Projects) != 0 {
		t.Fatalf("after Reset: %+v %v", list, err)
	}
}

func postRaw(t *testing.T, srv *mcpfake.Server, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL()+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestUpstreamDropInProcess: a fake that serves nothing calls its
// upstream in-process (fakekit.HandlerTransport), where a dropped
// connection used to panic through the gateway; it is an upstream that
// could not be reached, as over a network, and the next call goes through.
func TestUpstreamDropInProcess(t *testing.T) {
	t.Parallel()
	srv, err := mcpfake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if err := srv.Upstream().InjectFault("GET /api/v4/projects", control.Fault{Drop: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	var e *mcp.Error
	if _, err := c.ListProjects(context.Background(), nil); !errors.As(err, &e) || !strings.Contains(err.Error(), "could not be reached") {
		t.Fatalf("a dropped upstream connection gave %v, want the upstream unreachable", err)
	}
	if _, err := c.ListProjects(context.Background(), nil); err != nil {
		t.Fatalf("after the drop: %v", err)
	}
}

// The route the log and faults name is the gateway's own path, on each
// fake apart: one at a path of its own beside one at the default path.
func TestRouteIsTheGatewaysPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	def := mcpfake.Start(t)
	other := mcpfake.Start(t, mcpfake.WithConfig(gateway.Config{Path: "/tools"}),
		control.WithFault("POST /tools", control.Fault{Status: 503, Times: 1}))
	c, err := mcp.New(other.URL()+"/tools", mcp.WithToken(other.Token()), mcp.WithHTTPClient(other.RawClient()), mcp.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	var e *mcp.Error
	if _, err := c.ListProjects(ctx, nil); !errors.As(err, &e) || e.HTTPStatus != 503 {
		t.Fatalf("the fault on POST /tools: %v", err)
	}
	if _, err := c.ListProjects(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := def.Client().ListProjects(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n, m := len(other.RequestsTo("POST /tools")), len(other.RequestsTo("POST /mcp")); n != 2 || m != 0 {
		t.Fatalf("at /tools: %d requests to POST /tools, %d to POST /mcp", n, m)
	}
	if n, m := len(def.RequestsTo("POST /mcp")), len(def.RequestsTo("POST /tools")); n != 1 || m != 0 {
		t.Fatalf("at /mcp: %d requests to POST /mcp, %d to POST /tools", n, m)
	}
}
