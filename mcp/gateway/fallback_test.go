package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// downStore is a shared store that can be taken down: while down every
// call fails as an unreachable Redis would.
type downStore struct {
	gateway.Store
	down  atomic.Bool
	calls atomic.Int64
	err   error // what a call fails with while down (default errDown)
}

var errDown = errors.New("dial tcp 127.0.0.1:6390: connect: connection refused")

func (s *downStore) fail() error {
	s.calls.Add(1)
	if s.down.Load() {
		if s.err != nil {
			return s.err
		}
		return errDown
	}
	return nil
}

func (s *downStore) Take(ctx context.Context, key string, n int, r gateway.Rate, now time.Time) (gateway.RateDecision, error) {
	if err := s.fail(); err != nil {
		return gateway.RateDecision{}, err
	}
	return s.Store.Take(ctx, key, n, r, now)
}

func (s *downStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := s.fail(); err != nil {
		return nil, false, err
	}
	return s.Store.Get(ctx, key)
}

func (s *downStore) Set(ctx context.Context, key string, v []byte, ttl time.Duration, tags ...string) error {
	if err := s.fail(); err != nil {
		return err
	}
	return s.Store.Set(ctx, key, v, ttl, tags...)
}

func (s *downStore) Claim(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	if err := s.fail(); err != nil {
		return false, err
	}
	return s.Store.Claim(ctx, key, ttl)
}

func (s *downStore) Ping(ctx context.Context) error {
	if err := s.fail(); err != nil {
		return err
	}
	return nil
}

// A shared store that cannot be reached does not take the gateway with it:
// requests are served from memory, Ready says why, and the store is used
// again once it answers.
func TestSharedStoreOutage(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	shared := &downStore{Store: gateway.NewMemoryStore(clk, gateway.MemoryLimits{})}
	srv, _ := seeded(t, control.WithClock(clk), mcpfake.WithConfig(gateway.Config{Store: shared}))
	gw := srv.Gateway()
	ctx := context.Background()
	if err := gw.Ready(ctx); err != nil {
		t.Fatalf("ready: %v", err)
	}

	shared.down.Store(true)
	for i := range 5 {
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects); rec.Code != 200 {
			t.Fatalf("call %d with the store down: %d %s", i, rec.Code, rec.Body)
		}
	}
	err := gw.Ready(ctx)
	if err == nil || !strings.Contains(err.Error(), "shared store unreachable") || !errors.Is(err, errDown) {
		t.Errorf("Ready with the store down: %v", err)
	}
	if gw.Metrics().StoreFailures == 0 {
		t.Error("no store failure counted")
	}
	// While it is down the gateway does not ask it on every call.
	before := shared.calls.Load()
	serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects)
	if n := shared.calls.Load() - before; n != 0 {
		t.Errorf("%d calls to a store known to be down", n)
	}

	shared.down.Store(false)
	clk.Advance(5 * time.Second)
	if err := gw.Ready(ctx); err != nil {
		t.Errorf("Ready after the store came back: %v", err)
	}
	before = shared.calls.Load()
	if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects); rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if shared.calls.Load() == before {
		t.Error("the store that came back is not used")
	}
}

// errDialTimeout is what go-redis returns when Redis's address does not
// answer at all (a host gone, a firewall dropping packets): the dial's i/o
// timeout, which errors.Is reports as context.DeadlineExceeded though no
// caller gave up.
var errDialTimeout = fmt.Errorf("mcpredis: take: dial tcp 10.0.0.9:6379: i/o timeout (%w)", context.DeadlineExceeded)

// A shared store whose dial times out is an outage like a refused
// connection: the gateway falls back to memory, so the rate limit still
// holds, and Ready says so. (It was taken for a caller that gave up: the
// rate limit let everything through and Ready said all was well.)
func TestSharedStoreDialTimeoutIsAnOutage(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	shared := &downStore{Store: gateway.NewMemoryStore(clk, gateway.MemoryLimits{}), err: errDialTimeout}
	srv, _ := seeded(t, control.WithClock(clk), mcpfake.WithConfig(gateway.Config{Store: shared,
		RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 2}}))
	gw := srv.Gateway()
	shared.down.Store(true)
	for i, want := range []int{200, 200, 429} {
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects); rec.Code != want {
			t.Errorf("call %d with the store's dial timing out: %d, want %d (%s)", i, rec.Code, want, rec.Body)
		}
	}
	if err := gw.Ready(context.Background()); err == nil || !errors.Is(err, errDialTimeout) {
		t.Errorf("Ready with the store's dial timing out: %v, want the outage", err)
	}
	if gw.Metrics().StoreFailures == 0 {
		t.Error("no store failure counted")
	}
}

// A caller that gives up while the shared store is asked says nothing of
// the store: it is not taken for down.
func TestCallerGivingUpIsNoOutage(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	shared := &downStore{Store: gateway.NewMemoryStore(clk, gateway.MemoryLimits{}), err: fmt.Errorf("mcpredis: ping: %w", context.Canceled)}
	gw, err := gateway.New(gateway.Config{Upstream: "http://127.0.0.1:1", Store: shared, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	shared.down.Store(true)
	gw.Ready(ctx)
	shared.down.Store(false)
	if err := gw.Ready(context.Background()); err != nil || gw.Metrics().StoreFailures != 0 {
		t.Errorf("after a caller gave up: Ready %v, %d store failures; want neither", err, gw.Metrics().StoreFailures)
	}
}

// The memory store keeps to its byte bound, dropping the least recently
// used, and never drops a claim to make room.
func TestMemoryStoreBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	s := gateway.NewMemoryStore(clk, gateway.MemoryLimits{MaxBytes: 64 << 10, MaxClaims: 3, MaxBuckets: 2})
	value := make([]byte, 1000)
	for i := range 1000 {
		if err := s.Set(ctx, fmt.Sprintf("ans:%d", i), value, time.Hour, "project:1"); err != nil {
			t.Fatal(err)
		}
		if i == 10 { // keep the first one in use
			s.Get(ctx, "ans:0")
		}
	}
	st := s.Stats()
	if st.Bytes > 64<<10 || st.Values == 0 {
		t.Errorf("stats %+v: over the bound of %d bytes", st, 64<<10)
	}
	if _, ok, _ := s.Get(ctx, "ans:999"); !ok {
		t.Error("the newest value was dropped")
	}
	if _, ok, _ := s.Get(ctx, "ans:500"); ok {
		t.Error("an old value outlived the bound")
	}
	s.Invalidate(ctx, "project:1")
	if st := s.Stats(); st.Values != 0 || st.Bytes != 0 {
		t.Errorf("after invalidating the only tag: %+v", st)
	}
	if err := s.Set(ctx, "huge", make([]byte, 1<<20), time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "huge"); ok {
		t.Error("a value larger than the whole store was kept")
	}

	for i := range 3 {
		if ok, err := s.Claim(ctx, fmt.Sprint("sig:", i), time.Minute); !ok || err != nil {
			t.Fatalf("claim %d: %v %v", i, ok, err)
		}
	}
	if ok, _ := s.Claim(ctx, "sig:0", time.Minute); ok {
		t.Error("a claim was granted twice")
	}
	if _, err := s.Claim(ctx, "sig:3", time.Minute); !errors.Is(err, gateway.ErrStoreFull) {
		t.Errorf("a fourth claim: %v, want ErrStoreFull", err)
	}
	clk.Advance(time.Minute)
	if ok, err := s.Claim(ctx, "sig:3", time.Minute); !ok || err != nil {
		t.Errorf("a claim once the others ended: %v %v", ok, err)
	}

	r := gateway.Rate{PerMinute: 60, Burst: 1}
	for _, k := range []string{"a", "b", "c"} {
		s.Take(ctx, k, 1, r, clk.Now())
	}
	if st := s.Stats(); st.Buckets != 2 {
		t.Errorf("%d buckets kept, bound 2", st.Buckets)
	}
}

// BenchmarkMemoryStoreSetFull is an insert into a full cache: constant
// time, whatever the store holds (it was a scan of every entry, 149 µs at
// 10,000 entries).
func BenchmarkMemoryStoreSetFull(b *testing.B) {
	ctx := context.Background()
	for _, held := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint("held=", held), func(b *testing.B) {
			value := make([]byte, 512)
			per := int64(len(value)) + 200
			s := gateway.NewMemoryStore(nil, gateway.MemoryLimits{MaxBytes: int64(held) * per})
			for i := range held {
				s.Set(ctx, fmt.Sprintf("ans:%08d", i), value, time.Hour, "project:1")
			}
			keys := make([]string, 1024)
			for i := range keys {
				keys[i] = fmt.Sprintf("new:%08d", i)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s.Set(ctx, keys[i%len(keys)], value, time.Hour, "project:1")
				i++
			}
		})
	}
}

// While the shared store is down, a replica checks signed requests for
// replays in its own memory, which the other replicas cannot see: by
// default it serves them (a request signed meanwhile could be sent once
// more to each other replica), and remembers them after the store is back
// (it served one of them again then); with SharedReplayCheckOnly it
// refuses them with 503 and the store's retry interval, and serves them
// again, replays still refused, once the store answers.
func TestSignedRequestsDuringAnOutage(t *testing.T) {
	t.Parallel()
	const secret = "shared-secret"
	for _, only := range []bool{false, true} {
		clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
		shared := &downStore{Store: gateway.NewMemoryStore(clk, gateway.MemoryLimits{})}
		srv, _ := seeded(t, control.WithClock(clk), mcpfake.WithConfig(gateway.Config{Store: shared,
			Security: gateway.SecurityConfig{SigningSecret: secret, SharedReplayCheckOnly: only}}))
		signed := func() *httptest.ResponseRecorder {
			sig := mcp.SignRequest([]byte(secret), clk.Now(), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects))
			return serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects, mcp.SignatureHeader, sig)
		}
		if rec := signed(); rec.Code != 200 {
			t.Fatalf("only=%v: a signed call with the store up: %d %s", only, rec.Code, rec.Body)
		}

		shared.down.Store(true)
		outage := mcp.SignRequest([]byte(secret), clk.Now(), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects))
		rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects, mcp.SignatureHeader, outage)
		switch {
		case !only && rec.Code != 200:
			t.Errorf("default: a signed call with the store down: %d %s, want it served from memory", rec.Code, rec.Body)
		case only && (rec.Code != 503 || rec.Header().Get("Retry-After") != "5" || !strings.Contains(rec.Body.String(), "shared replay store")):
			t.Errorf("shared only: a signed call with the store down: %d Retry-After %q %s, want 503 after 5 s",
				rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
		// Signatures are required: an unsigned call is refused as ever.
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects); rec.Code == 200 {
			t.Errorf("only=%v: an unsigned call was served", only)
		}

		shared.down.Store(false)
		clk.Advance(5 * time.Second)
		sig := mcp.SignRequest([]byte(secret), clk.Now(), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects))
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects, mcp.SignatureHeader, sig); rec.Code != 200 {
			t.Fatalf("only=%v: a signed call once the store is back: %d %s", only, rec.Code, rec.Body)
		}
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects, mcp.SignatureHeader, sig); rec.Code == 200 {
			t.Errorf("only=%v: the same signed call again was served: a replay", only)
		}
		// The call signed during the outage: served then by default, and
		// remembered by this replica though the store never saw it; refused
		// then with SharedReplayCheckOnly, and not taken for a replay of
		// itself now.
		rec = serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects, mcp.SignatureHeader, outage)
		if wantServed := only; (rec.Code == 200) != wantServed {
			t.Errorf("only=%v: the call signed during the outage, sent again once the store is back: %d %s, want served %v",
				only, rec.Code, rec.Body, wantServed)
		}
	}
}

// downGetTaker is a downStore that reads a verdict and takes a rate limit
// in one step, as mcpredis.Store does.
type downGetTaker struct {
	*downStore
	gt gateway.GetTaker
}

func (s *downGetTaker) GetTake(ctx context.Context, q gateway.GetTakeRequest) (gateway.GetTakeResult, error) {
	if err := s.fail(); err != nil {
		return gateway.GetTakeResult{}, err
	}
	return s.gt.GetTake(ctx, q)
}

// A shared store that reads the verdict and takes the rate limit in one
// step is asked once per call while it answers; while it does not, the
// gateway serves from memory with the limit still held; and once it is
// back it is asked again.
func TestSharedGetTakerOutage(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	mem := gateway.NewMemoryStore(clk, gateway.MemoryLimits{})
	shared := &downGetTaker{downStore: &downStore{Store: mem}, gt: mem}
	srv, pid := seeded(t, control.WithClock(clk), mcpfake.WithConfig(gateway.Config{Store: shared,
		RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 4}}))
	cached := fmt.Sprintf(`{"jsonrpc":"2.0","method":"get_project","params":{"project_id":%d,"cache_ttl":600},"id":1}`, pid)
	for i, body := range []string{listProjects, cached} { // the first verifies, the second fills the cache
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), body); rec.Code != 200 {
			t.Fatalf("call %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	for i, body := range []string{listProjects, cached} {
		before := shared.calls.Load()
		rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), body)
		if rec.Code != 200 || strings.Contains(rec.Body.String(), `"error"`) {
			t.Fatalf("call %d: %d %s", i, rec.Code, rec.Body)
		}
		if n := shared.calls.Load() - before; n != 1 {
			t.Errorf("call %d (%s): %d calls to the store, want 1", i, body, n)
		}
	}
	if m := srv.Gateway().Metrics(); m.CacheHits != 1 {
		t.Errorf("cache hits %d, want 1", m.CacheHits)
	}

	// Down: served from memory, which has seen no verdict (verified again)
	// and holds its own bucket: four pass, the fifth is refused.
	shared.down.Store(true)
	for i, want := range []int{200, 200, 200, 200, 429} {
		if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects); rec.Code != want {
			t.Fatalf("call %d with the store down: %d %s, want %d", i, rec.Code, rec.Body, want)
		}
	}

	// Back: the shared bucket (two spent above, refilled since) is used
	// again, in one step.
	shared.down.Store(false)
	clk.Advance(5 * time.Second)
	before := shared.calls.Load()
	rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects)
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if n := shared.calls.Load() - before; n != 1 {
		t.Errorf("after the store came back: %d calls to it, want 1", n)
	}
	if got := rec.Header().Get("X-RateLimit-Remaining"); got != "3" {
		t.Errorf("X-RateLimit-Remaining %s, want 3 (the shared bucket)", got)
	}
}

// funcStore is a Store that is a value of a type == cannot compare: a
// struct with a func in it, as a user's wrapper around a store may be.
type funcStore struct {
	gateway.Store
	onCall func()
}

func (s funcStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	s.onCall()
	return s.Store.Get(ctx, key)
}

// A shared store of a type that cannot be compared serves: the gateway
// panicked comparing it with itself on every call (runtime error:
// comparing uncomparable type), found when the Redis overhead benchmark
// gave the gateway such a store.
func TestSharedStoreOfAnUncomparableType(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	shared := funcStore{Store: gateway.NewMemoryStore(nil, gateway.MemoryLimits{}), onCall: func() { calls.Add(1) }}
	srv, _ := seeded(t, mcpfake.WithConfig(gateway.Config{Store: shared}))
	if rec := serveDirect(srv, "192.0.2.1:1", srv.Token(), listProjects); rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if calls.Load() == 0 {
		t.Error("the shared store was not asked")
	}
}
