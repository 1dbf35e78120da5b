package fakekit

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestStartTLSQuietDiscardsErrorLog: StartTLSQuiet silences the server's
// error log (refused handshakes); StartTLS keeps the default one.
func TestStartTLSQuietDiscardsErrorLog(t *testing.T) {
	t.Parallel()
	var quiet, loud Endpoint
	quiet.StartTLSQuiet(t, http.NotFoundHandler())
	loud.StartTLS(t, http.NotFoundHandler())
	if l := quiet.test.Config.ErrorLog; l == nil || l.Writer() != io.Discard {
		t.Fatalf("StartTLSQuiet error log = %v", l)
	}
	if l := loud.test.Config.ErrorLog; l != nil {
		t.Fatalf("StartTLS error log = %v, want the default", l)
	}
}

func TestHandlerTransportTurnsADroppedConnectionIntoAnError(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]http.HandlerFunc{
		"drop":  func(w http.ResponseWriter, _ *http.Request) { dropConnection(w) },
		"abort": func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) },
	} {
		c := &http.Client{Transport: HandlerTransport{Handler: h}}
		resp, err := c.Get("http://fake.invalid/")
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: an answer (%d), want an error", name, resp.StatusCode)
		} else if !errors.Is(err, errAborted) {
			t.Errorf("%s: %v", name, err)
		}
	}
	c := &http.Client{Transport: HandlerTransport{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok")
	})}}
	resp, err := c.Get("http://fake.invalid/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "ok" {
		t.Errorf("answer %q", b)
	}
}

// HandlerTransport gives up on a handler that outlasts
// ResponseHeaderTimeout as http.Transport does: a timeout error, the
// handler's context cancelled.
func TestHandlerTransportResponseHeaderTimeout(t *testing.T) {
	t.Parallel()
	done := make(chan error, 1)
	c := &http.Client{Transport: HandlerTransport{
		// A short timeout is the setting under test; the handler waits on
		// its context, not on the wall.
		ResponseHeaderTimeout: 10 * time.Millisecond,
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			done <- r.Context().Err()
			io.WriteString(w, "late")
		}),
	}}
	resp, err := c.Get("http://fake.invalid/")
	if err == nil {
		resp.Body.Close()
		t.Fatalf("an answer (%d), want a timeout", resp.StatusCode)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, errHeaderTimeout) {
		t.Fatalf("got %v, want a net.Error timeout", err)
	}
	if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the handler's context ended with %v", err)
	}
}

// The request a handler gets through HandlerTransport has the
// Content-Length header and length a server gets from http.Transport.
func TestHandlerTransportContentLengthAsOnTheWire(t *testing.T) {
	t.Parallel()
	type seen struct {
		header string
		length int64
	}
	got := make(chan seen, 1)
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got <- seen{strings.Join(r.Header["Content-Length"], ","), r.ContentLength}
	})
	wire := httptest.NewServer(h)
	defer wire.Close()
	inproc := &http.Client{Transport: HandlerTransport{Handler: h}}
	for _, c := range []struct {
		name   string
		method string
		body   func() io.Reader
	}{
		{"GET", http.MethodGet, func() io.Reader { return nil }},
		{"POST empty", http.MethodPost, func() io.Reader { return nil }},
		{"POST body", http.MethodPost, func() io.Reader { return strings.NewReader(`{"a":1}`) }},
		{"PUT unknown length", http.MethodPut, func() io.Reader { return io.MultiReader(strings.NewReader("abc")) }},
		{"DELETE", http.MethodDelete, func() io.Reader { return nil }},
	} {
		do := func(hc *http.Client, base string) seen {
			req, err := http.NewRequest(c.method, base+"/x", c.body())
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return <-got
		}
		if w, p := do(wire.Client(), wire.URL), do(inproc, "http://fake.invalid"); w != p {
			t.Errorf("%s: on the wire %+v, in-process %+v", c.name, w, p)
		}
	}
}

// ServeInMemoryOnDemand runs no server until it is asked for one.
func TestServeInMemoryOnDemandServesNothingYet(t *testing.T) {
	t.Parallel()
	var e Endpoint
	t.Cleanup(e.Close)
	e.ServeInMemoryOnDemand("idle", http.NotFoundHandler())
	e.mu.Lock()
	lis := e.lis
	e.mu.Unlock()
	if lis != nil {
		t.Fatal("a server runs before anything asked for one")
	}
	e.URL()
	e.mu.Lock()
	lis = e.lis
	e.mu.Unlock()
	if lis == nil {
		t.Fatal("no server after URL")
	}
}

// A dial of its address (as a transport that dials in memory, such as
// sourcehostfake's webhook deliveries, makes it) serves it too, before any accessor was asked; closed
// before that, it never serves, and reports what a closed StartInMemory
// does: its URL, and a client whose dial the closed listener refuses.
func TestServeInMemoryOnDemandDialOpens(t *testing.T) {
	t.Parallel()
	routed := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
		c, ok, err := dialMemory(ctx, addr)
		if !ok {
			return nil, errors.New("no in-memory listener at " + addr)
		}
		return c, err
	}}}
	hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	var e Endpoint
	t.Cleanup(e.Close)
	u := e.ServeInMemoryOnDemand("dialled", hello)
	resp, err := routed.Get(u + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hello" {
		t.Fatalf("body %q", b)
	}

	var closed, started Endpoint
	u = closed.ServeInMemoryOnDemand("closed", hello)
	closed.Close()
	closed.Close()
	su := started.StartInMemory(t, "started", hello)
	started.Close()
	for _, c := range []struct {
		e *Endpoint
		u string
	}{{&closed, u}, {&started, su}} {
		if c.e.URL() != c.u || c.e.Addr() == nil || c.e.RawClient() == nil || c.e.HTTPClient() != c.e.RawClient() {
			t.Fatalf("after Close: URL %q (want %q), Addr %v", c.e.URL(), c.u, c.e.Addr())
		}
		if _, err := c.e.HTTPClient().Get(c.u + "/"); !errors.Is(err, ErrMemListenerClosed) {
			t.Fatalf("%s after Close: %v, want ErrMemListenerClosed", c.u, err)
		}
		if resp, err := routed.Get(c.u + "/"); err == nil {
			resp.Body.Close()
			t.Fatalf("%s answers after Close", c.u)
		}
	}
}

// A connection the server registers only after closeWaiting (accepted just
// before Shutdown closed the listener) is closed at once, as the waiting
// ones were: left open, a client that sent a byte of its request would
// hold the shutdown for the whole grace, and Close would report it.
func TestConnsCloseWhatRegistersAfterCloseWaiting(t *testing.T) {
	t.Parallel()
	var cs conns
	s := &http.Server{Handler: http.NotFoundHandler()}
	cs.wrap(s)
	before, peer := net.Pipe()
	defer peer.Close()
	s.ConnContext(context.Background(), before)
	if n := cs.open(); n != 1 {
		t.Fatalf("%d connections open, want 1", n)
	}
	cs.closeWaiting()
	after, peer2 := net.Pipe()
	defer peer2.Close()
	s.ConnContext(context.Background(), after)
	for name, c := range map[string]net.Conn{"registered before": before, "registered after": after} {
		// A pipe refuses a deadline once closed; open, it takes it (and a
		// write would wait for a reader).
		if err := c.SetDeadline(time.Time{}); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("%s closeWaiting: still open (%v)", name, err)
		}
	}
	// No server runs here to forget the one registered before; the one
	// registered after was never counted.
	if n := cs.open(); n != 1 {
		t.Errorf("%d connections open, want only the one registered before", n)
	}
}

// deadlineRecorder is a ResponseWriter that takes deadlines, as a
// server's does, and records them.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	read, write []time.Time
}

func (d *deadlineRecorder) SetReadDeadline(t time.Time) error { d.read = append(d.read, t); return nil }
func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.write = append(d.write, t)
	return nil
}

// The deadline wrapper gives the handler a body under the body's deadline,
// lifts it once the body is read, and puts the server's own body back in
// the request when the handler is done: net/http reads it then to tell a
// body left unread (it half-closes and waits, so that the client reads
// the answer before the connection ends; without it the client's write
// met a reset instead) from one read whole.
func TestDeadlinesPutTheServersBodyBack(t *testing.T) {
	t.Parallel()
	w := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	r := httptest.NewRequest("POST", "/", strings.NewReader("body"))
	orig := r.Body
	h := Timeouts{}.deadlines(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		if r.Body == orig {
			t.Error("the handler reads the body without its deadline")
		}
		io.ReadAll(r.Body)
	}))
	h.ServeHTTP(w, r)
	if r.Body != orig {
		t.Fatal("the server's request keeps the wrapped body after the handler")
	}
	if len(w.write) != 1 || len(w.read) != 2 || w.read[0].IsZero() || !w.read[1].IsZero() {
		t.Fatalf("write deadlines %v, read deadlines %v; want one answer deadline, a body deadline then none", w.write, w.read)
	}
}
