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

	"github.com/apitwin/apitwin/internal/fakekit"
)

func TestEndpointStartInMemory(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	u := e.StartInMemory(t, "shopfake", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.RequestURI(), r.Host)
	}))
	if !strings.HasPrefix(u, "http://shopfake-") || !strings.HasSuffix(u, ".invalid") || e.URL() != u {
		t.Fatalf("StartInMemory = %q, URL %q", u, e.URL())
	}
	if e.Addr().Network() != "memory" {
		t.Fatalf("network %q", e.Addr().Network())
	}
	hc := e.HTTPClient()
	if hc == nil || hc != e.HTTPClient() {
		t.Fatal("HTTPClient: want one client, kept, for the in-memory listener")
	}
	if got := get(t, hc, u+"/a/b?c=d"); got != "GET /a/b?c=d "+strings.TrimPrefix(u, "http://") {
		t.Fatalf("body %q", got)
	}
	// Any client not wired to the listener fails: its dial asks a resolver
	// for the host (here one that answers nothing, so that the test sends
	// no query off the machine), which no resolver knows.
	noDNS := &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		return nil, errors.New("no DNS in tests")
	}}
	plain := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Resolver: noDNS}).DialContext}}
	if _, err := plain.Get(u + "/"); err == nil {
		t.Fatal("a plain client reached the in-memory server")
	}
}

// Many clients at once, each request on the listener's pipes, all answered
// in full (bodies larger than any buffer along the way).
func TestInMemoryConcurrentRequests(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	big := strings.Repeat("x", 256<<10)
	u := e.StartInMemory(t, "bigfake", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, big[:len(b)])
	}))
	hc := e.HTTPClient()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Go(func() {
			n := (i + 1) * 8 << 10
			resp, err := hc.Post(u+"/", "text/plain", strings.NewReader(big[:n]))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || len(b) != n {
				errs <- fmt.Errorf("request %d: %d bytes, %v", i, len(b), err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// After Close, dialling fails with a clear error rather than waiting, and
// Accept returns net.ErrClosed (what http.Server.Serve stops on).
func TestMemListenerClose(t *testing.T) {
	t.Parallel()
	l := fakekit.NewMemListener("gone")
	if a := l.Addr().String(); !strings.HasPrefix(a, "gone-") || !strings.HasSuffix(a, ".invalid") {
		t.Fatalf("addr %q", l.Addr())
	}
	accepted := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		accepted <- err
	}()
	l.Close()
	l.Close() // twice is fine
	if err := <-accepted; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after Close: %v", err)
	}
	if _, err := l.DialContext(context.Background(), "tcp", "gone:80"); !errors.Is(err, fakekit.ErrMemListenerClosed) {
		t.Fatalf("Dial after Close: %v", err)
	}
}

// A dial that nobody accepts ends with its context.
func TestMemListenerDialHonoursContext(t *testing.T) {
	t.Parallel()
	l := fakekit.NewMemListener("idle")
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.DialContext(ctx, "tcp", "idle.invalid:80"); !errors.Is(err, context.Canceled) {
		t.Fatalf("DialContext: %v", err)
	}
}

// A server closed mid-way stops: the Endpoint's Close ends it, and the
// client gets an error, not a hang.
func TestInMemoryEndpointClose(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	u := e.Serve(fakekit.NewMemListener("closing"), hello)
	hc := e.HTTPClient()
	if got := get(t, hc, u+"/"); got != "hello" {
		t.Fatalf("body %q", got)
	}
	e.Close()
	if _, err := hc.Get(u + "/"); err == nil {
		t.Fatal("a closed in-memory server answered")
	}
}

// BenchmarkStartRequestClose is a fake's start cost as users pay it, per
// test: start a server, make one request, close. "httptest" is the floor
// (httptest.NewServer on loopback); "loopback" and "in-memory" are an
// Endpoint serving on each.
func BenchmarkStartRequestClose(b *testing.B) {
	one := func(b *testing.B, hc *http.Client, u string) {
		resp, err := hc.Get(u + "/")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.Run("httptest", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := httptest.NewServer(hello)
			one(b, s.Client(), s.URL)
			s.Close()
		}
	})
	b.Run("loopback", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var e fakekit.Endpoint
			u, err := e.Listen("127.0.0.1:0", hello)
			if err != nil {
				b.Fatal(err)
			}
			hc := &http.Client{Transport: &http.Transport{}}
			one(b, hc, u)
			hc.CloseIdleConnections()
			e.Close()
		}
	})
	b.Run("in-memory", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var e fakekit.Endpoint
			u := e.Serve(fakekit.NewMemListener("bench"), hello)
			one(b, e.HTTPClient(), u)
			e.Close()
		}
	})
}

// TestInMemoryAnswerNobodyReadsDoesNotHoldClose: a client that reads an
// answer's status and not its body (as many tests do) leaves the handler
// done, as over TCP, so Close closes at once. Over net.Pipe, which buffers
// nothing, the handler waited on its write until Close's grace ran out and
// the connection was closed by force. (The grace is a minute: a
// regression fails late, never passes.)
func TestInMemoryAnswerNobodyReadsDoesNotHoldClose(t *testing.T) {
	t.Parallel()
	var r reported
	e := fakekit.Endpoint{Timeouts: fakekit.Timeouts{Grace: time.Minute}, OnForcedClose: r.report}
	big := strings.Repeat("x", 512<<10)
	u := e.StartInMemory(t, "unread", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, big)
	}))
	resp, err := e.HTTPClient().Get(u + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	e.Close()
	if got := r.all(); len(got) != 0 {
		t.Errorf("Close had to close by force: %+v", got)
	}
}
