package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/retry"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// script is a server that answers each request with the next scripted
// answer (the last one repeats) and counts what it got.
type script struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter, r *http.Request)
	got     []*http.Request
	bodies  []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.got)
	s.got = append(s.got, r)
	s.bodies = append(s.bodies, string(body))
	a := s.answers[min(n, len(s.answers)-1)]
	s.mu.Unlock()
	a(w, r)
}

func (s *script) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

func status(code int, headers ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(headers); i += 2 {
			w.Header().Set(headers[i], headers[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"message":%q}`, http.StatusText(code))
	}
}

type fixture struct {
	srv   *httptest.Server
	s     *script
	clock *clock.Fake
	c     *rest.Client
}

// decodeErr is a package-style error decoder for the tests.
type testError struct {
	Status int
	Body   string
}

func (e *testError) Error() string { return fmt.Sprintf("test: %d: %s", e.Status, e.Body) }

func newFixture(t *testing.T, cfg rest.Config, answers ...func(http.ResponseWriter, *http.Request)) *fixture {
	t.Helper()
	s := &script{answers: answers}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	clk := clock.NewFake(t0)
	cfg.Service = "test"
	cfg.BaseURL = srv.URL + "/api"
	if cfg.Clock == nil {
		cfg.Clock = clk
	}
	if cfg.DecodeError == nil {
		cfg.DecodeError = func(resp *http.Response, body []byte) error {
			return &testError{Status: resp.StatusCode, Body: string(body)}
		}
	}
	c, err := rest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{srv: srv, s: s, clock: clk, c: c}
}

func (f *fixture) elapsed() time.Duration { return f.clock.Now().Sub(t0) }

func get(path string) *rest.Request { return &rest.Request{Method: http.MethodGet, Path: path} }

func post(path string) *rest.Request {
	return &rest.Request{Method: http.MethodPost, Path: path, JSON: map[string]string{"name": "x"}}
}

func TestRetry429HonoursRetryAfter(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{},
		status(429, "Retry-After", "7"),
		status(200))
	var out map[string]string
	resp, err := f.c.Do(context.Background(), post("/things"), &out)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || out["message"] != "OK" {
		t.Fatalf("resp %+v out %v", resp, out)
	}
	if f.s.count() != 2 || f.elapsed() != 7*time.Second {
		t.Fatalf("requests %d, waited %v; want 2 requests and 7s (Retry-After)", f.s.count(), f.elapsed())
	}
	// The POST body was sent whole both times.
	if f.s.bodies[0] != `{"name":"x"}` || f.s.bodies[1] != f.s.bodies[0] {
		t.Fatalf("bodies %q", f.s.bodies)
	}
}

func TestRetry429HTTPDateAndResetHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		headers []string
		want    time.Duration
	}{
		{"retry-after date", []string{"Retry-After", t0.Add(45 * time.Second).Format(http.TimeFormat)}, 45 * time.Second},
		{"x-ratelimit-reset", []string{"X-RateLimit-Reset", strconv.FormatInt(t0.Add(42*time.Second).Unix(), 10)}, 42 * time.Second},
		{"gitlab reset", []string{"RateLimit-Reset", strconv.FormatInt(t0.Add(13*time.Second).Unix(), 10)}, 13 * time.Second},
		{"gitlab reset time", []string{"RateLimit-ResetTime", t0.Add(21 * time.Second).Format(http.TimeFormat)}, 21 * time.Second},
		{"retry-after wins over reset", []string{"Retry-After", "3", "X-RateLimit-Reset", strconv.FormatInt(t0.Add(50*time.Second).Unix(), 10)}, 3 * time.Second},
		{"stale reset falls back to backoff", []string{"X-RateLimit-Reset", strconv.FormatInt(t0.Add(-5*time.Second).Unix(), 10)}, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, rest.Config{}, status(429, tc.headers...), status(200))
			if _, err := f.c.Do(context.Background(), get("/x"), nil); err != nil {
				t.Fatal(err)
			}
			if f.elapsed() != tc.want {
				t.Fatalf("waited %v, want %v", f.elapsed(), tc.want)
			}
		})
	}
}

func TestRetry429BackoffThenRateLimitError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{}, status(429, "X-RateLimit-Limit", "600", "X-RateLimit-Remaining", "0"))
	_, err := f.c.Do(context.Background(), get("/x"), nil)
	var rle *apicall.RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("err = %v, want *RateLimitError", err)
	}
	// 1 + 2 + 4 seconds of backoff, then a fourth 429 ends it.
	if f.s.count() != 4 || f.elapsed() != 7*time.Second {
		t.Fatalf("requests %d, waited %v; want 4 and 7s", f.s.count(), f.elapsed())
	}
	if rle.Retries != 3 || rle.RateLimit.Limit != 600 || rle.RetryAfter != 8*time.Second {
		t.Fatalf("rate-limit error %+v", rle)
	}
	var te *testError
	if !errors.As(err, &te) || te.Status != 429 {
		t.Fatalf("package error not wrapped: %v", err)
	}
	if !strings.Contains(err.Error(), "gave up after 3 retries") {
		t.Fatalf("error text %q", err)
	}
}

func TestRetryPolicyConfigurable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{Retry: retry.Policy{MaxRetries: 5, MinWait: 2 * time.Second, MaxWait: 5 * time.Second}}, status(503))
	_, err := f.c.Do(context.Background(), get("/x"), nil)
	var te *testError
	if !errors.As(err, &te) || te.Status != 503 {
		t.Fatalf("err = %v", err)
	}
	// 2, 4, 5, 5, 5
	if f.s.count() != 6 || f.elapsed() != 21*time.Second {
		t.Fatalf("requests %d, waited %v; want 6 and 21s", f.s.count(), f.elapsed())
	}
}

func TestRetryDisabled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{Retry: retry.Policy{Disabled: true}}, status(429, "Retry-After", "1"))
	_, err := f.c.Do(context.Background(), get("/x"), nil)
	var rle *apicall.RateLimitError
	if !errors.As(err, &rle) || f.s.count() != 1 || f.elapsed() != 0 {
		t.Fatalf("err %v, requests %d, waited %v", err, f.s.count(), f.elapsed())
	}
	if rle.RetryAfter != time.Second || rle.Reason != "retries are disabled" {
		t.Fatalf("%+v", rle)
	}
}

func TestNonIdempotentNotRetriedOn5xx(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{}, status(500), status(201))
	_, err := f.c.Do(context.Background(), post("/things"), nil)
	var te *testError
	if !errors.As(err, &te) || te.Status != 500 {
		t.Fatalf("err = %v, want the 500", err)
	}
	if f.s.count() != 1 {
		t.Fatalf("POST sent %d times, want 1", f.s.count())
	}
}

func TestIdempotentRetriedOn5xx(t *testing.T) {
	t.Parallel()
	for _, req := range []*rest.Request{
		get("/x"),
		{Method: http.MethodPut, Path: "/x", JSON: 1},
		{Method: http.MethodDelete, Path: "/x"},
		{Method: http.MethodPost, Path: "/x", JSON: 1, Header: http.Header{"Idempotency-Key": {"k1"}}},
	} {
		t.Run(req.Method, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, rest.Config{}, status(502), status(503), status(200))
			if _, err := f.c.Do(context.Background(), req, nil); err != nil {
				t.Fatal(err)
			}
			if f.s.count() != 3 || f.elapsed() != 3*time.Second {
				t.Fatalf("requests %d waited %v", f.s.count(), f.elapsed())
			}
		})
	}
}

func TestNotRetried4xxAnd501(t *testing.T) {
	t.Parallel()
	for _, code := range []int{400, 401, 403, 404, 409, 422, 501} {
		f := newFixture(t, rest.Config{}, status(code))
		_, err := f.c.Do(context.Background(), get("/x"), nil)
		var te *testError
		if !errors.As(err, &te) || te.Status != code || f.s.count() != 1 {
			t.Fatalf("%d: err %v requests %d", code, err, f.s.count())
		}
	}
}

// countingTransport counts round trips.
type countingTransport struct {
	n    atomic.Int32
	base http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}

func TestPostRetriedWhenNeverSent(t *testing.T) {
	t.Parallel()
	// A port that refuses connections, so the POST never left.
	addr := testtools.RefusedAddr(t)
	tr := &countingTransport{base: http.DefaultTransport}
	clk := clock.NewFake(t0)
	c, err := rest.New(rest.Config{Service: "test", BaseURL: "http://" + addr, Clock: clk, HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), post("/x"), nil)
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Fatalf("err = %v, want a dial error", err)
	}
	if tr.n.Load() != 4 {
		t.Fatalf("attempts %d, want 4 (the request never left, so retrying is safe)", tr.n.Load())
	}
}

func TestPostNotRetriedWhenConnectionDropped(t *testing.T) {
	t.Parallel()
	drop := func(w http.ResponseWriter, _ *http.Request) {
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	}
	f := newFixture(t, rest.Config{}, drop, status(201))
	if _, err := f.c.Do(context.Background(), post("/x"), nil); err == nil {
		t.Fatal("want a transport error")
	}
	if f.s.count() != 1 {
		t.Fatalf("POST sent %d times after a dropped connection, want 1", f.s.count())
	}
	// The same drop on a GET is retried.
	g := newFixture(t, rest.Config{}, drop, status(200))
	if _, err := g.c.Do(context.Background(), get("/x"), nil); err != nil {
		t.Fatal(err)
	}
	if g.s.count() != 2 {
		t.Fatalf("GET sent %d times, want 2", g.s.count())
	}
}

func TestGiveUpEarlyBeforeDeadline(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{}, status(429, "Retry-After", "60"), status(200))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := f.c.Do(ctx, get("/x"), nil)
	var rle *apicall.RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("err = %v, want *RateLimitError", err)
	}
	if f.s.count() != 1 || f.elapsed() != 0 || rle.RetryAfter != time.Minute {
		t.Fatalf("requests %d waited %v %+v", f.s.count(), f.elapsed(), rle)
	}
	if !strings.Contains(rle.Reason, "deadline") {
		t.Fatalf("reason %q", rle.Reason)
	}
}

func TestGiveUpWhenServerWaitExceedsMaxWait(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{Retry: retry.Policy{MaxWait: 10 * time.Second}}, status(429, "Retry-After", "3600"), status(200))
	_, err := f.c.Do(context.Background(), get("/x"), nil)
	var rle *apicall.RateLimitError
	if !errors.As(err, &rle) || f.s.count() != 1 || f.elapsed() != 0 {
		t.Fatalf("err %v requests %d waited %v", err, f.s.count(), f.elapsed())
	}
}

func TestCancelStopsRetryWait(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{}, status(429, "Retry-After", "30"), status(200))
	f.clock.SetAutoAdvance(false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := f.c.Do(ctx, get("/x"), nil)
		done <- err
	}()
	if err := f.clock.WaitForSleepers(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if f.s.count() != 1 || f.elapsed() != 0 {
		t.Fatalf("requests %d, clock moved %v", f.s.count(), f.elapsed())
	}
}

func TestSecretsRedacted(t *testing.T) {
	t.Parallel()
	const token = "glpat-SECRET-TOKEN-123"
	echo := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"message":"bad token %s"}`, r.Header.Get("PRIVATE-TOKEN"))
	}
	var logs bytes.Buffer
	f := newFixture(t, rest.Config{
		Authorize: func(h http.Header) { h.Set("PRIVATE-TOKEN", token) },
		Secrets:   []string{token},
		Logger:    slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}, echo)
	_, err := f.c.Do(context.Background(), get("/x"), nil)
	if err == nil || strings.Contains(err.Error(), token) {
		t.Fatalf("err %v", err)
	}
	var te *testError
	if !errors.As(err, &te) || strings.Contains(te.Body, token) || !strings.Contains(te.Body, rest.Redacted) {
		t.Fatalf("decoded body %q", te.Body)
	}
	if f.s.got[0].Header.Get("PRIVATE-TOKEN") != token {
		t.Fatal("token not sent")
	}
	if strings.Contains(logs.String(), token) || !strings.Contains(logs.String(), "msg=call") {
		t.Fatalf("logs: %s", logs.String())
	}

	// A transport error's text is redacted too (here the token sits in the URL).
	c, err := rest.New(rest.Config{Service: "test", BaseURL: "http://127.0.0.1:1/" + token, Secrets: []string{token}, Retry: retry.Policy{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), get("/x"), nil)
	if err == nil || strings.Contains(err.Error(), token) {
		t.Fatalf("transport err %v", err)
	}
	var opErr *net.OpError
	if !errors.As(err, &opErr) {
		t.Fatalf("redaction lost the error chain: %v", err)
	}
}

func TestRequestBuilding(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{UserAgent: "myapp/2", Authorize: func(h http.Header) { h.Set("X-Key", "k") }}, status(200))
	req := &rest.Request{Method: http.MethodPost, Path: "/p/a%2Fb/hooks", Query: map[string][]string{"x": {"1 2"}},
		Form: map[string][]string{"url": {"http://h/"}, "push_events": {"true"}}}
	if _, err := f.c.Do(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	got := f.s.got[0]
	if got.URL.EscapedPath() != "/api/p/a%2Fb/hooks" || got.URL.RawQuery != "x=1+2" {
		t.Fatalf("url %s", got.URL)
	}
	if ua := got.Header.Get("User-Agent"); !strings.HasPrefix(ua, "apitwin/") || !strings.HasSuffix(ua, " myapp/2") {
		t.Fatalf("User-Agent %q", ua)
	}
	if got.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || f.s.bodies[0] != "push_events=true&url=http%3A%2F%2Fh%2F" {
		t.Fatalf("form %q %q", got.Header.Get("Content-Type"), f.s.bodies[0])
	}
	if got.Header.Get("X-Key") != "k" || got.Header.Get("Accept") != "application/json" {
		t.Fatalf("headers %v", got.Header)
	}
}

func TestRateLimitRecorded(t *testing.T) {
	t.Parallel()
	reset := t0.Add(time.Minute).Unix()
	f := newFixture(t, rest.Config{}, status(200, "X-RateLimit-Limit", "600", "X-RateLimit-Remaining", "599",
		"X-RateLimit-Reset", strconv.FormatInt(reset, 10), "X-RateLimit-Scope", "token"), status(200))
	resp, err := f.c.Do(context.Background(), get("/x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := apicall.RateLimit{Limit: 600, Remaining: 599, Reset: time.Unix(reset, 0), Scope: "token"}
	if resp.RateLimit != want || f.c.RateLimit() != want {
		t.Fatalf("resp %+v client %+v", resp.RateLimit, f.c.RateLimit())
	}
	// A response without headers leaves the last known values.
	if _, err := f.c.Do(context.Background(), get("/x"), nil); err != nil {
		t.Fatal(err)
	}
	if f.c.RateLimit() != want {
		t.Fatalf("after a bare response: %+v", f.c.RateLimit())
	}
}

func TestDecodeIntoWriterAndBadJSON(t *testing.T) {
	t.Parallel()
	raw := func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "not json") }
	f := newFixture(t, rest.Config{}, raw)
	var buf bytes.Buffer
	if _, err := f.c.Do(context.Background(), get("/x"), &buf); err != nil || buf.String() != "not json" {
		t.Fatalf("%v %q", err, buf.String())
	}
	var v map[string]any
	_, err := f.c.Do(context.Background(), get("/x"), &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want a JSON syntax error", err)
	}
}

// A request marked AtServerRoot goes to the base URL without
// Config.APIPath, through the same client (the copies of WithAuth too);
// the others stay under the base URL. A base URL that does not end in the
// API's path is refused.
func TestAtServerRoot(t *testing.T) {
	t.Parallel()
	f := newFixture(t, rest.Config{APIPath: "/api"}, status(200))
	for _, c := range []*rest.Client{f.c, f.c.WithAuth(nil)} {
		for _, r := range []*rest.Request{get("/projects"), {Method: http.MethodGet, Path: "/oauth/token/info", AtServerRoot: true}} {
			if _, err := c.Do(context.Background(), r, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	var got []string
	for _, r := range f.s.got {
		got = append(got, r.URL.Path)
	}
	if want := []string{"/api/projects", "/oauth/token/info", "/api/projects", "/oauth/token/info"}; !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	for _, p := range []string{"/v4", "api"} {
		if _, err := rest.New(rest.Config{Service: "s", BaseURL: "https://h/api", APIPath: p}); err == nil {
			t.Errorf("APIPath %q under https://h/api accepted", p)
		}
	}
}

// Request.MaxBody bounds what is read of a successful answer, into a
// value or a writer: an answer of exactly the bound is read, one byte
// more fails the call, once (not retried), naming the bound.
func TestMaxBody(t *testing.T) {
	t.Parallel()
	const max = 16
	body := func(n int) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, `"`+strings.Repeat("x", n-2)+`"`) }
	}
	f := newFixture(t, rest.Config{}, body(max), body(max), body(max+1), body(max+1), body(1<<20))
	for i, tc := range []struct {
		writer bool
		fail   bool
	}{{false, false}, {true, false}, {false, true}, {true, true}, {false, true}} {
		var s string
		var buf bytes.Buffer
		out := any(&s)
		if tc.writer {
			out = &buf
		}
		_, err := f.c.Do(context.Background(), &rest.Request{Method: http.MethodGet, Path: "/x", MaxBody: max}, out)
		if tc.fail != (err != nil) || tc.fail && (!strings.Contains(err.Error(), "longer than 16 bytes") || !errors.Is(err, rest.ErrUnreadableAnswer)) {
			t.Errorf("answer %d: %v", i, err)
		}
		if tc.writer && buf.Len() > max {
			t.Errorf("answer %d: %d bytes written past the bound", i, buf.Len())
		}
	}
	if n := f.s.count(); n != 5 {
		t.Errorf("%d requests for 5 calls: a body too long was retried", n)
	}
}

// An answer that came but cannot be read (empty, not JSON of the type
// asked for) is ErrUnreadableAnswer, its error's text as before; a
// transport that fails while the body is read is not.
func TestUnreadableAnswer(t *testing.T) {
	t.Parallel()
	answer := func(body string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, body) }
	}
	cut := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, `{"a":`) // then the connection closes short of its length
	}
	f := newFixture(t, rest.Config{Retry: retry.Policy{Disabled: true}}, answer(""), answer("<html>"), answer(`{"n":"x"}`), cut)
	for i, want := range []bool{true, true, true, false} {
		var out struct{ N int }
		_, err := f.c.Do(context.Background(), &rest.Request{Method: http.MethodGet, Path: "/x"}, &out)
		if err == nil || errors.Is(err, rest.ErrUnreadableAnswer) != want {
			t.Errorf("answer %d: %v, unreadable %v", i, err, want)
		}
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	for _, cfg := range []rest.Config{
		{BaseURL: "http://h"},
		{Service: "s", BaseURL: "ftp://h"},
		{Service: "s", BaseURL: "/relative"},
		{Service: "s", BaseURL: "http://h/?q=1"},
		{Service: "s", BaseURL: "http://h", Retry: retry.Policy{MaxRetries: -1}},
		{Service: "s", BaseURL: "http://h", Retry: retry.Policy{MinWait: 10 * time.Second, MaxWait: time.Second}},
		{Service: "s", BaseURL: "http://h", HTTPClient: http.DefaultClient, TLS: rest.TLSOptions{InsecureSkipVerify: true}},
	} {
		if _, err := rest.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
	c, err := rest.New(rest.Config{Service: "s", BaseURL: "https://h/api/v4/"})
	if err != nil || c.BaseURL() != "https://h/api/v4" {
		t.Fatalf("%v %v", c, err)
	}
	if _, err := rest.New(rest.Config{Service: "s", BaseURL: "http://user:hunter22@h/?q"}); err == nil || strings.Contains(err.Error(), "hunter22") {
		t.Fatalf("userinfo leaked or accepted: %v", err)
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "{}") }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	t.Cleanup(srv.Close)
	mk := func(opts ...rest.Option) *rest.Client {
		cfg := rest.Config{Service: "s", BaseURL: srv.URL, Clock: clock.NewFake(t0)}
		for _, o := range opts {
			if err := o(&cfg); err != nil {
				t.Fatal(err)
			}
		}
		c, err := rest.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// Untrusted certificate: an error, and not retried (no retry cures it).
	if _, err := mk().Do(context.Background(), get("/"), nil); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("err = %v, want a certificate error", err)
	}
	if _, err := mk(rest.WithInsecureSkipVerify()).Do(context.Background(), get("/"), nil); err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := mk(rest.WithCAFile(caFile)).Do(context.Background(), get("/"), nil); err != nil {
		t.Fatal(err)
	}
	var cfg rest.Config
	if err := rest.WithCAFile(filepath.Join(t.TempDir(), "missing.pem"))(&cfg); err == nil {
		t.Fatal("missing CA file accepted")
	}
}

// WithResponseHeaderTimeout bounds the wait for an answer's headers on the
// client's own transport: a server that takes the request and never
// answers fails the call with the transport's timeout, rather than holding
// it for as long as the caller waits. A negative bound is refused.
func TestResponseHeaderTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	cfg := rest.Config{Service: "s", BaseURL: srv.URL, Clock: clock.NewFake(t0)}
	for _, o := range []rest.Option{rest.WithoutRetries(), rest.WithResponseHeaderTimeout(time.Millisecond)} {
		if err := o(&cfg); err != nil {
			t.Fatal(err)
		}
	}
	c, err := rest.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(context.Background(), get("/"), nil); err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Fatalf("err = %v, want the response header timeout", err)
	}
	if err := rest.WithResponseHeaderTimeout(-time.Second)(&rest.Config{}); err == nil {
		t.Fatal("a negative timeout was accepted")
	}
}

// flakyTransport fails its first round trip with err, then sends through
// http.DefaultTransport.
type flakyTransport struct {
	err   error
	tries atomic.Int32
}

func (f *flakyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.tries.Add(1) == 1 {
		return nil, f.err
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Each retry is logged with its reason: the error of the answer, or the
// transport's error, with the client's secrets hidden in it as everywhere
// else.
func TestRetryIsLoggedWithItsReason(t *testing.T) {
	t.Parallel()
	const token = "glpat-RETRY-LOG-SECRET"
	type record struct {
		Msg, Service, Operation, Reason string
		Retry                           int
		Wait                            time.Duration
	}
	records := func(t *testing.T, logs *bytes.Buffer) []record {
		t.Helper()
		if strings.Contains(logs.String(), token) {
			t.Fatalf("the token is in the logs:\n%s", logs)
		}
		var rs []record
		dec := json.NewDecoder(logs)
		for {
			var r record
			if err := dec.Decode(&r); err == io.EOF {
				return rs
			} else if err != nil {
				t.Fatal(err)
			}
			if r.Msg == "retrying call" {
				rs = append(rs, r)
			}
		}
	}
	logger := func(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }

	t.Run("answer", func(t *testing.T) {
		t.Parallel()
		var logs bytes.Buffer
		f := newFixture(t, rest.Config{
			Authorize: func(h http.Header) { h.Set("PRIVATE-TOKEN", token) },
			Secrets:   []string{token},
			Logger:    logger(&logs),
		}, status(503), status(200))
		if _, err := f.c.Do(context.Background(), get("/x"), nil); err != nil {
			t.Fatal(err)
		}
		want := []record{{Msg: "retrying call", Service: "test", Operation: "GET /x", Reason: `test: 503: {"message":"Service Unavailable"}`, Retry: 1, Wait: time.Second}}
		if got := records(t, &logs); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("retry records %+v, want %+v", got, want)
		}
	})

	t.Run("transport error", func(t *testing.T) {
		t.Parallel()
		var logs bytes.Buffer
		ft := &flakyTransport{err: errors.New("connection reset talking to " + token)}
		f := newFixture(t, rest.Config{
			HTTPClient: &http.Client{Transport: ft},
			Secrets:    []string{token},
			Logger:     logger(&logs),
		}, status(200))
		if _, err := f.c.Do(context.Background(), get("/x"), nil); err != nil {
			t.Fatal(err)
		}
		got := records(t, &logs)
		if len(got) != 1 || got[0].Retry != 1 || !strings.Contains(got[0].Reason, "connection reset talking to "+rest.Redacted) {
			t.Errorf("retry records %+v, want one whose reason is the transport's error, redacted", got)
		}
		if ft.tries.Load() != 2 || f.s.count() != 1 {
			t.Errorf("round trips %d, requests served %d; want 2 and 1", ft.tries.Load(), f.s.count())
		}
	})
}

// A client whose package gives no error decoder words an error answer
// itself: the request, the status, and an excerpt of the body.
func TestErrorWithoutADecoder(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "  \xffno such\nthing: "+strings.Repeat("é", 300)+"  ")
	}))
	t.Cleanup(srv.Close)
	c, err := rest.New(rest.Config{Service: "test", BaseURL: srv.URL + "/api", Retry: retry.Policy{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), get("/x"), nil)
	want := "GET /api/x: 404 Not Found: no such thing: " + strings.Repeat("é", 185) + "…"
	if err == nil || !strings.Contains(err.Error(), want) || !utf8.ValidString(err.Error()) {
		t.Fatalf("err %q, want it to hold %q", err, want)
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  not found \n", "not found"},
		{"line one\r\n\tline  two", "line one line two"},
		{"bad \xff\xfebytes", "bad bytes"},
		{strings.Repeat("a", 200), strings.Repeat("a", 200)},
		{strings.Repeat("a", 201), strings.Repeat("a", 200) + "…"},
		{strings.Repeat("界", 201), strings.Repeat("界", 200) + "…"}, // cut between characters, not bytes
		{"x" + strings.Repeat(" ", 500) + "y", "x y"},
	} {
		if got := rest.Excerpt(tc.in); got != tc.want {
			t.Errorf("Excerpt(%.40q) = %.60q, want %.60q", tc.in, got, tc.want)
		}
	}
}

// FuzzExcerpt: whatever an answer holds, its excerpt is valid UTF-8, on
// one line, with no outer spaces, and at most MaxExcerpt characters and
// the mark of a cut.
func FuzzExcerpt(f *testing.F) {
	for _, s := range []string{"", "a\nb", "\xff\xfe", strings.Repeat("é", 201), strings.Repeat("a ", 150)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := rest.Excerpt(in)
		n := utf8.RuneCountInString(got)
		cut := strings.HasSuffix(got, "…") && n == rest.MaxExcerpt+1
		switch {
		case !utf8.ValidString(got):
			t.Fatalf("invalid UTF-8: %q", got)
		case strings.ContainsAny(got, "\n\r\t\v\f"), strings.TrimSpace(got) != got:
			t.Fatalf("not one trimmed line: %q", got)
		case n > rest.MaxExcerpt && !cut:
			t.Fatalf("%d characters: %q", n, got)
		}
	})
}

// WithAuth's copy sends its own credential and hides it (in errors and
// logs) along with the secrets the original was made with; it keeps the
// original's settings (user agent, decoder, server) and its own rate
// limit; the original is unchanged.
func TestWithAuth(t *testing.T) {
	t.Parallel()
	const first, second = "glpat-FIRST-TOKEN-111", "glpat-SECOND-TOKEN-22"
	echo := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/ok" {
			w.Header().Set("X-RateLimit-Limit", "60")
			w.Header().Set("X-RateLimit-Remaining", "59")
			return
		}
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"message":"bad tokens %s %s"}`, first, r.Header.Get("PRIVATE-TOKEN"))
	}
	var logs bytes.Buffer
	f := newFixture(t, rest.Config{
		UserAgent: "myapp/2",
		Authorize: func(h http.Header) { h.Set("PRIVATE-TOKEN", first) },
		Secrets:   []string{first},
		Logger:    slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Retry:     retry.Policy{Disabled: true},
	}, echo)
	cp := f.c.WithAuth(func(h http.Header) { h.Set("PRIVATE-TOKEN", second) }, second)
	if _, err := cp.Do(context.Background(), get("/ok"), nil); err != nil {
		t.Fatal(err)
	}
	_, err := cp.Do(context.Background(), get("/x"), nil)
	var te *testError
	if !errors.As(err, &te) { // the original's decoder
		t.Fatalf("err %v", err)
	}
	for _, secret := range []string{first, second} {
		if strings.Contains(err.Error(), secret) || strings.Contains(logs.String(), secret) {
			t.Errorf("%s shows in the copy's error or logs: %v\n%s", secret, err, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "msg=call") {
		t.Errorf("the copy logged nothing to the original's logger: %s", logs.String())
	}
	if got := f.s.got[0]; got.Header.Get("PRIVATE-TOKEN") != second || !strings.HasSuffix(got.Header.Get("User-Agent"), " myapp/2") {
		t.Errorf("the copy sent %v", got.Header)
	}
	if cp.RateLimit().Limit != 60 || f.c.RateLimit().Limit != 0 {
		t.Errorf("rate limits: copy %+v, original %+v", cp.RateLimit(), f.c.RateLimit())
	}
	if _, err := f.c.Do(context.Background(), get("/ok"), nil); err != nil {
		t.Fatal(err)
	}
	if got := f.s.got[2].Header.Get("PRIVATE-TOKEN"); got != first {
		t.Errorf("the original sent %q after the copy was made", got)
	}
	if cp.BaseURL() != f.c.BaseURL() {
		t.Errorf("the copy's base URL %q", cp.BaseURL())
	}
}
