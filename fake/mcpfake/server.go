package mcpfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/mcp/gateway"
)

// Server is a gateway and the source-hosting fake behind it.
type Server struct {
	kit       *fakekit.Kit
	ep        fakekit.Endpoint
	upstream  *sourcehostfake.Server
	clock     *clock.Fake    // the upstream's, which the gateway shares
	gcfg      gateway.Config // the gateway's configuration, upstream and clock filled in
	ownsUp    bool           // the upstream was made here, so Close and Reset reach it
	inProcess bool           // the gateway reaches the upstream through its handler (see growStack)

	mu      sync.Mutex
	gateway *gateway.Gateway // replaced by Reset
}

// Option configures a fake: one of the options every fake shares
// (control.WithClock, control.WithFault, control.WithMaxBody,
// control.WithRequestLog, control.WithMaxRecords, control.WithTLS,
// control.WithInMemory) or one of mcpfake's own below. For mcpfake, the
// clock is shared by the gateway and the upstream it makes (an upstream
// given by WithUpstream brings its own); WithMaxBody sets the gateway's
// MaxBodyBytes (default 1 MiB), whatever WithConfig says; WithMaxRecords
// bounds the records of the upstream it makes (the gateway keeps none),
// and is an error with WithUpstream; WithFault, the request log and
// WithTLS are the gateway's (the upstream, when it opens its port, serves
// plain HTTP), WithInMemory serves both in memory.
type Option = control.Option

// config is what mcpfake's own options set.
type config struct {
	gateway      gateway.Config
	upstream     *sourcehostfake.Server
	upstreamOpts []sourcehostfake.Option
	// blockLocalHooks and hookResolver are WithAllowLocalRequests' and
	// WithHookResolver's (see hooks.go).
	blockLocalHooks bool
	hookResolver    gateway.Resolver
}

// option declares one of mcpfake's own options.
func option(name string, apply func(*config)) Option {
	return control.OwnOption("mcpfake."+name, func(c *config) error { apply(c); return nil })
}

// WithConfig sets the gateway's configuration (security, rate limit, cache,
// batches, body limit). Its Upstream and Clock are the fake's, whatever
// they say.
func WithConfig(cfg gateway.Config) Option {
	return option("WithConfig", func(c *config) { c.gateway = cfg })
}

// WithUpstream puts the gateway in front of a source-hosting fake made
// elsewhere, instead of making one; the clock is then that fake's. The
// gateway calls it at its URL when it serves, in-process otherwise.
func WithUpstream(s *sourcehostfake.Server) Option {
	return option("WithUpstream", func(c *config) { c.upstream = s })
}

// WithUpstreamOptions configures the source-hosting fake the Server makes.
func WithUpstreamOptions(opts ...sourcehostfake.Option) Option {
	return option("WithUpstreamOptions", func(c *config) { c.upstreamOpts = append(c.upstreamOpts, opts...) })
}

// internalUpstream is the URL the gateway gives an upstream it reaches
// in-process; no request goes to that host. Until the upstream serves at a
// URL of its own, it names itself by this one in its answers (web_url).
const internalUpstream = "http://sourcehost.mcpfake.internal"

// New returns a gateway over a source-hosting fake that serves nothing yet:
// the Server is an http.Handler, and the gateway reaches the upstream
// in-process (or at its URL, for an upstream given by WithUpstream that
// serves); with control.WithInMemory, both serve in memory at once. An
// option it cannot use, or a configuration the gateway refuses, is an
// error that names the problem.
func New(opts ...Option) (*Server, error) {
	s, _, err := build(opts, false, sourcehostfake.New)
	return s, err
}

// Start serves a gateway until the test ends, in front of a source-hosting
// fake it reaches in-process: on a loopback port, over TLS with a
// self-signed certificate its Client trusts (control.WithTLS), or in memory
// with its upstream (control.WithInMemory, or every Start of a test binary
// that called control.ServeInMemoryByDefault). On a port, the upstream
// opens a port of its own only the first time something asks for its
// address or a client (Upstream().URL(), Client, RawClient: see
// sourcehostfake.WithServeOnDemand), so a test that talks to the gateway
// alone opens one port; until then the upstream names itself in its
// answers (web_url) by the host the gateway calls,
// "http://sourcehost.mcpfake.internal". An option the fake cannot use, or a
// configuration the gateway refuses, fails the test.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, st, err := build(opts, true, func(o ...sourcehostfake.Option) (*sourcehostfake.Server, error) {
		return sourcehostfake.Start(tb, append(o, sourcehostfake.WithServeOnDemand())...), nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	if !st.InMemory {
		s.ep.StartFor(tb, st, s)
	}
	return s
}

// RawClient returns an *http.Client that reaches the gateway however it
// serves (in memory, over TLS, on a port), for requests the typed client
// does not make; nil before it serves.
func (s *Server) RawClient() *http.Client { return s.ep.RawClient() }

// build reads the options (for Start when start is true: see
// fakekit.Options), makes the upstream with makeUpstream (unless one was
// given) and the gateway in front of it, and serves it in memory when the
// options ask.
//
// The gateway reaches an upstream made here in-process, however that one
// serves: through its handler, so its request log, faults, rate limit and
// clock apply as over a network, without a second listener and a dial per
// fake (asking the upstream for its URL here would open its port). The
// in-process hop keeps the gateway's UpstreamHeaderTimeoutSeconds, which
// its own HTTP client would apply. An upstream given by WithUpstream is
// reached at its URL, through its own client when it needs one (in memory,
// over TLS), and in-process when it serves nothing.
func build(opts []Option, start bool, makeUpstream func(...sourcehostfake.Option) (*sourcehostfake.Server, error)) (*Server, control.Settings, error) {
	var cfg config
	st, err := fakekit.Options("mcpfake", &cfg, opts, start)
	if err != nil {
		return nil, st, err
	}
	s := &Server{upstream: cfg.upstream} // of the options, only what serving needs is kept
	if s.upstream == nil {
		upOpts := []sourcehostfake.Option{sourcehostfake.WithAllowLocalRequests(!cfg.blockLocalHooks)}
		if st.Clock != nil {
			upOpts = append(upOpts, control.WithClock(st.Clock))
		}
		if st.MaxRecords != 0 {
			upOpts = append(upOpts, control.WithMaxRecords(st.MaxRecords))
		}
		if st.InMemory {
			upOpts = append(upOpts, control.WithInMemory())
		}
		if cfg.hookResolver != nil {
			upOpts = append(upOpts, sourcehostfake.WithHookResolver(cfg.hookResolver))
		}
		up, err := makeUpstream(append(upOpts, cfg.upstreamOpts...)...)
		if err != nil {
			return nil, st, fmt.Errorf("mcpfake: the upstream: %w", err)
		}
		s.upstream, s.ownsUp = up, true
	} else if st.MaxRecords != 0 {
		return nil, st, errors.New("mcpfake: control.WithMaxRecords bounds the upstream mcpfake makes; the one given by WithUpstream has its own")
	}
	s.clock = s.upstream.Clock()

	s.gcfg = cfg.gateway
	s.gcfg.Clock = s.clock
	if st.MaxBody > 0 {
		s.gcfg.MaxBodyBytes = st.MaxBody
	}
	s.gcfg.Security.AllowLocalWebhooks = !cfg.blockLocalHooks
	if s.gcfg.Resolver == nil {
		s.gcfg.Resolver = cfg.hookResolver
	}
	var hc *http.Client
	if !s.ownsUp {
		s.gcfg.Upstream = s.upstream.URL()
		if rc := s.upstream.RawClient(); rc != http.DefaultClient { // in memory, or over TLS: only its own client reaches it
			hc = rc
		}
	}
	if s.gcfg.Upstream == "" { // made here, or serving nothing: reach it in-process
		s.gcfg.Upstream = internalUpstream
		s.inProcess = true
		hc = &http.Client{Transport: fakekit.HandlerTransport{Handler: s.upstream, ResponseHeaderTimeout: upstreamHeaderTimeout(s.gcfg)}}
	}
	if hc != nil && s.gcfg.HTTPClient == nil {
		s.gcfg.HTTPClient = hc // the API calls and the OAuth token information alike
	}
	gw, err := gateway.New(s.gcfg)
	if err != nil {
		s.closeUpstream()
		return nil, st, fmt.Errorf("mcpfake: %w", err)
	}
	s.gateway = gw

	limits := fakekit.LimitsOf(st, s.maxBody())
	s.kit = fakekit.New(fakekit.Config{Clock: s.clock, Limits: limits, Error: s.errorAnswer, Routes: s.routes(),
		SecretFields: secretFields})
	if err := s.kit.InjectFaults("mcpfake", st.Faults); err != nil {
		s.closeUpstream()
		return nil, st, err
	}
	if st.InMemory {
		s.ep.ServeInMemoryOnDemand("mcpfake", s)
	}
	return s, st, nil
}

// closeUpstream closes the upstream the Server made, for a build that
// failed after making it.
func (s *Server) closeUpstream() {
	if s.ownsUp {
		s.upstream.Close()
	}
}

// upstreamHeaderTimeout is how long the gateway waits for its upstream's
// answer (gateway.Config.UpstreamHeaderTimeoutSeconds, default
// gateway.DefaultUpstreamHeaderTimeout), for the in-process hop to apply as
// the gateway's own HTTP client would. A value the gateway refuses is
// left to gateway.New to name.
func upstreamHeaderTimeout(cfg gateway.Config) time.Duration {
	secs := cfg.UpstreamHeaderTimeoutSeconds
	if secs == 0 {
		secs = gateway.DefaultUpstreamHeaderTimeout
	}
	return time.Duration(secs * float64(time.Second))
}

// path is where the gateway answers.
func (s *Server) path() string {
	if s.gcfg.Path != "" {
		return s.gcfg.Path
	}
	return mcp.DefaultPath
}

// maxBody is the gateway's body limit, which the kit enforces first.
func (s *Server) maxBody() int64 {
	if s.gcfg.MaxBodyBytes > 0 {
		return s.gcfg.MaxBodyBytes
	}
	return gateway.DefaultMaxBodyBytes
}

// routes sends every request to the gateway; "POST /mcp" (its path) is the
// route the log and faults name. The table of the default path is built
// once per process and shared; a gateway at another path has its own.
func (s *Server) routes() fakekit.Router {
	if p := s.path(); p != mcp.DefaultPath {
		return newRoutes(p).Bind(s)
	}
	return defaultRoutes().Bind(s)
}

// defaultRoutes is the table of a gateway at mcp.DefaultPath.
var defaultRoutes = sync.OnceValue(func() *fakekit.Routes[*Server] { return newRoutes(mcp.DefaultPath) })

// newRoutes is the table of a gateway at path.
func newRoutes(path string) *fakekit.Routes[*Server] {
	rt := fakekit.NewRoutes[*Server]()
	serve := func(s *Server, w http.ResponseWriter, r *http.Request) { s.currentGateway().ServeHTTP(w, r) }
	rt.Handle(http.MethodPost+" "+path, serve)
	rt.NotFound(serve)
	return rt
}

func (s *Server) currentGateway() *gateway.Gateway {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gateway
}

// errorAnswer is the gateway's refusal: a JSON-RPC error with id null,
// data {status, message}, as the gateway words its own.
func (s *Server) errorAnswer(_ *http.Request, status int, msg string) fakekit.Answer {
	code := mcp.CodeUpstreamError
	switch {
	case status == http.StatusRequestEntityTooLarge:
		code = mcp.CodeInvalidRequest
		if msg == "" {
			msg = "the body is larger than " + strconv.FormatInt(s.maxBody(), 10) + " bytes"
		}
	case status == http.StatusBadRequest || status == http.StatusMethodNotAllowed || status == http.StatusUnsupportedMediaType:
		code = mcp.CodeInvalidRequest
	case status >= 500:
		code = mcp.CodeInternalError
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	data, _ := json.Marshal(struct {
		Status  int    `json:"status"`
		Message string `json:"message"`
	}{status, msg})
	e, _ := json.Marshal(&mcp.Error{Code: code, Message: codeMessages[code], Data: data})
	body := append(append([]byte(`{"jsonrpc":"2.0","error":`), e...), `,"id":null}`...) // the spec's member order
	a := fakekit.Answer{Status: status, Raw: body}
	if status == http.StatusTooManyRequests {
		a.Header = http.Header{"Retry-After": {"1"}}
	}
	return a
}

// codeMessages are the messages of the codes errorAnswer uses.
var codeMessages = map[int]string{
	mcp.CodeInvalidRequest: mcp.MessageInvalidRequest,
	mcp.CodeInternalError:  mcp.MessageInternalError,
	mcp.CodeUpstreamError:  mcp.MessageUpstreamError,
}

// Serve serves the gateway on l until Close, for programs, and returns the
// URL to reach it (the endpoint is URL()+"/mcp").
func (s *Server) Serve(l net.Listener) string { return s.ep.Serve(l, s) }

// Listen serves the gateway on addr ("127.0.0.1:0" picks a free port) until
// Close, and returns its URL. A port in use is an error that names it.
func (s *Server) Listen(addr string) (string, error) {
	u, err := s.ep.Listen(addr, s)
	if err != nil {
		return "", fmt.Errorf("mcpfake: %w", err)
	}
	return u, nil
}

// Close stops serving (and the upstream fake, when the Server made it). It
// is safe to call more than once.
func (s *Server) Close() {
	s.kit.Close()
	s.ep.Close()
	if s.ownsUp {
		s.upstream.Close()
	}
}

// ServeHTTP answers as the gateway, through the fake's request log and
// faults.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.inProcess {
		growStack()
	}
	s.kit.ServeHTTP(w, r)
}

// growStack grows the calling goroutine's stack to inProcessStack at once.
//
// A gateway that reaches its upstream in-process runs the upstream's
// handler on its own goroutine, under its own frames: a request nests
// the client, net/http's client, the transport and the whole fake
// upstream in the gateway's handler: between 8 and 16 KB of stack for a
// tool call (debug.SetMaxStack fails it at 8 KB, passes it at 16), and 32
// KB leaves room for the paths a benchmark does not take (an error
// logged, a fault injected); growing to 16 KB instead measured the same.
// Each request comes on a connection's new goroutine, whose stack starts
// small (2 KB, or the average size the runtime has seen) and doubles when
// full, by copying every frame on it and adjusting each one's pointers:
// done deep in that nest, several times, it cost a start of the fake 3 to
// 10 us of its 160 us of CPU (two measurements). Grown here, in one step,
// the copy is of the handful of frames net/http has put on it. (The stack
// is the goroutine's own and is freed, or shrunk by the collector, as
// usual.)
//
//go:noinline
func growStack() {
	var frame [inProcessStack / 2]byte
	keep(frame[:])
}

// inProcessStack is the stack growStack makes room for: the runtime grows
// a stack to the power of two that fits the frame that overflowed it.
const inProcessStack = 32 << 10

// keep is a use of growStack's frame that the compiler cannot see
// through, so that the frame is not optimised away.
//
//go:noinline
func keep(b []byte) { b[0] = 1 }

// URL is the gateway's base URL (the endpoint is URL()+"/mcp"), "" before
// it serves.
func (s *Server) URL() string { return s.ep.URL() }

// Load seeds the source-hosting fake behind the gateway: the gateway keeps
// no data of its own.
func (s *Server) Load(seed sourcehostfake.Seed) error { return s.upstream.Load(seed) }

// Upstream is the source-hosting fake behind the gateway: seed it, inject
// faults into it, read its request log.
func (s *Server) Upstream() *sourcehostfake.Server { return s.upstream }

// Gateway is the gateway itself (a new one after Reset).
func (s *Server) Gateway() *gateway.Gateway { return s.currentGateway() }

// Clock is the clock the gateway and the upstream share.
func (s *Server) Clock() *clock.Fake { return s.clock }

// Token is the upstream root user's token, which has every required scope.
func (s *Server) Token() string { return s.upstream.Token() }

// Client returns a client of the gateway with root's token, waiting on the
// fake clock and signing when the gateway has a secret. Options are applied
// after those. A Server that does not serve is reached in-process.
func (s *Server) Client(opts ...mcp.Option) *mcp.Client {
	return s.ClientWithToken(s.Token(), opts...)
}

// ClientWithToken is Client with another token.
func (s *Server) ClientWithToken(token string, opts ...mcp.Option) *mcp.Client {
	base := []mcp.Option{mcp.WithToken(token), mcp.WithClock(s.clock)}
	if secret := s.gcfg.Security.SigningSecret; secret != "" {
		base = append(base, mcp.WithSigningSecret(secret))
	}
	u := s.URL()
	switch hc := s.ep.HTTPClient(); {
	case hc != nil:
		base = append(base, mcp.WithHTTPClient(hc))
	case u == "":
		u = "http://mcpfake.internal"
		base = append(base, mcp.WithHTTPClient(&http.Client{Transport: fakekit.HandlerTransport{Handler: s}}))
	}
	c, err := mcp.New(u, append(base, opts...)...)
	if err != nil {
		panic(fmt.Sprintf("mcpfake: building client: %v", err))
	}
	return c
}

// InjectFault makes requests matching route ("POST /mcp", or "" for all)
// answer as f says, before the gateway sees them. A fault with a status and
// no body answers a JSON-RPC error with id null. To make the source-hosting
// service fail behind the gateway, inject into Upstream instead.
func (s *Server) InjectFault(route string, f control.Fault) error { return s.kit.InjectFault(route, f) }

// ClearFaults removes every injected fault (not the upstream's).
func (s *Server) ClearFaults() { s.kit.ClearFaults() }

// Faults returns the faults in force, in the order they apply.
func (s *Server) Faults() []control.ActiveFault { return s.kit.Faults() }

// Requests returns the requests the gateway received, oldest first (the
// upstream keeps its own log).
func (s *Server) Requests() []control.Request { return s.kit.Requests() }

// RequestsTo returns the requests a route answered ("POST /mcp").
func (s *Server) RequestsTo(route string) []control.Request { return s.kit.RequestsTo(route) }

// ResetRequests empties the request log.
func (s *Server) ResetRequests() { s.kit.ResetRequests() }

// Reset puts the fake back as New left it: a new gateway with the same
// configuration (rate-limit buckets full, cache and remembered token checks
// empty), no fault, an empty request log; and the upstream reset too when
// the Server made it.
func (s *Server) Reset() {
	gw, err := gateway.New(s.gcfg)
	if err != nil { // it was accepted once, unchanged
		panic(errors.Join(errors.New("mcpfake: Reset"), err))
	}
	s.mu.Lock()
	s.gateway = gw
	s.mu.Unlock()
	s.kit.ClearFaults()
	s.kit.ResetRequests()
	if s.ownsUp {
		s.upstream.Reset()
	}
}

var _ control.Controls = (*Server)(nil)
