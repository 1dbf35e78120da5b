package fakekit_test

import (
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

var hello = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })

func get(t *testing.T, hc *http.Client, url string) string {
	t.Helper()
	resp, err := hc.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body) // a short read shows in the body compared
	return string(b)
}

func TestEndpointZeroValue(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	e.Close() // nothing to stop
	if e.URL() != "" || e.TLSClient() != nil || e.Certificate() != nil {
		t.Fatalf("zero Endpoint: URL %q, TLSClient %v, Certificate %v", e.URL(), e.TLSClient(), e.Certificate())
	}
}

func TestEndpointStart(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	u := e.Start(t, hello)
	if !strings.HasPrefix(u, "http://127.0.0.1:") || e.URL() != u {
		t.Fatalf("Start = %q, URL = %q", u, e.URL())
	}
	if e.TLSClient() != nil || e.Certificate() != nil {
		t.Fatal("plain HTTP endpoint offers TLS")
	}
	if got := get(t, http.DefaultClient, u+"/"); got != "hello" {
		t.Fatalf("body %q", got)
	}
}

func TestEndpointStartTLS(t *testing.T) {
	t.Parallel()
	for name, start := range map[string]func(*fakekit.Endpoint) string{
		"StartTLS":      func(e *fakekit.Endpoint) string { return e.StartTLS(t, hello) },
		"StartTLSQuiet": func(e *fakekit.Endpoint) string { return e.StartTLSQuiet(t, hello) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var e fakekit.Endpoint
			u := start(&e)
			if !strings.HasPrefix(u, "https://127.0.0.1:") || e.URL() != u {
				t.Fatalf("URL %q, %q", u, e.URL())
			}
			hc, cert := e.TLSClient(), e.Certificate()
			if hc == nil || cert == nil {
				t.Fatalf("TLSClient %v, Certificate %v", hc, cert)
			}
			if got := get(t, hc, u+"/"); got != "hello" {
				t.Fatalf("body %q", got)
			}
			// A client that does not trust the certificate is refused.
			_, err := (&http.Client{Transport: &http.Transport{}}).Get(u + "/")
			var unknown x509.UnknownAuthorityError
			if !errors.As(err, &unknown) {
				t.Fatalf("untrusting client: err = %v", err)
			}
		})
	}
}

func TestEndpointListenAndClose(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	u, err := e.Listen("127.0.0.1:0", hello)
	if err != nil {
		t.Fatal(err)
	}
	if e.URL() != u || e.TLSClient() != nil {
		t.Fatalf("URL %q, want %q; TLSClient %v", e.URL(), u, e.TLSClient())
	}
	if got := get(t, http.DefaultClient, u+"/"); got != "hello" {
		t.Fatalf("body %q", got)
	}
	addr := strings.TrimPrefix(u, "http://")
	var busy fakekit.Endpoint
	if bu, err := busy.Listen(addr, hello); err == nil || bu != "" || busy.URL() != "" ||
		!strings.Contains(err.Error(), "is already in use") {
		t.Fatalf("Listen on a busy port = %q, %v; URL %q", bu, err, busy.URL())
	}
	e.Close()
	e.Close() // closing twice is harmless
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after Close", addr)
	}
}

// TestEndpointConcurrentURL: readers of URL race with Start without a data
// race (run with -race).
func TestEndpointConcurrentURL(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	done := make(chan string)
	go func() {
		for e.URL() == "" {
		}
		done <- e.URL()
	}()
	u := e.Start(t, hello)
	if got := <-done; got != u {
		t.Fatalf("reader saw %q, want %q", got, u)
	}
}

// TestSlowHeadersAreCutOff: a client that sends its headers a byte at a
// time is cut off after ReadHeader, and a shutdown does not wait for
// clients that have no handler running, however long the grace.
func TestSlowHeadersAreCutOff(t *testing.T) {
	t.Parallel()
	e := fakekit.Endpoint{Timeouts: fakekit.Timeouts{ReadHeader: 50 * time.Millisecond, Grace: time.Hour}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := e.Serve(l, hello)
	addr := strings.TrimPrefix(u, "http://")
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := slow.Write([]byte("G")); err != nil {
		t.Fatal(err)
	}
	// The server closes it: the read ends (with the server's 408 or EOF).
	if _, err := io.ReadAll(slow); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read from a cut-off connection: %v", err)
	}

	// 100 clients in the middle of their headers, on a listener that would
	// wait an hour for them; Close returns at once although the grace is
	// an hour too.
	e = fakekit.Endpoint{Timeouts: fakekit.Timeouts{ReadHeader: time.Hour, Grace: time.Hour}}
	if l, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	u = e.Serve(l, hello)
	addr = strings.TrimPrefix(u, "http://")
	var held []net.Conn
	for range 100 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte("GET / HT"))
		held = append(held, c)
	}
	if got := get(t, http.DefaultClient, u+"/"); got != "hello" { // the server still answers the others
		t.Fatalf("body %q", got)
	}
	e.Close()
	for _, c := range held {
		if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("a held connection after Close: %v", err)
		}
	}
}

// Close of a test server lets a running request finish its answer, then
// returns: it waits on the connections' states, not on a poll.
func TestCloseLetsARunningRequestFinish(t *testing.T) {
	t.Parallel()
	var e fakekit.Endpoint
	running, release := make(chan struct{}), make(chan struct{})
	u := e.Start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		close(running)
		<-release
		io.WriteString(w, "late")
	}))
	got := make(chan string, 1)
	go func() {
		resp, err := e.RawClient().Get(u + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	<-running
	closed := make(chan struct{})
	go func() {
		e.Close()
		close(closed)
	}()
	close(release)
	if b := <-got; b != "late" {
		t.Fatalf("the running request got %q", b)
	}
	<-closed
}

// blocked is a handler that holds its request until release closes or
// its connection is closed under it (a test server's Close waits for the
// handler to return even then); running is closed once the handler runs.
func blocked() (h http.Handler, running, release chan struct{}) {
	running, release = make(chan struct{}), make(chan struct{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(running)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}), running, release
}

// getAsync makes a GET in the background; its error (the connection closed
// under it) is not the test's subject.
func getAsync(hc *http.Client, url string) {
	go func() {
		if resp, err := hc.Get(url); err == nil {
			resp.Body.Close()
		}
	}()
}

// reported records an Endpoint's ForcedClose reports; Close calls the
// report before it returns, so the test reads them after Close.
type reported struct {
	mu  sync.Mutex
	got []fakekit.ForcedClose
}

func (r *reported) report(f fakekit.ForcedClose) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, f)
}

func (r *reported) all() []fakekit.ForcedClose {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got
}

// A handler that holds its request past the grace makes Close close its
// connection under it and report that, for every kind of server: Serve
// (http.Server.Shutdown), Start (httptest), and a listener that carries
// its own report (ReportForcedClose, on a MemListener, which Serve still
// sees as one). The grace is short because it must run out: the test
// asserts the report, not how long anything took.
func TestCloseReportsARequestThatOutlastsTheGrace(t *testing.T) {
	t.Parallel()
	const grace = 10 * time.Millisecond
	for _, kind := range []string{"Serve", "Start", "ReportForcedClose"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var ours, lis reported
			e := fakekit.Endpoint{Timeouts: fakekit.Timeouts{Grace: grace}, OnForcedClose: ours.report}
			h, running, release := blocked()
			defer close(release)
			var u, addr string
			switch kind {
			case "Serve":
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				u, addr = e.Serve(l, h), l.Addr().String()
			case "Start":
				u = e.Start(t, h)
				addr = e.Addr().String()
			case "ReportForcedClose":
				l := fakekit.NewMemListener("forced")
				u, addr = e.Serve(fakekit.ReportForcedClose(l, lis.report), h), l.Addr().String()
				if e.HTTPClient() == nil {
					t.Fatal("no in-memory client: Serve did not see the MemListener")
				}
			}
			getAsync(e.RawClient(), u+"/")
			<-running
			e.Close()
			want := fakekit.ForcedClose{Addr: addr, Open: 1, Grace: grace}
			if got := ours.all(); len(got) != 1 || got[0] != want {
				t.Errorf("OnForcedClose got %+v, want [%+v]", got, want)
			}
			if kind == "ReportForcedClose" {
				if got := lis.all(); len(got) != 1 || got[0] != want {
					t.Errorf("the listener's report got %+v, want [%+v]", got, want)
				}
			}
		})
	}
}

// Clients that run no request do not hold Close, so it reports nothing:
// one connected that sent nothing, one in the middle of its headers, one
// kept alive after its answer. The grace is a minute: Close reaching it
// would fail the test (late), never pass it.
func TestCloseReportsNoClientWithoutARequest(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"Serve", "Start"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			var r reported
			e := fakekit.Endpoint{Timeouts: fakekit.Timeouts{ReadHeader: time.Hour, Grace: time.Minute}, OnForcedClose: r.report}
			var u string
			if kind == "Serve" {
				l, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				u = e.Serve(l, hello)
			} else {
				u = e.Start(t, hello)
			}
			addr := strings.TrimPrefix(u, "http://")
			var held []net.Conn
			for _, sent := range []string{"", "GET / HT"} {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if _, err := io.WriteString(c, sent); err != nil {
					t.Fatal(err)
				}
				held = append(held, c)
			}
			// The server accepts in order: once this answer is in, it has
			// the held connections too. Its own stays open, kept alive.
			kept := &http.Client{Transport: &http.Transport{}}
			defer kept.CloseIdleConnections()
			if got := get(t, kept, u+"/"); got != "hello" {
				t.Fatalf("body %q", got)
			}
			e.Close()
			if got := r.all(); len(got) != 0 {
				t.Errorf("reported %+v", got)
			}
			for _, c := range held {
				if _, err := io.ReadAll(c); err != nil && !errors.Is(err, syscall.ECONNRESET) {
					t.Errorf("a held connection after Close: %v", err)
				}
			}
		})
	}
}
