package mcpredis_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/internal/storetest"
	"github.com/apitwin/apitwin/mcp/mcpredis"
)

// clusterStore opens a Store on addrs (a cluster's nodes) under a fresh
// prefix, which has no hash tag of its own: the Store takes it as one. Its
// keys go, and it closes, when the test ends.
func clusterStore(tb testing.TB, addrs []string, p string) *mcpredis.Store {
	tb.Helper()
	s, err := mcpredis.OpenCluster(addrs, mcpredis.Options{Prefix: p})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		s.Close()
		raw := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
		defer raw.Close()
		ctx := context.Background()
		_ = raw.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			keys, _ := m.Keys(ctx, "{"+p+"}*").Result()
			if len(keys) > 0 {
				m.Del(ctx, keys...)
			}
			return nil
		})
	})
	return s
}

// The Store on a Redis Cluster of three masters passes the suite every
// gateway.Store passes: every script's keys are in one slot, or Redis
// would refuse them (CROSSSLOT).
func TestClusterConformance(t *testing.T) {
	t.Parallel()
	addrs := redistest.ClusterAddrs(t)
	storetest.Run(t, func(t *testing.T) gateway.Store { return clusterStore(t, addrs, prefix(t)) })
}

// A prefix without a hash tag is taken as one on a cluster, so every key
// of a Store is in the slot of its prefix; one with a tag is kept.
func TestClusterKeysShareASlot(t *testing.T) {
	t.Parallel()
	addrs := redistest.ClusterAddrs(t)
	ctx := context.Background()
	for _, p := range []string{prefix(t), "{" + strings.TrimSuffix(prefix(t), ":") + "}:"} {
		s, err := mcpredis.OpenCluster(addrs, mcpredis.Options{Prefix: p})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Set(ctx, "ans:a", []byte("v"), time.Minute, "project:1", "project:2"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Take(ctx, "rl:tok:1", 1, gateway.Rate{PerMinute: 60, Burst: 10}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Claim(ctx, "sig:x", time.Minute); err != nil {
			t.Fatal(err)
		}
		raw := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
		defer raw.Close()
		tagged := p
		if !strings.Contains(p, "{") {
			tagged = "{" + p + "}"
		}
		var keys []string
		var mu sync.Mutex // ForEachMaster asks the masters at once
		_ = raw.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			ks, err := m.Keys(ctx, "*"+strings.Trim(tagged, "{}:")+"*").Result()
			mu.Lock()
			keys = append(keys, ks...)
			mu.Unlock()
			return err
		})
		if len(keys) < 5 {
			t.Fatalf("prefix %q: keys %v, want the answer, two tags, a bucket and a claim", p, keys)
		}
		for _, k := range keys {
			if !strings.HasPrefix(k, tagged) || redistest.Slot(k) != redistest.Slot(tagged) {
				t.Errorf("prefix %q: key %q in slot %d, not under %q (slot %d)", p, k, redistest.Slot(k), tagged, redistest.Slot(tagged))
			}
		}
		if err := raw.Del(ctx, keys...).Err(); err != nil { // one slot: one command
			t.Errorf("removing the keys: %v", err)
		}
	}
}

// clusterGateways starts n gateways, each with a Store of its own on the
// cluster at addrs under one prefix, over one upstream on one fake clock.
func clusterGateways(t *testing.T, addrs []string, n int) ([]*gateway.Gateway, []*mcpredis.Store, *sourcehostfake.Server, *clock.Fake) {
	t.Helper()
	p := prefix(t)
	clk := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	up := sourcehostfake.Start(t, control.WithClock(clk))
	var gws []*gateway.Gateway
	var stores []*mcpredis.Store
	for range n {
		s := clusterStore(t, addrs, p)
		gw, err := gateway.New(gateway.Config{Upstream: up.URL(), Store: s, Clock: clk,
			RateLimit: gateway.RateLimitConfig{PerMinute: 60, Burst: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if err := gw.Ready(context.Background()); err != nil {
			t.Fatalf("Ready: %v", err)
		}
		gws, stores = append(gws, gw), append(stores, s)
	}
	return gws, stores, up, clk
}

// Two gateways on a Redis Cluster enforce one rate limit per token
// together, and a token one of them finds revoked is refused by the other
// on its next call.
func TestClusterGatewaysShareLimitAndRevocation(t *testing.T) {
	t.Parallel()
	gws, _, up, clk := clusterGateways(t, redistest.ClusterAddrs(t), 2)
	for i, want := range []int{200, 200, 200, 429, 429} {
		if rec := call(gws[i%2], up.Token(), listProjects); rec.Code != want {
			t.Fatalf("call %d (gateway %d): %d %s; want %d", i, i%2, rec.Code, rec.Body, want)
		}
	}
	clk.Advance(time.Minute) // the buckets are full again
	tok, err := up.IssueToken("root", "api", "read_user", "read_repository")
	if err != nil {
		t.Fatal(err)
	}
	for i, gw := range gws {
		if rec := call(gw, tok, listProjects); rec.Code != 200 {
			t.Fatalf("gateway %d with a good token: %d %s", i, rec.Code, rec.Body)
		}
	}
	if err := up.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	if rec := call(gws[0], tok, listProjects); !strings.Contains(rec.Body.String(), `"status":401`) {
		t.Fatalf("the call meeting the revocation: %d %s", rec.Code, rec.Body)
	}
	if rec := call(gws[1], tok, listProjects); rec.Code != http.StatusUnauthorized {
		t.Errorf("the other gateway's next call: %d %s, want 401", rec.Code, rec.Body)
	}
}

// A failed master of the cluster, the one that holds the gateways' slot,
// is an error from the Store that says what failed, never a decision; the
// gateways say so in Ready and go on limiting each caller from their own
// memory (limits per replica, as when a single Redis is down): a caller
// over its burst is still refused, never let through unlimited.
func TestClusterFailedMaster(t *testing.T) {
	t.Parallel()
	cl := redistest.StartCluster(t)
	gws, stores, up, _ := clusterGateways(t, cl.Addrs(), 2)
	for i, want := range []int{200, 200, 200, 429} {
		if rec := call(gws[i%2], up.Token(), listProjects); rec.Code != want {
			t.Fatalf("call %d (gateway %d): %d %s; want %d", i, i%2, rec.Code, rec.Body, want)
		}
	}
	// The master of the slot all the keys share (the prefix's hash tag).
	probe, err := stores[0].Take(context.Background(), "rl:probe", 1, gateway.Rate{PerMinute: 60, Burst: 1}, time.Now())
	if err != nil || !probe.Allowed {
		t.Fatalf("probe before the failure: %+v %v", probe, err)
	}
	cl.Stop(cl.NodeOf(stores[0].Prefix()))

	ctx := context.Background()
	if _, err := stores[1].Take(ctx, "rl:probe", 1, gateway.Rate{PerMinute: 60, Burst: 1}, time.Now()); err == nil || !strings.HasPrefix(err.Error(), "mcpredis: take: ") {
		t.Errorf("Take with the slot's master down: %v, want an error", err)
	}
	if err := stores[1].Ping(ctx); err == nil {
		t.Error("Ping with the slot's master down answered nil")
	}
	for g, gw := range gws {
		allowed := 0
		for range 10 {
			switch rec := call(gw, up.Token(), listProjects); rec.Code {
			case 200:
				allowed++
			case 429:
			default:
				t.Fatalf("gateway %d with the master down: %d %s", g, rec.Code, rec.Body)
			}
		}
		if allowed > 3 {
			t.Errorf("gateway %d let %d of 10 calls through with the master down, more than the burst of 3", g, allowed)
		}
		if err := gw.Ready(ctx); err == nil || !strings.Contains(err.Error(), "shared store") {
			t.Errorf("gateway %d Ready with the master down: %v", g, err)
		}
	}
}
