package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestProcesses runs the program as separate
// processes: two replicas on one Redis in front of one source-hosting
// fake, as deployed behind a load balancer.
func TestProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as processes")
	}
	t.Parallel()
	pt := &procTest{bin: testtools.ProgramPath(t, "mcp-gateway")}
	t.Run("shared rate limit", pt.sharedRateLimit)
	t.Run("revoked token forgotten by every replica", pt.revokedTokenForgotten)
	t.Run("revoked token refused after the verification TTL", pt.revokedTokenAfterTTL)
	t.Run("replayed signature refused by the other replica", pt.replayRefused)
	t.Run("Redis unreachable", pt.redisUnreachable)
	t.Run("stop: readyz 503 during the delay, a second signal ends it", pt.secondSignal)
}

type procTest struct {
	bin string
}

// proc is mcp-gateway running as its own process.
type proc struct {
	cmd     *exec.Cmd
	url     string
	base    string
	metrics string
	logs    *logBuffer
	exited  chan error // the process's end, once
	ended   bool       // the test took its end from exited
}

// start runs the binary with the configuration file content (and flags)
// and waits for its listening line. When the test ends it is sent SIGTERM
// and must exit 0.
func (pt *procTest) start(t *testing.T, config string, environ []string, args ...string) *proc {
	t.Helper()
	args = append([]string{"-config", writeFile(t, "gateway.yaml", config), "-listen", "127.0.0.1:0", "-metrics-listen", "127.0.0.1:0"}, args...)
	cmd := exec.Command(pt.bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MCP_GATEWAY_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, environ...)
	p := &proc{cmd: cmd, logs: &logBuffer{}}
	cmd.Stderr = p.logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Standard output is read to its end, then the process waited for:
	// first is its first line ("" if it ended without one).
	first, exited := make(chan string, 1), make(chan error, 1)
	p.exited = exited
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		first <- line
		_, _ = io.Copy(io.Discard, r)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if p.ended {
			return
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("exit after SIGTERM: %v; stderr:\n%s", err, p.logs)
			}
		case <-time.After(time.Minute): // a hang, not a timing assertion
			_ = cmd.Process.Kill()
			t.Errorf("no exit a minute after SIGTERM; stderr:\n%s", p.logs)
		}
	})
	line := <-first
	if line == "" {
		t.Fatalf("no listening line; stderr:\n%s", p.logs)
	}
	p.url, p.metrics = parseListening(t, line)
	u, _ := url.Parse(p.url)
	p.base = u.Scheme + "://" + u.Host
	return p
}

var redisPrefixes atomic.Int64

// redisPrefix returns a Redis server and a key prefix of the test's own,
// whose keys are removed when the test ends.
func redisPrefix(t *testing.T) (addr, prefix string) {
	t.Helper()
	addr = redistest.Addr(t)
	prefix = fmt.Sprintf("mcp-gateway-test:%d:%d:", os.Getpid(), redisPrefixes.Add(1))
	t.Cleanup(func() {
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		defer rdb.Close()
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			keys = append(keys, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("listing the test's Redis keys: %v", err)
		}
		if len(keys) > 0 {
			if err := rdb.Del(ctx, keys...).Err(); err != nil {
				t.Errorf("removing the test's Redis keys: %v", err)
			}
		}
	})
	return addr, prefix
}

// replicas starts two processes sharing one Redis prefix, in front of up,
// with config (YAML) and environ.
func (pt *procTest) replicas(t *testing.T, up *sourcehostfake.Server, config string, environ ...string) (a, b *proc) {
	t.Helper()
	addr, prefix := redisPrefix(t)
	config = fmt.Sprintf("upstream: %s\nredis:\n  address: %s\n  prefix: %q\n", up.URL(), addr, prefix) + config
	a = pt.start(t, config, environ)
	b = pt.start(t, config, environ)
	for _, p := range []*proc{a, b} {
		if code, _, body := get(t, p.base+"/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
			t.Fatalf("/readyz of a replica: %d %s; stderr:\n%s", code, body, p.logs)
		}
	}
	return a, b
}

// newToken makes a token of root's with the scopes the gateway requires.
func newToken(t *testing.T, up *sourcehostfake.Server) string {
	t.Helper()
	tok, err := up.IssueToken("root", sourcehost.ScopeAPI, sourcehost.ScopeReadUser, sourcehost.ScopeReadRepository)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The rate limit is one across the replicas: a burst of 10 is spent by 10
// calls spread over both, and the next is refused by either.
//
// The rate is 1 a minute rather than 600: at 600 a minute a request comes
// back every 100 ms, so whether the 11th call passed would depend on how
// fast the test ran. At 1 a minute the bucket stays empty for the test's
// whole life; the burst, which is what replicas share, is the same.
func (pt *procTest) sharedRateLimit(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	a, b := pt.replicas(t, up, "rate_limit:\n  per_minute: 1\n  burst: 10\n")
	tok := newToken(t, up)
	for i := range 10 {
		p := []*proc{a, b}[i%2]
		code, h, body := post(t, p.url, tok, listProjects)
		if code != 200 || !strings.Contains(body, `"shop"`) {
			t.Fatalf("call %d: %d %s", i+1, code, body)
		}
		// Each replica's answer counts the other's calls too.
		if got, want := h.Get("X-RateLimit-Remaining"), strconv.Itoa(9-i); got != want {
			t.Errorf("call %d: X-RateLimit-Remaining %s, want %s (one bucket for both replicas)", i+1, got, want)
		}
	}
	for i, p := range []*proc{a, b} {
		code, h, body := post(t, p.url, tok, listProjects)
		if code != http.StatusTooManyRequests || h.Get("Retry-After") == "" || !strings.Contains(body, `"status":429`) {
			t.Errorf("call %d, replica %c: %d %v %s, want 429", 11+i, "AB"[i], code, h, body)
		}
	}
	// Another token has its own bucket.
	if code, _, body := post(t, a.url, newToken(t, up), listProjects); code != 200 {
		t.Errorf("another token: %d %s", code, body)
	}
	m := scrape(t, a.metrics)
	if m["mcp_gateway_rate_limited_total"] != 1 || m["mcp_gateway_store_degraded"] != 0 {
		t.Errorf("replica A's metrics: rate_limited %v, store_degraded %v", m["mcp_gateway_rate_limited_total"], m["mcp_gateway_store_degraded"])
	}
}

const cachedListProjects = `{"jsonrpc":"2.0","method":"list_projects","params":{"cache":true},"id":1}`

// A call that meets the revocation upstream makes its replica forget the
// token in Redis, so the other replica refuses it on its next request,
// though its cached answer and the verdict's TTL (60 s here) would have
// let it through.
func (pt *procTest) revokedTokenForgotten(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	a, b := pt.replicas(t, up, "")
	tok := newToken(t, up)
	if code, _, body := post(t, b.url, tok, cachedListProjects); code != 200 || !strings.Contains(body, `"shop"`) {
		t.Fatalf("B, cached call: %d %s", code, body)
	}
	if err := up.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	// B still believes the token (verified seconds ago) and answers from
	// its cache: nothing has met the revocation yet.
	if code, _, body := post(t, b.url, tok, cachedListProjects); code != 200 || !strings.Contains(body, `"shop"`) {
		t.Fatalf("B, cached call after the revocation: %d %s (want the cached answer)", code, body)
	}
	// A's call goes upstream, which refuses it: the answer is the
	// upstream's 401, and A forgets the token.
	code, _, body := post(t, a.url, tok, listProjects)
	if code != 200 || !strings.Contains(body, `"status":401`) {
		t.Fatalf("A, uncached call after the revocation: %d %s (want the upstream's 401 in the answer)", code, body)
	}
	// B's next request verifies the token again, and refuses it.
	code, h, body := post(t, b.url, tok, cachedListProjects)
	if code != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("B, next request: %d %v %s, want 401 invalid_token", code, h, body)
	}
	if code, _, body := post(t, a.url, tok, cachedListProjects); code != http.StatusUnauthorized {
		t.Errorf("A, next request: %d %s, want 401", code, body)
	}
}

// With verify.ttl_seconds 1, a revoked token whose calls are all answered
// from the cache (so none meets the revocation upstream) is refused once
// its verdict is a second old, by both replicas.
func (pt *procTest) revokedTokenAfterTTL(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	a, b := pt.replicas(t, up, "verify:\n  ttl_seconds: 1\n")
	tok := newToken(t, up)
	for _, p := range []*proc{a, b} {
		if code, _, body := post(t, p.url, tok, cachedListProjects); code != 200 || !strings.Contains(body, `"shop"`) {
			t.Fatalf("cached call: %d %s", code, body)
		}
	}
	if err := up.RevokeToken(tok); err != nil {
		t.Fatal(err)
	}
	// Ask A until it refuses: bounded by a count (and the test's timeout),
	// not by how soon it must happen. Until then the answers are the
	// cache's (or 429, once the token's burst is spent).
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	refused := false
	for i := 0; i < 3000 && !refused; i++ {
		code, _, body := post(t, a.url, tok, cachedListProjects)
		switch code {
		case http.StatusUnauthorized:
			refused = true
			continue
		case http.StatusOK, http.StatusTooManyRequests:
		default:
			t.Fatalf("A: %d %s", code, body)
		}
		<-tick.C
	}
	if !refused {
		t.Fatal("A never refused the revoked token")
	}
	// The refusal is in Redis: B refuses at once.
	if code, _, body := post(t, b.url, tok, cachedListProjects); code != http.StatusUnauthorized {
		t.Errorf("B after A refused: %d %s, want 401", code, body)
	}
}

// A signed request is accepted once by the replicas together: the same
// bytes sent to the other replica are refused as a replay.
func (pt *procTest) replayRefused(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	const secret = "shared-signing-secret"
	a, b := pt.replicas(t, up, "security:\n  signature: required\n", envSigningSecret+"="+secret)
	tok := newToken(t, up)
	// Clients that sign each request (a fresh nonce each time) pass at both.
	for _, p := range []*proc{a, b} {
		listShop(t, p.url, tok, mcp.WithSigningSecret(secret), mcp.WithoutRetries())
		if code, _, body := post(t, p.url, tok, listProjects); code != http.StatusUnauthorized || !strings.Contains(body, "is required") {
			t.Errorf("unsigned: %d %s", code, body)
		}
	}
	body := listProjects
	sig := mcp.SignRequest([]byte(secret), time.Now(), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(body))
	if code, _, answer := post(t, a.url, tok, body, mcp.SignatureHeader, sig); code != 200 || !strings.Contains(answer, `"shop"`) {
		t.Fatalf("A, signed request: %d %s", code, answer)
	}
	for _, p := range []*proc{b, a} {
		code, _, answer := post(t, p.url, tok, body, mcp.SignatureHeader, sig)
		if code != http.StatusUnauthorized || !strings.Contains(answer, "already used") {
			t.Errorf("replayed: %d %s, want 401 already used", code, answer)
		}
	}
	if m := scrape(t, b.metrics); m["mcp_gateway_replays_refused_total"] != 1 {
		t.Errorf("B's replays_refused_total %v, want 1", m["mcp_gateway_replays_refused_total"])
	}
}

// With Redis unreachable the process starts, serves from its memory, and
// says so in /readyz (200, degraded) and in its metrics.
func (pt *procTest) redisUnreachable(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	p := pt.start(t, "upstream: "+up.URL()+"\n", []string{envRedis + "=" + testtools.RefusedAddr(t)})
	listShop(t, p.url, up.Token())
	code, _, body := get(t, p.base+"/readyz")
	var ready struct{ Status, Reason string }
	if err := json.Unmarshal([]byte(body), &ready); err != nil || code != 200 || ready.Status != "degraded" || ready.Reason == "" {
		t.Errorf("/readyz: %d %s, want 200 degraded with a reason", code, body)
	}
	if m := scrape(t, p.metrics); m["mcp_gateway_store_degraded"] != 1 {
		t.Errorf("store_degraded %v, want 1", m["mcp_gateway_store_degraded"])
	}
}

// After SIGTERM the process answers /readyz with 503 during
// timeouts.shutdown_delay (a minute here), and a second SIGTERM ends it at
// once.
func (pt *procTest) secondSignal(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	p := pt.start(t, "upstream: "+up.URL()+"\ntimeouts:\n  shutdown_delay: 1m\n", nil)
	stopping := p.logs.seen(`"msg":"shutting down"`)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-stopping
	if code, _, body := get(t, p.base+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, `"stopping"`) {
		t.Errorf("/readyz while stopping: %d %s", code, body)
	}
	listShop(t, p.url, up.Token()) // still served until the listener closes
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := <-p.exited
	p.ended = true
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("after a second SIGTERM: %v, want killed by the signal", err)
	}
}
