package mcpredis_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/mcpredis"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/redis/go-redis/v9"
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
// "store=memory+ping" is the floor of the Redis store in place: the
// gateway on memory, with one PING to the same Redis in each store call
// (pingingStore), where the Redis store makes its one round trip. A bare
// PING in a loop ("ping") is cheaper than a round trip in a call: there
// the gateway's process went idle while it waited, and both it and Redis
// are woken from idle (on a 2-vCPU virtual machine, 70-90 us more than a
// PING in a loop).
//
// What a call costs on Redis beyond memory, in round trips and
// microseconds: (store=redis - store=memory) against ping, and what the
// Redis store costs beyond its round trips: store=redis -
// store=memory+ping.
func BenchmarkGatewayOverheadRedis(b *testing.B) {
	ctx := context.Background()
	store, raw, _ := newStore(b)
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
	}{{"memory", nil}, {"memory+ping", pingingStore{gateway.NewMemoryStore(nil, gateway.MemoryLimits{}), store}}, {"redis", store}} {
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
				before := serverMicros(b, raw)
				for b.Loop() {
					if err := bc.call(ctx, c); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((serverMicros(b, raw)-before)/float64(b.N), "redis-us/op")
				if err := d.gw.Ready(ctx); err != nil {
					b.Fatalf("the gateway fell back to memory: %v", err)
				}
			})
		}
	}
}

// serverMicros is the time Redis spent executing commands so far, by its
// own count (INFO commandstats: the usec of every command, a script's
// commands counted in the script's), in microseconds. Per call of the
// benchmark it is the part of a round trip that is Redis's work, not the
// network's nor the waking of idle processes.
func serverMicros(b *testing.B, raw *redis.Client) float64 {
	info, err := raw.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for line := range strings.Lines(info) {
		if !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		for field := range strings.SplitSeq(strings.TrimSpace(line[strings.IndexByte(line, ':')+1:]), ",") {
			if v, ok := strings.CutPrefix(field, "usec="); ok {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					b.Fatalf("INFO commandstats: %q", line)
				}
				total += n
			}
		}
	}
	return total
}

// pingingStore is a MemoryStore that makes one round trip to Redis (a
// PING through the Redis store's client) in each call, as the Redis store
// makes one in each: GetTake, GetMarked and SetMarked (one script each),
// and the rest.
type pingingStore struct {
	*gateway.MemoryStore
	redis *mcpredis.Store
}

func (p pingingStore) ping(ctx context.Context) {
	if err := p.redis.Ping(ctx); err != nil {
		panic(err)
	}
}

func (p pingingStore) Take(ctx context.Context, key string, n int, r gateway.Rate, now time.Time) (gateway.RateDecision, error) {
	p.ping(ctx)
	return p.MemoryStore.Take(ctx, key, n, r, now)
}

func (p pingingStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	p.ping(ctx)
	return p.MemoryStore.Get(ctx, key)
}

func (p pingingStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error {
	p.ping(ctx)
	return p.MemoryStore.Set(ctx, key, value, ttl, tags...)
}

func (p pingingStore) Delete(ctx context.Context, keys ...string) error {
	p.ping(ctx)
	return p.MemoryStore.Delete(ctx, keys...)
}

func (p pingingStore) Invalidate(ctx context.Context, tags ...string) error {
	p.ping(ctx)
	return p.MemoryStore.Invalidate(ctx, tags...)
}

func (p pingingStore) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	p.ping(ctx)
	return p.MemoryStore.Claim(ctx, key, ttl)
}

func (p pingingStore) GetTake(ctx context.Context, q gateway.GetTakeRequest) (gateway.GetTakeResult, error) {
	p.ping(ctx)
	return p.MemoryStore.GetTake(ctx, q)
}

func (p pingingStore) GetMarked(ctx context.Context, key string, marks []string) ([]byte, bool, [][]byte, error) {
	p.ping(ctx)
	return p.MemoryStore.GetMarked(ctx, key, marks)
}

func (p pingingStore) SetMarked(ctx context.Context, key string, value []byte, ttl time.Duration, tags, marks []string, want [][]byte) (bool, error) {
	p.ping(ctx)
	return p.MemoryStore.SetMarked(ctx, key, value, ttl, tags, marks, want)
}
