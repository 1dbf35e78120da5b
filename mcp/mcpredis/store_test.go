package mcpredis_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/internal/storetest"
	"github.com/apitwin/apitwin/mcp/mcpredis"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestMain(m *testing.M) {
	// go-redis logs each failed dial itself; the outage tests make many.
	redis.SetLogger(quiet{})
	redistest.Main(m)
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// prefix is a key prefix no other test (nor an earlier run on a shared
// Redis) uses.
func prefix(tb testing.TB) string {
	b := make([]byte, 8)
	rand.Read(b)
	return "apitwin:test:" + hex.EncodeToString(b) + ":"
}

// newStore opens a Store under a fresh prefix on the test Redis; its keys
// go, and it closes, when the test ends.
func newStore(tb testing.TB) (*mcpredis.Store, *redis.Client, string) {
	tb.Helper()
	addr := redistest.Addr(tb)
	p := prefix(tb)
	s := mcpredis.Open(addr, mcpredis.Options{Prefix: p})
	raw := redis.NewClient(&redis.Options{Addr: addr})
	tb.Cleanup(func() {
		ctx := context.Background()
		iter := raw.Scan(ctx, 0, p+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if len(keys) > 0 {
			raw.Del(ctx, keys...)
		}
		raw.Close()
		s.Close()
	})
	return s, raw, p
}

// The Store on Redis passes the suite every gateway.Store passes.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) gateway.Store {
		s, _, _ := newStore(t)
		return s
	})
}

// Redis expires what the Store sets, after the time to live asked for (the
// suite cannot wait for Redis's clock, so the times to live are read here),
// and a bucket once it would be full again.
func TestTimesToLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, raw, p := newStore(t)
	pttl := func(key string) time.Duration {
		t.Helper()
		d, err := raw.PTTL(ctx, p+key).Result()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	within := func(what string, got, want time.Duration) {
		t.Helper()
		if got > want || got < want-5*time.Second {
			t.Errorf("%s: time to live %s, want %s (less the time the test took)", what, got, want)
		}
	}

	if err := s.Set(ctx, "ans:a", []byte("v"), time.Hour, "project:1"); err != nil {
		t.Fatal(err)
	}
	within("value", pttl("ans:a"), time.Hour)
	within("tag set", pttl("tag:project:1"), time.Hour)
	// A shorter value does not shorten its tag's set; a longer one extends it.
	if err := s.Set(ctx, "ans:b", []byte("v"), time.Minute, "project:1"); err != nil {
		t.Fatal(err)
	}
	within("value", pttl("ans:b"), time.Minute)
	within("tag set after a shorter value", pttl("tag:project:1"), time.Hour)
	if err := s.Set(ctx, "ans:c", []byte("v"), 2*time.Hour, "project:1"); err != nil {
		t.Fatal(err)
	}
	within("tag set after a longer value", pttl("tag:project:1"), 2*time.Hour)
	// Without tags: no tag set.
	if err := s.Set(ctx, "tok:a", []byte("v"), 90*time.Second); err != nil {
		t.Fatal(err)
	}
	within("untagged value", pttl("tok:a"), 90*time.Second)
	// Below a millisecond: rounded up, not refused by Redis.
	if err := s.Set(ctx, "ans:tiny", []byte("v"), time.Nanosecond, "project:1"); err != nil {
		t.Errorf("a time to live under a millisecond: %v", err)
	}
	if _, err := s.Claim(ctx, "sig:tiny", time.Microsecond); err != nil {
		t.Errorf("a claim under a millisecond: %v", err)
	}

	if ok, err := s.Claim(ctx, "sig:a", 5*time.Minute); !ok || err != nil {
		t.Fatal(ok, err)
	}
	within("claim", pttl("sig:a"), 5*time.Minute)

	// A bucket of 10 refilling a token a second, 4 spent: full again in 4 s,
	// kept a minute more.
	now := time.Date(2026, 11, 25, 9, 0, 0, 987_654_321, time.UTC)
	if _, err := s.Take(ctx, "rl:a", 4, gateway.Rate{PerMinute: 60, Burst: 10}, now); err != nil {
		t.Fatal(err)
	}
	within("bucket", pttl("bucket:rl:a"), 4*time.Second+time.Minute)
	v, err := raw.Get(ctx, p+"bucket:rl:a").Result()
	if err != nil {
		t.Fatal(err)
	}
	if want := "6 " + strconv.FormatInt(now.UnixMilli(), 10) + " 654321"; v != want {
		t.Errorf("bucket %q, want %q: 6 tokens, at the gateway's time (not Redis's) in milliseconds and nanoseconds", v, want)
	}
	// A bucket that never refills is kept 30 days, not for ever.
	if _, err := s.Take(ctx, "rl:never", 1, gateway.Rate{PerMinute: 0, Burst: 5}, now); err != nil {
		t.Fatal(err)
	}
	within("bucket that never refills", pttl("bucket:rl:never"), 30*24*time.Hour)
}

// The bucket Redis keeps holds, after every Take, the very float64 that
// gateway.MemoryStore's arithmetic (mcp's takeTokens, copied in refill below)
// gives: not one bit apart, so that the two can never drift to different
// figures. The conformance suite compares the figures, which show a
// difference only when it crosses a whole token.
func TestBucketBitExact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, raw, p := newStore(t)
	rng := mathrand.New(mathrand.NewPCG(3, 4))
	rates := []gateway.Rate{{PerMinute: 7, Burst: 3}, {PerMinute: 600, Burst: 100}, {PerMinute: 6_000_000_000, Burst: 1 << 50}, {PerMinute: 61, Burst: 1 << 40}}
	for _, r := range rates {
		key := "rl:exact:" + strconv.Itoa(r.PerMinute)
		now := time.Date(2026, 11, 25, 9, 0, 0, 123_456_789, time.UTC)
		tokens, at := float64(r.Burst), now
		for i := range 300 {
			now = now.Add(time.Duration(rng.Int64N(int64(3 * time.Second))))
			n := 1 + rng.IntN(max(1, r.Burst/2))
			if _, err := s.Take(ctx, key, n, r, now); err != nil {
				t.Fatal(err)
			}
			refill(&tokens, &at, n, r, now)
			v, err := raw.Get(ctx, p+"bucket:"+key).Result()
			if err != nil {
				t.Fatal(err)
			}
			got, err := strconv.ParseFloat(strings.Fields(v)[0], 64)
			if err != nil {
				t.Fatalf("bucket %q: %v", v, err)
			}
			if got != tokens {
				t.Fatalf("rate %+v, step %d: Redis holds %v tokens (%#x), Go's arithmetic %v (%#x)", r, i, got, math.Float64bits(got), tokens, math.Float64bits(tokens))
			}
		}
	}
}

// refill is mcp's takeTokens without the decision.
func refill(tokens *float64, at *time.Time, n int, r gateway.Rate, now time.Time) {
	perSecond := float64(r.PerMinute) / 60
	if elapsed := now.Sub(*at).Seconds(); elapsed > 0 {
		*tokens = math.Min(float64(r.Burst), *tokens+elapsed*perSecond)
		*at = now
	}
	if *tokens >= float64(n) {
		*tokens -= float64(n)
	}
}

// Two Stores, as on two gateways, enforce one limit together.
func TestStoresShareOneLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _, p := newStore(t)
	b := mcpredis.Open(redistest.Addr(t), mcpredis.Options{Prefix: p})
	defer b.Close()
	r := gateway.Rate{PerMinute: 60, Burst: 10}
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	allowed := map[string]int{}
	var wg sync.WaitGroup
	for name, s := range map[string]*mcpredis.Store{"a": a, "b": b} {
		wg.Go(func() {
			for range 10 {
				d, err := s.Take(ctx, "rl:tok:1", 1, r, now)
				if err != nil {
					t.Error(err)
					return
				}
				if d.Allowed {
					mu.Lock()
					allowed[name]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if n := allowed["a"] + allowed["b"]; n != r.Burst {
		t.Errorf("allowed %v: %d in all, want the one burst of %d", allowed, n, r.Burst)
	}
}

// A Redis that cannot be reached is an error from every method, at once,
// and a gateway on it still serves, from memory, and says why in Ready.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := mcpredis.Open(testtools.RefusedAddr(t), mcpredis.Options{})
	defer s.Close()

	calls := map[string]func() error{
		"ping": func() error { return s.Ping(ctx) },
		"take": func() error {
			_, err := s.Take(ctx, "rl:a", 1, gateway.Rate{PerMinute: 60, Burst: 10}, time.Now())
			return err
		},
		"get":        func() error { _, _, err := s.Get(ctx, "tok:a"); return err },
		"set":        func() error { return s.Set(ctx, "ans:a", []byte("v"), time.Minute, "project:1") },
		"delete":     func() error { return s.Delete(ctx, "tok:a") },
		"invalidate": func() error { return s.Invalidate(ctx, "project:1") },
		"claim":      func() error { _, err := s.Claim(ctx, "sig:a", time.Minute); return err },
	}
	for name, call := range calls {
		err := call()
		if err == nil || !strings.HasPrefix(err.Error(), "mcpredis: "+name+": ") {
			t.Errorf("%s on a closed port: %v", name, err)
		}
		if errors.Is(err, gateway.ErrStoreFull) {
			t.Errorf("%s: an outage reported as a full store: %v", name, err)
		}
	}

	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	up := sourcehostfake.Start(t, control.WithClock(clk))
	gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Store: s, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if rec := call(gw, up.Token(), listProjects); rec.Code != http.StatusOK {
			t.Fatalf("call %d with Redis down: %d %s", i, rec.Code, rec.Body)
		}
	}
	if err := gw.Ready(ctx); err == nil || !strings.Contains(err.Error(), "shared store") || !strings.Contains(err.Error(), "mcpredis: ping") {
		t.Errorf("Ready with Redis down: %v", err)
	}
}

// A server that accepts connections and never answers costs a command the
// read timeout, not go-redis's default five seconds (only that it fails is
// asserted, not how fast).
func TestSilentServer(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	s := mcpredis.Open(l.Addr().String(), mcpredis.Options{ReadTimeout: 50 * time.Millisecond})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Ping(ctx); err == nil || ctx.Err() != nil {
		t.Errorf("Ping of a server that never answers: %v (context: %v)", err, ctx.Err())
	}
}

// Gateways on one Redis enforce one rate limit per token together.
func TestGatewaysShareOneLimit(t *testing.T) {
	t.Parallel()
	_, _, p := newStore(t)
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	up := sourcehostfake.Start(t, control.WithClock(clk))
	var gws []*gateway.Gateway
	for range 2 {
		s := mcpredis.Open(redistest.Addr(t), mcpredis.Options{Prefix: p})
		t.Cleanup(func() { s.Close() })
		gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Store: s, Clock: clk,
			RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if err := gw.Ready(context.Background()); err != nil {
			t.Fatalf("Ready: %v", err)
		}
		gws = append(gws, gw)
	}
	for i, want := range []int{200, 200, 200, 429, 429} {
		rec := call(gws[i%2], up.Token(), listProjects)
		if rec.Code != want {
			t.Fatalf("call %d (gateway %d): %d %s; want %d", i, i%2, rec.Code, rec.Body, want)
		}
		if i == 2 && rec.Header().Get("X-RateLimit-Remaining") != "0" {
			t.Errorf("third call: X-RateLimit-Remaining %q, want 0", rec.Header().Get("X-RateLimit-Remaining"))
		}
	}
	clk.Advance(time.Second) // a token refilled, seen by both
	if rec := call(gws[1], up.Token(), listProjects); rec.Code != 200 {
		t.Errorf("after a second: %d %s", rec.Code, rec.Body)
	}
}

const listProjects = `{"jsonrpc":"2.0","method":"list_projects","id":1}`

// call runs one request through gw without a socket.
func call(gw *gateway.Gateway, token, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.RemoteAddr = "192.0.2.1:1000"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	gw.ServeHTTP(rec, req)
	return rec
}

// BenchmarkTake is one token-bucket decision: one EVALSHA round trip.
func BenchmarkTake(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := context.Background()
	r := gateway.Rate{PerMinute: 600, Burst: 100}
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	for b.Loop() {
		now = now.Add(100 * time.Millisecond) // a token refilled each time: all allowed
		if _, err := s.Take(ctx, "rl:bench", 1, r, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet is one cached answer of 1 KiB read: one GET round trip.
func BenchmarkGet(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := context.Background()
	if err := s.Set(ctx, "ans:bench", make([]byte, 1024), time.Hour, "project:1"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, ok, err := s.Get(ctx, "ans:bench"); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}

// commandCounter counts the commands a client sends, a pipeline's each.
type commandCounter struct{ n atomicInt }

type atomicInt struct {
	mu sync.Mutex
	v  int
	by []string
}

func (c *commandCounter) take() (int, []string) {
	c.n.mu.Lock()
	defer c.n.mu.Unlock()
	n, by := c.n.v, c.n.by
	c.n.v, c.n.by = 0, nil
	return n, by
}

func (c *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.n.mu.Lock()
		c.n.v++
		c.n.by = append(c.n.by, cmd.Name())
		c.n.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (c *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.n.mu.Lock()
		c.n.v += len(cmds)
		for _, cmd := range cmds {
			c.n.by = append(c.n.by, cmd.Name())
		}
		c.n.mu.Unlock()
		return next(ctx, cmds)
	}
}

// A verified caller's call costs one round trip to Redis (the verdict
// read, the rate limit taken and, for a cached call, the answer read, in
// one script); and
// what is enforced stays: a token one gateway forgets (the upstream
// refused it) is verified again by the other at once, and made-up tokens
// leave no key of their own.
func TestRoundTripsPerCall(t *testing.T) {
	t.Parallel()
	addr := redistest.Addr(t)
	_, raw, p := newStore(t)
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	up := sourcehostfake.Start(t, control.WithClock(clk))
	pid, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "private"})
	if err != nil {
		t.Fatal(err)
	}
	var counters []*commandCounter
	var gws []*gateway.Gateway
	for range 2 {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		cc := &commandCounter{}
		rdb.AddHook(cc)
		s := mcpredis.New(rdb, mcpredis.Options{Prefix: p})
		t.Cleanup(func() { s.Close() })
		gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Store: s, Clock: clk,
			RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 100}})
		if err != nil {
			t.Fatal(err)
		}
		gws, counters = append(gws, gw), append(counters, cc)
	}
	tok, err := up.IssueToken("root", "api", "read_user", "read_repository")
	if err != nil {
		t.Fatal(err)
	}
	self, err := up.Client(sourcehost.WithToken(tok)).CurrentToken(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	get := fmt.Sprintf(`{"jsonrpc":"2.0","method":"get_project","params":{"project_id":%d},"id":1}`, pid)
	cached := fmt.Sprintf(`{"jsonrpc":"2.0","method":"get_project","params":{"project_id":%d,"cache_ttl":3600},"id":1}`, pid)
	for i, gw := range gws {
		for _, body := range []string{get, cached} { // the first verifies, and fills the cache
			if rec := call(gw, tok, body); rec.Code != 200 || strings.Contains(rec.Body.String(), `"error"`) {
				t.Fatalf("gateway %d: %d %s", i, rec.Code, rec.Body)
			}
		}
	}
	// A cache miss: a cached call no one made before. Issue 34: it cost a
	// GET of its tag's write mark before the upstream call, a SET and the
	// mark's GET again after (four round trips with the verdict's); now the
	// mark is read with the verdict, and the answer stored only while the
	// mark is unchanged, in one script.
	page := 0
	miss := func() string {
		page++
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"list_issues","params":{"project_id":%d,"page":%d,"cache":true},"id":1}`, pid, page)
	}
	remaining := 100 - 4
	for _, tc := range []struct {
		body string
		want int
	}{{get, 1}, {cached, 1}, {get, 1}} {
		for i, gw := range gws {
			counters[i].take()
			rec := call(gw, tok, tc.body)
			if rec.Code != 200 || strings.Contains(rec.Body.String(), `"error"`) {
				t.Fatalf("gateway %d: %d %s", i, rec.Code, rec.Body)
			}
			remaining--
			if got := rec.Header().Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
				t.Errorf("gateway %d: X-RateLimit-Remaining %s, want %d", i, got, remaining)
			}
			if n, by := counters[i].take(); n != tc.want {
				t.Errorf("gateway %d, %s: %d commands %v, want %d", i, tc.body, n, by, tc.want)
			}
		}
	}

	call(gws[0], tok, miss()) // loads the script (EVALSHA, then EVAL) into a Redis that may not have it
	for range 2 {
		for i, gw := range gws {
			counters[i].take()
			body := miss()
			if rec := call(gw, tok, body); rec.Code != 200 || strings.Contains(rec.Body.String(), `"error"`) {
				t.Fatalf("gateway %d: %d %s", i, rec.Code, rec.Body)
			}
			if n, by := counters[i].take(); n != 2 {
				t.Errorf("gateway %d, a cache miss: %d commands %v, want 2", i, n, by)
			}
			counters[1-i].take()
			if rec := call(gws[1-i], tok, body); rec.Code != 200 || strings.Contains(rec.Body.String(), `"error"`) {
				t.Fatalf("gateway %d: %d %s", 1-i, rec.Code, rec.Body)
			}
			if n, by := counters[1-i].take(); n != 1 {
				t.Errorf("gateway %d, the answer the other stored: %d commands %v, want 1", 1-i, n, by)
			}
		}
	}

	// Revoked: gateway 0 meets the 401 upstream and forgets the token;
	// gateway 1, which knew the token good a moment ago, verifies it again
	// on its next call and refuses it, cached answer or not.
	if err := up.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	if rec := call(gws[0], tok, get); !strings.Contains(rec.Body.String(), `"status":401`) {
		t.Fatalf("the call meeting the revocation: %d %s", rec.Code, rec.Body)
	}
	if rec := call(gws[1], tok, cached); rec.Code != http.StatusUnauthorized {
		t.Errorf("the other gateway's next call: %d %s, want 401", rec.Code, rec.Body)
	}

	// Made-up tokens leave no key of their own: only their verdicts and the
	// verification limits.
	for i := range 20 {
		if rec := call(gws[i%2], "made-up-"+strconv.Itoa(i), get); rec.Code != http.StatusUnauthorized && rec.Code != http.StatusTooManyRequests {
			t.Fatalf("made-up token: %d %s", rec.Code, rec.Body)
		}
	}
	keys, err := raw.Keys(context.Background(), p+"bucket:rl:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	own := "rl:tok:" + strconv.FormatInt(self.ID, 10)
	if !slices.Contains(keys, p+"bucket:"+own) {
		t.Errorf("no bucket of the real token's among %q", keys)
	}
	for _, k := range keys {
		if k := strings.TrimPrefix(k, p+"bucket:"); !strings.HasPrefix(k, "rl:verify:") && k != own {
			t.Errorf("a rate-limit key %q besides the verification limits and the real token's", k)
		}
	}
}

// A bucket key holding what no Store of this version wrote (a hash, as
// earlier versions kept a bucket, or a string of another shape) is taken
// for no bucket, a full one, and replaced: never an error, which would
// turn every call of that caller into an outage of the store.
func TestBucketOfAnotherShape(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, raw, p := newStore(t)
	if err := raw.HSet(ctx, p+"bucket:rl:hash", "tokens", "0", "at_ms", "1", "at_ns", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.Set(ctx, p+"bucket:rl:odd", "0 x", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	r := gateway.Rate{PerMinute: 60, Burst: 10}
	for _, key := range []string{"rl:hash", "rl:odd"} {
		d, err := s.Take(ctx, key, 3, r, now)
		if err != nil || !d.Allowed || d.Remaining != 7 {
			t.Errorf("%s: %+v, %v; want allowed, 7 left of a full bucket", key, d, err)
		}
		v, err := raw.Get(ctx, p+"bucket:"+key).Result()
		if want := "7 " + strconv.FormatInt(now.UnixMilli(), 10) + " 0"; err != nil || v != want {
			t.Errorf("%s: the bucket is now %q (%v), want %q", key, v, err, want)
		}
	}
}
