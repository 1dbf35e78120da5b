package fakekit_test

import (
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
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
