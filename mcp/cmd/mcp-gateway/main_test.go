package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/internal/redistest"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// TestMain lets the test binary be the program the process tests start
// (testtools.ProgramPath), and redistest start a Redis server for them and
// stop it when they have run.
func TestMain(m *testing.M) {
	testtools.Programs(map[string]func(){"mcp-gateway": main})
	redistest.Main(m)
}

const listProjects = `{"jsonrpc":"2.0","method":"list_projects","id":1}`

// logBuffer collects what the program writes to standard error, safe for
// concurrent use, and tells a test when a text appears in it.
type logBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	waiters []logWaiter
}

type logWaiter struct {
	text string
	ch   chan struct{}
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	kept := l.waiters[:0]
	for _, w := range l.waiters {
		if strings.Contains(l.b.String(), w.text) {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	l.waiters = kept
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// seen is closed once text has been written.
func (l *logBuffer) seen(text string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := make(chan struct{})
	if strings.Contains(l.b.String(), text) {
		close(ch)
	} else {
		l.waiters = append(l.waiters, logWaiter{text, ch})
	}
	return ch
}

// lines decodes the JSON log lines.
func (l *logBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// env is an environment for run.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// instance is the program running in this process.
type instance struct {
	url     string // the gateway's URL, as printed
	base    string // scheme://host:port of the gateway's listener
	metrics string // the metrics URL, as printed ("" when off)
	logs    *logBuffer
	cancel  context.CancelFunc
	done    chan int
}

// start runs the program in this process with args and getenv and waits
// for its listening line. It stops when the test ends, if not before.
func start(t *testing.T, getenv func(string) string, args ...string) *instance {
	t.Helper()
	return startOn(t, clock.Real(), getenv, args...)
}

// startOn is start with clk timing timeouts.shutdown_delay.
func startOn(t *testing.T, clk clock.Clock, getenv func(string) string, args ...string) *instance {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	in := &instance{logs: &logBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		code := runOn(ctx, clk, args, getenv, pw, in.logs)
		pw.Close()
		in.done <- code
	}()
	t.Cleanup(func() {
		cancel()
		<-in.done
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line (%v); stderr:\n%s", err, in.logs)
	}
	go io.Copy(io.Discard, pr)
	in.url, in.metrics = parseListening(t, line)
	u, err := url.Parse(in.url)
	if err != nil {
		t.Fatal(err)
	}
	in.base = u.Scheme + "://" + u.Host
	return in
}

// stop ends the run as SIGTERM does and returns its exit code.
func (in *instance) stop() int {
	in.cancel()
	code := <-in.done
	in.done <- code // for the cleanup
	return code
}

// parseListening reads "mcp-gateway listening url=... [metrics=...]".
func parseListening(t *testing.T, line string) (gateway, metrics string) {
	t.Helper()
	fields := strings.Fields(line)
	if len(fields) < 3 || fields[0] != "mcp-gateway" || fields[1] != "listening" {
		t.Fatalf("listening line %q", line)
	}
	for _, f := range fields[2:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "url":
			gateway = v
		case "metrics":
			metrics = v
		default:
			t.Fatalf("listening line %q: unknown field %q", line, k)
		}
	}
	if gateway == "" {
		t.Fatalf("listening line %q has no url", line)
	}
	return gateway, metrics
}

// post sends body to url with token and extra headers (name, value
// pairs) and returns the answer.
func post(t *testing.T, url, token, body string, headers ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return do(t, req)
}

// get fetches url.
func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, http.Header, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

// upstream starts a source-hosting fake holding one project, "shop".
func upstream(t *testing.T) *sourcehostfake.Server {
	t.Helper()
	up := sourcehostfake.Start(t)
	if _, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "private"}); err != nil {
		t.Fatal(err)
	}
	return up
}

// listShop calls list_projects through the gateway at url with an
// mcp.Client and checks that it finds the fake's project.
func listShop(t *testing.T, url, token string, opts ...mcp.Option) {
	t.Helper()
	c, err := mcp.New(url, append([]mcp.Option{mcp.WithToken(token)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.ListProjects(context.Background(), nil)
	if err != nil {
		t.Fatalf("list_projects through %s: %v", url, err)
	}
	if len(got.Projects) != 1 || got.Projects[0].Name != "shop" {
		t.Fatalf("list_projects through %s: %+v, want the project shop", url, got)
	}
}

// The program runs from flags alone, with the upstream given as the
// server's root or as its API root, and a client's call goes through.
func TestRunWithoutAFile(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	for name, u := range map[string]string{"root": up.URL(), "api root": up.URL() + "/api/v4/", "from the environment": ""} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := []string{"-listen", "127.0.0.1:0"}
			getenv := env()
			if u != "" {
				args = append(args, "-upstream", u)
			} else {
				getenv = env(envUpstream, up.URL())
			}
			in := start(t, getenv, args...)
			if !strings.HasPrefix(in.url, "http://127.0.0.1:") || !strings.HasSuffix(in.url, "/mcp") || in.metrics != "" {
				t.Errorf("printed url %q metrics %q", in.url, in.metrics)
			}
			listShop(t, in.url, up.Token())
			listShop(t, in.base, up.Token()) // the client adds /mcp to a root
			if code := in.stop(); code != 0 {
				t.Errorf("exit code %d after the context ended; stderr:\n%s", code, in.logs)
			}
			if logs := in.logs.String(); !strings.Contains(logs, `"msg":"shutting down"`) || !strings.Contains(logs, `"msg":"stopped"`) {
				t.Errorf("the log does not tell of the stop:\n%s", logs)
			}
		})
	}
}

func TestProbes(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	in := start(t, env(), "-listen", "127.0.0.1:0", "-upstream", up.URL())
	if code, h, body := get(t, in.base+"/healthz"); code != 200 || body != "ok\n" || !strings.HasPrefix(h.Get("Content-Type"), "text/plain") {
		t.Errorf("/healthz: %d %q %v", code, body, h)
	}
	if code, h, body := get(t, in.base+"/readyz"); code != 200 || body != `{"status":"ready"}`+"\n" || h.Get("Content-Type") != "application/json" {
		t.Errorf("/readyz: %d %q %v", code, body, h)
	}
	if code, _, _ := post(t, in.base+"/readyz", "", "{}"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /readyz: %d", code)
	}
	if code, _, _ := get(t, in.base+"/metrics"); code != http.StatusNotFound {
		t.Errorf("/metrics on the gateway's listener: %d, want 404 (metrics have their own)", code)
	}
	if code, _, _ := get(t, in.base+"/other"); code != http.StatusNotFound {
		t.Errorf("/other: %d", code)
	}
}

// metricLine is one sample of the text format.
var metricLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$`)

// scrape reads the metrics at url into name{labels} -> value, checking
// that every sample's metric has # HELP and # TYPE lines before it.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	code, h, body := get(t, url)
	if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("metrics: %d %v", code, h)
	}
	help, typ := map[string]bool{}, map[string]string{}
	out := map[string]float64{}
	for line := range strings.SplitSeq(strings.TrimSpace(body), "\n") {
		if rest, ok := strings.CutPrefix(line, "# HELP "); ok {
			name, text, _ := strings.Cut(rest, " ")
			help[name] = text != ""
			continue
		}
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, kind, _ := strings.Cut(rest, " ")
			typ[name] = kind
			continue
		}
		m := metricLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("metrics line %q is not name{labels} value", line)
		}
		family := m[1]
		if typ[family] == "" {
			family = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(family, "_bucket"), "_sum"), "_count")
		}
		if !help[family] || typ[family] == "" {
			t.Errorf("metric %s has no # HELP or # TYPE line before it", m[1])
		}
		if strings.HasSuffix(family, "_total") && typ[family] != "counter" {
			t.Errorf("%s is a %s, want counter", family, typ[family])
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[m[1]+m[2]] = v
	}
	return out
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	// Every counter of the gateway is served: a field added to gateway.Metrics
	// without its metric fails here.
	if n := reflect.TypeFor[gateway.Metrics]().NumField(); n != len(counters) {
		t.Errorf("gateway.Metrics has %d fields, the program serves %d counters", n, len(counters))
	}
	up := upstream(t)
	in := start(t, env(), "-listen", "127.0.0.1:0", "-metrics-listen", "127.0.0.1:0", "-upstream", up.URL())
	if !strings.HasPrefix(in.metrics, "http://127.0.0.1:") || !strings.HasSuffix(in.metrics, "/metrics") {
		t.Fatalf("printed metrics URL %q", in.metrics)
	}
	listShop(t, in.url, up.Token())
	if code, _, _ := post(t, in.url, "", listProjects); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	m := scrape(t, in.metrics)
	for _, c := range counters {
		if _, ok := m[c.name]; !ok {
			t.Errorf("no %s", c.name)
		}
	}
	want := map[string]float64{
		"mcp_gateway_requests_total":                                        2,
		"mcp_gateway_refused_total":                                         1,
		"mcp_gateway_calls_total":                                           1,
		"mcp_gateway_verifications_total":                                   1,
		"mcp_gateway_tokens_refused_total":                                  1,
		"mcp_gateway_store_degraded":                                        0,
		"mcp_gateway_stopping":                                              0,
		"mcp_gateway_in_flight_requests":                                    0,
		`mcp_gateway_request_duration_seconds_count{code="2xx"}`:            1,
		`mcp_gateway_request_duration_seconds_count{code="4xx"}`:            1,
		`mcp_gateway_request_duration_seconds_bucket{code="4xx",le="+Inf"}`: 1,
		`mcp_gateway_request_duration_seconds_count{code="5xx"}`:            0,
	}
	for k, v := range want {
		if got, ok := m[k]; !ok || got != v {
			t.Errorf("%s = %v (present %t), want %v", k, got, ok, v)
		}
	}
	if m[`mcp_gateway_request_duration_seconds_sum{code="2xx"}`] <= 0 {
		t.Errorf("the 2xx duration sum is %v", m[`mcp_gateway_request_duration_seconds_sum{code="2xx"}`])
	}
	// Buckets are cumulative.
	prev := 0.0
	for _, le := range durationBuckets {
		v := m[`mcp_gateway_request_duration_seconds_bucket{code="2xx",le="`+strconv.FormatFloat(le, 'g', -1, 64)+`"}`]
		if v < prev {
			t.Errorf("bucket le=%v holds %v, less than the one before (%v)", le, v, prev)
		}
		prev = v
	}
	if code, _, _ := get(t, strings.TrimSuffix(in.metrics, "/metrics")+"/healthz"); code != http.StatusNotFound {
		t.Errorf("the metrics listener serves /healthz: %d", code)
	}
}

// The log has one JSON line per request with its fields, and neither the
// tokens (good or bad), nor the signature, nor the signing secret, nor
// the Redis password.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	const secret = "signing-secret-do-not-log-7f3a"
	const redisPassword = "redis-password-do-not-log-91c2"
	cfg := writeFile(t, "gateway.yaml", "security:\n  signature: optional\nlog:\n  level: debug\n")
	in := start(t, env(envSigningSecret, secret, envRedisPassword, redisPassword, envRedis, testtools.RefusedAddr(t)),
		"-config", cfg, "-listen", "127.0.0.1:0", "-upstream", up.URL())
	listShop(t, in.url, up.Token(), mcp.WithSigningSecret(secret))
	body := listProjects
	sig := mcp.SignRequest([]byte(secret), time.Now(), mcp.NewNonce(), http.MethodPost, "/mcp", []byte(body))
	if code, _, answer := post(t, in.url, up.Token(), body, mcp.SignatureHeader, sig, "X-Request-Id", "req-42"); code != 200 {
		t.Fatalf("signed request: %d %s", code, answer)
	}
	const badToken = "made-up-token-do-not-log-55e1"
	if code, _, _ := post(t, in.url, badToken, body); code != http.StatusUnauthorized {
		t.Errorf("bad token: %d", code)
	}
	get(t, in.base+"/readyz")
	if code := in.stop(); code != 0 {
		t.Errorf("exit code %d", code)
	}

	logs := in.logs.String()
	leaktest.NoSecretIn(t, "the log", logs, up.Token(), badToken, secret, redisPassword, sig)
	for _, s := range []string{"Bearer", "Authorization"} {
		if strings.Contains(logs, s) {
			t.Errorf("the log holds %q:\n%s", s, logs)
		}
	}
	var requests int
	var withID bool
	for _, l := range in.logs.lines(t) {
		if l["msg"] != "request" {
			continue
		}
		requests++
		for _, k := range []string{"method", "path", "status", "duration_ms", "bytes", "remote"} {
			if _, ok := l[k]; !ok {
				t.Errorf("request line %v has no %s", l, k)
			}
		}
		if l["request_id"] == "req-42" {
			withID = true
			if l["method"] != "POST" || l["path"] != "/mcp" || l["status"] != 200.0 || l["bytes"].(float64) <= 0 {
				t.Errorf("request line %v", l)
			}
		}
	}
	if requests != 4 || !withID {
		t.Errorf("%d request lines (want 4: three to /mcp, /readyz at debug), request_id seen: %t\n%s", requests, withID, logs)
	}
}

// Behind a trusted proxy the request line names the caller the access
// lists judged ("client"), beside the proxy's address ("remote").
func TestLogsTheCallerBehindAProxy(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	cfg := writeFile(t, "gateway.yaml", "security:\n  trusted_proxies: [127.0.0.0/8]\n")
	in := start(t, env(), "-config", cfg, "-listen", "127.0.0.1:0", "-upstream", up.URL())
	if code, _, answer := post(t, in.url, up.Token(), listProjects, "X-Forwarded-For", "203.0.113.9", "X-Request-Id", "via-proxy"); code != 200 {
		t.Fatalf("%d %s", code, answer)
	}
	if code, _, answer := post(t, in.url, up.Token(), listProjects, "X-Request-Id", "direct"); code != 200 {
		t.Fatalf("%d %s", code, answer)
	}
	if code := in.stop(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	seen := map[string]any{}
	for _, l := range in.logs.lines(t) {
		if id, ok := l["request_id"].(string); ok {
			seen[id] = l["client"]
			if !strings.HasPrefix(l["remote"].(string), "127.0.0.1:") {
				t.Errorf("remote %v", l["remote"])
			}
		}
	}
	if seen["via-proxy"] != "203.0.113.9" {
		t.Errorf("through the proxy: client %v, want 203.0.113.9", seen["via-proxy"])
	}
	if c, ok := seen["direct"]; !ok || c != nil {
		t.Errorf("straight from the proxy's address: client %v (logged: %t), want none (it is the remote)", c, ok)
	}
}

// On stop, /readyz says 503 during timeouts.shutdown_delay, the request
// running is answered, and the exit code is 0. The delay runs on a clock
// the test moves: on the real clock the probes raced its 2 s (on a loaded
// machine they came after the listener had closed) and the test waited
// them out.
func TestStopDrains(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	cfg := writeFile(t, "gateway.yaml", "timeouts:\n  shutdown_delay: 2s\n")
	delayClock := clock.NewFake(time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC))
	delayClock.SetAutoAdvance(false) // the delay lasts until the test moves the clock
	in := startOn(t, delayClock, env(), "-config", cfg, "-listen", "127.0.0.1:0", "-upstream", up.URL())
	listShop(t, in.url, up.Token()) // the token is verified: the next call waits only on the listing

	// A listing held up at the upstream until the test moves its clock.
	if err := up.InjectFault("GET /api/v4/projects", control.Fault{Latency: time.Hour, OnClock: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	timers := up.Clock().Pending()
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, in.url, strings.NewReader(listProjects))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+up.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- strconv.Itoa(resp.StatusCode) + " " + string(b)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := up.Clock().WaitForTimers(ctx, timers+1); err != nil {
		t.Fatalf("the listing never reached the upstream: %v", err)
	}

	in.cancel()
	<-in.logs.seen(`"msg":"shutting down"`)
	if code, _, body := get(t, in.base+"/readyz"); code != http.StatusServiceUnavailable || body != `{"status":"stopping"}`+"\n" {
		t.Errorf("/readyz while stopping: %d %q", code, body)
	}
	if code, _, _ := get(t, in.base+"/healthz"); code != 200 {
		t.Errorf("/healthz while stopping: %d", code)
	}
	if err := delayClock.WaitForSleepers(ctx, 1); err != nil {
		t.Fatalf("the shutdown delay never started: %v", err)
	}
	delayClock.Advance(2 * time.Second)
	up.Clock().Advance(time.Hour)
	if got := <-answered; !strings.HasPrefix(got, "200 ") || !strings.Contains(got, `"shop"`) {
		t.Errorf("the request running at the stop: %s", got)
	}
	if code := <-in.done; code != 0 {
		t.Errorf("exit code %d; stderr:\n%s", code, in.logs)
	}
	in.done <- 0
}

// With Redis unreachable the program starts, serves from memory, and says
// so in /readyz (still 200), the metrics and the log.
func TestRedisUnreachable(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	in := start(t, env(), "-listen", "127.0.0.1:0", "-metrics-listen", "127.0.0.1:0", "-upstream", up.URL(), "-redis", testtools.RefusedAddr(t))
	listShop(t, in.url, up.Token())
	code, _, body := get(t, in.base+"/readyz")
	var ready struct{ Status, Reason string }
	if err := json.Unmarshal([]byte(body), &ready); err != nil || code != 200 || ready.Status != "degraded" || !strings.Contains(ready.Reason, "unreachable") {
		t.Errorf("/readyz with Redis down: %d %s", code, body)
	}
	if m := scrape(t, in.metrics); m["mcp_gateway_store_degraded"] != 1 || m["mcp_gateway_store_failures_total"] < 1 {
		t.Errorf("store_degraded %v, store_failures_total %v", m["mcp_gateway_store_degraded"], m["mcp_gateway_store_failures_total"])
	}
	if logs := in.logs.String(); !strings.Contains(logs, "Redis cannot be reached yet") {
		t.Errorf("the log does not say Redis is down:\n%s", logs)
	}
}

// An address in use is exit code 1 and a message naming it.
func TestListenFailure(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, args := range [][]string{
		{"-listen", l.Addr().String()},
		{"-listen", "127.0.0.1:0", "-metrics-listen", l.Addr().String()},
	} {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append(args, "-upstream", "http://127.0.0.1:1"), env(), &out, &errOut)
		if code != 1 || !strings.Contains(errOut.String(), l.Addr().String()) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	up := upstream(t)
	cert, key := selfSigned(t)
	cfg := writeFile(t, "gateway.yaml", "tls:\n  cert_file: "+cert+"\n  key_file: "+key+"\n")
	in := start(t, env(), "-config", cfg, "-listen", "127.0.0.1:0", "-upstream", up.URL())
	if !strings.HasPrefix(in.url, "https://127.0.0.1:") {
		t.Fatalf("printed url %q, want https", in.url)
	}
	listShop(t, in.url, up.Token(), mcp.WithCAFile(cert))
}
