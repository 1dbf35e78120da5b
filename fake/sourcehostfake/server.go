package sourcehostfake

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/sourcehost"
)

// Server is the fake source-hosting service. It is an http.Handler; use
// [Start] in tests, or [New] and [Server.Listen] (or [Server.Serve]) in
// programs.
type Server struct {
	kit     *fakekit.Kit
	limiter atomic.Pointer[fakekit.RateLimiter]
	hooks   *dispatcher
	cfg     config
	// localHooks is the application setting
	// allow_local_requests_from_web_hooks_and_services (see netguard.go),
	// read by deliveries without the state lock.
	localHooks atomic.Bool

	ep        fakekit.Endpoint
	closeOnce sync.Once

	// recs counts the records of st (records.go); s.mu guards it.
	recs stateRecords

	mu    sync.Mutex
	st    *state
	root  *user
	rootT string // the root user's token secret
	// external is the URL the fake calls itself in web_url fields: the
	// configured one, the one it was started on, or the last request's host.
	external string
}

// config is what the options set: sourcehostfake's own, and of the
// options every fake shares, the clock and the record bound.
type config struct {
	clock           *clock.Fake
	rateLimit       int
	rateWindow      time.Duration
	pipelineQueue   time.Duration
	pipelineRun     time.Duration
	ciFile          string
	externalURL     string
	rootToken       string
	hookClient      *http.Client
	hookResolver    Resolver
	blockLocalHooks bool
	hookTimeout     time.Duration
	hookQueue       int
	hookQueueBytes  int64
	deliveryLog     int
	deliveryPayload int
	maxRecords      int
	maxRepoBytes    int64
	// serveOnDemand is WithServeOnDemand's.
	serveOnDemand bool
	// sshPort is WithSSHPort's; 0 is 22.
	sshPort int
	// deletionPeriod is WithDeletionAdjournedPeriod's; 0 deletes at once.
	deletionPeriod time.Duration
}

// Option configures a fake: one of the options every fake shares
// (control.WithClock, control.WithFault, control.WithMaxBody,
// control.WithRequestLog, control.WithMaxRecords, control.WithTLS,
// control.WithInMemory) or one of sourcehostfake's own below. For
// sourcehostfake, the clock moves pipelines on and ends rate-limit windows
// and token lifetimes; WithMaxBody's default is [DefaultMaxBody] (4 MiB),
// and a larger body is refused with 413 {"message":"413 Request Entity
// Too Large"}; WithMaxRecords bounds users, namespaces, tokens, projects,
// members, stars, issues, merge requests, notes, labels, milestones,
// hooks, pipelines, jobs, releases, protected branches, branches, tags and
// commits: a request that could add records past it is refused as the real
// service refuses a record past one of its limits, 400
// {"message":{"base":["Maximum number of issues (100000) exceeded"]}}, and
// changes nothing; a seeding method returns that refusal as its error.
type Option = control.Option

// option declares one of sourcehostfake's own options.
func option(name string, apply func(*config)) Option {
	return control.OwnOption("sourcehostfake."+name, func(c *config) error { apply(c); return nil })
}

// nonNegative is an option's check of a duration or a count.
func nonNegative[N int | int64 | time.Duration](what string, vals ...N) error {
	for _, v := range vals {
		if v < 0 {
			return fmt.Errorf("%s must not be negative", what)
		}
	}
	return nil
}

// WithRateLimit allows limit requests per window per token (per address for
// anonymous requests). The default is the spec's 600 a minute; a limit of 0
// turns limiting off. A negative limit or window, or a limit without a
// window, is an error.
func WithRateLimit(limit int, window time.Duration) Option {
	return control.OwnOption("sourcehostfake.WithRateLimit", func(c *config) error {
		if limit < 0 || window < 0 || (limit > 0 && window == 0) {
			return fmt.Errorf("limit %d per %s: want a limit of 0 (off), or a positive limit per positive window", limit, window)
		}
		c.rateLimit, c.rateWindow = limit, window
		return nil
	})
}

// WithMaxRepositoryBytes bounds what the repositories hold in all, file
// contents and each commit's snapshot of its files (0 keeps the default,
// [DefaultMaxRepositoryBytes], 256 MiB; a negative n is an error). A commit
// past it is refused with 400 and changes nothing.
func WithMaxRepositoryBytes(n int64) Option {
	return control.OwnOption("sourcehostfake.WithMaxRepositoryBytes", func(c *config) error {
		c.maxRepoBytes = n
		return nonNegative("the bytes", n)
	})
}

// WithPipelineTiming sets how long a new pipeline stays pending and then
// runs before it succeeds, on the fake clock (defaults 5 s and 60 s;
// negative durations are an error).
func WithPipelineTiming(pending, running time.Duration) Option {
	return control.OwnOption("sourcehostfake.WithPipelineTiming", func(c *config) error {
		c.pipelineQueue, c.pipelineRun = pending, running
		return nonNegative("the durations", pending, running)
	})
}

// WithCIFile names the CI definition file a ref must hold for a pipeline to
// run on it (default ".sourcehost-ci.yml").
func WithCIFile(path string) Option { return option("WithCIFile", func(c *config) { c.ciFile = path }) }

// WithExternalURL sets the URL the fake uses for itself in web_url fields
// and hook payloads.
func WithExternalURL(u string) Option {
	return option("WithExternalURL", func(c *config) { c.externalURL = strings.TrimRight(u, "/") })
}

// WithRootToken fixes the secret of the root user's token (random by
// default), for programs that print it.
func WithRootToken(secret string) Option {
	return option("WithRootToken", func(c *config) { c.rootToken = secret })
}

// WithHookClient sends webhook deliveries through hc (default: a plain
// http.Client). Each delivery is also bounded by the hook timeout.
func WithHookClient(hc *http.Client) Option {
	return option("WithHookClient", func(c *config) { c.hookClient = hc })
}

// WithHookResolver resolves the host names of webhook URLs with r instead
// of net.DefaultResolver, when hooks are made and when they are delivered:
// for tests of where hooks may go, which must not depend on a real DNS.
func WithHookResolver(r Resolver) Option {
	return option("WithHookResolver", func(c *config) { c.hookResolver = r })
}

// WithAllowLocalRequests sets the application setting "Allow requests to
// the local network from webhooks and integrations"
// (allow_local_requests_from_web_hooks_and_services), which
// [Server.SetAllowLocalRequests] and PUT /api/v4/application/settings
// change later, and Reset restores. The fake allows them by default, since
// tests receive their hooks on loopback; with false, hooks to loopback,
// private, link-local and shared addresses are refused as the real service
// refuses them. Cloud metadata addresses are refused either way (see
// SetAllowLocalRequests).
func WithAllowLocalRequests(allow bool) Option {
	return option("WithAllowLocalRequests", func(c *config) { c.blockLocalHooks = !allow })
}

// WithHookTimeout sets how long a webhook receiver has to answer (default
// 10 s, as the real service; 0 keeps it; negative is an error); a slower
// one is cut off and the delivery recorded as failed.
func WithHookTimeout(d time.Duration) Option {
	return control.OwnOption("sourcehostfake.WithHookTimeout", func(c *config) error {
		c.hookTimeout = d
		return nonNegative("the timeout", d)
	})
}

// WithHookQueue bounds the deliveries waiting: at most perHook per hook
// (default 1,000), and at most totalBytes of payloads in all queues
// together (default 64 MiB); 0 keeps a default, negative is an error. A
// delivery past either is not sent, and is recorded as dropped.
func WithHookQueue(perHook int, totalBytes int64) Option {
	return control.OwnOption("sourcehostfake.WithHookQueue", func(c *config) error {
		c.hookQueue, c.hookQueueBytes = perHook, totalBytes
		return errors.Join(nonNegative("the deliveries per hook", perHook), nonNegative("the bytes", totalBytes))
	})
}

// WithDeliveryLog bounds the log Deliveries reads: at most entries
// deliveries (default 10,000), of each payload its first payloadBytes bytes
// (default 64 KiB); 0 keeps a default, negative is an error.
func WithDeliveryLog(entries, payloadBytes int) Option {
	return control.OwnOption("sourcehostfake.WithDeliveryLog", func(c *config) error {
		c.deliveryLog, c.deliveryPayload = entries, payloadBytes
		return nonNegative("the entries and bytes", entries, payloadBytes)
	})
}

// WithServeOnDemand makes Start open the fake's port (or its TLS port)
// only the first time anything asks for its address or a client (URL,
// Client, ClientWithToken, RawClient); until then no socket is open, and
// the fake, reached in-process as an http.Handler (a gateway in front of
// it calls ServeHTTP), names itself in answers (web_url fields, Link
// headers) by the host each request was sent to; from then on by its URL.
// mcpfake starts its upstream so. A fake served in memory is served on
// demand anyway.
func WithServeOnDemand() Option {
	return option("WithServeOnDemand", func(c *config) { c.serveOnDemand = true })
}

// WithSSHPort sets the port the fake's projects say SSH is on, in
// ssh_url_to_repo: on 22 (the default; 0 keeps it) the real service
// writes git@host:ns/p.git, on another port (its gitlab_shell ssh_port)
// ssh://git@host:port/ns/p.git. The fake serves no SSH: the port is for
// programs that build clone URLs. A port outside 0 to 65535 is an error.
func WithSSHPort(port int) Option {
	return control.OwnOption("sourcehostfake.WithSSHPort", func(c *config) error {
		if port < 0 || port > 65535 {
			return fmt.Errorf("SSH port %d: want 1 to 65535 (0 for 22)", port)
		}
		c.sshPort = port
		return nil
	})
}

// WithDeletionAdjournedPeriod turns on the real service's delayed
// deletion ("deletion adjourned period"): DELETE /projects/:id and
// /groups/:id mark the project or group for deletion instead of deleting
// it, and it is deleted once the fake's clock has passed d since (on the
// next request), unless restored first (POST .../restore). The default, 0,
// deletes at once, as before; a negative d is an error.
func WithDeletionAdjournedPeriod(d time.Duration) Option {
	return control.OwnOption("sourcehostfake.WithDeletionAdjournedPeriod", func(c *config) error {
		c.deletionPeriod = d
		return nonNegative("the period", d)
	})
}

// CIFile is the default CI definition file name.
const CIFile = ".sourcehost-ci.yml"

// RootUsername is the administrator every fake starts with.
const RootUsername = "root"

// DefaultMaxBody is the default cap on a request body.
const DefaultMaxBody = 4 << 20

// New returns a fake with one administrator, "root", holding a token with
// the scopes api, read_user and read_repository ([Server.Token]). It serves
// nothing until Serve or Listen (in memory at once, with
// control.WithInMemory); it is an http.Handler meanwhile. An option it
// cannot use is an error that names it.
func New(opts ...Option) (*Server, error) {
	s, _, err := newServer(opts, false)
	return s, err
}

// newServer is New, or the New of Start (start: see fakekit.Options), and
// what the options every fake shares asked for.
func newServer(opts []Option, start bool) (*Server, control.Settings, error) {
	cfg := config{
		rateLimit:     600,
		rateWindow:    time.Minute,
		pipelineQueue: 5 * time.Second,
		pipelineRun:   60 * time.Second,
		ciFile:        CIFile,
	}
	st, err := fakekit.Options("sourcehostfake", &cfg, opts, start)
	if err != nil {
		return nil, st, err
	}
	cfg.maxRecords = st.MaxRecords
	if cfg.hookClient == nil {
		cfg.hookClient = &http.Client{}
	}
	if cfg.hookResolver == nil {
		cfg.hookResolver = net.DefaultResolver
	}
	if cfg.hookTimeout <= 0 {
		cfg.hookTimeout = DefaultHookTimeout
	}
	if cfg.hookQueue <= 0 {
		cfg.hookQueue = DefaultHookQueue
	}
	if cfg.hookQueueBytes <= 0 {
		cfg.hookQueueBytes = DefaultHookQueueBytes
	}
	if cfg.deliveryLog <= 0 {
		cfg.deliveryLog = DefaultDeliveryLog
	}
	if cfg.deliveryPayload <= 0 {
		cfg.deliveryPayload = DefaultDeliveryLogPayload
	}
	s := &Server{cfg: cfg}
	s.kit = fakekit.New(fakekit.Config{Clock: st.Clock, Limits: fakekit.LimitsOf(st, DefaultMaxBody), Error: s.errorAnswer,
		Routes: routeTable().Bind(s), SecretFields: secretFields, SecretAnswerFields: secretAnswerFields})
	s.cfg.clock = s.kit.Clock()
	if err := s.kit.InjectFaults("sourcehostfake", st.Faults); err != nil {
		return nil, st, err
	}
	s.localHooks.Store(!cfg.blockLocalHooks)
	s.hooks = newDispatcher(s.cfg.clock, s.cfg, s.localHooks.Load)
	s.external = cfg.externalURL
	s.rootT = cfg.rootToken
	if s.rootT == "" {
		s.rootT = randomSecret(patPrefix, 15)
	}
	s.mu.Lock()
	s.resetState()
	s.mu.Unlock()
	// In memory, the fake names itself by its URL from the start, but its
	// listener is served only once something asks for its address or a
	// client, or dials it: a fake reached in-process alone (the upstream
	// of an mcpfake gateway) runs no server goroutine at all.
	if st.InMemory {
		s.setURL(s.ep.ServeInMemoryOnDemand("sourcehostfake", s))
	}
	return s, st, nil
}

// resetState makes the state New starts with: root and its token, nothing
// else, and a fresh rate-limit window per caller. s.mu must be held.
func (s *Server) resetState() {
	s.limiter.Store(fakekit.NewRateLimiter(s.cfg.clock, s.cfg.rateLimit, s.cfg.rateWindow, ""))
	s.localHooks.Store(!s.cfg.blockLocalHooks)
	s.st = newState(s.cfg.clock)
	s.root = s.st.addUser(RootUsername, "Administrator", "admin@example.com", true)
	scopes := []string{sourcehost.ScopeAPI, sourcehost.ScopeReadUser, sourcehost.ScopeReadRepository}
	if _, err := s.st.addToken(s.root, "apitwin", s.rootT, scopes, nil); err != nil {
		panic(err) // the state is empty: nothing can clash
	}
}

// Start serves a new fake until the test ends: on a loopback port, over
// TLS with a self-signed certificate that the clients the fake makes trust
// (control.WithTLS), or in memory (control.WithInMemory, or every Start of
// a test binary that called control.ServeInMemoryByDefault); with
// WithServeOnDemand, its port opens the first time it is asked for. An
// option the fake cannot use fails the test.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, st, err := newServer(opts, true)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	switch {
	case st.InMemory:
	case s.cfg.serveOnDemand:
		s.ep.StartOnDemand(func() { s.setURL(s.ep.StartFor(tb, st, s)) })
	default:
		s.setURL(s.ep.StartFor(tb, st, s))
	}
	return s
}

// RawClient returns an *http.Client that reaches the fake however it
// serves (in memory, over TLS, on a port), for requests the typed client
// does not make; nil before it serves.
func (s *Server) RawClient() *http.Client { return s.ep.RawClient() }

// CertificatePEM returns the TLS certificate of a fake started with
// control.WithTLS, PEM-encoded, for a client to trust; nil otherwise.
func (s *Server) CertificatePEM() []byte { return s.ep.CertificatePEM() }

// CACertFile writes CertificatePEM to a file in a temporary directory of
// the test and returns its path, for sourcehost.WithCAFile.
func (s *Server) CACertFile(tb testing.TB) string {
	tb.Helper()
	return s.ep.CACertFile(tb, "sourcehostfake")
}

// Serve serves the fake on l until Close, for programs, and returns the URL
// to reach it.
func (s *Server) Serve(l net.Listener) string {
	u := s.ep.Serve(l, s)
	s.setURL(u)
	return u
}

// Listen serves the fake on addr ("127.0.0.1:0" picks a free port) until
// Close, for programs; it returns the URL to reach it. A port in use is an
// error that names it.
func (s *Server) Listen(addr string) (string, error) {
	u, err := s.ep.Listen(addr, s)
	if err != nil {
		return "", err
	}
	s.setURL(u)
	return u, nil
}

// Close stops the fake: waits on faults end, pipelines stop moving on the
// clock, webhook queues stop (waiting deliveries are dropped, those in
// flight cancelled), then running requests get a short grace and their
// connections close. It is safe to call more than once; a fake started for
// a test closes with the test.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.kit.Close()
		s.stopTimers()
		s.hooks.close()
		s.ep.Close()
	})
}

// stopTimers stops the pipelines' timers.
func (s *Server) stopTimers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.stopTimers()
}

// setURL adopts u, the URL the fake was started on, as its external URL
// unless WithExternalURL gave one.
func (s *Server) setURL(u string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.externalURL = firstNonEmpty(s.cfg.externalURL, u)
	s.external = s.cfg.externalURL
}

// URL returns the address the fake serves on ("" before Start or Listen;
// WithServeOnDemand's port opens here).
func (s *Server) URL() string {
	s.ep.URL() // keeps WithServeOnDemand's promise, which adopts the URL it serves at
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
	if hc := s.ep.HTTPClient(); hc != nil {
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

// Faults returns the faults in force, in the order they apply.
func (s *Server) Faults() []control.ActiveFault { return s.kit.Faults() }

// Requests returns the requests received, oldest first.
func (s *Server) Requests() []control.Request { return s.kit.Requests() }

// RequestsTo returns the requests a route answered, by its pattern as the
// fake registers it ("GET /api/v4/projects").
func (s *Server) RequestsTo(route string) []control.Request { return s.kit.RequestsTo(route) }

// ResetRequests empties the request log.
func (s *Server) ResetRequests() { s.kit.ResetRequests() }

// Reset puts the fake back as New left it: root and its token alone, no
// project, group or other user, no fault, an empty request log, fresh
// rate-limit windows, the application settings as the options set them;
// waiting webhook deliveries are dropped (those in flight cancelled) and
// the delivery log emptied. The options, the clock and the root token
// stay.
func (s *Server) Reset() {
	s.kit.ClearFaults()
	s.kit.ResetRequests()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.stopTimers()
	s.hooks.reset()
	s.resetState()
}

var _ control.Controls = (*Server)(nil)

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
	if t := r.Header.Get("Private-Token"); t != "" { // PRIVATE-TOKEN, spelt as Header keeps it (no copy made to look it up)
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
