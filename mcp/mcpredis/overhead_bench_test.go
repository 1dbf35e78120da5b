package mcpredis_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
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
// (roundTripStore), where the Redis store makes its one round trip. A bare
// PING in a loop ("ping") is cheaper than a round trip in a call: there
// the gateway's process went idle while it waited, and both it and Redis
// are woken from idle (on a 2-vCPU virtual machine, 70-90 us more than a
// PING in a loop). "store=memory+script" is the same with a script that
// does nothing (FCALL of an empty function) in place of the PING: the
// floor of a round trip that runs a script, as the Redis store's must (a
// token bucket shared by replicas is read, refilled and spent in one step
// only by a script). "store=memory+commands" runs, in place of the PING,
// a script (EVAL) that calls the commands the Redis store's take must
// call and nothing else: an MGET of three keys and a SET of two, one of
// them new (the bucket and the operation's answer, see takeLua): the
// floor of what Redis does for a rate limit shared exactly, read with the
// verdict, and repeatable. What the Redis store costs beyond it is its
// own: the arithmetic of the bucket, the arguments, the Go side.
//
// "<call>/paired" runs one call on each gateway in turn, the order
// rotating, and reports each gateway's time a call (memory-us/op and so
// on) and Redis's own time a call on the store's scripts, the empty
// function and PING (in-redis-*-us/op): figures of the same moments of a
// machine whose speed drifts, to compare with one another, and the
// medians of the differences between calls of the same turn
// (p50-redis-over-<floor>-us): a pause of the host or a collection moves
// a mean, not these. The per-store runs after it give each gateway's B/op
// and allocs/op.
//
// What a call costs on Redis beyond memory: store=redis - store=memory.
// Of that, the round trip that runs a script is store=memory+script -
// store=memory; the script's own work in Redis is in-redis-store-us/op -
// in-redis-script-us/op; the rest is the Store's (Go) side and Redis's
// reading and answering of a longer command. On a machine where Redis
// shares two cores with the benchmark, Redis's work in a call takes 3 to
// 4 times what it takes in a loop (it is woken from idle, with cold
// caches, and contends for the cores with the gateway); a Redis of its
// own host keeps the first, not the second. To measure as with Redis on a
// core of its own, start redis-server, give it one core and the benchmark
// the other:
//
//	taskset -pc 1 "$(pidof redis-server)"
//	MCP_TEST_REDIS=127.0.0.1:6379 GOMAXPROCS=1 taskset -c 0 \
//		go test -run '^$' -bench 'GatewayOverheadRedis/.*/paired' ./mcp/mcpredis
func BenchmarkGatewayOverheadRedis(b *testing.B) {
	ctx := context.Background()
	store, raw, prefix := newStore(b)
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
	if err := raw.FunctionLoadReplace(ctx, emptyFunction).Err(); err != nil {
		b.Fatal(err)
	}
	if err := raw.Set(ctx, prefix+"floor:tok", `{"ok":true,"token_id":1,"user_id":1,"checked":1796227937}`, time.Hour).Err(); err != nil {
		b.Fatal(err)
	}
	floorOps := 0 // each commands floor writes a key of its own, as each take does
	type deployed struct {
		name string
		gw   *gateway.Gateway
		url  string
	}
	var gws []deployed
	for _, st := range []struct {
		name  string
		store gateway.Store
	}{
		{"memory", nil},
		{"memory+ping", roundTripStore{gateway.NewMemoryStore(nil, gateway.MemoryLimits{}), func(ctx context.Context) error {
			return raw.Ping(ctx).Err()
		}}},
		{"memory+script", roundTripStore{gateway.NewMemoryStore(nil, gateway.MemoryLimits{}), func(ctx context.Context) error {
			return raw.FCall(ctx, "apitwin_bench_noop", nil).Err()
		}}},
		{"memory+commands", roundTripStore{gateway.NewMemoryStore(nil, gateway.MemoryLimits{}), func(ctx context.Context) error {
			floorOps++
			return raw.Eval(ctx, commandsFloor, []string{prefix + "floor:tok", prefix + "floor:bucket", prefix + "floor:op:" + strconv.Itoa(floorOps)}).Err()
		}}},
		{"redis", store},
	} {
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
		b.Run(bc.name+"/paired", func(b *testing.B) {
			clients := make([]*mcp.Client, len(gws))
			for i, d := range gws {
				c, err := mcp.New(d.url, mcp.WithToken(up.Token()))
				if err != nil {
					b.Fatal(err)
				}
				clients[i] = c
			}
			// took[i][k] is the k-th call's time on gws[i].
			took := make([][]time.Duration, len(gws))
			before := redisWork(b, raw)
			turn := 0
			for b.Loop() {
				for j := range gws {
					i := (turn + j) % len(gws)
					start := time.Now()
					if err := bc.call(ctx, clients[i]); err != nil {
						b.Fatal(err)
					}
					took[i] = append(took[i], time.Since(start))
				}
				turn++
			}
			w := redisWork(b, raw).minus(before)
			n := float64(b.N)
			for i, d := range gws {
				var sum time.Duration
				for _, t := range took[i] {
					sum += t
				}
				b.ReportMetric(float64(sum.Microseconds())/n, d.name+"-us/op")
			}
			// The medians of the calls' differences, each call beside the
			// one on the other gateway in the same turn: what a call on
			// Redis costs beyond memory and beyond each floor, robust to
			// the pauses (a collection, the host) that the means above
			// take in.
			byName := func(name string) []time.Duration {
				for i, d := range gws {
					if d.name == name {
						return took[i]
					}
				}
				b.Fatalf("no gateway %q", name)
				return nil
			}
			for _, base := range []string{"memory", "memory+ping", "memory+script", "memory+commands"} {
				b.ReportMetric(medianDifference(byName("redis"), byName(base)), "p50-redis-over-"+base+"-us")
			}
			b.ReportMetric(medianDifference(byName("memory+script"), byName("memory")), "p50-memory+script-over-memory-us")
			b.ReportMetric(w.ping/n, "in-redis-ping-us/op")
			b.ReportMetric(w.function/n, "in-redis-script-us/op")
			b.ReportMetric(w.floor/n, "in-redis-commands-us/op")
			b.ReportMetric(w.scripts/n, "in-redis-store-us/op")
		})
		for _, d := range gws {
			b.Run(bc.name+"/store="+d.name, func(b *testing.B) {
				c, err := mcp.New(d.url, mcp.WithToken(up.Token()))
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				before := redisWork(b, raw)
				for b.Loop() {
					if err := bc.call(ctx, c); err != nil {
						b.Fatal(err)
					}
				}
				w := redisWork(b, raw).minus(before)
				b.ReportMetric((w.ping+w.function+w.floor+w.scripts)/float64(b.N), "redis-us/op")
				b.ReportMetric(w.cpu/float64(b.N), "redis-cpu-us/op")
				if err := d.gw.Ready(ctx); err != nil {
					b.Fatalf("the gateway fell back to memory: %v", err)
				}
			})
		}
	}
}

// medianDifference is the median of a[k] - b[k], in microseconds.
func medianDifference(a, b []time.Duration) float64 {
	d := make([]time.Duration, len(a))
	for k := range a {
		d[k] = a[k] - b[k]
	}
	slices.Sort(d)
	m := d[len(d)/2]
	if len(d)%2 == 0 {
		m = (d[len(d)/2-1] + m) / 2
	}
	return float64(m.Nanoseconds()) / 1e3
}

// work is what Redis has done, in microseconds by its own count: the
// time it spent running the commands its clients sent (INFO
// commandstats), PING, FCALL (the empty function), EVAL (the commands
// floor) and EVALSHA (the Store's scripts; a script counted whole, with
// the commands it calls inside its own time, which are not added again;
// the Store's first EVAL, which loads a script, counts with the floor),
// and cpu, the CPU time
// of its main thread (INFO cpu): that, plus reading, parsing and answering
// each command and waiting on its sockets. Per call of the benchmark, the
// commands' time is the part of a round trip that is Redis's work on them;
// cpu is all Redis does for the call.
type work struct{ ping, function, floor, scripts, cpu float64 }

func (w work) minus(v work) work {
	return work{w.ping - v.ping, w.function - v.function, w.floor - v.floor, w.scripts - v.scripts, w.cpu - v.cpu}
}

// redisWork is what Redis has done so far. (The Store's GET, SET and MGET
// are not counted: the benchmark's calls send none once the caller is
// verified, and counted they would count again the commands that scripts
// call.)
func redisWork(b *testing.B, raw *redis.Client) work {
	info, err := raw.Info(context.Background(), "commandstats", "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	number := func(line, v string) float64 {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			b.Fatalf("INFO: %q", line)
		}
		return n
	}
	usec := func(line, stats string) float64 {
		for field := range strings.SplitSeq(stats, ",") {
			if v, ok := strings.CutPrefix(field, "usec="); ok {
				return number(line, v)
			}
		}
		b.Fatalf("INFO: %q", line)
		return 0
	}
	var w work
	for line := range strings.Lines(info) {
		line = strings.TrimSpace(line)
		name, value, _ := strings.Cut(line, ":")
		switch name {
		case "used_cpu_sys_main_thread", "used_cpu_user_main_thread":
			w.cpu += number(line, value) * 1e6
		case "cmdstat_ping":
			w.ping += usec(line, value)
		case "cmdstat_fcall":
			w.function += usec(line, value)
		case "cmdstat_eval":
			w.floor += usec(line, value)
		case "cmdstat_evalsha":
			w.scripts += usec(line, value)
		}
	}
	return w
}

// commandsFloor is what Redis must do for a take read with the verdict:
// read three keys (the verdict, the bucket, the operation's answer) and
// write two (the bucket, and the operation's answer under a new key), with
// none of the bucket's arithmetic. (Sent with EVAL, not EVALSHA, so that
// Redis's count of its time is apart from the Store's scripts'; Redis
// hashes the text each time, a microsecond or so more.)
const commandsFloor = `
local v = redis.call('MGET', KEYS[1], KEYS[2], KEYS[3])
redis.call('SET', KEYS[2], '99.999999999999986 1796227937790 742461', 'PX', 61000)
redis.call('SET', KEYS[3], '199.999999999999986', 'PX', 7000)
return {2, 1, '99.999999999999986'}
`

// emptyFunction is the least a script can do, as a Redis function
// (FCALL runs it as EVALSHA runs a script) so that Redis's count of its
// time is apart from the Store's scripts'.
const emptyFunction = "#!lua name=apitwin_bench\nredis.register_function('apitwin_bench_noop', function() return 1 end)"

// roundTripStore is a MemoryStore that makes one round trip to Redis in
// each call, as the Redis store makes one in each: GetTake, GetMarked and
// SetMarked (one script each), and the rest.
type roundTripStore struct {
	*gateway.MemoryStore
	trip func(ctx context.Context) error
}

func (p roundTripStore) ping(ctx context.Context) {
	if err := p.trip(ctx); err != nil {
		panic(err)
	}
}

func (p roundTripStore) Take(ctx context.Context, key string, n int, r gateway.Rate, now time.Time) (gateway.RateDecision, error) {
	p.ping(ctx)
	return p.MemoryStore.Take(ctx, key, n, r, now)
}

func (p roundTripStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	p.ping(ctx)
	return p.MemoryStore.Get(ctx, key)
}

func (p roundTripStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration, tags ...string) error {
	p.ping(ctx)
	return p.MemoryStore.Set(ctx, key, value, ttl, tags...)
}

func (p roundTripStore) Delete(ctx context.Context, keys ...string) error {
	p.ping(ctx)
	return p.MemoryStore.Delete(ctx, keys...)
}

func (p roundTripStore) Invalidate(ctx context.Context, tags ...string) error {
	p.ping(ctx)
	return p.MemoryStore.Invalidate(ctx, tags...)
}

func (p roundTripStore) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	p.ping(ctx)
	return p.MemoryStore.Claim(ctx, key, ttl)
}

func (p roundTripStore) GetTake(ctx context.Context, q gateway.GetTakeRequest) (gateway.GetTakeResult, error) {
	p.ping(ctx)
	return p.MemoryStore.GetTake(ctx, q)
}

func (p roundTripStore) GetMarked(ctx context.Context, key string, marks []string) ([]byte, bool, [][]byte, error) {
	p.ping(ctx)
	return p.MemoryStore.GetMarked(ctx, key, marks)
}

func (p roundTripStore) SetMarked(ctx context.Context, key string, value []byte, ttl time.Duration, tags, marks []string, want [][]byte) (bool, error) {
	p.ping(ctx)
	return p.MemoryStore.SetMarked(ctx, key, value, ttl, tags, marks, want)
}
