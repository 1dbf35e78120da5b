package mcpredis

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// An operation's trace lives as long as its client can take from the first
// attempt of a command to its last, plus opMargin, read from the client's
// options (no client here connects).
func TestOpLife(t *testing.T) {
	t.Parallel()
	open := Open("127.0.0.1:1", Options{})
	slow := Open("127.0.0.1:1", Options{DialTimeout: time.Second, ReadTimeout: 2 * time.Second})
	for _, tc := range []struct {
		name string
		rdb  redis.UniversalClient
		want time.Duration
	}{
		// One retry: 0.25 s read, 1 s backoff, 0.5 s for a connection
		// (the pool's timeout, above the dial's), 0.25 s write.
		{"Open", open.rdb, 7 * time.Second},
		// 2 s read and write, 3 s for a connection.
		{"Open with slower timeouts", slow.rdb, (2+1+3+2)*time.Second + opMargin},
		// Three retries of 5 s read and write, 1 s backoff, 6 s for a
		// connection.
		{"go-redis's defaults", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), 3*17*time.Second + opMargin},
		{"no retry", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}), opMargin},
		// go-redis's cluster retries by its redirects (three), its nodes'
		// clients none.
		{"cluster", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}}), 3*17*time.Second + opMargin},
		// Two attempts of the cluster, of three attempts each.
		{"cluster whose nodes retry", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, MaxRedirects: 1, MaxRetries: 2}), 5*17*time.Second + opMargin},
		{"cluster without retries", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, MaxRetries: -1, MaxRedirects: -1}), opMargin},
		// Options it cannot read: go-redis's defaults.
		{"ring", redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}}), 3*17*time.Second + opMargin},
	} {
		if got := opLife(tc.rdb); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		tc.rdb.Close()
	}
}
