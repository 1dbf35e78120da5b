package mcpredis_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/mcpredis"
)

// replicas are gateways sharing one Redis of the test's own, which the test
// stops and starts again, in front of one source-hosting fake, on one fake
// clock.
type replicas struct {
	redis *redistest.Server
	clk   *clock.Fake
	up    *sourcehostfake.Server
	gws   []*mcp.Gateway
}

const signingSecret = "replica-signing-secret"

func startReplicas(t *testing.T, n int, cfg mcp.Config) *replicas {
	t.Helper()
	rs := &replicas{redis: redistest.Start(t), clk: clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))}
	rs.up = sourcehostfake.Start(t, sourcehostfake.WithClock(rs.clk))
	for range n {
		s := mcpredis.Open(rs.redis.Addr(), mcpredis.Options{})
		t.Cleanup(func() { s.Close() })
		c := cfg
		c.Upstream, c.Store, c.Clock = rs.up.URL(), s, rs.clk
		gw, err := mcp.NewGateway(c)
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
	rs := startReplicas(t, 2, mcp.Config{Security: mcp.SecurityConfig{SigningSecret: signingSecret}})
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
