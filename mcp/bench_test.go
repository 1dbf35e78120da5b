package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// benchServer is a seeded gateway with both rate limits out of the way.
func benchServer(b *testing.B) (*mcpfake.Server, int64) {
	return seeded(b,
		mcpfake.WithConfig(mcp.Config{RateLimit: mcp.RateLimitConfig{Disabled: true}}),
		mcpfake.WithUpstreamOptions(sourcehostfake.WithRateLimit(1<<30, time.Minute)))
}

// upstreamLatencies are the upstream answer times the comparisons run
// under: none (the in-process fake, where the gateway's own hop is all
// there is to see) and 1 ms (a fast real server nearby).
var upstreamLatencies = []time.Duration{0, time.Millisecond}

// withLatency delays every upstream answer on route by d.
func withLatency(b *testing.B, srv *mcpfake.Server, route string, d time.Duration) {
	srv.Upstream().ClearFaults()
	if d > 0 {
		if err := srv.Upstream().InjectFault(route, control.Fault{Latency: d}); err != nil {
			b.Fatal(err)
		}
	}
}

// The gateway's overhead: get_project through the mcp client and the
// gateway, beside GET /projects/:id through the sourcehost client.
func BenchmarkGetProject(b *testing.B) {
	ctx := context.Background()
	srv, pid := benchServer(b)
	for _, lat := range upstreamLatencies {
		withLatency(b, srv, "GET /api/v4/projects/{id}", lat)
		b.Run("latency="+lat.String()+"/sourcehost", func(b *testing.B) {
			c := srv.Upstream().Client()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.GetProject(ctx, sourcehost.ProjectID(pid), &sourcehost.GetProjectOptions{Statistics: sourcehost.Ptr(true)}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("latency="+lat.String()+"/gateway", func(b *testing.B) {
			c := srv.Client()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: pid}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A batch of 50 calls while every upstream answer takes 5 ms: run one after
// another they would take 250 ms.
func BenchmarkBatch50WithUpstreamLatency(b *testing.B) {
	ctx := context.Background()
	srv, pid := benchServer(b)
	if err := srv.Upstream().InjectFault("GET /api/v4/projects/{id}", control.Fault{Latency: 5 * time.Millisecond}); err != nil {
		b.Fatal(err)
	}
	c := srv.Client()
	b.ReportAllocs()
	for b.Loop() {
		batch := c.NewBatch()
		calls := make([]*mcp.BatchCall, 50)
		for i := range calls {
			calls[i] = batch.Call("get_project", &mcp.GetProjectParams{ProjectID: pid})
		}
		if err := batch.Send(ctx); err != nil {
			b.Fatal(err)
		}
		for _, call := range calls {
			if err := call.Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// list_issues answered by the upstream, and from the gateway's cache,
// through the client (each call still makes its own hop to the gateway).
func BenchmarkListIssues(b *testing.B) {
	ctx := context.Background()
	srv, pid := benchServer(b)
	c := srv.Client()
	for _, lat := range upstreamLatencies {
		withLatency(b, srv, "GET /api/v4/projects/{id}/issues", lat)
		for _, bc := range []struct {
			name  string
			cache mcp.CacheOptions
		}{{"uncached", mcp.CacheOptions{}}, {"cached", mcp.CacheOptions{Cache: mcp.Ptr(true), CacheTTL: 3600}}} {
			b.Run("latency="+lat.String()+"/"+bc.name, func(b *testing.B) {
				p := &mcp.ListIssuesParams{ProjectID: pid, CacheOptions: bc.cache}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.ListIssues(ctx, p); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The same at the gateway's handler, in process: what the cache saves the
// gateway itself.
func BenchmarkGatewayListIssues(b *testing.B) {
	srv, pid := benchServer(b)
	for _, bc := range []struct{ name, cache string }{{"uncached", ""}, {"cached", `,"cache":true`}} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"list_issues","params":{"project_id":%d%s},"id":1}`, pid, bc.cache)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+srv.Token())
				rec := httptest.NewRecorder()
				srv.Gateway().ServeHTTP(rec, req)
				if rec.Code != http.StatusOK || strings.Contains(rec.Body.String(), `"error"`) {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
