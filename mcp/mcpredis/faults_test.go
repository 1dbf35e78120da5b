package mcpredis_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
	"github.com/apitwin/apitwin/mcp/mcpredis"
	"github.com/apitwin/apitwin/sourcehost"
)

// replicas are gateways sharing one Redis of the test's own, which the test
// stops and starts again, in front of one source-hosting fake, on one fake
// clock.
type replicas struct {
	redis *redistest.Server
	clk   *clock.Fake
	up    *sourcehostfake.Server
	gws   []*gateway.Gateway
}

const signingSecret = "replica-signing-secret"

func startReplicas(t *testing.T, n int, cfg gateway.Config) *replicas {
	t.Helper()
	rs := &replicas{redis: redistest.Start(t), clk: clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))}
	rs.up = sourcehostfake.Start(t, control.WithClock(rs.clk))
	for range n {
		s := mcpredis.Open(rs.redis.Addr(), mcpredis.Options{})
		t.Cleanup(func() { s.Close() })
		c := cfg
		c.Upstream, c.Store, c.Clock = rs.up.URL(), s, rs.clk
		gw, err := gateway.New(c)
		if err != nil {
			t.Fatal(err)
		}
		rs.gws = append(rs.gws, gw)
	}
	return rs
}

// signed is a request signed now, to be sent and sent again.
type signed struct{ name, sig string }

func (rs *replicas) sign(name string) signed {
	return signed{name, mcp.SignRequest([]byte(signingSecret), rs.clk.Now(), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects))}
}

// send sends s to replica i and returns the status.
func (rs *replicas) send(i int, s signed) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(listProjects))
	req.RemoteAddr = "192.0.2.1:1000"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+rs.up.Token())
	req.Header.Set(mcp.SignatureHeader, s.sig)
	rec := httptest.NewRecorder()
	rs.gws[i].ServeHTTP(rec, req)
	return rec
}

// down stops Redis and has every replica meet the outage (the first call
// after it is the one that finds out; any call would do).
func (rs *replicas) down(t *testing.T) {
	t.Helper()
	rs.redis.Stop()
	for i, gw := range rs.gws {
		if err := gw.Ready(context.Background()); err == nil {
			t.Fatalf("replica %d: Ready with Redis stopped", i)
		}
	}
}

// back starts Redis again, empty, and lets the replicas' retry interval
// pass, so that they use it again.
func (rs *replicas) back(t *testing.T) {
	t.Helper()
	rs.redis.Restart()
	rs.clk.Advance(5 * time.Second)
	for i, gw := range rs.gws {
		if err := gw.Ready(context.Background()); err != nil {
			t.Fatalf("replica %d: Ready once Redis is back: %v", i, err)
		}
	}
}

// A replica accepts a signed request once within its window whatever
// Redis does: an outage, a restart that empties it, or both. Each replica
// remembers the signatures it has seen in its own memory; Redis tells the
// replicas what the others accepted while it is there. What is left is
// what the package documentation says: while Redis is down, or after it
// lost what it held, a request accepted by one replica can be sent once
// more to each other replica that has not seen it.
//
// On the old store (memory asked only while Redis was down) a request
// signed during the outage was accepted by the same replica again once
// Redis was back, and every request signed before a restart again by the
// replica that had accepted it.
func TestReplayThroughRedisFaults(t *testing.T) {
	t.Parallel()
	rs := startReplicas(t, 2, gateway.Config{Security: gateway.SecurityConfig{SigningSecret: signingSecret}})
	const a, b = 0, 1
	type step struct {
		replica int
		req     signed
		want    int
	}
	// Replays accepted, by the replica that had accepted the request (never
	// allowed) and by another (the documented risk).
	accepted := map[string]map[int]bool{}
	var sameAgain, otherAgain int
	run := func(phase string, steps []step) {
		t.Helper()
		for _, s := range steps {
			rec := rs.send(s.replica, s.req)
			if rec.Code != s.want {
				t.Errorf("%s: %s to replica %c: %d %s, want %d", phase, s.req.name, "AB"[s.replica], rec.Code, rec.Body, s.want)
			}
			if rec.Code != http.StatusOK {
				continue
			}
			by := accepted[s.req.sig]
			switch {
			case by == nil:
				accepted[s.req.sig] = map[int]bool{s.replica: true}
			case by[s.replica]:
				sameAgain++
			default:
				otherAgain++
				by[s.replica] = true
			}
		}
	}
	first := rs.sign("request signed with Redis up")
	run("Redis up", []step{{a, first, 200}, {a, first, 401}, {b, first, 401}})

	rs.down(t)
	during := rs.sign("request signed during the outage")
	run("Redis down", []step{
		{a, during, 200},
		{a, during, 401}, // A remembers it...
		{a, first, 401},  // ...and what it accepted before the outage
		{b, during, 200}, // the documented risk: B cannot know
		{b, during, 401},
	})

	rs.back(t) // empty
	run("Redis back, empty", []step{
		{a, during, 401}, {a, first, 401}, // A remembers both
		{b, during, 401}, // B accepted it during the outage
	})
	after := rs.sign("request signed once Redis is back")
	run("Redis back, empty", []step{{a, after, 200}, {b, after, 401}, {a, after, 401}})

	// A restart the replicas do not even see as an outage (go-redis
	// reconnects within the call): Redis forgets, the replicas do not.
	last := rs.sign("request signed before a restart")
	run("Redis up", []step{{a, last, 200}})
	rs.redis.Restart()
	run("Redis restarted", []step{
		{a, last, 401}, {a, after, 401}, {a, during, 401}, {a, first, 401},
		{b, first, 401}, // B saw it, refused as a replay, and remembers it
		{b, last, 200},  // the documented risk: only Redis knew A's claim
		{b, last, 401},
	})
	t.Logf("replays accepted: %d by a replica that had accepted the request, %d by another", sameAgain, otherAgain)
	if sameAgain != 0 {
		t.Errorf("%d replays accepted by the replica that had accepted the request", sameAgain)
	}
}

// callers are many tokens of the upstream's, each sending from an address
// of its own (so that no per-address limit applies), through gateway gw.
type callers struct {
	rs     *replicas
	tokens []string
}

// cachedListProjects is the call every caller makes: answered from the
// cache but for the first of each token (and the first after the cache was
// lost), so that hardly any call reaches the upstream, and none meets a
// revocation there.
const cachedListProjects = `{"jsonrpc":"2.0","method":"list_projects","params":{"cache_ttl":3600},"id":1}`

func (rs *replicas) callers(t *testing.T, n int) *callers {
	t.Helper()
	c := &callers{rs: rs}
	for range n {
		tok, err := rs.up.IssueToken("root", sourcehost.ScopeAPI, sourcehost.ScopeReadUser, sourcehost.ScopeReadRepository)
		if err != nil {
			t.Fatal(err)
		}
		c.tokens = append(c.tokens, tok)
	}
	return c
}

// call sends cachedListProjects with token i to replica gw.
func (c *callers) call(gw, i int) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(cachedListProjects))
	req.RemoteAddr = fmt.Sprintf("10.%d.%d.1:1000", i/256, i%256)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.tokens[i])
	rec := httptest.NewRecorder()
	c.rs.gws[gw].ServeHTTP(rec, req)
	return rec
}

// verifyAll has every token verified by replica gw, a second of the fake
// clock per round while the verification limit holds some back, and
// returns when each one was verified.
func (c *callers) verifyAll(t *testing.T, gw int) []time.Time {
	t.Helper()
	at := make([]time.Time, len(c.tokens))
	left := len(c.tokens)
	for round := 0; left > 0; round++ {
		if round > 600 {
			t.Fatalf("%d tokens still not verified after %d rounds", left, round)
		}
		for i := range c.tokens {
			if !at[i].IsZero() {
				continue
			}
			switch rec := c.call(gw, i); rec.Code {
			case http.StatusOK:
				at[i], left = c.rs.clk.Now(), left-1
			case http.StatusTooManyRequests:
			default:
				t.Fatalf("token %d: %d %s", i, rec.Code, rec.Body)
			}
		}
		c.rs.clk.Advance(time.Second)
	}
	return at
}

// rounds has every token call replica gw once a second of the fake clock
// for n seconds, and returns how many calls were refused with 429 and the
// last second that had one (-1: none). A token in own has its answers
// judged there instead.
func (c *callers) rounds(t *testing.T, gw, n int, own map[int]func(*httptest.ResponseRecorder)) (limited, lastSecond int) {
	t.Helper()
	lastSecond = -1
	for s := range n {
		for i := range c.tokens {
			rec := c.call(gw, i)
			if judge := own[i]; judge != nil {
				judge(rec)
				continue
			}
			switch rec.Code {
			case http.StatusOK:
			case http.StatusTooManyRequests:
				limited, lastSecond = limited+1, s
			default:
				t.Fatalf("second %d, token %d: %d %s", s, i, rec.Code, rec.Body)
			}
		}
		c.rs.clk.Advance(time.Second)
	}
	return limited, lastSecond
}

// After Redis restarts empty, or while it is down, callers this replica
// verified keep being served on its own verdicts, each believed for what
// is left of its verify.ttl_seconds, then asked of the source-hosting API
// again as a token known to have been good (which the verification limit
// does not hold back); a token revoked meanwhile is served until its
// verdict's TTL has passed, and refused from then on. On the old gateway
// every token was verified again through the shared limit of 300 a minute
// (50 at once): with 150 tokens, 1,050 calls refused with 429 over 20 s
// after each restart, and again at each outage.
func TestVerdictsThroughRedisFaults(t *testing.T) {
	t.Parallel()
	// A TTL of 20 s (the default is 60) keeps the test short: verifying
	// 150 tokens under the limit takes 20 s, so some verdicts are stale
	// when the fault comes and the others turn stale during the rounds.
	const tokens, ttlSeconds = 150, 20
	ttl := ttlSeconds * time.Second
	for _, fault := range []string{"restarted empty", "down"} {
		t.Run(fault, func(t *testing.T) {
			t.Parallel()
			rs := startReplicas(t, 1, gateway.Config{Verify: gateway.VerifyConfig{TTLSeconds: ttlSeconds}})
			c := rs.callers(t, tokens)
			verified := c.verifyAll(t, 0)
			if n, _ := c.rounds(t, 0, 1, nil); n != 0 {
				t.Fatalf("%d calls limited with every token verified", n)
			}
			if fault == "down" {
				rs.down(t)
			} else {
				rs.redis.Restart() // unseen: the next call reconnects
			}
			faultAt := rs.clk.Now()

			// A token revoked after the fault, whose calls are answered
			// from the cache (so none meets the revocation upstream), is
			// served on this replica's verdict while that is fresh, and
			// refused from then on. Every other token is served, for
			// longer than a TTL.
			revoked := tokens - 1 // the last verified: its verdict still fresh at the fault
			if rec := c.call(0, revoked); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"result"`) {
				t.Fatalf("the token to revoke, after the fault: %d %s", rec.Code, rec.Body)
			}
			if err := rs.up.RevokeToken(c.tokens[revoked]); err != nil {
				t.Fatal(err)
			}
			refusedBy := verified[revoked].Add(ttl)
			var served, refused int
			judge := func(rec *httptest.ResponseRecorder) {
				fresh := rs.clk.Now().Before(refusedBy)
				if fresh {
					served++
				} else {
					refused++
				}
				if want := map[bool]int{true: http.StatusOK, false: http.StatusUnauthorized}[fresh]; rec.Code != want {
					t.Errorf("the revoked token %s after the fault (its verdict fresh: %v): %d %s",
						rs.clk.Now().Sub(faultAt), fresh, rec.Code, rec.Body)
				}
			}
			limited, last := c.rounds(t, 0, ttlSeconds+6, map[int]func(*httptest.ResponseRecorder){revoked: judge})
			if served == 0 || refused == 0 {
				t.Errorf("the revoked token called %d times with its verdict fresh, %d once it was stale: want both", served, refused)
			}
			t.Logf("%s, %d tokens: %d calls limited (429), the last %d s after the fault", fault, tokens, limited, last)
			if limited != 0 {
				t.Errorf("%d calls limited (429) after Redis %s, the last %d s after", limited, fault, last)
			}
		})
	}
}
