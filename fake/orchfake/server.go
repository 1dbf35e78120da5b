package orchfake

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/test/bufconn"
)

// Server is the fake orchestration service: one in-memory state served over
// gRPC and over HTTP/JSON. It is safe for concurrent use. Use [Start] in
// tests; [New] and [Server.Listen] in programs; [New] and [Server.Conn] for a
// fake with no port at all.
type Server struct {
	cfg config
	clk *clock.Fake

	grpcSrv *grpc.Server
	gw      *runtime.ServeMux

	// mu guards the state: namespaces, executions, task queues, shards.
	mu sync.Mutex
	st *state

	ctl controls // faults, call log; its own lock

	auth   authState   // its own lock
	limits limitsState // its own lock

	netMu     sync.Mutex
	grpcLis   net.Listener
	httpSrv   *http.Server
	httpLis   net.Listener
	grpcAddr  string
	url       string
	memLis    *bufconn.Listener
	memConn   *grpc.ClientConn
	closed    bool
	done      chan struct{}
	serveWait sync.WaitGroup

	skipping  atomic.Bool
	skipAgain atomic.Bool
}

type config struct {
	clock         *clock.Fake
	auth          bool
	signingKey    []byte
	limits        Limits
	shards        int
	maxPageSize   int
	timeSkipping  bool
	memberAddress string
}

// Option configures a Server.
type Option func(*config)

// WithClock makes the fake read its time from clk, shared with the code
// under test or with other fakes. The default is a new fake clock at the
// current wall time, truncated to the second.
func WithClock(clk *clock.Fake) Option { return func(c *config) { c.clock = clk } }

// WithAuth turns authentication on: every call then needs a bearer JWT
// issued by [Server.IssueToken] (or signed with the key of
// [WithSigningKey]) or an API key added by [Server.AddAPIKey].
func WithAuth() Option { return func(c *config) { c.auth = true } }

// WithSigningKey sets the HS256 key the fake signs and verifies tokens with
// (random by default), for programs that mint tokens themselves.
func WithSigningKey(key []byte) Option {
	return func(c *config) { c.signingKey = append([]byte(nil), key...) }
}

// WithLimits replaces the rate limits (see [Limits]; zero fields keep the
// spec's value, negative ones turn that limit off).
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// WithoutLimits turns every rate limit off.
func WithoutLimits() Option { return func(c *config) { c.limits = NoLimits } }

// WithTimeSkipping makes the fake move its clock forward by itself when
// nothing can happen before the next timer (no task waiting for a worker,
// none running), so a workflow that sleeps an hour ends at once.
func WithTimeSkipping() Option { return func(c *config) { c.timeSkipping = true } }

// New returns a fake with the namespace "default" registered. It serves
// nothing until [Server.Listen], [Start] or [Server.Conn].
func New(opts ...Option) *Server {
	cfg := config{shards: NumShards, maxPageSize: 1000}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	cfg.limits = cfg.limits.withDefaults()
	clk := cfg.clock
	if clk == nil {
		clk = clock.NewFake(time.Now().Truncate(time.Second))
	}
	s := &Server{cfg: cfg, clk: clk, done: make(chan struct{})}
	s.auth.init(cfg.signingKey)
	s.limits.init(clk, cfg.limits)
	s.st = newState(s)
	s.grpcSrv = grpc.NewServer()
	orchpb.RegisterWorkflowServiceServer(s.grpcSrv, workflowService{s: s})
	orchpb.RegisterAdminServiceServer(s.grpcSrv, adminService{s: s})
	reflection.Register(s.grpcSrv)
	s.gw = s.newGateway()
	return s
}

// Start serves a new fake on loopback ports (gRPC and HTTP) until the test
// ends.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := New(opts...)
	if err := s.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		tb.Fatalf("orchfake: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Listen serves gRPC on grpcAddr and HTTP/JSON on httpAddr (port 0 picks a
// free port; an empty address serves nothing on that transport) until
// Close. A port in use is an error naming the port.
func (s *Server) Listen(grpcAddr, httpAddr string) error {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.closed {
		return errors.New("orchfake: server closed")
	}
	if s.grpcLis != nil || s.httpLis != nil {
		return errors.New("orchfake: already listening")
	}
	var gl, hl net.Listener
	var err error
	if grpcAddr != "" {
		if gl, err = listen(grpcAddr, "gRPC"); err != nil {
			return err
		}
	}
	if httpAddr != "" {
		if hl, err = listen(httpAddr, "HTTP"); err != nil {
			if gl != nil {
				_ = gl.Close()
			}
			return err
		}
	}
	if gl != nil {
		s.grpcLis = gl
		s.grpcAddr = gl.Addr().String()
		s.serveWait.Go(func() { _ = s.grpcSrv.Serve(gl) })
	}
	if hl != nil {
		s.httpLis = hl
		s.url = "http://" + hl.Addr().String()
		s.httpSrv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
		srv := s.httpSrv
		s.serveWait.Go(func() { _ = srv.Serve(hl) })
	}
	return nil
}

func listen(addr, what string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			_, port, _ := net.SplitHostPort(addr)
			return nil, fmt.Errorf("orchfake: %s port %s is already in use (%s)", what, port, addr)
		}
		return nil, fmt.Errorf("orchfake: %s listener: %w", what, err)
	}
	return l, nil
}

// Close stops serving, ends every long poll, and stops the fake's timers.
// It is safe to call more than once.
func (s *Server) Close() {
	s.netMu.Lock()
	if s.closed {
		s.netMu.Unlock()
		return
	}
	s.closed = true
	close(s.done)
	httpSrv, memConn := s.httpSrv, s.memConn
	s.netMu.Unlock()

	s.mu.Lock()
	s.st.stopTimers()
	s.mu.Unlock()

	if memConn != nil {
		_ = memConn.Close()
	}
	if httpSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = httpSrv.Shutdown(ctx)
		cancel()
		_ = httpSrv.Close()
	}
	s.grpcSrv.Stop()
	s.serveWait.Wait()
}

// GRPCAddr is the host:port of the gRPC listener ("" before Listen).
func (s *Server) GRPCAddr() string {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	return s.grpcAddr
}

// URL is the base URL of the HTTP/JSON side, "http://127.0.0.1:port"
// ("" before Listen); operations are under URL()+"/api/v1".
func (s *Server) URL() string {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	return s.url
}

// Conn returns an in-memory gRPC connection to the fake (no port, no
// network), made on first use and closed by Close.
func (s *Server) Conn() *grpc.ClientConn {
	s.netMu.Lock()
	defer s.netMu.Unlock()
	if s.memConn != nil {
		return s.memConn
	}
	lis := bufconn.Listen(256 << 10)
	s.memLis = lis
	if !s.closed {
		s.serveWait.Go(func() { _ = s.grpcSrv.Serve(lis) })
	}
	conn, err := grpc.NewClient("passthrough:///orchfake",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil { // only malformed options fail NewClient, and these are fixed
		panic(err)
	}
	s.memConn = conn
	return conn
}

// Handler is the HTTP/JSON side as an http.Handler (the Server itself), for
// mounting under another server.
func (s *Server) Handler() http.Handler { return s }

// Clock returns the fake's clock: it drives execution timeouts, task
// timeouts, timers, token expiry and rate-limit windows.
func (s *Server) Clock() *clock.Fake { return s.clk }

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
