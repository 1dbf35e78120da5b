package sourcehostfake

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// Server is the fake source-hosting service. It is an http.Handler; use
// [Start] in tests, or [New] and [Server.Listen] in programs.
type Server struct {
	kit     *fakekit.Kit
	limiter *fakekit.RateLimiter
	cfg     config

	ep fakekit.Endpoint

	mu    sync.Mutex
	st    *state
	root  *user
	rootT string // the root user's token secret
	// external is the URL the fake calls itself in web_url fields: the
	// configured one, the one it was started on, or the last request's host.
	external string

	delivMu    sync.Mutex
	deliveries []Delivery

	insecureOnce  sync.Once
	insecureHooks *http.Client // for hooks with SSL verification off
}

type config struct {
	clock         *clock.Fake
	rateLimit     int
	rateWindow    time.Duration
	pipelineQueue time.Duration
	pipelineRun   time.Duration
	ciFile        string
	externalURL   string
	rootToken     string
	hookClient    *http.Client
}

// Option configures a Server.
type Option func(*config)

// WithClock makes the fake read its time from clk (shared with other fakes
// or with the code under test).
func WithClock(clk *clock.Fake) Option { return func(c *config) { c.clock = clk } }

// WithRateLimit allows limit requests per window per token (per address for
// anonymous requests). The default is the spec's 600 a minute; a limit of 0
// turns limiting off.
func WithRateLimit(limit int, window time.Duration) Option {
	return func(c *config) { c.rateLimit, c.rateWindow = limit, window }
}

// WithPipelineTiming sets how long a new pipeline stays pending and then
// runs before it succeeds, on the fake clock (defaults 5 s and 60 s).
func WithPipelineTiming(pending, running time.Duration) Option {
	return func(c *config) { c.pipelineQueue, c.pipelineRun = pending, running }
}

// WithCIFile names the CI definition file a ref must hold for a pipeline to
// run on it (default ".sourcehost-ci.yml").
func WithCIFile(path string) Option { return func(c *config) { c.ciFile = path } }

// WithExternalURL sets the URL the fake uses for itself in web_url fields
// and hook payloads.
func WithExternalURL(u string) Option {
	return func(c *config) { c.externalURL = strings.TrimRight(u, "/") }
}

// WithRootToken fixes the secret of the root user's token (random by
// default), for programs that print it.
func WithRootToken(secret string) Option { return func(c *config) { c.rootToken = secret } }

// WithHookClient sends webhook deliveries through hc (default: a client
// with a 10 s timeout).
func WithHookClient(hc *http.Client) Option { return func(c *config) { c.hookClient = hc } }

// CIFile is the default CI definition file name.
const CIFile = ".sourcehost-ci.yml"

// RootUsername is the administrator every fake starts with.
const RootUsername = "root"

// New returns a fake with one administrator, "root", holding a token with
// the scopes api, read_user and read_repository ([Server.Token]).
func New(opts ...Option) *Server {
	cfg := config{
		rateLimit:     600,
		rateWindow:    time.Minute,
		pipelineQueue: 5 * time.Second,
		pipelineRun:   60 * time.Second,
		ciFile:        CIFile,
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	s := &Server{cfg: cfg}
	s.kit = fakekit.New(fakekit.Config{Clock: cfg.clock, Error: s.errorAnswer, Routes: routeTable().Bind(s)})
	s.cfg.clock = s.kit.Clock()
	s.limiter = fakekit.NewRateLimiter(s.cfg.clock, cfg.rateLimit, cfg.rateWindow, "")
	if s.cfg.hookClient == nil {
		s.cfg.hookClient = &http.Client{Timeout: 10 * time.Second}
	}
	s.external = cfg.externalURL
	s.st = newState(s.cfg.clock)
	s.root = s.st.addUser(RootUsername, "Administrator", "admin@example.com", true)
	tok, err := s.st.addToken(s.root, "apitwin", cfg.rootToken, []string{sourcehost.ScopeAPI, sourcehost.ScopeReadUser, sourcehost.ScopeReadRepository}, nil)
	if err != nil { // only a caller-supplied duplicate could fail, and the state is empty
		panic(err)
	}
	s.rootT = tok.secret
	return s
}

// Start serves a new fake on a loopback port until the test ends.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := New(opts...)
	s.setURL(s.ep.Start(tb, s))
	return s
}

// StartTLS is Start over TLS with a self-signed certificate; Client trusts it.
func StartTLS(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := New(opts...)
	s.setURL(s.ep.StartTLS(tb, s))
	return s
}

// Listen serves the fake on addr ("127.0.0.1:0" picks a free port) until
// Close, for programs; it returns the URL to reach it.
func (s *Server) Listen(addr string) (string, error) {
	u, err := s.ep.Listen(addr, s)
	if err != nil {
		return "", err
	}
	s.setURL(u)
	return u, nil
}

// Close stops a server started by Listen.
func (s *Server) Close() { s.ep.Close() }

// setURL adopts u, the URL the fake was started on, as its external URL
// unless WithExternalURL gave one.
func (s *Server) setURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.externalURL = firstNonEmpty(s.cfg.externalURL, u)
	s.external = s.cfg.externalURL
}

// URL returns the address the fake serves on ("" before Start or Listen).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.externalURL
}

// Token returns the root user's token (scopes api, read_user, read_repository).
func (s *Server) Token() string { return s.rootT }

// Client returns a client pointed at the fake, authenticated as root, waiting
// on the fake's clock. Options are applied after those.
func (s *Server) Client(opts ...sourcehost.Option) *sourcehost.Client {
	return s.ClientWithToken(s.rootT, opts...)
}

// ClientWithToken is Client authenticated with another token.
func (s *Server) ClientWithToken(token string, opts ...sourcehost.Option) *sourcehost.Client {
	u := s.URL()
	if u == "" {
		panic("sourcehostfake: Client called before Start or Listen")
	}
	base := []sourcehost.Option{sourcehost.WithToken(token), sourcehost.WithClock(s.cfg.clock)}
	if hc := s.ep.TLSClient(); hc != nil {
		base = append(base, sourcehost.WithHTTPClient(hc))
	}
	c, err := sourcehost.New(u, append(base, opts...)...)
	if err != nil {
		panic(fmt.Sprintf("sourcehostfake: building client: %v", err))
	}
	return c
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.kit.ServeHTTP(w, r) }

// Clock returns the fake's clock: advancing it moves pipelines on and ends
// rate-limit windows and token lifetimes.
func (s *Server) Clock() *clock.Fake { return s.cfg.clock }

// InjectFault makes requests matching route (an http.ServeMux pattern such
// as "POST /api/v4/projects/{id}/issues", or "" for all) answer as f says.
// A fault with a status and no body answers in the API's error shape.
func (s *Server) InjectFault(route string, f control.Fault) error { return s.kit.InjectFault(route, f) }

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() { s.kit.ClearFaults() }

// Requests returns the requests received, oldest first.
func (s *Server) Requests() []control.Request { return s.kit.Requests() }

// RequestsTo returns the requests a route answered, by its pattern as the
// fake registers it ("GET /api/v4/projects").
func (s *Server) RequestsTo(route string) []control.Request { return s.kit.RequestsTo(route) }

// ResetRequests empties the request log.
func (s *Server) ResetRequests() { s.kit.ResetRequests() }

// errorAnswer is the API's error answer, for the kit (faults, bodies over
// the limit, panics).
func (s *Server) errorAnswer(_ *http.Request, status int, msg string) fakekit.Answer {
	if status == http.StatusTooManyRequests {
		return retryLater(fakekit.Decision{Limit: s.cfg.rateLimit, Reset: s.cfg.clock.Now().Add(time.Minute), RetryAfter: time.Minute})
	}
	if msg == "" {
		msg = statusMessage(status)
	}
	return fakekit.Answer{Status: status, Body: map[string]string{"message": msg}}
}

func statusMessage(status int) string {
	return strconv.Itoa(status) + " " + http.StatusText(status)
}

// retryLater is the throttled answer: plain text, with the GitLab-style
// RateLimit-* headers besides Retry-After.
func retryLater(d fakekit.Decision) fakekit.Answer {
	h := http.Header{}
	d.Allowed = false
	d.SetHeaders(h)
	h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Observed", strconv.Itoa(d.Limit))
	h.Set("RateLimit-Remaining", "0")
	h.Set("RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
	h.Set("RateLimit-ResetTime", d.Reset.UTC().Format(http.TimeFormat))
	return fakekit.Answer{Status: http.StatusTooManyRequests, Header: h, ContentType: "text/plain", Raw: []byte("Retry later\n")}
}

// clientKey is what the rate limit counts against: the token, else the
// address.
func clientKey(r *http.Request) string {
	if t := presentedToken(r); t != "" {
		return "token:" + t
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "ip:" + host
}

// presentedToken finds a token where the API accepts one.
func presentedToken(r *http.Request) string {
	if t := r.Header.Get("PRIVATE-TOKEN"); t != "" {
		return t
	}
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return r.URL.Query().Get("private_token")
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
