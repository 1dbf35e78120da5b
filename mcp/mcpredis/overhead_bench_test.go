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
// gateway's state on Redis beside the same gateway on memory, in one run
// so that the two meet the same load: get_project through the deployed
// gateway (an upstream answering at once), uncached, from the cache, a
// cache miss (list_issues of a page not asked before), and a batch of 10.
// "ping" is the floor of any call to Redis: one PING through the Store's
// own client, to the same server. "direct" is the call straight to the
// source-hosting API.
//
// What a call costs on Redis beyond memory, in round trips and
// microseconds: (store=redis - store=memory) against ping.
func BenchmarkGatewayOverheadRedis(b *testing.B) {
	ctx := context.Background()
	store, _, _ := newStore(b)
	up := sourcehostfake.Start(b, sourcehostfake.WithRateLimit(1<<30, time.Minute))
	pid, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "private"})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("ping", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := store.Ping(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		c := up.Client()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.GetProject(ctx, sourcehost.ProjectID(pid), &sourcehost.GetProjectOptions{Statistics: sourcehost.Ptr(true)}); err != nil {
				b.Fatal(err)
			}
		}
	})
	type deployed struct {
		name string
		gw   *gateway.Gateway
		url  string
	}
	var gws []deployed
	for _, st := range []struct {
		name  string
		store gateway.Store
	}{{"memory", nil}, {"redis", store}} {
		gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Store: st.store,
			RateLimit: gateway.RateLimitConfig{PerMinute: 1 << 30, Burst: 100}})
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(gw)
		b.Cleanup(ts.Close)
		gws = append(gws, deployed{st.name, gw, ts.URL})
	}
	page := 0 // each cache miss asks a page no call asked before
	for _, bc := range []struct {
		name string
		call func(ctx context.Context, c *mcp.Client) error
	}{
		{"uncached", func(ctx context.Context, c *mcp.Client) error {
			_, err := c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: pid})
			return err
		}},
		{"cached", func(ctx context.Context, c *mcp.Client) error {
			_, err := c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: pid, CacheOptions: mcp.CacheOptions{CacheTTL: 3600}})
			return err
		}},
		{"cache-miss", func(ctx context.Context, c *mcp.Client) error {
			page++
			_, err := c.ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: pid, Page: page, CacheOptions: mcp.CacheOptions{CacheTTL: 60}})
			return err
		}},
		{"batch10", func(ctx context.Context, c *mcp.Client) error {
			batch := c.NewBatch()
			calls := make([]*mcp.BatchCall, 10)
			for i := range calls {
				calls[i] = batch.Call("get_project", &mcp.GetProjectParams{ProjectID: pid})
			}
			if err := batch.Send(ctx); err != nil {
				return err
			}
			for _, call := range calls {
				if err := call.Err(); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		for _, d := range gws {
			b.Run(bc.name+"/store="+d.name, func(b *testing.B) {
				c, err := mcp.New(d.url, mcp.WithToken(up.Token()))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := bc.call(ctx, c); err != nil {
						b.Fatal(err)
					}
				}
				if err := d.gw.Ready(ctx); err != nil {
					b.Fatalf("the gateway fell back to memory: %v", err)
				}
			})
		}
	}
}
