package orchfake

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
)

// Server is the fake orchestration service: one in-memory state served over
// gRPC and over HTTP/JSON. It is safe for concurrent use. Use [Start] in
// tests; [New] and [Server.Listen] (or [Server.Serve] and
// [Server.ServeGRPC]) in programs; [New] and [Server.Conn] for a fake with
// no port at all.
type Server struct {
	cfg config
	clk *clock.Fake
	kit *fakekit.Kit     // guard, body limit, request log, faults of both transports
	ep  fakekit.Endpoint // the HTTP/JSON side's listener

	// mu guards the state: namespaces, executions, task queues, shards.
	mu sync.Mutex
	st *state
	// events counts the history events of st (records.go); mu guards it.
	events eventCounts

	auth   authState   // its own lock
	limits limitsState // its own lock

	done <-chan struct{} // closed by Close (the kit's Done)

	netMu   sync.Mutex
	grpcSrv *grpc.Server // made with the gRPC side's first connection (grpcServerLocked)
	// grpcHandshakes are the gRPC side's connections still in their
	// handshake, which Close closes (grpc.Server's Stop would wait for
	// them); every listener the gRPC side serves on tracks them.
	grpcHandshakes handshakes
	// grpcWaiting are the gRPC listeners served before the server was
	// built, each waiting for its first connection; Close closes them.
	grpcWaiting []net.Listener
	grpcLazy    lazyGRPC   // the listener Start promised the gRPC side, until it opens
	lazyTB      testing.TB // the test of Start, told when that listener cannot open
	grpcAddr    string
	grpcMem     *fakekit.MemListener // the gRPC side's listener when it is in memory
	grpcTLS     *tls.Config          // the certificate the gRPC side serves with, after Start with control.WithTLS
	memConn     *grpc.ClientConn
	memLis      *fakekit.MemListener // Conn's listener
	memServed   bool                 // whether the gRPC server serves memLis
	closed      bool
	serveWait   sync.WaitGroup

	skipping  atomic.Bool
	skipAgain atomic.Bool
	// skipRecheck, under mu, is the pending real-time recheck of skipping
	// (see recheckSkipAfter).
	skipRecheck *time.Timer

	// gatewayOnly turns off the direct List and Scan path over HTTP
	// (listhttp.go): tests hold that path to the gateway's answers with it.
	gatewayOnly atomic.Bool

	// startHook, for tests, runs inside every start, under mu.
	startHook atomic.Pointer[func()]
	// updateHook, for tests, runs when an update is admitted, under mu.
	updateHook atomic.Pointer[func()]
}

// config is what the options set: orchfake's own, and of the options
// every fake shares, the clock and the record bound.
type config struct {
	clock        *clock.Fake
	auth         bool
	signingKey   []byte
	limits       Limits
	shards       int
	timeSkipping bool
	maxRecords   int
	handshake    time.Duration // bounds a gRPC handshake; 0 is grpcHandshakeTimeout (tests shorten it)
	wire         grpcWire      // the gRPC side's other connection bounds (tests shorten them)
}

// Option configures a fake: one of the options every fake shares
// (control.WithClock, control.WithFault, control.WithMaxBody,
// control.WithRequestLog, control.WithMaxRecords, control.WithTLS,
// control.WithInMemory) or one of orchfake's own below. For orchfake:
//   - the clock defaults to a new fake clock at the current wall time,
//     truncated to the second;
//   - WithFault's route is an operation ("StartWorkflowExecution"), over
//     gRPC and HTTP alike;
//   - WithMaxBody caps a request over HTTP (its body) and over gRPC (its
//     message), default [DefaultMaxBody], 4 MiB: a larger HTTP body is
//     refused with 413 and RESOURCE_EXHAUSTED before it is read whole, a
//     larger gRPC message with RESOURCE_EXHAUSTED;
//   - WithMaxRecords bounds the workflow runs in all, the namespaces, the
//     task queues (n each) and the history events in all (3n); past it a
//     start is RESOURCE_EXHAUSTED (over HTTP 429, which a client may take
//     for a rate limit and retry), and changes nothing; see the package
//     doc's Bounds;
//   - WithTLS and WithInMemory serve both transports so.
type Option = control.Option

// option declares one of orchfake's own options.
func option(name string, apply func(*config)) Option {
	return control.OwnOption("orchfake."+name, func(c *config) error { apply(c); return nil })
}

// WithAuth turns authentication on: every call then needs a bearer JWT
// issued by [Server.IssueToken] (or signed with the key of
// [WithSigningKey]) or an API key added by [Server.AddAPIKey].
func WithAuth() Option { return option("WithAuth", func(c *config) { c.auth = true }) }

// WithSigningKey sets the HS256 key the fake signs and verifies tokens with
// (random by default), for programs that mint tokens themselves; an empty
// key is an error.
func WithSigningKey(key []byte) Option {
	return control.OwnOption("orchfake.WithSigningKey", func(c *config) error {
		if len(key) == 0 {
			return errors.New("the key is empty")
		}
		c.signingKey = append([]byte(nil), key...)
		return nil
	})
}

// WithLimits replaces the rate limits (see [Limits]; zero fields keep the
// spec's value, negative ones turn that limit off).
func WithLimits(l Limits) Option { return option("WithLimits", func(c *config) { c.limits = l }) }

// WithoutLimits turns every rate limit off.
func WithoutLimits() Option { return option("WithoutLimits", func(c *config) { c.limits = NoLimits }) }

// WithTimeSkipping makes the fake move its clock forward by itself when
// nothing can happen before the next timer (no task waiting for a worker,
// none running), so a workflow that sleeps an hour ends at once.
func WithTimeSkipping() Option {
	return option("WithTimeSkipping", func(c *config) { c.timeSkipping = true })
}

// DefaultMaxBody is the default cap on a request, over HTTP (its body) and
// over gRPC (its message): 4 MiB, gRPC's own default message size.
const DefaultMaxBody = 4 << 20

// New returns a fake with the namespace "default" registered. It serves
// nothing until [Server.Listen], [Server.Serve] or [Server.Conn] (in
// memory at once, both transports, with control.WithInMemory). An option
// it cannot use is an error that names it.
func New(opts ...Option) (*Server, error) {
	s, _, err := newServer(opts, false)
	return s, err
}

// newServer is New, or the New of Start (start: see fakekit.Options), and
// what the options every fake shares asked for.
func newServer(opts []Option, start bool) (*Server, control.Settings, error) {
	cfg := config{shards: NumShards}
	st, err := fakekit.Options("orchfake", &cfg, opts, start)
	if err != nil {
		return nil, st, err
	}
	cfg.maxRecords = st.MaxRecords
	if cfg.handshake <= 0 {
		cfg.handshake = grpcHandshakeTimeout
	}
	cfg.wire = cfg.wire.withDefaults()
	cfg.limits = cfg.limits.withDefaults()
	s := &Server{cfg: cfg}
	s.kit = fakekit.New(fakekit.Config{
		Clock:      st.Clock,
		Limits:     fakekit.LimitsOf(st, DefaultMaxBody),
		Routes:     gatewayRouter{s},
		Error:      errorAnswer,
		Operations: knownOp,
		Codes:      orchwire.Known,
	})
	s.clk = s.kit.Clock()
	s.cfg.clock = s.clk
	s.done = s.kit.Done()
	if err := s.kit.InjectFaults("orchfake", st.Faults); err != nil {
		return nil, st, err
	}
	s.auth.init(cfg.signingKey)
	s.limits.init(s.clk, cfg.limits)
	s.st = newState(s)
	if st.InMemory {
		s.ep.ServeInMemoryOnDemand("orchfake", s)
		s.promiseGRPC(nil, lazyMem, nil)
	}
	return s, st, nil
}

// grpcServerLocked returns the gRPC server, made on first use: a fake used
// only over HTTP never builds one. The caller holds netMu.
func (s *Server) grpcServerLocked() *grpc.Server {
	if s.grpcSrv == nil {
		maxMsg := int(min(s.kit.Limits().MaxBody, math.MaxInt32))
		w := s.cfg.wire
		s.grpcSrv = grpc.NewServer(
			grpc.MaxRecvMsgSize(maxMsg),
			grpc.MaxHeaderListSize(grpcMaxHeaderList),
			grpc.MaxConcurrentStreams(grpcMaxStreams),
			grpc.ConnectionTimeout(s.cfg.handshake),
			grpc.KeepaliveParams(keepalive.ServerParameters{
				MaxConnectionIdle:     w.idle,
				MaxConnectionAge:      w.maxAge,
				MaxConnectionAgeGrace: w.ageGrace,
				Time:                  grpcPing,
				Timeout:               grpcPingTimeout,
			}),
			grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: grpcMinPing, PermitWithoutStream: true}),
			grpc.UnaryInterceptor(s.interceptUnary),
			grpc.StreamInterceptor(s.interceptStream),
		)
		orchpb.RegisterWorkflowServiceServer(s.grpcSrv, workflowService{s: s})
		orchpb.RegisterAdminServiceServer(s.grpcSrv, adminService{s: s})
		reflection.Register(s.grpcSrv)
	}
	return s.grpcSrv
}

// lazyGRPC is the listener Start (and New in memory) promises the gRPC
// side. It opens the first time anything asks for that side's address
// or listener (GRPCAddr, GRPCClient), under netMu, so that an address is
// served from the moment it is handed out, and a test that only uses HTTP
// (or Conn, which needs no listener) opens one port, not two.
type lazyGRPC uint8

const (
	lazyNone lazyGRPC = iota // nothing promised, or already opened
	lazyTCP                  // a loopback port, over TLS when grpcTLS is set
	lazyMem                  // an in-memory listener
)

// openGRPCLocked opens the listener Start promised, unless it is open
// already or the fake is closed. The caller holds netMu.
func (s *Server) openGRPCLocked() {
	if s.grpcLazy == lazyNone || s.closed {
		return
	}
	kind := s.grpcLazy
	s.grpcLazy = lazyNone
	var l net.Listener
	switch kind {
	case lazyMem:
		l = fakekit.NewMemListener("orchfake-grpc")
	case lazyTCP:
		tl, err := fakekit.ListenTCP("127.0.0.1:0")
		if err != nil {
			if s.lazyTB != nil {
				s.lazyTB.Errorf("orchfake: gRPC listener: %v", err)
			}
			return
		}
		l = tl
		if s.grpcTLS != nil { // the connections limited under TLS (grpcListener cannot above it)
			l = tls.NewListener(fakekit.LimitListener(l, s.cfg.wire.maxConns), s.grpcTLS)
		}
	}
	s.serveGRPCLocked(l)
}

// Start serves a new fake until the test ends, on loopback ports (gRPC
// and HTTP), over TLS on both with a self-signed certificate for 127.0.0.1
// (control.WithTLS: the clients of [Server.HTTPClient] and
// [Server.GRPCClient] trust it, others do through
// [Server.CertificatePEM]), or in memory, both transports
// (control.WithInMemory, or every Start of a test binary that called
// control.ServeInMemoryByDefault: URL() is "http://orchfake-N.invalid" and
// GRPCAddr() "orchfake-grpc-N.invalid", hosts no resolver answers). The
// gRPC side opens the first time it is asked for (GRPCAddr, GRPCClient)
// and serves from then on: a test that uses only HTTP, or Client (in
// memory, no port), opens one port. An option the fake cannot use fails
// the test.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, st, err := newServer(opts, true)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	if st.InMemory {
		return s
	}
	s.ep.StartFor(tb, st, s)
	var cfg *tls.Config
	if st.TLS {
		cfg = s.ep.ServerTLS()
		cfg.NextProtos = []string{"h2"} // gRPC clients insist on ALPN
	}
	s.promiseGRPC(tb, lazyTCP, cfg)
	return s
}

// promiseGRPC makes the gRPC side serve on a listener of kind (with cfg's
// certificate, when it is not nil) from the first time it is asked for;
// tb, when not nil, is told when that listener cannot open.
func (s *Server) promiseGRPC(tb testing.TB, kind lazyGRPC, cfg *tls.Config) {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.closed {
		return
	}
	s.grpcLazy, s.lazyTB, s.grpcTLS = kind, tb, cfg
}

// RawClient returns an *http.Client that reaches the HTTP/JSON side however
// it serves (in memory, over TLS, on a port), for requests the orch client
// does not make; nil before it serves.
func (s *Server) RawClient() *http.Client { return s.ep.RawClient() }

// grpcMemListener is the in-memory listener the gRPC side serves on, nil
// when it serves on a port (or not at all).
func (s *Server) grpcMemListener() *fakekit.MemListener {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	s.openGRPCLocked()
	return s.grpcMem
}

// Listen serves gRPC on grpcAddr and HTTP/JSON on httpAddr (port 0 picks a
// free port; an empty address serves nothing on that transport) until
// Close. A port in use is an error naming the port.
func (s *Server) Listen(grpcAddr, httpAddr string) error {
	s.netMu.Lock()
	closed := s.closed
	s.netMu.Unlock()
	if closed {
		return errClosed
	}
	var gl, hl net.Listener
	var err error
	if grpcAddr != "" {
		if gl, err = fakekit.ListenTCP(grpcAddr); err != nil {
			return fmt.Errorf("orchfake: gRPC: %w", err)
		}
	}
	if httpAddr != "" {
		if hl, err = fakekit.ListenTCP(httpAddr); err != nil {
			if gl != nil {
				_ = gl.Close()
			}
			return fmt.Errorf("orchfake: HTTP: %w", err)
		}
	}
	if gl != nil {
		s.ServeGRPC(gl)
	}
	if hl != nil {
		s.Serve(hl)
	}
	return nil
}

// Serve serves the HTTP/JSON side on l until Close, and returns its URL.
func (s *Server) Serve(l net.Listener) string { return s.ep.Serve(l, s) }

// ServeGRPC serves the gRPC side on l until Close, and returns its address
// (host:port). A closed fake closes l at once.
func (s *Server) ServeGRPC(l net.Listener) string {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.closed {
		_ = l.Close()
		return ""
	}
	s.grpcLazy = lazyNone // l replaces the listener Start promised
	s.serveGRPCLocked(l)
	return s.grpcAddr
}

// serveGRPCLocked serves the gRPC side on l; the caller holds netMu and
// has checked that the fake is not closed. Until the gRPC server is built,
// l's first connection builds it (serveGRPCOnFirstConn): a fake that
// serves gRPC, as fake.New's does, and is never called over it costs no
// gRPC server to build and stop.
func (s *Server) serveGRPCLocked(l net.Listener) {
	s.grpcAddr = l.Addr().String()
	s.grpcMem, _ = l.(*fakekit.MemListener)
	l = s.grpcListener(l)
	if srv := s.grpcSrv; srv != nil {
		s.serveWait.Go(func() { _ = srv.Serve(l) })
		return
	}
	s.grpcWaiting = append(s.grpcWaiting, l)
	s.serveWait.Go(func() { s.serveGRPCOnFirstConn(l) })
}

// grpcListener is l as the gRPC side serves it: at most maxConns
// connections at once (fakekit.LimitListener; over TLS, limit the listener
// under it), each closed when its client resets too many streams, and
// tracked through its handshake.
func (s *Server) grpcListener(l net.Listener) net.Listener {
	l = fakekit.LimitListener(l, s.cfg.wire.maxConns)
	l = &resetListener{Listener: l, budget: grpcResetBudget, window: s.cfg.wire.resetWindow}
	return s.grpcHandshakes.listener(l)
}

// serveGRPCOnFirstConn accepts l's first connection, then builds the gRPC
// server (unless it is built) and serves it that connection and l's next
// ones. Close closes l, which ends the wait.
func (s *Server) serveGRPCOnFirstConn(l net.Listener) {
	c, err := l.Accept()
	s.netMu.Lock()
	if s.closed {
		s.netMu.Unlock()
		if c != nil {
			_ = c.Close()
		}
		return
	}
	srv := s.grpcServerLocked()
	s.netMu.Unlock()
	if err != nil { // not Close's doing: the server meets it as it would have
		_ = srv.Serve(l)
		return
	}
	_ = srv.Serve(&firstConnListener{Listener: l, first: c})
}

// firstConnListener is a listener whose first Accept returns a connection
// already accepted from it.
type firstConnListener struct {
	net.Listener
	mu    sync.Mutex
	first net.Conn // until Accept hands it out, or Close closes it
}

func (f *firstConnListener) Accept() (net.Conn, error) {
	if c := f.take(); c != nil {
		return c, nil
	}
	return f.Listener.Accept()
}

// Close closes the listener, and the first connection unless it was
// handed out (a server stopped before it served closes its listener).
func (f *firstConnListener) Close() error {
	if c := f.take(); c != nil {
		_ = c.Close()
	}
	return f.Listener.Close()
}

func (f *firstConnListener) take() net.Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.first
	f.first = nil
	return c
}

// serveTLS reports whether the gRPC side serves over TLS (control.WithTLS).
func (s *Server) serveTLS() bool {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	return s.grpcTLS != nil
}

// grpcGrace is how long Close lets running gRPC calls finish before it cuts
// them off; long polls end at once on Close, so only a stuck call waits it.
const grpcGrace = 2 * time.Second

// Close stops serving, ends every long poll and fault latency, and stops
// the fake's timers; running calls get a short grace, then their
// connections close (a gRPC connection still in its handshake closes at
// once). It is safe to call more than once.
func (s *Server) Close() {
	s.netMu.Lock()
	if s.closed {
		s.netMu.Unlock()
		return
	}
	s.closed = true
	s.grpcLazy = lazyNone
	memConn, grpcSrv, waiting := s.memConn, s.grpcSrv, s.grpcWaiting
	s.grpcWaiting = nil
	if s.memLis != nil && !s.memServed {
		_ = s.memLis.Close() // a dial under way fails, as it would on a stopped server
	}
	s.netMu.Unlock()
	s.kit.Close()

	s.stopTimers()

	if memConn != nil {
		_ = memConn.Close()
	}
	s.ep.Close()
	// A connection in its handshake would hold the server's Stop (and
	// the listener goroutine) until its client gives up; one accepted
	// from now on is closed at once.
	s.grpcHandshakes.close()
	if grpcSrv != nil {
		stopGRPC(grpcSrv)
	}
	for _, l := range waiting { // those the server serves are closed already
		_ = l.Close()
	}
	s.serveWait.Wait()
}

// stopGRPC stops srv, letting running calls finish for up to grpcGrace.
func stopGRPC(srv *grpc.Server) {
	stopped := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(stopped)
	}()
	t := time.NewTimer(grpcGrace)
	defer t.Stop()
	select {
	case <-stopped:
	case <-t.C:
		srv.Stop()
		<-stopped
	}
}

// GRPCAddr is the host:port of the gRPC listener ("" before Listen). After
// Start, the listener opens on the first call, and serves from then on; a
// fake closed before it was asked answers "".
func (s *Server) GRPCAddr() string {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	s.openGRPCLocked()
	return s.grpcAddr
}

// URL is the base URL of the HTTP/JSON side, "http://127.0.0.1:port"
// ("" before it serves); operations are under URL()+"/api/v1".
func (s *Server) URL() string { return s.ep.URL() }

// CertificatePEM returns the certificate of a fake started with control.WithTLS,
// PEM-encoded, for a client to trust; nil otherwise.
func (s *Server) CertificatePEM() []byte { return s.ep.CertificatePEM() }

// Conn returns an in-memory gRPC connection to the fake (no port, no
// network), made on first use and closed by Close. The gRPC server behind
// it starts with the connection's first call: a Conn (or Client) never
// called costs no gRPC server.
func (s *Server) Conn() *grpc.ClientConn {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.memConn != nil {
		return s.memConn
	}
	lis := fakekit.NewMemListener("orchfake-conn")
	s.memLis = lis
	if s.closed { // no server will take its dials
		_ = lis.Close()
	}
	conn, err := grpc.NewClient("passthrough:///orchfake",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			if err := s.serveMemLis(); err != nil {
				return nil, err
			}
			return lis.DialContext(ctx, "", "")
		}),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil { // only malformed options fail NewClient, and these are fixed
		panic(err)
	}
	s.memConn = conn
	return conn
}

// errClosed is what Listen, and dialling Conn's listener, answer once the
// fake is closed.
var errClosed = errors.New("orchfake: server closed")

// serveMemLis serves the gRPC side on Conn's listener, once, before its
// first dial; a closed fake refuses the dial.
func (s *Server) serveMemLis() error {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.memServed {
		return nil
	}
	if s.closed {
		return errClosed
	}
	s.memServed = true
	srv, lis := s.grpcServerLocked(), s.grpcListener(s.memLis)
	s.serveWait.Go(func() { _ = srv.Serve(lis) })
	return nil
}

// Handler is the HTTP/JSON side as an http.Handler (the Server itself), for
// mounting under another server.
func (s *Server) Handler() http.Handler { return s }

// ServeHTTP answers one request of the HTTP/JSON side.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.kit.ServeHTTP(w, r) }

func (s *Server) stopTimers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.stopTimers()
}

// isClosed reports whether Close was called.
func (s *Server) isClosed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

func trimRunID(id string) string {
	id = strings.TrimSpace(id)
	if id == "-" {
		return ""
	}
	return id
}
