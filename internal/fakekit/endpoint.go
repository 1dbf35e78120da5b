package fakekit

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The settings of every listener a fake serves on. Body and answer
// deadlines are set per request by the Kit (see Limits); these bound what
// comes before and after a request.
const (
	// ReadHeaderTimeout is how long a client may take to send a request's
	// headers: a client that sends a byte at a time is cut off.
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes caps a request's headers (and URL).
	MaxHeaderBytes = 64 << 10
	// ShutdownGrace is how long Close lets running requests finish before
	// it closes their connections.
	ShutdownGrace = 2 * time.Second
)

// NewServer returns an http.Server for h with the listener settings above:
// for fakes and for programs that serve one.
func NewServer(h http.Handler) *http.Server {
	s := &http.Server{Handler: h}
	configure(s)
	return s
}

func configure(s *http.Server) {
	s.ReadHeaderTimeout = ReadHeaderTimeout
	s.IdleTimeout = IdleTimeout
	s.MaxHeaderBytes = MaxHeaderBytes
}

// Endpoint is where a fake serves: the server it runs on and the URL it
// answers at. A fake keeps one as a field and serves itself through it from
// its Start, StartTLS, Serve and Listen; the zero value serves nothing yet.
// Its methods are safe for concurrent use. Serving again replaces the
// server the Endpoint reports (the old one keeps serving until it is
// closed, or until its test ends).
type Endpoint struct {
	mu   sync.Mutex
	test *httptest.Server // Start, StartTLS
	srv  *http.Server     // Serve, Listen
	lis  net.Listener
	url  string
	all  []func() // closes every server started, newest last
}

// Start serves h on a loopback port until the test ends (or Close) and
// returns its URL.
func (e *Endpoint) Start(tb testing.TB, h http.Handler) string {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	configure(s.Config)
	s.Start()
	tb.Cleanup(func() { closeTest(s) })
	return e.setTest(s)
}

// StartTLS is Start over TLS with httptest's self-signed certificate;
// [Endpoint.TLSClient] trusts it.
func (e *Endpoint) StartTLS(tb testing.TB, h http.Handler) string {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	configure(s.Config)
	s.StartTLS()
	tb.Cleanup(func() { closeTest(s) })
	return e.setTest(s)
}

// StartTLSQuiet is StartTLS with the server's error log discarded, for a
// fake whose tests make clients refuse its certificate on purpose: the
// server would otherwise log every refused handshake.
func (e *Endpoint) StartTLSQuiet(tb testing.TB, h http.Handler) string {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	configure(s.Config)
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	tb.Cleanup(func() { closeTest(s) })
	return e.setTest(s)
}

// Serve serves h on l, with the listener settings of NewServer, until
// Close, and returns the URL it answers at ("http://" and l's address).
func (e *Endpoint) Serve(l net.Listener, h http.Handler) string {
	s := NewServer(h)
	go func() { _ = s.Serve(l) }()
	u := "http://" + l.Addr().String()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.test, e.srv, e.lis, e.url = nil, s, l, u
	e.all = append(e.all, func() { shutdown(s) })
	return u
}

// Listen serves h on addr ("127.0.0.1:8080"; port 0 picks a free one) as
// Serve does, and returns its URL. A port already in use is an error that
// names it.
func (e *Endpoint) Listen(addr string, h http.Handler) (string, error) {
	l, err := ListenTCP(addr)
	if err != nil {
		return "", err
	}
	return e.Serve(l, h), nil
}

// ListenTCP listens on addr; a port already in use is an error that names
// it.
func ListenTCP(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			_, port, _ := net.SplitHostPort(addr)
			return nil, fmt.Errorf("port %s is already in use (%s)", port, addr)
		}
		return nil, err
	}
	return l, nil
}

func (e *Endpoint) setTest(s *httptest.Server) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.test, e.srv, e.lis, e.url = s, nil, nil, s.URL
	e.all = append(e.all, func() { closeTest(s) })
	return s.URL
}

// Close stops every server the Endpoint started: it stops accepting, lets
// running requests finish for up to ShutdownGrace, then closes every
// connection. It does nothing before one is started, and a server started
// for a test stops with the test anyway.
func (e *Endpoint) Close() {
	e.mu.Lock()
	all := e.all
	e.all = nil
	e.mu.Unlock()
	for _, stop := range all {
		stop()
	}
}

// shutdown stops s within ShutdownGrace, whatever its handlers do.
func shutdown(s *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if s.Shutdown(ctx) != nil {
		_ = s.Close()
	}
}

// closeTest stops a test server within ShutdownGrace: httptest's own Close
// waits for every running handler, however long it takes.
func closeTest(s *httptest.Server) {
	s.Config.SetKeepAlivesEnabled(false)
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if s.Config.Shutdown(ctx) != nil {
		s.CloseClientConnections()
	}
	s.Close()
}

// URL returns the server's root URL, "" before it is started.
func (e *Endpoint) URL() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.url
}

// Addr returns the listener's address, nil before it is started.
func (e *Endpoint) Addr() net.Addr {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.test != nil:
		return e.test.Listener.Addr()
	case e.lis != nil:
		return e.lis.Addr()
	}
	return nil
}

// TLSClient returns an http.Client that trusts the server's certificate
// when it serves over TLS, nil otherwise.
func (e *Endpoint) TLSClient() *http.Client {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.test != nil && e.test.TLS != nil {
		return e.test.Client()
	}
	return nil
}

// Certificate returns the server's TLS certificate, nil when it does not
// serve over TLS.
func (e *Endpoint) Certificate() *x509.Certificate {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.test != nil && e.test.TLS != nil {
		return e.test.Certificate()
	}
	return nil
}
