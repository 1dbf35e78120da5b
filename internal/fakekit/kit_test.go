package fakekit_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
)

var t0 = time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)

// itemRoutes is a route table shared by every kit of these tests; the
// owner is a name the handlers echo, to show each instance gets its own.
var itemRoutes = func() *fakekit.Routes[string] {
	rt := fakekit.NewRoutes[string]()
	rt.Handle("GET /items/{id}", func(owner string, w http.ResponseWriter, r *http.Request) {
		fakekit.WriteJSON(w, 200, map[string]string{"id": r.PathValue("id"), "owner": owner})
	})
	rt.Handle("POST /items", func(_ string, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.WriteHeader(201)
		w.Write(b)
	})
	return rt
}()

func newKit(t *testing.T) (*fakekit.Kit, string) {
	t.Helper()
	k := fakekit.New(fakekit.Config{
		Clock: clock.NewFake(t0),
		Error: func(_ *http.Request, status int, msg string) fakekit.Answer {
			if msg == "" {
				msg = "injected"
			}
			return fakekit.Answer{Status: status, Body: map[string]string{"message": msg}}
		},
		Routes: itemRoutes.Bind(t.Name()),
	})
	return k, serve(t, k)
}

func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	var e fakekit.Endpoint
	return e.Start(t, h)
}

func TestRoutesSharedAcrossOwners(t *testing.T) {
	t.Parallel()
	_, a := newKit(t)
	k2 := fakekit.New(fakekit.Config{Routes: itemRoutes.Bind("second")})
	b := serve(t, k2)
	_, bodyA, _ := do(t, "GET", a+"/items/1", "")
	_, bodyB, _ := do(t, "GET", b+"/items/1", "")
	if !strings.Contains(bodyA, t.Name()) || !strings.Contains(bodyB, `"second"`) {
		t.Fatalf("owners: %s / %s", bodyA, bodyB)
	}
	if reqs := k2.Requests(); len(reqs) != 1 || reqs[0].Route != "GET /items/{id}" {
		t.Fatalf("log of the second kit %+v", reqs)
	}
}

func do(t *testing.T, method, url, body string) (*http.Response, string, error) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	k, url := newKit(t)
	do(t, "POST", url+"/items?x=1", `{"a":1}`)
	do(t, "GET", url+"/items/7", "")
	do(t, "GET", url+"/nowhere", "")
	got := k.Requests()
	if len(got) != 3 {
		t.Fatalf("%d requests logged", len(got))
	}
	if r := got[0]; r.Method != "POST" || r.Path != "/items" || r.Query.Get("x") != "1" || string(r.Body) != `{"a":1}` ||
		r.Status != 201 || r.Route != "POST /items" || !r.Time.Equal(t0) {
		t.Fatalf("first entry %+v", r)
	}
	if got[1].Route != "GET /items/{id}" || got[2].Route != "" || got[2].Status != 404 {
		t.Fatalf("entries %+v %+v", got[1], got[2])
	}
	if n := len(k.RequestsTo("GET /items/{id}")); n != 1 {
		t.Fatalf("RequestsTo = %d", n)
	}
	k.ResetRequests()
	if len(k.Requests()) != 0 {
		t.Fatal("log not reset")
	}
}

func TestRequestLogIsBounded(t *testing.T) {
	t.Parallel()
	k := fakekit.New(fakekit.Config{Limits: fakekit.Limits{LogEntries: 3}})
	url := serve(t, k)
	for i := range 5 {
		do(t, "GET", url+"/"+string(rune('a'+i)), "")
	}
	got := k.Requests()
	if len(got) != 3 || got[0].Path != "/c" || got[2].Path != "/e" {
		t.Fatalf("log %+v", got)
	}
}

// The log keeps the start of each answer's body beside the request's, cut
// at the same limit, and counts it in its byte budget.
func TestRequestLogKeepsAnswers(t *testing.T) {
	t.Parallel()
	k := fakekit.New(fakekit.Config{
		Limits: fakekit.Limits{LogBodyBytes: 8, LogBytes: 4 << 10},
		Routes: itemRoutes.Bind("answers"),
	})
	url := serve(t, k)
	do(t, "GET", url+"/items/7", "")
	do(t, "POST", url+"/items", `{"a":"0123456789"}`)
	got := k.Requests()
	if len(got) != 2 {
		t.Fatalf("%d logged", len(got))
	}
	if r := got[0]; string(r.ResponseBody) != `{"id":"7` || r.ResponseSize != int64(len(`{"id":"7","owner":"answers"}`)) || !r.ResponseTruncated() {
		t.Errorf("GET: answer %q of %d", r.ResponseBody, r.ResponseSize)
	}
	if r := got[1]; string(r.ResponseBody) != `{"a":"01` || r.ResponseSize != 18 || string(r.Body) != `{"a":"01` {
		t.Errorf("POST: body %q, answer %q of %d", r.Body, r.ResponseBody, r.ResponseSize)
	}

	// Answers of 3 KiB each in a 4 KiB log: only the newest is kept, as
	// the answer's bytes are counted when it ends.
	big := fakekit.New(fakekit.Config{Limits: fakekit.Limits{LogBodyBytes: 3 << 10, LogBytes: 4 << 10}, Routes: itemRoutes.Bind("big")})
	bigURL := serve(t, big)
	payload := strings.Repeat("x", 3<<10)
	for range 3 {
		do(t, "POST", bigURL+"/items", payload)
	}
	if got := big.Requests(); len(got) != 1 || len(got[0].ResponseBody) != 3<<10 {
		t.Errorf("%d kept (want 1 within the byte budget)", len(got))
	}
}

func TestFaults(t *testing.T) {
	t.Parallel()
	k, url := newKit(t)
	if err := k.InjectFault("POST /items", control.Fault{Status: 500, Times: 2}); err != nil {
		t.Fatal(err)
	}
	if err := k.InjectFault("GET /items/{id}", control.Fault{Status: 503, Body: `{"custom":true}`, Header: http.Header{"Retry-After": {"9"}}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	// The GET fault does not touch POSTs, and runs out after Times.
	for i, want := range []int{500, 500, 201} {
		resp, body, err := do(t, "POST", url+"/items", "x")
		if err != nil || resp.StatusCode != want {
			t.Fatalf("POST %d: %v %v", i, resp.StatusCode, err)
		}
		if want == 500 && body != `{"message":"injected"}` {
			t.Fatalf("fault body %q", body)
		}
	}
	resp, body, _ := do(t, "GET", url+"/items/1", "")
	if resp.StatusCode != 503 || body != `{"custom":true}` || resp.Header.Get("Retry-After") != "9" {
		t.Fatalf("GET fault: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _, _ := do(t, "GET", url+"/items/1", ""); resp.StatusCode != 200 {
		t.Fatalf("after the fault ran out: %d", resp.StatusCode)
	}
	if reqs := k.Requests(); !reqs[0].Fault || reqs[2].Fault || reqs[0].Route != "POST /items" {
		t.Fatalf("log does not mark faults with their route: %+v", reqs[0])
	}
}

func TestFaultConcretePathAndEverything(t *testing.T) {
	t.Parallel()
	k, url := newKit(t)
	k.InjectFault("GET /items/2", control.Fault{Status: 418})
	if resp, _, _ := do(t, "GET", url+"/items/1", ""); resp.StatusCode != 200 {
		t.Fatalf("/items/1: %d", resp.StatusCode)
	}
	if resp, _, _ := do(t, "GET", url+"/items/2", ""); resp.StatusCode != 418 {
		t.Fatalf("/items/2: %d", resp.StatusCode)
	}
	k.ClearFaults()
	k.InjectFault("", control.Fault{Status: 502, Times: 1})
	if resp, _, _ := do(t, "POST", url+"/anything", ""); resp.StatusCode != 502 {
		t.Fatalf("catch-all: %d", resp.StatusCode)
	}
}

func TestFaultDropAndLatency(t *testing.T) {
	t.Parallel()
	k, url := newKit(t)
	k.InjectFault("GET /items/{id}", control.Fault{Drop: true, Times: 1})
	if _, _, err := do(t, "GET", url+"/items/1", ""); err == nil {
		t.Fatal("dropped connection gave an answer")
	}
	// Logged by the time the client sees the drop, not some time after.
	if got := k.RequestsTo("GET /items/{id}"); len(got) != 1 || !got[0].Fault {
		t.Fatalf("the dropped request is not in the log: %+v", got)
	}
	k.InjectFault("GET /items/{id}", control.Fault{Latency: time.Millisecond, Times: 1})
	if resp, body, err := do(t, "GET", url+"/items/5", ""); err != nil || resp.StatusCode != 200 || !strings.Contains(body, `"5"`) {
		t.Fatalf("latency-only fault should pass through: %v %v %q", resp, err, body)
	}
}

func TestFaultValidation(t *testing.T) {
	t.Parallel()
	k := fakekit.New(fakekit.Config{})
	for _, bad := range []struct {
		route string
		f     control.Fault
	}{
		{"GET /x/{", control.Fault{Status: 500}},
		{"", control.Fault{Status: 5}},
		{"", control.Fault{Times: -1}},
	} {
		if err := k.InjectFault(bad.route, bad.f); err == nil {
			t.Errorf("InjectFault(%q, %+v) accepted", bad.route, bad.f)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	rt := fakekit.NewRoutes[int]()
	rt.Handle("POST /x", func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) })
	k := fakekit.New(fakekit.Config{Limits: fakekit.Limits{MaxBody: 4}, Routes: rt.Bind(0)})
	url := serve(t, k)
	if resp, _, _ := do(t, "POST", url+"/x", "12345"); resp.StatusCode != 413 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if resp, _, _ := do(t, "POST", url+"/x", "1234"); resp.StatusCode != 204 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// Without a Content-Length: refused once the fifth byte is in.
	req, _ := http.NewRequest("POST", url+"/x", io.MultiReader(strings.NewReader("123"), strings.NewReader("45")))
	req.ContentLength = -1
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 413 {
		t.Fatalf("chunked: %v %v", resp, err)
	}
	resp.Body.Close()
	if reqs := k.Requests(); len(reqs) != 3 || reqs[0].Status != 413 || reqs[0].BodySize != 5 || len(reqs[0].Body) != 0 {
		t.Fatalf("log %v", reqs)
	}
}

func TestRateLimiterWindows(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	l := fakekit.NewRateLimiter(clk, 2, time.Minute, "token")
	for i, want := range []bool{true, true, false} {
		if d := l.Take("a"); d.Allowed != want {
			t.Fatalf("take %d: %+v", i, d)
		}
	}
	if d := l.Take("b"); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("other key: %+v", d)
	}
	clk.Advance(20 * time.Second)
	d := l.Take("a")
	if d.Allowed || d.RetryAfter != 40*time.Second || !d.Reset.Equal(t0.Add(time.Minute)) {
		t.Fatalf("refused: %+v", d)
	}
	h := http.Header{}
	d.SetHeaders(h)
	if h.Get("X-RateLimit-Limit") != "2" || h.Get("X-RateLimit-Remaining") != "0" || h.Get("Retry-After") != "40" ||
		h.Get("X-RateLimit-Reset") != "1777593660" || h.Get("X-RateLimit-Scope") != "token" {
		t.Fatalf("headers %v", h)
	}
	clk.Advance(40 * time.Second)
	if d := l.Take("a"); !d.Allowed || d.Remaining != 1 {
		t.Fatalf("new window: %+v", d)
	}
	var off *fakekit.RateLimiter
	if !off.Take("x").Allowed || !fakekit.NewRateLimiter(clk, 0, time.Minute, "").Take("x").Allowed {
		t.Fatal("disabled limiter refused")
	}
}

func TestRateLimiterTakeNAndPeek(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	l := fakekit.NewRateLimiter(clk, 10, time.Minute, "events")
	if d := l.Peek("a"); !d.Allowed || d.Remaining != 10 || !d.Reset.Equal(t0.Add(time.Minute)) {
		t.Fatalf("peek before any request: %+v", d)
	}
	if d := l.TakeN("a", 7); !d.Allowed || d.Remaining != 3 {
		t.Fatalf("take 7: %+v", d)
	}
	// Four more would pass the limit: refused, and nothing counted.
	if d := l.TakeN("a", 4); d.Allowed || d.Remaining != 3 {
		t.Fatalf("take 4 over the limit: %+v", d)
	}
	clk.Advance(15 * time.Second)
	if d := l.Peek("a"); !d.Allowed || d.Remaining != 3 || !d.Reset.Equal(t0.Add(time.Minute)) {
		t.Fatalf("peek counts nothing: %+v", d)
	}
	if d := l.TakeN("a", 3); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("take the last 3: %+v", d)
	}
	if d := l.TakeN("a", 0); !d.Allowed {
		t.Fatalf("taking nothing at the limit: %+v", d)
	}
	if d := l.Peek("a"); d.Allowed || d.RetryAfter != 45*time.Second {
		t.Fatalf("peek at a full window: %+v", d)
	}
}

func TestListenPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	_, err = fakekit.ListenTCP(l.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "port "+port+" is already in use") {
		t.Fatalf("err = %v", err)
	}
	if _, err := fakekit.ListenTCP("256.0.0.1:1"); err == nil {
		t.Fatal("bad address accepted")
	}
}

// TestRequestLoggedBeforeTheAnswerArrives: a body written in one large
// Write reaches the client before the handler returns, so the request must
// be in the log by then.
func TestRequestLoggedBeforeTheAnswerArrives(t *testing.T) {
	t.Parallel()
	rt := fakekit.NewRoutes[int]()
	big := strings.Repeat("x", 1<<20)
	release := make(chan struct{})
	rt.Handle("GET /big", func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		io.WriteString(w, big)
		<-release // the handler has not returned when the client has the answer
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind(0)})
	url := serve(t, k)
	defer close(release)
	resp, body, err := do(t, "GET", url+"/big", "")
	if err != nil || len(body) != len(big) {
		t.Fatalf("%v %d", err, len(body))
	}
	if reqs := k.Requests(); len(reqs) != 1 || reqs[0].Status != resp.StatusCode || reqs[0].Route != "GET /big" {
		t.Fatalf("log %+v", reqs)
	}
}

// A body without a length is read in chunks: whole and intact at the limit,
// refused one byte past it.
func TestChunkedBodyAtTheLimit(t *testing.T) {
	t.Parallel()
	const limit = 100 << 10 // several read chunks
	want := strings.Repeat("0123456789abcdef", limit/16)
	rt := fakekit.NewRoutes[int]()
	rt.Handle("POST /x", func(_ int, w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		if string(got) != want {
			w.WriteHeader(http.StatusTeapot)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	url := serve(t, fakekit.New(fakekit.Config{Limits: fakekit.Limits{MaxBody: limit}, Routes: rt.Bind(0)}))
	for body, status := range map[string]int{want: http.StatusNoContent, want + "!": http.StatusRequestEntityTooLarge, "": http.StatusTeapot} {
		req, _ := http.NewRequest("POST", url+"/x", io.MultiReader(strings.NewReader(body)))
		req.ContentLength = -1
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("%d bytes: status %d, want %d", len(body), resp.StatusCode, status)
		}
	}
}

// A fault's headers win over those of the service's error answer (a
// fault's Retry-After over the one a 429 carries by default).
func TestFaultHeadersWinOverTheErrorAnswers(t *testing.T) {
	t.Parallel()
	k := fakekit.New(fakekit.Config{Error: func(_ *http.Request, status int, _ string) fakekit.Answer {
		return fakekit.Answer{Status: status, Body: map[string]string{"message": "Retry later"}, Header: http.Header{"Retry-After": {"60"}}}
	}})
	if err := k.InjectFault("", control.Fault{Status: http.StatusTooManyRequests, Header: http.Header{"retry-after": {"7"}}}); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	k.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "7" || !strings.Contains(rec.Body.String(), "Retry later") {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

// The log keeps a request's header as it came, every value of a repeated
// name in order, and a caller that changes its header map afterwards (an
// in-process caller may reuse it) does not change what was logged. The
// request's context carries its Exchange and still reaches the caller's
// values and cancellation.
func TestRequestLogKeepsTheHeader(t *testing.T) {
	t.Parallel()
	type callerKey struct{}
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), callerKey{}, "mine"))
	var seen []any
	rt := fakekit.NewRoutes[string]()
	rt.Handle("GET /", func(_ string, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/x" {
			seen = append(seen, fakekit.ExchangeFrom(r.Context()) != nil, r.Context().Value(callerKey{}))
			cancel()
			<-r.Context().Done() // the caller's cancellation reaches the handler
		}
		w.WriteHeader(http.StatusNoContent)
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind("")})
	req := httptest.NewRequestWithContext(parent, "GET", "/x", nil)
	req.Header = http.Header{"Accept": {"a", "b"}, "X-One": {"1"}, "X-None": {}}
	k.ServeHTTP(httptest.NewRecorder(), req)
	req.Header.Set("Accept", "changed")
	req.Header.Set("X-Later", "2")

	got := k.Requests()
	if len(got) != 1 {
		t.Fatalf("%d requests logged", len(got))
	}
	want := http.Header{"Accept": {"a", "b"}, "X-One": {"1"}}
	if !reflect.DeepEqual(got[0].Header, want) {
		t.Errorf("logged header %v, want %v", got[0].Header, want)
	}
	if !reflect.DeepEqual(seen, []any{true, "mine"}) {
		t.Errorf("the handler's context: exchange, caller's value = %v", seen)
	}
	// A request without a header is logged without one.
	k.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/y", nil))
	if h := k.Requests()[1].Header; h != nil {
		t.Errorf("a request with no header logged %v", h)
	}
}

// An allowed decision without a scope writes the three numbers alone, each
// a value of its own (adding to one leaves the others as they were).
func TestDecisionSetHeadersAllowed(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	fakekit.Decision{Allowed: true, Limit: 600, Remaining: 599, Reset: time.Unix(1777593660, 0)}.SetHeaders(h)
	want := http.Header{"X-Ratelimit-Limit": {"600"}, "X-Ratelimit-Remaining": {"599"}, "X-Ratelimit-Reset": {"1777593660"}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Fatalf("headers (-want +got):\n%s", diff)
	}
	h.Add("X-Ratelimit-Limit", "1")
	want["X-Ratelimit-Limit"] = []string{"600", "1"}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Fatalf("after Add (-want +got):\n%s", diff)
	}
}
