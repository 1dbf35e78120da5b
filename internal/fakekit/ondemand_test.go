package fakekit_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// onDemand is an Endpoint with a StartOnDemand promise to serve hello on
// loopback (over TLS when useTLS), and the count of times it was kept.
func onDemand(t *testing.T, useTLS bool) (*fakekit.Endpoint, *atomic.Int32) {
	t.Helper()
	var e fakekit.Endpoint
	var kept atomic.Int32
	e.StartOnDemand(func() {
		kept.Add(1)
		if useTLS {
			e.StartTLS(t, hello)
		} else {
			e.Start(t, hello)
		}
	})
	t.Cleanup(e.Close)
	return &e, &kept
}

// Nothing serves until an address, a client or a certificate is asked
// for; each of those accessors opens the server, whose address answers
// from the moment it is handed out, and the promise is kept once.
func TestStartOnDemandOpensOnFirstAsk(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		useTLS bool
		ask    func(*fakekit.Endpoint) bool // reports whether the answer is what a serving endpoint gives
	}{
		{"URL", false, func(e *fakekit.Endpoint) bool { return strings.HasPrefix(e.URL(), "http") }},
		{"Addr", false, func(e *fakekit.Endpoint) bool { return e.Addr() != nil }},
		{"RawClient", false, func(e *fakekit.Endpoint) bool { return e.RawClient() != nil }},
		{"HTTPClient", true, func(e *fakekit.Endpoint) bool { return e.HTTPClient() != nil }},
		{"TLSClient", true, func(e *fakekit.Endpoint) bool { return e.TLSClient() != nil }},
		{"Certificate", true, func(e *fakekit.Endpoint) bool { return e.Certificate() != nil }},
		{"ServerTLS", true, func(e *fakekit.Endpoint) bool { return e.ServerTLS() != nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e, kept := onDemand(t, c.useTLS)
			if kept.Load() != 0 {
				t.Fatal("StartOnDemand started the server")
			}
			if !c.ask(e) {
				t.Fatalf("%s of an endpoint promised to serve gave nothing", c.name)
			}
			u := e.URL()
			if got := get(t, e.RawClient(), u+"/"); got != "hello" {
				t.Fatalf("%s: body %q", u, got)
			}
			if e.URL() != u || kept.Load() != 1 {
				t.Fatalf("URL %q then %q, promise kept %d times", u, e.URL(), kept.Load())
			}
		})
	}
}

// Close drops a promise not yet kept: nothing serves, then or later.
func TestStartOnDemandClosedBeforeAsked(t *testing.T) {
	t.Parallel()
	e, kept := onDemand(t, false)
	e.Close()
	if u := e.URL(); u != "" || e.RawClient() != nil || kept.Load() != 0 {
		t.Fatalf("after Close: URL %q, promise kept %d times", u, kept.Load())
	}
}

// Serving otherwise replaces the promise.
func TestStartOnDemandReplacedByServe(t *testing.T) {
	t.Parallel()
	e, kept := onDemand(t, false)
	u := e.StartInMemory(t, "replaced", hello)
	if e.URL() != u || kept.Load() != 0 {
		t.Fatalf("URL %q after StartInMemory %q, promise kept %d times", e.URL(), u, kept.Load())
	}
}

// Callers racing for the address all wait for the one server, and get
// its address; a Close racing them either stops the server they opened or
// leaves them nothing (run with -race).
func TestStartOnDemandRaces(t *testing.T) {
	t.Parallel()
	e, kept := onDemand(t, false)
	urls := make([]string, 8)
	var wg sync.WaitGroup
	for i := range urls {
		wg.Go(func() { urls[i] = e.URL() })
	}
	wg.Wait()
	for _, u := range urls {
		if u == "" || u != urls[0] {
			t.Fatalf("racing callers got %q", urls)
		}
	}
	if kept.Load() != 1 {
		t.Fatalf("promise kept %d times", kept.Load())
	}

	for range 20 {
		e, _ := onDemand(t, false)
		var u string
		wg.Go(func() { u = e.URL() })
		wg.Go(e.Close)
		wg.Wait()
		if u == "" {
			continue
		}
		// It opened before Close, which stopped it: nothing answers there.
		resp, err := (&http.Client{Transport: &http.Transport{}}).Get(u)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s still answers after Close", u)
		}
	}
}

// ServeInMemoryOnDemand hands out its URL at once; the Endpoint's
// accessors serve it, as StartOnDemand's do.
func TestServeInMemoryOnDemand(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	t.Cleanup(e.Close)
	u := e.ServeInMemoryOnDemand("lazy", hello)
	if !strings.HasPrefix(u, "http://lazy-") || !strings.HasSuffix(u, ".invalid") {
		t.Fatalf("URL %q", u)
	}
	if e.URL() != u {
		t.Fatalf("URL %q, then %q", u, e.URL())
	}
	hc := e.HTTPClient()
	if got := get(t, hc, u+"/"); got != "hello" {
		t.Fatalf("body %q", got)
	}
	e.Close()
	if resp, err := hc.Get(u + "/"); err == nil {
		resp.Body.Close()
		t.Fatalf("%s answers after Close", u)
	}
}
