package fakekit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// shapeError is a service's error shape for these tests.
func shapeError(_ *http.Request, status int, msg string) fakekit.Answer {
	if msg == "" {
		msg = http.StatusText(status)
	}
	return fakekit.Answer{Status: status, Body: map[string]any{"error": map[string]any{"code": status, "message": msg}}}
}

func TestGuardTurnsAPanicIntoTheServicesError(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	rt := fakekit.NewRoutes[*sync.Mutex]()
	rt.Handle("GET /boom", func(mu *sync.Mutex, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock() // the fakes' rule: a lock is released by defer, so a panic cannot keep it
		var ids []int
		_ = ids[len(r.URL.Path)] // index out of range
	})
	rt.Handle("GET /ok", func(mu *sync.Mutex, w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fakekit.WriteJSON(w, 200, "fine")
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind(&mu), Error: shapeError})
	url := serve(t, k)
	resp, body, err := do(t, "GET", url+"/boom", "")
	if err != nil || resp.StatusCode != 500 || body != `{"error":{"code":500,"message":"Internal Server Error"}}` {
		t.Fatalf("panic answered %v %q %v", resp, body, err)
	}
	if resp, _, err := do(t, "GET", url+"/ok", ""); err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the panic: %v %v", resp, err)
	}
	panics := k.Panics()
	if len(panics) != 1 || panics[0].Status != 500 || !strings.Contains(panics[0].Panic, "index out of range") ||
		!strings.Contains(panics[0].Panic, "guard_test.go") || panics[0].Route != "GET /boom" {
		t.Fatalf("panics logged: %v", panics)
	}
	if s := fmt.Sprint(panics[0]); s != "GET /boom → 500 (panic)" {
		t.Fatalf("String %q", s)
	}
}

func TestGuardAfterTheStatusWasWritten(t *testing.T) {
	t.Parallel()
	rt := fakekit.NewRoutes[int]()
	rt.Handle("GET /half", func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(200)
		io.WriteString(w, `{"partial":`)
		panic("late")
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind(0), Error: shapeError})
	rec := httptest.NewRecorder()
	k.ServeHTTP(rec, httptest.NewRequest("GET", "/half", nil))
	if rec.Code != 200 || rec.Body.String() != `{"partial":` {
		t.Fatalf("answer %d %q: the status had gone out, nothing more can be said", rec.Code, rec.Body)
	}
	if p := k.Panics(); len(p) != 1 || !strings.HasPrefix(p[0].Panic, "late\n") {
		t.Fatalf("panics %v", p)
	}
}

func TestRequestLogKeepsTheStartOfBodiesWithinItsBudget(t *testing.T) {
	t.Parallel()
	rt := fakekit.NewRoutes[int]()
	rt.Handle("POST /x", func(_ int, w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fakekit.WriteJSON(w, 200, len(b)) // the handler sees the whole body
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind(0), Limits: fakekit.Limits{LogBodyBytes: 10, LogBytes: 4000}})
	for range 50 {
		rec := httptest.NewRecorder()
		k.ServeHTTP(rec, httptest.NewRequest("POST", "/x", strings.NewReader(strings.Repeat("b", 1000))))
		if rec.Body.String() != "1000" {
			t.Fatalf("handler saw %s bytes", rec.Body)
		}
	}
	reqs := k.Requests()
	// Each entry costs its kept body, its path and a fixed 256 bytes, and
	// 4,000 bytes hold fewer than 50 of them.
	if len(reqs) == 0 || len(reqs) >= 50 {
		t.Fatalf("%d entries kept", len(reqs))
	}
	r := reqs[len(reqs)-1]
	if string(r.Body) != "bbbbbbbbbb" || r.BodySize != 1000 || !r.Truncated() {
		t.Fatalf("entry body %q of %d", r.Body, r.BodySize)
	}
}

func TestExchangeAnnotations(t *testing.T) {
	t.Parallel()
	rt := fakekit.NewRoutes[int]()
	rt.Handle("GET /who", func(_ int, w http.ResponseWriter, r *http.Request) {
		x := fakekit.ExchangeFrom(r.Context())
		x.SetCaller("alice")
		x.SetCode("NOPE")
		fakekit.WriteJSON(w, 409, "no")
	})
	k := fakekit.New(fakekit.Config{Routes: rt.Bind(0)})
	k.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/who", nil))
	if r := k.Requests(); len(r) != 1 || r[0].Caller != "alice" || r[0].Code != "NOPE" || r[0].Status != 409 || r[0].Transport != "http" {
		t.Fatalf("log %+v", r)
	}
	var none *fakekit.Exchange // every method is safe on nil
	none.SetCaller("x")
	none.Finish(200)
	if fakekit.ExchangeFrom(context.Background()) != nil {
		t.Fatal("an exchange out of nowhere")
	}

	// A request that does not come through ServeHTTP: Begin and Finish.
	ctx, x := k.Begin(context.Background(), control.TransportGRPC, "POST", "/svc/Op", http.Header{"Authorization": {"Bearer s3cret"}})
	fakekit.ExchangeFrom(ctx).SetRoute("Op")
	x.SetBody([]byte(`{"a":1}`), 7)
	x.Finish(200)
	r := k.RequestsTo("Op")
	if len(r) != 1 || r[0].Transport != "grpc" || string(r[0].Body) != `{"a":1}` || r[0].Status != 200 {
		t.Fatalf("gRPC entry %+v", r)
	}
	if s := fmt.Sprintf("%v %+v %#v", r[0], r[0], r[0]); strings.Contains(s, "s3cret") {
		t.Fatalf("a request prints its credentials: %s", s)
	}
}

func TestFaultsByOperation(t *testing.T) {
	t.Parallel()
	k := fakekit.New(fakekit.Config{
		Operations: func(name string) bool { return name == "Start" || name == "Stop" },
		Codes:      func(code string) bool { return code == "UNAVAILABLE" },
	})
	for _, bad := range []struct {
		route string
		f     control.Fault
	}{
		{"Nope", control.Fault{Code: "UNAVAILABLE"}},
		{"Start", control.Fault{Code: "MADE_UP"}},
		{"Start", control.Fault{Drop: true}},
		{"Start", control.Fault{Status: 503, Body: "{}"}},
	} {
		if err := k.InjectFault(bad.route, bad.f); err == nil {
			t.Errorf("InjectFault(%q, %v) accepted", bad.route, bad.f)
		}
	}
	if err := k.InjectFault("Start", control.Fault{Code: "UNAVAILABLE", Times: 1}); err != nil {
		t.Fatal(err)
	}
	if _, ok := k.TakeFault(nil, "Stop"); ok {
		t.Fatal("Stop took Start's fault")
	}
	if f, ok := k.TakeFault(nil, "Start"); !ok || f.Code != "UNAVAILABLE" {
		t.Fatalf("Start: %v %v", f, ok)
	}
	if _, ok := k.TakeFault(nil, "Start"); ok || len(k.Faults()) != 0 {
		t.Fatalf("the fault outlived its Times: %v", k.Faults())
	}
	plain := fakekit.New(fakekit.Config{})
	if err := plain.InjectFault("", control.Fault{Code: "UNAVAILABLE"}); err == nil || !strings.Contains(err.Error(), "no error codes") {
		t.Fatalf("a code on a service without codes: %v", err)
	}
}

func TestFaultLatencyOnTheClockAndOnClose(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(t0)
	k := fakekit.New(fakekit.Config{Clock: clk})
	done := make(chan error, 1)
	go func() { done <- k.Wait(context.Background(), control.Fault{Latency: time.Hour, OnClock: true}) }()
	if err := clk.WaitForTimers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Hour)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	go func() { done <- k.Wait(context.Background(), control.Fault{Latency: time.Hour}) }() // wall clock
	k.Close()
	if err := <-done; !errors.Is(err, fakekit.ErrClosed) {
		t.Fatalf("wait after Close: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := fakekit.New(fakekit.Config{}).Wait(ctx, control.Fault{Latency: time.Hour}); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait of a caller gone: %v", err)
	}
}

// TestCloseEndsAStuckHandler: Close lets a running handler finish for a
// grace period, then closes its connection, whatever the handler does.
func TestCloseEndsAStuckHandler(t *testing.T) {
	t.Parallel()
	entered := make(chan struct{})
	stuck := make(chan struct{})
	defer close(stuck)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-stuck
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var e fakekit.Endpoint
	url := e.Serve(l, h)
	errc := make(chan error, 1)
	go func() {
		resp, err := http.Get(url + "/")
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-entered
	e.Close() // returns after the grace period although the handler never does
	if err := <-errc; err == nil {
		t.Fatal("the stuck request got an answer")
	}
}

func TestParseScript(t *testing.T) {
	t.Parallel()
	reqs := fakekit.ParseScript("POST /a?x=1\nContent-Type: application/json\nBad Header: x\nX-Ctl: a\x01b\n\n{\"a\":1}\n===\nGET /b\n===\nNOT A REQUEST\n===\nGET nope\n===\nGE\x00T /c")
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	b, _ := io.ReadAll(reqs[0].Body)
	if reqs[0].Method != "POST" || reqs[0].URL.Path != "/a" || reqs[0].URL.Query().Get("x") != "1" || string(b) != `{"a":1}` ||
		reqs[0].Header.Get("Content-Type") != "application/json" || len(reqs[0].Header) != 1 || reqs[0].ContentLength != 7 {
		t.Fatalf("first %+v %q", reqs[0], b)
	}
	if reqs[1].Method != "GET" || reqs[1].URL.Path != "/b" || reqs[1].Body != http.NoBody {
		t.Fatalf("second %+v", reqs[1])
	}
}

// FuzzKit runs the harness over a kit with routes that panic on purpose
// when told: the harness must report it (the seed here does not tell them).
func FuzzKit(f *testing.F) {
	fakekit.FuzzHTTP(f, []string{"GET /items/1\n===\nPOST /items\n\n{}", "GET /nowhere"}, func(t *testing.T) *fakekit.FuzzTarget {
		k := fakekit.New(fakekit.Config{Routes: itemRoutes.Bind("fuzz"), Error: shapeError})
		return &fakekit.FuzzTarget{
			Handler:     k,
			Requests:    k.Requests,
			Probe:       func() *http.Request { return httptest.NewRequest("GET", "/items/1", nil) },
			ProbeStatus: 200,
		}
	})
}
