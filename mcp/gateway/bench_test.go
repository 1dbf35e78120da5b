package gateway_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/sourcehost"
)

// benchServer is a seeded gateway with both rate limits out of the way.
func benchServer(b *testing.B) (*mcpfake.Server, int64) {
	return seeded(b,
		mcpfake.WithConfig(gateway.Config{RateLimit: gateway.RateLimitConfig{Disabled: true}}),
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

// overheadGateway is the gateway as it is deployed, an http.Server in front
// of the source-hosting API (here the fake, answering at once), with no
// request log or faults of mcpfake's around it. store nil is memory.
func overheadGateway(b *testing.B, store gateway.Store) (up *sourcehostfake.Server, gwURL string, pid int64) {
	up = sourcehostfake.Start(b, sourcehostfake.WithRateLimit(1<<30, time.Minute))
	pid, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "private"})
	if err != nil {
		b.Fatal(err)
	}
	gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Store: store,
		RateLimit: gateway.RateLimitConfig{PerMinute: 1 << 30, Burst: 100}})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(gw)
	b.Cleanup(ts.Close)
	return up, ts.URL, pid
}

// BenchmarkGatewayOverhead is get_project through the deployed gateway
// beside GET /projects/:id straight to the source-hosting API, with an
// upstream that answers at once: the gateway's whole cost, its own HTTP hop
// included, as a ratio of one direct call. "cached" is the same call
// answered from the gateway's cache.
func BenchmarkGatewayOverhead(b *testing.B) {
	benchmarkOverhead(b, nil)
}

func benchmarkOverhead(b *testing.B, store gateway.Store) {
	ctx := context.Background()
	up, gwURL, pid := overheadGateway(b, store)
	b.Run("direct", func(b *testing.B) {
		c := up.Client()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.GetProject(ctx, sourcehost.ProjectID(pid), &sourcehost.GetProjectOptions{Statistics: sourcehost.Ptr(true)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The floor of any gateway: a bare proxy that passes the same GET on
	// with net/http and copies the answer back, so a second HTTP hop and
	// nothing else.
	b.Run("bare-proxy", func(b *testing.B) {
		target := fmt.Sprintf("%s/api/v4/projects/%d?statistics=true", up.URL(), pid)
		hc := &http.Client{}
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			req, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, target, nil)
			req.Header.Set("PRIVATE-TOKEN", up.Token())
			resp, err := hc.Do(req)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(resp.StatusCode)
			io.Copy(w, resp.Body)
		}))
		defer proxy.Close()
		c := &http.Client{}
		b.ReportAllocs()
		for b.Loop() {
			resp, err := c.Get(proxy.URL)
			if err != nil {
				b.Fatal(err)
			}
			var p sourcehost.Project
			if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != 200 {
				b.Fatal(resp.StatusCode, err)
			}
			resp.Body.Close()
		}
	})
	for _, bc := range []struct {
		name  string
		cache mcp.CacheOptions
	}{{"gateway", mcp.CacheOptions{}}, {"gateway-cached", mcp.CacheOptions{CacheTTL: 3600}}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := mcp.New(gwURL, mcp.WithToken(up.Token()))
			if err != nil {
				b.Fatal(err)
			}
			p := &mcp.GetProjectParams{ProjectID: pid, CacheOptions: bc.cache}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.GetProject(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInvalidTokenFlood sends made-up tokens, each new, from 1,000
// addresses, on the real clock: how many reach the source-hosting API a
// second, and how the gateway's heap grows (measured after a GC, per run).
func BenchmarkInvalidTokenFlood(b *testing.B) {
	up := sourcehostfake.Start(b, sourcehostfake.WithRateLimit(1<<30, time.Minute))
	gw, err := gateway.New(gateway.Config{Upstream: up.URL()})
	if err != nil {
		b.Fatal(err)
	}
	body := `{"jsonrpc":"2.0","method":"list_projects","id":1}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	up.ResetRequests()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.RemoteAddr = fmt.Sprintf("[2001:db8:%x::1]:1000", i%1000)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer made-up-"+strconv.Itoa(i))
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		if rec.Code != http.StatusUnauthorized && rec.Code != http.StatusTooManyRequests {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
		i++
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	calls := len(up.RequestsTo("GET /api/v4/personal_access_tokens/self"))
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "upstream-calls/s")
	b.ReportMetric(float64(calls), "upstream-calls")
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1024, "heap-growth-KB")
}

// BenchmarkFirstProtocolRequest is a new gateway's first request of the
// Model Context Protocol (tools/list), what every test that starts a fake
// and speaks MCP to it pays once. The gateway is made, and its caller
// verified by a JSON-RPC call, with the timer stopped: what is measured is
// the MCP side alone.
func BenchmarkFirstProtocolRequest(b *testing.B) {
	up := sourcehostfake.Start(b, sourcehostfake.WithRateLimit(1<<30, time.Minute))
	send := func(gw *gateway.Gateway, body string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+up.Token())
		rec := httptest.NewRecorder()
		gw.ServeHTTP(rec, req)
		// A JSON-RPC error is the answer's own "error" member, not any
		// "error" in it (tools/list describes error answers in its
		// output schemas).
		var answer struct{ Error json.RawMessage }
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &answer) != nil || answer.Error != nil {
			b.Fatalf("%d %.300s", rec.Code, rec.Body)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		gw, err := gateway.New(gateway.Config{Upstream: up.URL(), RateLimit: gateway.RateLimitConfig{Disabled: true}})
		if err != nil {
			b.Fatal(err)
		}
		send(gw, `{"jsonrpc":"2.0","method":"list_projects","id":1}`)
		b.StartTimer()
		send(gw, `{"jsonrpc":"2.0","method":"tools/list","id":1}`)
	}
}
