package mcpredis_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/internal/storetest"
	"github.com/apitwin/apitwin/mcp/mcpredis"
)

// How lossyProxy loses an answer.
type lossMode int

const (
	// silent: the answer never comes, and the client's read times out.
	silent lossMode = iota
	// cut: the connection closes instead of answering (the client reads
	// EOF), as one broken after Redis ran the command.
	cut
	// unsent: the connection closes as the command comes, before Redis
	// has it, as one a restart of Redis broke.
	unsent
)

func (m lossMode) String() string { return [...]string{"timeout", "cut", "unsent"}[m] }

// lossyProxy is a loopback TCP proxy in front of Redis that loses one
// answer when told to: after lose(marker), the first answer that is not
// an error (so, of a command Redis ran) to a command whose bytes hold
// marker is never delivered (in mode unsent, the command itself is not).
// go-redis retries after a timeout and after a broken connection alike,
// so it sends the command again, on another connection; the proxy runs
// between (when not nil) before passing that repeat on, and passes
// everything else as it comes.
type lossyProxy struct {
	ln     net.Listener
	target string
	mode   lossMode
	wg     sync.WaitGroup

	mu      sync.Mutex
	conns   []net.Conn
	marker  []byte        // the key whose command loses its answer
	armed   bool          // no answer lost yet
	between func()        // runs before the repeat goes on
	lost    chan struct{} // closed once the answer is lost
}

func newLossyProxy(t *testing.T, target string, mode lossMode) *lossyProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &lossyProxy{ln: ln, target: target, mode: mode}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.serve(c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *lossyProxy) addr() string { return p.ln.Addr().String() }

// lose arms the proxy for the next command naming marker; lost reports
// whether its answer was lost since.
func (p *lossyProxy) lose(marker string, between func()) (lost func() bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	p.marker, p.armed, p.between, p.lost = []byte(marker), true, between, ch
	return func() bool {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
}

// names reports whether data (a command on its way to Redis, tail the end
// of the connection's previous bytes, at most 256) names the marker, and
// whether the proxy is armed for it. A command naming it once the answer was lost is
// the repeat: between runs first (once), holding that command back.
func (p *lossyProxy) names(tail, data []byte) (doom bool) {
	p.mu.Lock()
	marker, armed, between := p.marker, p.armed, p.between
	if marker == nil {
		p.mu.Unlock()
		return false
	}
	// Of tail only what can begin a marker that data ends: a marker seen
	// whole before is not seen again.
	tail = tail[min(len(tail), max(0, len(tail)-len(marker)+1)):]
	if !bytes.Contains(append(tail, data...), marker) {
		p.mu.Unlock()
		return false
	}
	if !armed {
		p.between = nil
	}
	p.mu.Unlock()
	if !armed && between != nil {
		between()
	}
	return armed
}

// loseNow reports whether the answer on its way is to be lost: the proxy
// is armed, and it disarms.
func (p *lossyProxy) loseNow() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.armed {
		return false
	}
	p.armed = false
	close(p.lost)
	return true
}

func (p *lossyProxy) serve(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	p.mu.Lock()
	p.conns = append(p.conns, client, server)
	p.mu.Unlock()
	closeBoth := func() { client.Close(); server.Close() }
	// doomed: this connection sent a command naming the marker while
	// armed, so its next answer is the one to lose. go-redis sends a
	// command only once the answer before it is read, so that next answer
	// is the command's.
	var doomed atomic.Bool
	p.wg.Go(func() {
		defer closeBoth()
		buf := make([]byte, 32<<10)
		var tail []byte
		for {
			n, err := client.Read(buf)
			if n > 0 {
				if p.names(tail, buf[:n]) {
					if p.mode == unsent && p.loseNow() {
						return
					}
					doomed.Store(true)
				}
				tail = append(tail[:0], buf[max(0, n-256):n]...)
				if _, err := server.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
	defer closeBoth()
	buf := make([]byte, 32<<10)
	mute := false
	for {
		n, err := server.Read(buf)
		if n > 0 && doomed.Swap(false) && buf[0] != '-' && p.loseNow() {
			if p.mode == cut {
				return
			}
			mute = true // until the client, its read timed out, hangs up
		}
		if n > 0 && !mute {
			if _, err := client.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// lossyStore is a Store behind a lossyProxy: a storetest.Retrier.
type lossyStore struct {
	*mcpredis.Store
	proxy *lossyProxy
}

func (s lossyStore) LoseAnswer(t *testing.T, key string, between func()) func() bool {
	return s.proxy.lose(key, between)
}

var _ storetest.Retrier = lossyStore{}

// openLossy opens a Store through a lossyProxy to the test Redis, under a
// prefix of its own whose keys go when the test ends, and a Store straight
// to Redis on the same keys, to look. In mode silent its read timeout is
// Open's default, and every lost answer costs one, 250 ms; in the other
// modes a lost answer breaks the connection, so no read needs to time
// out, and a long one keeps a loaded machine from making a slow answer
// look lost.
func openLossy(t *testing.T, mode lossMode) (lossy lossyStore, direct *mcpredis.Store, raw *redis.Client, prefix string) {
	t.Helper()
	direct, raw, prefix = newStore(t)
	proxy := newLossyProxy(t, redistest.Addr(t), mode)
	opts := mcpredis.Options{Prefix: prefix}
	if mode != silent {
		opts.ReadTimeout = 30 * time.Second
	}
	s := mcpredis.Open(proxy.addr(), opts)
	t.Cleanup(func() { s.Close() })
	return lossyStore{s, proxy}, direct, raw, prefix
}

// A command whose answer was lost after Redis ran it, which go-redis sends
// again (after its read timed out, or its connection broke), changes the
// state once and answers as its first run did: a Take does not spend the
// caller's tokens twice, a GetTake neither (nor loses its take when the
// verdict went between the runs), and a Claim of a fresh key is new, not
// refused as a replay. The conformance suite's RunTwice case, over a
// proxy that loses one answer (TestConformance's stores lose none).
func TestCommandRunTwice(t *testing.T) {
	t.Parallel()
	for _, mode := range []lossMode{silent, cut} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			s, _, _, _ := openLossy(t, mode)
			storetest.RunTwice(t, s)
		})
	}
}

// Each operation's trace (the answer a repeat gets) expires after a few
// seconds, as long as its client can take to send it again (plus a
// margin); an operation that only reads leaves none, and a Claim's trace
// is its record's value.
func TestOperationTraces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, raw, p := newStore(t)
	traces := func() []string {
		t.Helper()
		keys, err := raw.Keys(ctx, p+"op:*").Result()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	r := gateway.Rate{PerMinute: 60, Burst: 10}
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	if _, err := s.Take(ctx, "rl:a", 1, r, now); err != nil {
		t.Fatal(err)
	}
	// Read only: no value, another value.
	if err := s.Set(ctx, "tok:a", []byte("other"), time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"tok:none", "tok:a"} {
		if res, err := s.GetTake(ctx, gateway.GetTakeRequest{Key: key, Want: []byte("good"), Bucket: "rl:a", N: 1, Rate: r, Now: now}); err != nil || res.Taken {
			t.Fatalf("%s: %+v %v", key, res, err)
		}
	}
	if _, err := s.Claim(ctx, "sig:a", time.Minute); err != nil {
		t.Fatal(err)
	}
	keys := traces()
	if len(keys) != 1 {
		t.Fatalf("traces %q: want the one of the Take (a Claim's trace is its value)", keys)
	}
	// Open's client: one retry of at most 0.25 s read, 1 s backoff, 0.5 s
	// for a connection and 0.25 s write, and 5 s of margin.
	const life = 7 * time.Second
	if d, err := raw.PTTL(ctx, keys[0]).Result(); err != nil || d > life || d < life-5*time.Second {
		t.Errorf("a trace lives %s (%v), want %s (less the time the test took)", d, err, life)
	}

	// A client of go-redis's defaults, given to New, retries three times,
	// each after a 5 s read, a 1 s backoff, 6 s for a connection and a 5 s
	// write: its traces live 56 s.
	rdb := redis.NewClient(&redis.Options{Addr: redistest.Addr(t)})
	d := mcpredis.New(rdb, mcpredis.Options{Prefix: p})
	defer d.Close()
	if _, err := d.Take(ctx, "rl:b", 1, r, now); err != nil {
		t.Fatal(err)
	}
	all := traces()
	if len(all) != 2 {
		t.Fatalf("traces %q: want two", all)
	}
	k := all[0]
	if k == keys[0] {
		k = all[1]
	}
	if d, err := raw.PTTL(ctx, k).Result(); err != nil || d > 56*time.Second || d < 51*time.Second {
		t.Errorf("a trace of a default client lives %s (%v), want 56 s", d, err)
	}
}

// Claim, a script since it records its id, still reports a Redis out of
// memory (maxmemory reached, maxmemory-policy noeviction) as
// gateway.ErrStoreFull, as it did when it was a plain SET.
func TestClaimOnFullRedis(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer raw.Close()
	s := mcpredis.Open(srv.Addr(), mcpredis.Options{})
	defer s.Close()
	if fresh, err := s.Claim(ctx, "sig:before", time.Minute); !fresh || err != nil {
		t.Fatalf("claim: %v %v", fresh, err)
	}
	if err := raw.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Claim(ctx, "sig:after", time.Minute)
	if !errors.Is(err, gateway.ErrStoreFull) {
		t.Errorf("claim on a full Redis: %v, want ErrStoreFull", err)
	}
	_, err = s.Take(ctx, "rl:a", 1, gateway.Rate{PerMinute: 60, Burst: 10}, time.Now())
	if err == nil {
		t.Error("take on a full Redis: no error")
	}
	// Reads still answer: the claim made before is there.
	if v, err := raw.Get(ctx, mcpredis.DefaultPrefix+"sig:before").Result(); err != nil || v == "" {
		t.Errorf("the claim made before: %q %v", v, err)
	}
}

// A connection that breaks with a command on it, before Redis has the
// command (as a restart of Redis breaks the connections of the pool), does
// not fail the command: go-redis sends it again on a new connection. That
// is why Open keeps one retry (without it, this test fails), and why every
// command must be safe to run twice.
func TestBrokenConnectionIsNoOutage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, direct, _, _ := openLossy(t, unsent)
	r := gateway.Rate{PerMinute: 60, Burst: 10}
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	calls := []struct {
		key  string
		call func() error
	}{
		{"rl:a", func() error {
			d, err := s.Take(ctx, "rl:a", 1, r, now)
			if err == nil && d.Remaining != 9 {
				t.Errorf("take: %+v", d)
			}
			return err
		}},
		{"sig:a", func() error {
			fresh, err := s.Claim(ctx, "sig:a", time.Minute)
			if err == nil && !fresh {
				t.Error("claim: not new")
			}
			return err
		}},
		{"ans:a", func() error { return s.Set(ctx, "ans:a", []byte("v"), time.Minute, "project:1") }},
		{"ans:a", func() error {
			v, ok, err := s.Get(ctx, "ans:a")
			if err == nil && (!ok || string(v) != "v") {
				t.Errorf("get: %q %v", v, ok)
			}
			return err
		}},
	}
	for _, c := range calls {
		lost := s.proxy.lose(c.key, nil)
		if err := c.call(); err != nil {
			t.Errorf("%s, its connection broken: %v", c.key, err)
		}
		if !lost() {
			t.Fatalf("%s: no connection was broken", c.key)
		}
	}
	if d, err := direct.Take(ctx, "rl:a", 0, r, now); err != nil || d.Remaining != 9 {
		t.Errorf("the bucket after: %+v %v", d, err)
	}
}

// BenchmarkClaim is one signature recorded: one EVALSHA round trip.
func BenchmarkClaim(b *testing.B) {
	s, _, _ := newStore(b)
	ctx := context.Background()
	keys := make([]string, 0, 1<<16)
	for i := range cap(keys) {
		keys = append(keys, "sig:bench:"+strconv.Itoa(i))
	}
	i := 0
	for b.Loop() {
		if fresh, err := s.Claim(ctx, keys[i%len(keys)], time.Minute); err != nil || !fresh && i < len(keys) {
			b.Fatal(fresh, err)
		}
		i++
	}
}
