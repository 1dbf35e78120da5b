package erpfake

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// Server is the fake ERP. It is an http.Handler; use [Start] in tests, or
// [New] and [Server.Listen] (or [Server.Serve]) in programs.
type Server struct {
	kit *fakekit.Kit
	cfg config

	ep fakekit.Endpoint

	// parsedHook, set by tests, is called with each API request once its
	// body is parsed, before the state lock is taken.
	parsedHook atomic.Pointer[func(*http.Request)]

	apiEnabled atomic.Bool
	// nativeNumbers: answer numbers as JSON numbers (SetNativeNumbers).
	nativeNumbers atomic.Bool
	// csrfKey signs the login page's token for its session cookie, so the
	// token is checked without keeping anything per visitor.
	csrfKey [32]byte

	mu    sync.Mutex
	st    *state
	admin *user
	// recs counts the records of st kept inside others (see records.go).
	recs stateRecords
}

// config is what the options set: erpfake's own, and of the options every
// fake shares, the clock and the record bound.
type config struct {
	clock             *clock.Fake
	adminPassword     string
	adminKey          string
	sessionTimeout    time.Duration
	nativeNumbers     bool
	emptyListNotFound bool
	bareCreateIDs     bool
	bareLogin         bool
	maxRecords        int
}

// Option configures a fake: one of the options every fake shares
// (control.WithClock, control.WithFault, control.WithMaxBody,
// control.WithRequestLog, control.WithMaxRecords, control.WithTLS,
// control.WithInMemory) or one of erpfake's own below. For erpfake,
// WithMaxBody's default is [DefaultMaxBody] (1 MiB), and WithMaxRecords
// bounds users, third parties, contacts, products, invoices, orders,
// proposals, lines of invoices, orders and proposals together, and payments of invoices (see the
// package doc's Bounds); the clock drives session expiry and the dates of
// records.
type Option = control.Option

// option declares one of erpfake's own options.
func option(name string, apply func(*config)) Option {
	return control.OwnOption("erpfake."+name, func(c *config) error { apply(c); return nil })
}

// WithAdminPassword sets the password of the web user admin (the
// deployment's ERP_ADMIN_PASSWORD); by default it is random
// ([Server.AdminPassword]).
func WithAdminPassword(pw string) Option {
	return option("WithAdminPassword", func(c *config) { c.adminPassword = pw })
}

// WithAdminAPIKey fixes admin's API key (random by default, [Server.APIKey]).
func WithAdminAPIKey(key string) Option {
	return option("WithAdminAPIKey", func(c *config) { c.adminKey = key })
}

// WithSessionTimeout sets how long a web session lasts without use, on the
// fake clock (default 1440 s, PHP's session.gc_maxlifetime; 0 keeps it; a
// negative one is an error).
func WithSessionTimeout(d time.Duration) Option {
	return control.OwnOption("erpfake.WithSessionTimeout", func(c *config) error {
		if d < 0 {
			return errors.New(d.String() + " is negative")
		}
		if d > 0 {
			c.sessionTimeout = d
		}
		return nil
	})
}

// WithNativeNumbers answers numbers as JSON numbers ("id":12,
// "price":100.5) from the start; [Server.SetNativeNumbers] switches at any
// time, apitwin-fake's --erp-native-numbers and its control API too. By
// default the fake answers them as strings ("id":"12",
// "price":"100.00000000"), as the ERP does: see the package doc's
// Numbers for which deployments send which.
func WithNativeNumbers() Option {
	return option("WithNativeNumbers", func(c *config) { c.nativeNumbers = true })
}

// WithEmptyListNotFound answers a list with nothing in it by 404 "No …
// found", as older versions of the ERP do, instead of [].
func WithEmptyListNotFound() Option {
	return option("WithEmptyListNotFound", func(c *config) { c.emptyListNotFound = true })
}

// WithBareCreateIDs answers a create with the new record's bare id (12), as
// most versions of the ERP do, instead of the record.
func WithBareCreateIDs() Option {
	return option("WithBareCreateIDs", func(c *config) { c.bareCreateIDs = true })
}

// WithBareLogin accepts the login form as the specification shows it:
// username and password alone, posted without first fetching the login
// page. By default the fake checks the form as the ERP does with its CSRF
// protection on (its default): a POST without the login page's token field
// is refused with 403, one whose token is not the one the page gave with
// its session cookie shows the login page again, and the password is
// checked only when the form carries actionlogin=login. For tests written
// against the bare form; package erp's client sends the full form.
func WithBareLogin() Option {
	return option("WithBareLogin", func(c *config) { c.bareLogin = true })
}

// DefaultMaxRecords is the default bound of each kind of record
// (control.WithMaxRecords): fakekit's, 100,000.
const DefaultMaxRecords = fakekit.DefaultMaxRecords

// OptionsFromEnv returns the options a program serving the fake takes from
// its environment, as a deployment does: ERP_ADMIN_PASSWORD sets admin's
// password. Unset variables leave the defaults.
func OptionsFromEnv(getenv func(string) string) []Option {
	var opts []Option
	if pw := getenv("ERP_ADMIN_PASSWORD"); pw != "" {
		opts = append(opts, WithAdminPassword(pw))
	}
	return opts
}

// AdminLogin is the web user every fake starts with.
const AdminLogin = erp.AdminLogin

// SessionCookie is the name of the web session cookie.
const SessionCookie = "ERPSESSID"

// New returns a fake holding one administrator, admin, with a password
// ([Server.AdminPassword]) and an API key ([Server.APIKey]), and the REST
// API module switched on. It serves nothing until Serve or Listen (in
// memory at once, with control.WithInMemory); it is an http.Handler
// meanwhile. An option it cannot use is an error that names it.
func New(opts ...Option) (*Server, error) {
	s, _, err := newServer(opts, false)
	return s, err
}

// newServer is New, or the New of Start (start: see fakekit.Options), and
// what the options every fake shares asked for.
func newServer(opts []Option, start bool) (*Server, control.Settings, error) {
	cfg := config{sessionTimeout: 1440 * time.Second}
	st, err := fakekit.Options("erpfake", &cfg, opts, start)
	if err != nil {
		return nil, st, err
	}
	cfg.maxRecords = st.MaxRecords
	s := &Server{cfg: cfg}
	s.kit = fakekit.New(fakekit.Config{Clock: st.Clock, Limits: fakekit.LimitsOf(st, DefaultMaxBody), Error: errorAnswer,
		Routes: routeTable().routes.Bind(s), SecretFields: secretFields, SecretAnswerFields: secretAnswerFields})
	s.cfg.clock = s.kit.Clock()
	if s.cfg.adminPassword == "" {
		s.cfg.adminPassword = randomHex(12)
	}
	if s.cfg.adminKey == "" {
		s.cfg.adminKey = randomHex(16)
	}
	_, _ = rand.Read(s.csrfKey[:])
	if err := s.kit.InjectFaults("erpfake", st.Faults); err != nil {
		return nil, st, err
	}
	s.resetState()
	if st.InMemory {
		s.ep.ServeInMemoryOnDemand("erpfake", s)
	}
	return s, st, nil
}

// resetState makes the state New starts with: admin alone, with its
// password and API key, no session, the REST API module on.
func (s *Server) resetState() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st = newState(s.cfg.clock)
	s.admin = s.st.addUser(userFields{login: AdminLogin, password: s.cfg.adminPassword, lastname: "SuperAdmin", admin: true, employee: true})
	s.st.setKey(s.admin, s.cfg.adminKey)
	s.apiEnabled.Store(true)
	s.nativeNumbers.Store(s.cfg.nativeNumbers)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Start serves a new fake until the test ends: on a loopback port, over
// TLS with a self-signed certificate that the clients the fake makes trust
// (control.WithTLS), or in memory (control.WithInMemory, or every Start of
// a test binary that called control.ServeInMemoryByDefault). An option the
// fake cannot use fails the test.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, st, err := newServer(opts, true)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	if !st.InMemory {
		s.ep.StartFor(tb, st, s)
	}
	return s
}

// RawClient returns an *http.Client that reaches the fake however it
// serves (in memory, over TLS, on a port), for requests the typed client
// does not make; nil before it serves.
func (s *Server) RawClient() *http.Client { return s.ep.RawClient() }

// Serve serves the fake on l until Close, for programs, and returns the URL
// to reach it.
func (s *Server) Serve(l net.Listener) string { return s.ep.Serve(l, s) }

// Listen serves the fake on addr ("127.0.0.1:0" picks a free port) until
// Close, for programs; it returns the URL to reach it. A port in use is an
// error that names it.
func (s *Server) Listen(addr string) (string, error) { return s.ep.Listen(addr, s) }

// Close stops serving: waits on faults end, running requests get a short
// grace, then their connections close. It is safe to call more than once;
// a fake started for a test closes with the test.
func (s *Server) Close() {
	s.kit.Close()
	s.ep.Close()
}

// String describes the fake without admin's password and API key or any
// user's, which its fields hold.
func (s *Server) String() string { return "erpfake.Server{URL: " + s.URL() + "}" }

// GoString is String, so that %#v does not print the credentials either.
func (s *Server) GoString() string { return s.String() }

// LogValue logs the fake as its URL.
func (s *Server) LogValue() slog.Value { return slog.GroupValue(slog.String("url", s.URL())) }

// URL returns the ERP's root URL ("" before Start or Listen); the API is at
// URL()+"/api/index.php".
func (s *Server) URL() string { return s.ep.URL() }

// AdminPassword returns the password of the web user admin.
func (s *Server) AdminPassword() string { return s.cfg.adminPassword }

// APIKey returns admin's API key.
func (s *Server) APIKey() string { return s.cfg.adminKey }

// Clock returns the fake's clock.
func (s *Server) Clock() *clock.Fake { return s.cfg.clock }

// Client returns a client pointed at the fake, authenticated with admin's
// API key and waiting on the fake's clock. Options come after those.
func (s *Server) Client(opts ...erp.Option) *erp.Client {
	return s.client(append([]erp.Option{erp.WithAPIKey(s.cfg.adminKey)}, opts...))
}

// ClientWithAPIKey is Client authenticated with another API key.
func (s *Server) ClientWithAPIKey(key string, opts ...erp.Option) *erp.Client {
	return s.client(append([]erp.Option{erp.WithAPIKey(key)}, opts...))
}

// ClientWithLogin is a client that logs in through the web login form and
// uses the session cookie.
func (s *Server) ClientWithLogin(login, password string, opts ...erp.Option) *erp.Client {
	return s.client(append([]erp.Option{erp.WithLogin(login, password)}, opts...))
}

func (s *Server) client(opts []erp.Option) *erp.Client {
	u := s.URL()
	if u == "" {
		panic("erpfake: Client called before Start or Listen")
	}
	base := []erp.Option{erp.WithClock(s.cfg.clock)}
	if hc := s.ep.HTTPClient(); hc != nil {
		base = append(base, erp.WithHTTPClient(hc))
	}
	c, err := erp.New(u, append(base, opts...)...)
	if err != nil {
		panic(fmt.Sprintf("erpfake: building client: %v", err))
	}
	return c
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.kit.ServeHTTP(w, r) }

// SetAPIEnabled switches the REST API module on or off. While it is off,
// every API call is answered, as the ERP does, by a 200 web page saying the
// module must be enabled; the web interface still works.
func (s *Server) SetAPIEnabled(on bool) { s.apiEnabled.Store(on) }

// APIEnabled reports whether the REST API module is on.
func (s *Server) APIEnabled() bool { return s.apiEnabled.Load() }

// SetNativeNumbers switches how answers write numbers: as JSON numbers
// ("id":12, "price":100.5) when on, as strings ("id":"12",
// "price":"100.00000000") when off, as the ERP's deployments differ (see
// the package doc). It holds from the next request; Reset goes back to
// what the options said (WithNativeNumbers).
func (s *Server) SetNativeNumbers(on bool) { s.nativeNumbers.Store(on) }

// NativeNumbers reports whether answers write numbers as JSON numbers.
func (s *Server) NativeNumbers() bool { return s.nativeNumbers.Load() }

// EndSessions ends every web session, as a server restart that loses its
// session store would.
func (s *Server) EndSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.st.sessions)
}

// Sessions returns how many web sessions are open (not yet expired).
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.pruneSessions(s.cfg.sessionTimeout)
	return len(s.st.sessions)
}

// InjectFault makes requests matching route (an http.ServeMux pattern such
// as "POST /api/index.php/invoices", or "" for all) answer as f says. A
// fault with a status and no body answers in the ERP's error shape.
func (s *Server) InjectFault(route string, f control.Fault) error { return s.kit.InjectFault(route, f) }

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() { s.kit.ClearFaults() }

// Faults returns the faults in force, in the order they apply.
func (s *Server) Faults() []control.ActiveFault { return s.kit.Faults() }

// Requests returns the requests received, oldest first.
func (s *Server) Requests() []control.Request { return s.kit.Requests() }

// RequestsTo returns the requests a route answered, by its pattern as the
// fake registers it ("GET /api/index.php/invoices").
func (s *Server) RequestsTo(route string) []control.Request { return s.kit.RequestsTo(route) }

// ResetRequests empties the request log.
func (s *Server) ResetRequests() { s.kit.ResetRequests() }

// Reset puts the fake back as New left it: admin alone (with the password
// and API key it had from New), no other user, third party, product,
// invoice, order or web session, the counters of ids and refs back at the
// start, the REST API module on, no fault, an empty request log. The
// options and the clock stay.
func (s *Server) Reset() {
	s.kit.ClearFaults()
	s.kit.ResetRequests()
	s.resetState()
}

var _ control.Controls = (*Server)(nil)
