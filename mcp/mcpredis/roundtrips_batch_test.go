package mcpredis_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/mcpredis"
)

// A batch of a verified caller costs one round trip to Redis, as a single
// call does: the verdict read and the batch's requests taken from the rate
// limit in one script. Issue 34: a batch read the verdict, then took its
// requests in a second round trip.
func TestBatchRoundTrips(t *testing.T) {
	t.Parallel()
	addr := redistest.Addr(t)
	_, _, p := newStore(t)
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	up := sourcehostfake.Start(t, control.WithClock(clk))
	pid, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "private"})
	if err != nil {
		t.Fatal(err)
	}
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
	get := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","method":"get_project","params":{"project_id":%d},"id":%d}`, pid, id)
	}
	// The first call verifies the token, the second loads the script
	// (EVALSHA, then EVAL) into a Redis that may not have it yet.
	for i := range 2 {
		if rec := call(gw, up.Token(), get(1)); rec.Code != 200 {
			t.Fatalf("call %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	remaining := 98
	for _, n := range []int{1, 2, 5} {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = get(i + 1)
		}
		cc.take()
		rec := call(gw, up.Token(), "["+strings.Join(parts, ",")+"]")
		if rec.Code != 200 || strings.Count(rec.Body.String(), `"result"`) != n {
			t.Fatalf("batch of %d: %d %s", n, rec.Code, rec.Body)
		}
		remaining -= n
		if got := rec.Header().Get("X-RateLimit-Remaining"); got != strconv.Itoa(remaining) {
			t.Errorf("batch of %d: X-RateLimit-Remaining %s, want %d", n, got, remaining)
		}
		if got, by := cc.take(); got != 1 {
			t.Errorf("batch of %d: %d commands %v, want 1", n, got, by)
		}
	}
	// A batch over the caller's allowance is refused whole, still in one
	// round trip, and takes nothing.
	parts := make([]string, remaining+1)
	for i := range parts {
		parts[i] = get(i + 1)
	}
	cc.take()
	rec := call(gw, up.Token(), "["+strings.Join(parts, ",")+"]")
	if !strings.Contains(rec.Body.String(), `"status":429`) {
		t.Errorf("a batch over the allowance: %d %.200s", rec.Code, rec.Body)
	}
	if got, by := cc.take(); got != 1 {
		t.Errorf("a refused batch: %d commands %v, want 1", got, by)
	}
	if rec := call(gw, up.Token(), get(1)); rec.Code != 200 || rec.Header().Get("X-RateLimit-Remaining") != strconv.Itoa(remaining-1) {
		t.Errorf("after the refused batch: %d, remaining %s, want %d", rec.Code, rec.Header().Get("X-RateLimit-Remaining"), remaining-1)
	}
}
