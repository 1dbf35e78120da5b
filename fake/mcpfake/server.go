package mcpfake

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/mcp"
)

// Server is a gateway and the source-hosting fake behind it.
type Server struct {
	upstream *sourcehostfake.Server
	gateway  *mcp.Gateway
	cfg      config
	ep       fakekit.Endpoint
	ownsUp   bool // the upstream was started here, so Close stops it
}

// Option configures a Server.
type Option func(*config)

type config struct {
	clock        *clock.Fake
	gateway      mcp.Config
	upstream     *sourcehostfake.Server
	upstreamOpts []sourcehostfake.Option
}

// WithClock shares clk between the gateway and the upstream fake.
func WithClock(clk *clock.Fake) Option { return func(c *config) { c.clock = clk } }

// WithConfig sets the gateway's configuration (security, rate limit, cache,
// batches). Its Upstream and Clock are the fake's, whatever they say.
func WithConfig(cfg mcp.Config) Option { return func(c *config) { c.gateway = cfg } }

// WithUpstream puts the gateway in front of a source-hosting fake that is
// already serving, instead of starting one; the clock is then that fake's.
func WithUpstream(s *sourcehostfake.Server) Option { return func(c *config) { c.upstream = s } }

// WithUpstreamOptions configures the source-hosting fake the Server starts.
func WithUpstreamOptions(opts ...sourcehostfake.Option) Option {
	return func(c *config) { c.upstreamOpts = append(c.upstreamOpts, opts...) }
}

// Start serves a gateway, and a source-hosting fake behind it, on loopback
// ports until the test ends. A configuration the gateway refuses fails the
// test.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := build(opts, func(o []sourcehostfake.Option) (*sourcehostfake.Server, error) {
		return sourcehostfake.Start(tb, o...), nil
	})
	if err != nil {
		tb.Fatalf("mcpfake: %v", err)
	}
	s.ep.Start(tb, s.gateway)
	return s
}

// Listen serves the gateway on addr ("127.0.0.1:0" picks a free port), and
// the upstream fake on a free loopback port, until Close, for programs.
func Listen(addr string, opts ...Option) (*Server, error) {
	s, err := build(opts, func(o []sourcehostfake.Option) (*sourcehostfake.Server, error) {
		up := sourcehostfake.New(o...)
		_, err := up.Listen("127.0.0.1:0")
		return up, err
	})
	if err != nil {
		if s != nil && s.ownsUp {
			s.upstream.Close()
		}
		return nil, fmt.Errorf("mcpfake: %w", err)
	}
	if _, err := s.ep.Listen(addr, s.gateway); err != nil {
		s.Close()
		return nil, fmt.Errorf("mcpfake: %w", err)
	}
	return s, nil
}

// build starts the upstream (unless one was given) and makes the gateway in
// front of it.
func build(opts []Option, startUpstream func([]sourcehostfake.Option) (*sourcehostfake.Server, error)) (*Server, error) {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	s := &Server{cfg: cfg, upstream: cfg.upstream}
	if s.upstream == nil {
		var upOpts []sourcehostfake.Option
		if cfg.clock != nil {
			upOpts = append(upOpts, sourcehostfake.WithClock(cfg.clock))
		}
		up, err := startUpstream(append(upOpts, cfg.upstreamOpts...))
		if err != nil {
			return nil, err
		}
		s.upstream, s.ownsUp = up, true
	}
	s.cfg.clock = s.upstream.Clock()
	gcfg := cfg.gateway
	gcfg.Upstream = s.upstream.URL()
	gcfg.Clock = s.cfg.clock
	if gcfg.Upstream == "" {
		return s, fmt.Errorf("the upstream fake is not serving")
	}
	gw, err := mcp.NewGateway(gcfg)
	if err != nil {
		return s, err
	}
	s.gateway = gw
	return s, nil
}

// Close stops a Server made by Listen (and the upstream fake it started).
func (s *Server) Close() {
	s.ep.Close()
	if s.ownsUp {
		s.upstream.Close()
	}
}

// ServeHTTP answers as the gateway.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.gateway.ServeHTTP(w, r) }

// URL is the gateway's base URL (the endpoint is URL()+"/mcp").
func (s *Server) URL() string { return s.ep.URL() }

// Upstream is the source-hosting fake behind the gateway: seed it, inject
// faults into it, read its request log.
func (s *Server) Upstream() *sourcehostfake.Server { return s.upstream }

// Gateway is the gateway itself.
func (s *Server) Gateway() *mcp.Gateway { return s.gateway }

// Clock is the clock the gateway and the upstream share.
func (s *Server) Clock() *clock.Fake { return s.cfg.clock }

// Token is the upstream root user's token, which has every required scope.
func (s *Server) Token() string { return s.upstream.Token() }

// Client returns a client of the gateway with root's token, waiting on the
// fake clock and signing when the gateway has a secret. Options are applied
// after those.
func (s *Server) Client(opts ...mcp.Option) *mcp.Client {
	return s.ClientWithToken(s.Token(), opts...)
}

// ClientWithToken is Client with another token.
func (s *Server) ClientWithToken(token string, opts ...mcp.Option) *mcp.Client {
	base := []mcp.Option{mcp.WithToken(token), mcp.WithClock(s.cfg.clock)}
	if secret := s.cfg.gateway.Security.SigningSecret; secret != "" {
		base = append(base, mcp.WithSigningSecret(secret))
	}
	c, err := mcp.New(s.URL(), append(base, opts...)...)
	if err != nil {
		panic(fmt.Sprintf("mcpfake: building client: %v", err))
	}
	return c
}
