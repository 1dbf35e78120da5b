package mcpredis_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/sourcehost"
)

// BenchmarkGatewayOverheadRedis is mcp's BenchmarkGatewayOverhead with the
// gateway's state on Redis: get_project through the deployed gateway
// beside the same call straight to the source-hosting API (an upstream
// answering at once), uncached and from the cache, and a batch of 10.
func BenchmarkGatewayOverheadRedis(b *testing.B) {
	ctx := context.Background()
	store, _, _ := newStore(b)
	up := sourcehostfake.Start(b, sourcehostfake.WithRateLimit(1<<30, time.Minute))
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
	b.Run("direct", func(b *testing.B) {
		c := up.Client()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.GetProject(ctx, sourcehost.ProjectID(pid), &sourcehost.GetProjectOptions{Statistics: sourcehost.Ptr(true)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, bc := range []struct {
		name  string
		cache mcp.CacheOptions
	}{{"gateway", mcp.CacheOptions{}}, {"gateway-cached", mcp.CacheOptions{CacheTTL: 3600}}} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := mcp.New(ts.URL, mcp.WithToken(up.Token()))
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
			if err := gw.Ready(ctx); err != nil {
				b.Fatalf("the gateway fell back to memory: %v", err)
			}
		})
	}
	// A batch of 10 get_project: one round trip to Redis for the whole
	// batch (the verdict and 10 requests of the rate limit in one script).
	b.Run("gateway-batch10", func(b *testing.B) {
		c, err := mcp.New(ts.URL, mcp.WithToken(up.Token()))
		if err != nil {
			b.Fatal(err)
		}
		p := &mcp.GetProjectParams{ProjectID: pid}
		b.ReportAllocs()
		for b.Loop() {
			batch := c.NewBatch()
			calls := make([]*mcp.BatchCall, 10)
			for i := range calls {
				calls[i] = batch.Call("get_project", p)
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
		if err := gw.Ready(ctx); err != nil {
			b.Fatalf("the gateway fell back to memory: %v", err)
		}
	})
}
