package fakekit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The settings of every listener a fake serves on (and apitwin-fake's
// control API): how long a client may take over each part of a request,
// how much it may send, how many connections it may hold.
const (
	// ReadHeaderTimeout is how long a client may take to send a request's
	// headers: a client that sends a byte at a time is cut off.
	ReadHeaderTimeout = 10 * time.Second
	// BodyTimeout is how long a client may take to send a request's body
	// once its headers are in.
	BodyTimeout = 30 * time.Second
	// AnswerTimeout is how long a client may take to read an answer,
	// counted from the request's start (long polls included); a slower
	// reader is cut off.
	AnswerTimeout = 2 * time.Minute
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request.
	IdleTimeout = 2 * time.Minute
	// MaxHeaderBytes caps a request's headers (and URL).
	MaxHeaderBytes = 64 << 10
	// ShutdownGrace is how long Close lets running requests finish before
	// it closes their connections.
	ShutdownGrace = 2 * time.Second
)

// Timeouts are a listener's settings; zero fields take the defaults above
// (and DefaultMaxConns, MaxHeaderFields).
type Timeouts struct {
	ReadHeader    time.Duration
	Body          time.Duration
	Answer        time.Duration
	Idle          time.Duration
	MaxHeaderSize int
	// MaxHeaderFields bounds the header fields of a request over HTTP/1.x
	// (see HTTP1Listener).
	MaxHeaderFields int
	// MaxConns bounds the connections open at once (see LimitListener).
	MaxConns int
	Grace    time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.ReadHeader <= 0 {
		t.ReadHeader = ReadHeaderTimeout
	}
	if t.Body <= 0 {
		t.Body = BodyTimeout
	}
	if t.Answer <= 0 {
		t.Answer = AnswerTimeout
	}
	if t.Idle <= 0 {
		t.Idle = IdleTimeout
	}
	if t.MaxHeaderSize <= 0 {
		t.MaxHeaderSize = MaxHeaderBytes
	}
	if t.MaxHeaderFields <= 0 {
		t.MaxHeaderFields = MaxHeaderFields
	}
	if t.MaxConns <= 0 {
		t.MaxConns = DefaultMaxConns()
	}
	if t.Grace <= 0 {
		t.Grace = ShutdownGrace
	}
	return t
}

func (t Timeouts) configure(s *http.Server) {
	t = t.withDefaults()
	s.ReadHeaderTimeout = t.ReadHeader
	s.IdleTimeout = t.Idle
	s.MaxHeaderBytes = t.MaxHeaderSize
	s.Handler = t.deadlines(s.Handler)
}

// listener is l as a server of these settings serves it: at most MaxConns
// connections at once and, when it serves plain HTTP, requests followed on
// the wire (HTTP1Listener). A TLS server puts its TLS listener over this
// one, which then limits the connections under it, and follows nothing.
func (t Timeouts) listener(l net.Listener, plainHTTP bool) net.Listener {
	t = t.withDefaults()
	l = LimitListener(l, t.MaxConns)
	if plainHTTP {
		l = HTTP1Listener(l, t.MaxHeaderFields)
	}
	return l
}

// deadlines bounds each request h serves: its client has t.Body to send
// the body, and t.Answer from the start to read the answer. The server's
// own ReadTimeout cannot do the first: a read deadline still running
// when the body is in cancels the request's context (net/http's
// background read fails), which would end every long poll; here it is
// lifted as soon as the body has been read to its end.
func (t Timeouts) deadlines(h http.Handler) http.Handler {
	t = t.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A server's ResponseWriter takes deadlines; http.ResponseController
		// finds the same methods, at the cost of an allocation per request.
		if d, ok := w.(connDeadlines); ok {
			now := time.Now()
			_ = d.SetWriteDeadline(now.Add(t.Answer))
			if r.Body != nil && r.Body != http.NoBody && d.SetReadDeadline(now.Add(t.Body)) == nil {
				// The server's own request, its body put back once the
				// handler is done: net/http looks at it then, to tell a
				// body left unread (after which it half-closes and waits,
				// so the client reads the answer before the connection
				// ends) from one read whole.
				body := r.Body
				r.Body = &deadlineBody{ReadCloser: body, d: d}
				defer func() { r.Body = body }()
			}
		}
		h.ServeHTTP(w, r)
	})
}

type connDeadlines interface {
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
}

// deadlineBody is a request's body under its read deadline, which it lifts
// once the body has been read to its end or closed.
type deadlineBody struct {
	io.ReadCloser
	d connDeadlines
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		_ = b.d.SetReadDeadline(time.Time{})
	}
	return n, err
}

// Close closes the body, which reads what is left of it (net/http reads up
// to 256 KiB, to keep the connection) under the deadline, then lifts it.
func (b *deadlineBody) Close() error {
	err := b.ReadCloser.Close()
	_ = b.d.SetReadDeadline(time.Time{})
	return err
}

// plainHTTP tells s, which serves HTTP without TLS, not to set up HTTP/2:
// a client can only ask for it during a TLS handshake, and Serve would
// otherwise configure it for every server anyway, a good part of what
// starting a fake costs besides its listener.
func plainHTTP(s *http.Server) {
	s.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
}

// conns tracks a server's connections and whether a handler runs for
// each, so that a shutdown can close at once those no handler works for:
// a client sending its headers a byte at a time has nothing to lose, and
// http.Server.Shutdown would otherwise wait for it (a connection is
// "active" from the first byte of a request).
type conns struct {
	mu sync.Mutex
	m  map[net.Conn]int // connection → handlers running for it
	// closing is set by closeWaiting: a connection the server accepted
	// before its listener closed, but registers only now, is closed at
	// once, as closeWaiting would have; otherwise it would hold the
	// shutdown for the whole grace.
	closing bool
}

type connKey struct{}

// wrap makes s track its connections and the handlers that run for them.
func (c *conns) wrap(s *http.Server) {
	h := s.Handler
	s.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closing {
			_ = conn.Close() // its server reads nothing, and forgets it
			return ctx
		}
		if c.m == nil {
			c.m = map[net.Conn]int{}
		}
		c.m[conn] = 0
		return context.WithValue(ctx, connKey{}, conn)
	}
	s.ConnState = func(conn net.Conn, st http.ConnState) {
		if st == http.StateClosed || st == http.StateHijacked {
			c.mu.Lock()
			defer c.mu.Unlock()
			delete(c.m, conn)
		}
	}
	s.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _ := r.Context().Value(connKey{}).(net.Conn)
		c.busy(conn, +1)
		defer c.busy(conn, -1)
		h.ServeHTTP(w, r)
	})
}

func (c *conns) busy(conn net.Conn, d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[conn]; ok {
		c.m[conn] += d
	}
}

// closeWaiting closes the connections no handler runs for, and every
// connection registered from now on.
func (c *conns) closeWaiting() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
	for conn, handlers := range c.m {
		if handlers == 0 {
			_ = conn.Close()
		}
	}
}

// open is how many connections are open.
func (c *conns) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// ForcedClose is what an Endpoint reports (OnForcedClose,
// ReportForcedClose) when a server it started ran out of its shutdown
// grace: requests still ran when the grace was up, and Close closed their
// connections under them. Clients waiting to send a request never cause
// one: their connections close at once.
type ForcedClose struct {
	Addr  string        // the server's listening address (host:port)
	Open  int           // connections still open when the grace ran out
	Grace time.Duration // how long Close waited for them
}

// ReportForcedClose returns l carrying report, for a caller that hands a
// listener to a fake whose Endpoint it cannot reach (fake.New does): Serve
// on the returned listener serves on l itself, and calls report as it
// would OnForcedClose (both, when the Endpoint has its own).
func ReportForcedClose(l net.Listener, report func(ForcedClose)) net.Listener {
	return reportingListener{l, report}
}

type reportingListener struct {
	net.Listener
	report func(ForcedClose)
}

// reports is the report of a server serving on l: the Endpoint's, l's
// (ReportForcedClose), both or neither. It returns l unwrapped, so that
// Serve sees a MemListener as one.
func (e *Endpoint) reports(l net.Listener) (net.Listener, func(ForcedClose)) {
	report := e.OnForcedClose
	rl, ok := l.(reportingListener)
	if !ok {
		return l, report
	}
	switch {
	case rl.report == nil:
		return rl.Listener, report
	case report == nil:
		return rl.Listener, rl.report
	}
	return rl.Listener, func(f ForcedClose) { report(f); rl.report(f) }
}

// Endpoint is where a fake serves: the server it runs on and the URL it
// answers at. A fake keeps one as a field and serves itself through it from
// its Start, StartTLS, Serve and Listen; the zero value serves nothing yet.
// Its methods are safe for concurrent use. Serving again replaces the
// server the Endpoint reports (the old one keeps serving until it is
// closed, or until its test ends).
//
// Every server it starts bounds what one client can hold, whatever the
// handler (Timeouts): 10 s to send a request's headers, 30 s its body, 2
// minutes to read the answer, 2 minutes idle between requests, 64 KiB of
// headers in at most 100 fields, requests with ambiguous framing refused
// (HTTP1Listener), and at most DefaultMaxConns connections at once
// (LimitListener).
type Endpoint struct {
	// Timeouts are the settings of the listeners the Endpoint starts from
	// now on; the zero value takes the defaults.
	Timeouts Timeouts
	// OnForcedClose, when set, is called for each server the Endpoint
	// starts from now on whose Close (or test's end) ran out of the grace
	// and closed connections under running requests: a shutdown a handler
	// held. It runs before Close returns. A program reports it (a quick
	// exit was not), and a test can assert that it never runs.
	OnForcedClose func(ForcedClose)

	// openMu serialises opening the server StartOnDemand promised with
	// everything that must see it open or never open: the accessors wait
	// for it, and Close drops the promise or stops what it opened.
	// It is taken before mu.
	openMu sync.Mutex

	mu sync.Mutex
	// The http.Server of Serve, Listen and StartInMemory is held only by
	// its stop in all, so that Close lets it go: a test that starts many
	// fakes keeps each closed one's state, not its server.
	test    *httptest.Server // Start, StartTLS
	lis     net.Listener     // Serve, Listen, StartInMemory
	mem     *http.Client     // the client wired to lis, when lis is in memory
	url     string
	all     []func() // closes every server started, newest last
	promise func()   // StartOnDemand's start, until it runs or is dropped
	// unkept is what Close puts in place of a ServeInMemoryOnDemand
	// promise not yet kept: it records a closed in-memory server, the first
	// time an accessor asks (and then is nil).
	unkept func()
}

// StartOnDemand promises a server without starting it: start (which starts
// the Endpoint: Start, StartTLS, StartInMemory, Serve; and may do what the
// fake does when it starts, such as adopt its URL) runs the first time
// anything asks the Endpoint for an address, a client or a certificate
// (URL, Addr, HTTPClient, RawClient, TLSClient, Certificate, ServerTLS), so
// that every address handed out is served, and a fake reached only
// in-process (as an http.Handler) opens no socket at all. Those accessors
// wait while start runs; start must not call them. Close drops a promise
// not yet kept, and serving otherwise (Start, Serve, ...) replaces it.
func (e *Endpoint) StartOnDemand(start func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.promise, e.unkept = start, nil
}

// open keeps StartOnDemand's promise, once; every accessor that hands out
// an address or a client calls it first.
func (e *Endpoint) open() {
	e.openMu.Lock()
	defer e.openMu.Unlock()
	e.mu.Lock()
	start := e.promise
	e.promise = nil
	e.mu.Unlock()
	if start != nil {
		start()
	}
}

// Start serves h on a loopback port until the test ends (or Close) and
// returns its URL.
func (e *Endpoint) Start(tb testing.TB, h http.Handler) string {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	plainHTTP(s.Config)
	return e.startTest(tb, s, false)
}

// StartTLS is Start over TLS with httptest's self-signed certificate;
// [Endpoint.TLSClient] trusts it.
func (e *Endpoint) StartTLS(tb testing.TB, h http.Handler) string {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	return e.startTest(tb, s, true)
}

// StartTLSQuiet is StartTLS with the server's error log discarded, for a
// fake whose tests make clients refuse its certificate on purpose: the
// server would otherwise log every refused handshake.
func (e *Endpoint) StartTLSQuiet(tb testing.TB, h http.Handler) string {
	tb.Helper()
	s := httptest.NewUnstartedServer(h)
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	return e.startTest(tb, s, true)
}

// StartInMemory serves h on a new MemListener named name until the test
// ends (or Close) and returns its URL ("http://name.invalid"), which only
// HTTPClient's client reaches: no socket, no port.
func (e *Endpoint) StartInMemory(tb testing.TB, name string, h http.Handler) string {
	tb.Helper()
	u, stop := e.serve(NewMemListener(name), h)
	tb.Cleanup(stop)
	return u
}

// ServeInMemoryOnDemand is Serve on a new MemListener named name, for a
// fake reached in-process first (as an http.Handler): it returns the URL
// at once ("http://name-N.invalid"), but the server behind it starts only
// the first time anything asks the Endpoint for an address or a client (as
// StartOnDemand's), or dials the listener (its client, DialInMemory).
// Until then no goroutine
// serves. Like Serve, it serves until Close, which a fake started for a
// test has its Cleanup call: one cleanup for the fake rather than one more
// for its listener (each costs the test a stack walk). Closed before it
// served, the Endpoint reports what a server served and closed would (its
// URL, address and client, which reaches a closed listener), once asked.
func (e *Endpoint) ServeInMemoryOnDemand(name string, h http.Handler) string {
	l := newMemListener(name, e.open)
	u := "http://" + l.Addr().String()
	e.StartOnDemand(func() { e.serve(l, h) })
	e.mu.Lock()
	e.all = append(e.all, func() { _ = l.Close() }) // stops accepting, served or not
	e.unkept = func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.test, e.lis, e.mem, e.url, e.unkept = nil, l, l.HTTPClient(), u, nil
	}
	e.mu.Unlock()
	return u
}

// Serve serves h on l, with the Endpoint's Timeouts, until Close, and
// returns the URL it answers at ("http://" and l's address). On a
// MemListener, HTTPClient returns the client that reaches it.
func (e *Endpoint) Serve(l net.Listener, h http.Handler) string {
	u, _ := e.serve(l, h)
	return u
}

func (e *Endpoint) serve(l net.Listener, h http.Handler) (url string, stop func()) {
	l, report := e.reports(l)
	s := &http.Server{Handler: h}
	e.Timeouts.configure(s)
	plainHTTP(s)
	var cs conns
	cs.wrap(s)
	served := e.Timeouts.listener(l, true)
	go func() { _ = s.Serve(served) }()
	u := "http://" + l.Addr().String()
	grace := e.Timeouts.withDefaults().Grace
	var mem *http.Client
	if ml, ok := l.(*MemListener); ok {
		mem = ml.HTTPClient()
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			if open, forced := shutdown(s, &cs, grace); forced && report != nil {
				report(ForcedClose{Addr: l.Addr().String(), Open: open, Grace: grace})
			}
			if mem != nil {
				mem.CloseIdleConnections()
			}
		})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.test, e.lis, e.mem, e.url, e.promise, e.unkept = nil, l, mem, u, nil, nil
	e.all = append(e.all, stop)
	return u, stop
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
// it. Port 0 takes a free port as net.Listen does, more cheaply on a
// crowded Linux loopback (see listenAnyPort).
func ListenTCP(addr string) (net.Listener, error) {
	listen := func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	if _, port, err := net.SplitHostPort(addr); err == nil && port == "0" {
		listen = listenAnyPort
	}
	l, err := listen(addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			_, port, _ := net.SplitHostPort(addr)
			return nil, fmt.Errorf("port %s is already in use (%s)", port, addr)
		}
		return nil, err
	}
	return l, nil
}

// startTest starts s (over TLS when useTLS) with the Endpoint's settings,
// to stop when the test ends or at Close, whichever is first.
func (e *Endpoint) startTest(tb testing.TB, s *httptest.Server, useTLS bool) string {
	e.Timeouts.configure(s.Config)
	s.Listener = e.Timeouts.listener(s.Listener, !useTLS) // StartTLS puts TLS over it
	start := s.Start
	if useTLS {
		start = s.StartTLS
	}
	grace, report := e.Timeouts.withDefaults().Grace, e.OnForcedClose
	var cs conns // counted only for a report; httptest's Start keeps its hooks
	if report != nil {
		cs.wrap(s.Config)
	}
	start()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			if open, forced := closeTest(s, &cs, grace); forced && report != nil {
				report(ForcedClose{Addr: s.Listener.Addr().String(), Open: open, Grace: grace})
			}
		})
	}
	tb.Cleanup(stop)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.test, e.lis, e.mem, e.url, e.promise, e.unkept = s, nil, nil, s.URL, nil, nil
	e.all = append(e.all, stop)
	return s.URL
}

// Close stops every server the Endpoint started: it stops accepting, lets
// running requests finish for up to the grace (Timeouts.Grace), then
// closes every connection, and reports that it had to (OnForcedClose). It
// drops a StartOnDemand promise not yet kept (one being kept is waited
// for, then stopped); one of ServeInMemoryOnDemand leaves the Endpoint
// reporting a closed in-memory server instead. It does nothing before one
// is started, and a server started for a test stops with the test anyway.
func (e *Endpoint) Close() {
	e.openMu.Lock()
	e.mu.Lock()
	all := e.all
	e.all, e.promise = nil, e.unkept // nil, or the record of a closed server, made when asked
	e.mu.Unlock()
	e.openMu.Unlock()
	for _, stop := range all {
		stop()
	}
}

// shutdown stops s within grace, whatever its handlers and clients do:
// connections waiting for a request close at once, running requests get
// the grace period, then every connection closes. It reports whether the
// grace ran out (forced), and how many connections were open then.
func shutdown(s *http.Server, cs *conns, grace time.Duration) (open int, forced bool) {
	s.SetKeepAlivesEnabled(false)
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	// Shutdown closes the listeners first; closing the waiting connections
	// now spares it waiting for them. One the server accepted but had not
	// registered yet is closed as it registers.
	cs.closeWaiting()
	if <-done == nil {
		return 0, false
	}
	open = cs.open()
	_ = s.Close()
	return open, true
}

// closeTest stops a test server within grace: httptest's own Close waits
// for every running handler, however long it takes, so past the grace
// their connections are closed under them (forced; cs counted those still
// open, when it tracks s). httptest's Close is driven by the connections' states (one
// waiting for a request, or in the middle of its headers, closes at once;
// one answering closes as its answer ends), where
// http.Server.Shutdown polls them, every millisecond at first: a client
// that has its answer before the server has marked the connection idle
// would cost every Close a millisecond, several times the rest.
func closeTest(s *httptest.Server, cs *conns, grace time.Duration) (open int, forced bool) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Close()
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return 0, false
	case <-t.C:
		open = cs.open()
		s.CloseClientConnections()
		<-done
		return open, true
	}
}

// URL returns the server's root URL, "" before it is started (the server
// StartOnDemand promised starts here).
func (e *Endpoint) URL() string {
	e.open()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.url
}

// Addr returns the listener's address, nil before it is started.
func (e *Endpoint) Addr() net.Addr {
	e.open()
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

// HTTPClient returns the http.Client a client of the server needs: the one
// wired to its in-memory listener, or one that trusts its certificate when
// it serves over TLS; nil when any client reaches it.
func (e *Endpoint) HTTPClient() *http.Client {
	e.open()
	e.mu.Lock()
	mem := e.mem
	e.mu.Unlock()
	if mem != nil {
		return mem
	}
	return e.TLSClient()
}

// RawClient returns an *http.Client that reaches the server however it
// serves (in memory, over TLS, on a port): HTTPClient's when it needs one,
// else http.DefaultClient; nil before it serves. Each fake's RawClient is
// this.
func (e *Endpoint) RawClient() *http.Client {
	if e.URL() == "" {
		return nil
	}
	if hc := e.HTTPClient(); hc != nil {
		return hc
	}
	return http.DefaultClient
}

// TLSClient returns an http.Client that trusts the server's certificate
// when it serves over TLS, nil otherwise.
func (e *Endpoint) TLSClient() *http.Client {
	e.open()
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
	e.open()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.test != nil && e.test.TLS != nil {
		return e.test.Certificate()
	}
	return nil
}

// CertificatePEM returns the server's TLS certificate PEM-encoded, for a
// client to trust; nil when it does not serve over TLS.
func (e *Endpoint) CertificatePEM() []byte {
	cert := e.Certificate()
	if cert == nil {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
}

// CACertFile writes CertificatePEM to a file in a temporary directory of
// the test and returns its path, for a client's CA file option; the test
// fails when the server does not serve over TLS. fake names the fake in
// that failure.
func (e *Endpoint) CACertFile(tb testing.TB, fake string) string {
	tb.Helper()
	pemBytes := e.CertificatePEM()
	if pemBytes == nil {
		tb.Fatal(fake + ": CACertFile needs a fake started with control.WithTLS")
	}
	path := filepath.Join(tb.TempDir(), "fake-ca.pem")
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// ServerTLS returns a copy of the TLS settings the server serves with
// (its certificate and key), for a second listener of the same fake (a gRPC
// side) to serve the same certificate; nil when it does not serve over TLS.
func (e *Endpoint) ServerTLS() *tls.Config {
	e.open()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.test != nil && e.test.TLS != nil {
		return &tls.Config{Certificates: e.test.TLS.Certificates, MinVersion: tls.VersionTLS12}
	}
	return nil
}
