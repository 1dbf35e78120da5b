package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/internal/testtools"
)

// Two replicas on a Redis Cluster (redis.cluster) act as one gateway, as
// on one Redis: one rate limit per token, and a token one of them finds
// revoked upstream refused by the other on its next request.
func TestProcessesOnRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as processes")
	}
	t.Parallel()
	addrs := redistest.ClusterAddrs(t)
	pt := &procTest{bin: testtools.ProgramPath(t, "mcp-gateway")}
	prefix := fmt.Sprintf("mcp-gateway-cluster-test:%d:%d:", os.Getpid(), redisPrefixes.Add(1))
	t.Cleanup(func() {
		rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
		defer rdb.Close()
		ctx := context.Background()
		err := rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			keys, err := m.Keys(ctx, "{"+prefix+"}*").Result()
			if err == nil && len(keys) > 0 {
				err = m.Del(ctx, keys...).Err()
			}
			return err
		})
		if err != nil {
			t.Errorf("removing the test's keys: %v", err)
		}
	})
	up := upstream(t)
	config := fmt.Sprintf("upstream: %s\nredis:\n  cluster: [%s]\n  prefix: %q\nrate_limit:\n  per_minute: 1\n  burst: 4\n",
		up.URL(), strings.Join(addrs, ", "), prefix)
	a, b := pt.start(t, config, nil), pt.start(t, config, nil)
	for _, p := range []*proc{a, b} {
		if code, _, body := get(t, p.base+"/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
			t.Fatalf("/readyz of a replica: %d %s; stderr:\n%s", code, body, p.logs)
		}
	}

	tok := newToken(t, up)
	for i := range 4 {
		code, h, body := post(t, []*proc{a, b}[i%2].url, tok, listProjects)
		if code != 200 || h.Get("X-RateLimit-Remaining") != strconv.Itoa(3-i) {
			t.Fatalf("call %d: %d, X-RateLimit-Remaining %s, %s; want 200, %d (one bucket for both)", i+1, code, h.Get("X-RateLimit-Remaining"), body, 3-i)
		}
	}
	for i, p := range []*proc{a, b} {
		if code, _, body := post(t, p.url, tok, listProjects); code != http.StatusTooManyRequests {
			t.Errorf("replica %c over the shared burst: %d %s, want 429", "AB"[i], code, body)
		}
	}

	other := newToken(t, up)
	if code, _, body := post(t, b.url, other, cachedListProjects); code != 200 {
		t.Fatalf("B, cached call: %d %s", code, body)
	}
	if err := up.RevokeToken(other); err != nil {
		t.Fatal(err)
	}
	if code, _, body := post(t, a.url, other, listProjects); code != 200 || !strings.Contains(body, `"status":401`) {
		t.Fatalf("A, the call meeting the revocation: %d %s", code, body)
	}
	if code, _, body := post(t, b.url, other, cachedListProjects); code != http.StatusUnauthorized {
		t.Errorf("B, next request: %d %s, want 401", code, body)
	}
}

// redis.cluster is refused with redis.address, with a database other than
// 0 (a cluster has none), or with a node that is not host:port.
func TestRedisClusterSettingsRefused(t *testing.T) {
	t.Parallel()
	const up = "upstream: https://git.example\n"
	for _, tc := range []struct{ name, file, want string }{
		{"with address", up + "redis:\n  address: redis:6379\n  cluster: [redis-1:6379]\n", "redis.cluster: is instead of redis.address"},
		{"with a database", up + "redis:\n  cluster: [redis-1:6379]\n  db: 2\n", "redis.db: must be 0 on a cluster"},
		{"bad node", up + "redis:\n  cluster: [redis-1:6379, redis-2]\n", `redis.cluster: "redis-2" is not host:port`},
		{"port 0", up + "redis:\n  cluster: [redis-1:0]\n", `redis.cluster: "redis-1:0" names port 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"-config", writeFile(t, "gateway.yaml", tc.file)}, env(), &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), tc.want)
			}
		})
	}
}
