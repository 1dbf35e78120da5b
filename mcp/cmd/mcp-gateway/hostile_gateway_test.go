package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp"
)

// Two replicas as processes on a Redis of the test's own: a signed request
// is accepted once by the replica that took it, whatever Redis does in
// between (a restart that empties it, an outage); another replica may
// take it once more after Redis lost it, as the documentation says. On
// the old program the first replica took it again after the restart.
func TestReplayAcrossRedisFaultsOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as processes")
	}
	t.Parallel()
	pt := &procTest{bin: testtools.ProgramPath(t, "mcp-gateway")}
	redis := redistest.Start(t)
	up := upstream(t)
	const secret = "wire-signing-secret"
	config := fmt.Sprintf("upstream: %s\nredis:\n  address: %s\nsecurity:\n  signature: required\n", up.URL(), redis.Addr())
	a := pt.start(t, config, []string{envSigningSecret + "=" + secret})
	b := pt.start(t, config, []string{envSigningSecret + "=" + secret})
	tok := newToken(t, up)
	send := func(p *proc, sig string) int {
		code, _, _ := post(t, p.url, tok, listProjects, mcp.SignatureHeader, sig)
		return code
	}
	sign := func() string {
		return mcp.SignRequest([]byte(secret), time.Now(), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(listProjects))
	}
	type step struct {
		who  string
		p    *proc
		sig  string
		want int
	}
	run := func(phase string, steps ...step) {
		t.Helper()
		for _, s := range steps {
			if got := send(s.p, s.sig); got != s.want {
				t.Errorf("%s: %s to %s: %d, want %d", phase, s.who, map[*proc]string{a: "A", b: "B"}[s.p], got, s.want)
			}
		}
	}

	first := sign()
	run("Redis up", step{"the first request", a, first, 200}, step{"its replay", a, first, 401}, step{"its replay", b, first, 401})
	redis.Restart() // empty
	last := sign()
	run("Redis restarted",
		step{"the first request", a, first, 401},
		step{"a new request", a, last, 200},
		step{"the new request's replay", a, last, 401})
	redis.Stop()
	during := sign()
	run("Redis down",
		step{"a request", a, during, 200},
		step{"its replay", a, during, 401},
		step{"the first request", a, first, 401},
		step{"a replay to the other replica", b, during, 200}, // the documented risk
		step{"that replay again", b, during, 401})
	redis.Restart()
	run("Redis back", step{"the outage's request", a, during, 401}, step{"the outage's request", b, during, 401})
}

// configure_webhook, over the wire, refuses the metadata service and
// loopback by default; with allow_local_webhooks in the file, loopback
// passes and the metadata service is still refused.
func TestHookTargetsThroughTheGatewayOverTheWire(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as processes")
	}
	t.Parallel()
	pt := &procTest{bin: testtools.ProgramPath(t, "mcp-gateway")}
	up := upstream(t)
	configure := func(p *proc, url string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","method":"configure_webhook","params":{"project_id":1,"url":%q},"id":1}`, url)
		code, _, answer := post(t, p.url, up.Token(), body)
		if code != 200 {
			t.Fatalf("configure_webhook %s: %d %s", url, code, answer)
		}
		return answer
	}
	const refused = `"code":-32602`
	strict := pt.start(t, "upstream: "+up.URL()+"\n", nil)
	local := pt.start(t, "upstream: "+up.URL()+"\nsecurity:\n  allow_local_webhooks: true\n", nil)
	for _, tc := range []struct {
		p        *proc
		url      string
		contains string
	}{
		{strict, "http://169.254.169.254/latest/meta-data/", "Requests to cloud metadata services are not allowed"},
		{strict, "http://0xa9fea9fe/latest/meta-data/", "Requests to cloud metadata services are not allowed"},
		{strict, "http://127.0.0.1:9/hook", "Requests to loopback addresses are not allowed"},
		{strict, "http://[::ffff:10.0.0.1]/hook", "Requests to the local network are not allowed"},
		{local, "http://169.254.169.254/latest/meta-data/", "Requests to cloud metadata services are not allowed"},
		{local, "http://127.0.0.1:9/hook", `"result"`},
	} {
		answer := configure(tc.p, tc.url)
		if !strings.Contains(answer, tc.contains) || (tc.contains != `"result"`) != strings.Contains(answer, refused) {
			t.Errorf("%s: %s, want %s", tc.url, answer, tc.contains)
		}
	}
	if n := len(up.Hooks(1)); n != 1 {
		t.Errorf("the upstream holds %d hooks, want the one to loopback", n)
	}
}
