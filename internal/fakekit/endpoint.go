package fakekit

import (
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Endpoint is where a fake serves: the server it runs on and the URL it
// answers at. A fake keeps one as a field and serves itself through it from
// its own Start, StartTLS and Listen; the zero value serves nothing yet.
// Its methods are safe for concurrent use. Serving again replaces the
// server the Endpoint reports (the old one keeps serving until it is
// closed, or until its test ends).
type Endpoint struct {
	mu  sync.Mutex
	srv *httptest.Server
}

// Start serves h on a loopback port until the test ends and returns its
// URL.
func (e *Endpoint) Start(tb testing.TB, h http.Handler) string {
	tb.Helper()
	return e.set(Start(tb, h))
}

// StartTLS is Start over TLS with httptest's self-signed certificate;
// [Endpoint.TLSClient] trusts it.
func (e *Endpoint) StartTLS(tb testing.TB, h http.Handler) string {
	tb.Helper()
	return e.set(StartTLS(tb, h))
}

// StartTLSQuiet is StartTLS with the server's error log discarded, for a
// fake whose tests make clients refuse its certificate on purpose: the
// server would otherwise log every refused handshake.
func (e *Endpoint) StartTLSQuiet(tb testing.TB, h http.Handler) string {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	tb.Cleanup(s.Close)
	return e.set(s)
}

// Listen serves h on addr as the package function Listen does, until
// Close, and returns its URL.
func (e *Endpoint) Listen(addr string, h http.Handler) (string, error) {
	s, err := Listen(addr, h)
	if err != nil {
		return "", err
	}
	return e.set(s), nil
}

func (e *Endpoint) set(s *httptest.Server) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.srv = s
	return s.URL
}

func (e *Endpoint) server() *httptest.Server {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.srv
}

// Close stops the server; it does nothing before one is started, and a
// server started for a test stops with the test anyway.
func (e *Endpoint) Close() {
	if s := e.server(); s != nil {
		s.Close()
	}
}

// URL returns the server's root URL, "" before it is started.
func (e *Endpoint) URL() string {
	if s := e.server(); s != nil {
		return s.URL
	}
	return ""
}

// TLSClient returns an http.Client that trusts the server's certificate
// when it serves over TLS, nil otherwise.
func (e *Endpoint) TLSClient() *http.Client {
	if s := e.server(); s != nil && s.TLS != nil {
		return s.Client()
	}
	return nil
}

// Certificate returns the server's TLS certificate, nil when it does not
// serve over TLS.
func (e *Endpoint) Certificate() *x509.Certificate {
	if s := e.server(); s != nil && s.TLS != nil {
		return s.Certificate()
	}
	return nil
}
