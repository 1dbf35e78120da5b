package cloudauthfake

import (
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// Defaults of a new fake.
const (
	// DefaultTenant is the tenant of users added without one, and of logins
	// that name none (WithDefaultTenant changes it). The specification
	// leaves the real gateway's literal out on purpose; the fake's is a
	// plain word, and clients must not rely on it: an empty tenant is the
	// server's choice.
	DefaultTenant = "default"
	// DefaultTokenLifetime is how long an issued token is valid: 30
	// minutes, as the gateway the fake imitates (expires_in 1800).
	DefaultTokenLifetime = 30 * time.Minute
	// AdminUsername and AdminPassword are the user every fake starts with,
	// in DefaultTenant; see WithAdminPassword.
	AdminUsername = "admin"
	AdminPassword = "changeme"
)

// The routes the fake serves, as InjectFault and RequestsTo take them.
const (
	RouteLogin     = "POST " + cloudauth.LoginPath
	RouteLogout    = "POST " + cloudauth.LogoutPath
	RouteUserInfo  = "GET " + cloudauth.UserInfoPath
	RoutePublicKey = "GET " + cloudauth.PublicKeyPath
	RouteAPIToken  = "POST " + cloudauth.APITokenPath
)

// Server is the fake login gateway. It is an http.Handler; use [Start] in
// tests, or [New] and [Server.Listen] (or [Server.Serve]) in programs.
type Server struct {
	kit *fakekit.Kit
	cfg config

	ep fakekit.Endpoint

	// keys is what tokens are signed with and checked against; keyMu
	// orders rotations.
	keys  atomic.Pointer[keySet]
	keyMu sync.Mutex

	mu      sync.Mutex
	users   map[userKey]*user
	revoked map[string]time.Time // token id → its expiry, for pruning
	// apiTokens are the API tokens issued and not revoked, by SHA-256.
	apiTokens map[string]*apiToken
	pruneAt   int // the size at which revoked next drops its expired tokens
	issued    int
}

// config is what the options set: cloudauthfake's own, and of the options
// every fake shares, the clock and the record bound.
type config struct {
	clock         *clock.Fake
	key           *rsa.PrivateKey
	kid           string
	lifetime      time.Duration
	defaultTenant string
	issuer        string
	adminPassword string
	maxRecords    int
}

// Option configures a fake: one of the options every fake shares
// (control.WithClock, control.WithFault, control.WithMaxBody,
// control.WithRequestLog, control.WithMaxRecords, control.WithTLS,
// control.WithInMemory) or one of cloudauthfake's own below. For
// cloudauthfake, tokens are issued and expire on the clock; WithMaxBody's
// default is [DefaultMaxBody] (64 KiB); WithMaxRecords bounds the accounts,
// and the tokens revoked and not yet expired: an account past it is
// refused by AddUser (and so by a seed), a logout past it answers 503 in
// the gateway's error shape and the token stays valid, until a revoked
// token expires and makes room. WithTLS serves with a certificate for
// 127.0.0.1 signed by an authority of its own: a client trusts it only
// through [Server.Client], [Server.CACertFile] or by turning verification
// off.
type Option = control.Option

// option declares one of cloudauthfake's own options.
func option(name string, apply func(*config)) Option {
	return control.OwnOption("cloudauthfake."+name, func(c *config) error { apply(c); return nil })
}

// WithKey signs tokens with key under key id kid (an empty kid is the
// key's RFC 7638 thumbprint) instead of the process's key: a fake given no
// key uses one made the first time a fake of this process needs it, and
// shared by every such fake of the process. Bring a key to keep tokens of
// one fake from verifying against another of the same process, or to sign
// with a key the test holds. A nil key means the process's key.
func WithKey(key *rsa.PrivateKey, kid string) Option {
	return option("WithKey", func(c *config) { c.key, c.kid = key, kid })
}

// WithTokenLifetime sets how long issued tokens are valid (default 30
// minutes; 0 keeps it; a negative one is an error).
func WithTokenLifetime(d time.Duration) Option {
	return control.OwnOption("cloudauthfake.WithTokenLifetime", func(c *config) error {
		if d < 0 {
			return errors.New(d.String() + " is negative")
		}
		if d > 0 {
			c.lifetime = d
		}
		return nil
	})
}

// WithDefaultTenant sets the tenant of logins that name none, and of users
// added without one (default DefaultTenant, "default").
func WithDefaultTenant(tenant string) Option {
	return option("WithDefaultTenant", func(c *config) { c.defaultTenant = tenant })
}

// WithIssuer fixes the iss of issued tokens (default: the URL the fake
// serves on, or for a bare handler the scheme and host of each request).
func WithIssuer(iss string) Option {
	return option("WithIssuer", func(c *config) { c.issuer = strings.TrimRight(iss, "/") })
}

// WithAdminPassword sets the password of the admin user (default
// "changeme"); an empty one is an error.
func WithAdminPassword(p string) Option {
	return control.OwnOption("cloudauthfake.WithAdminPassword", func(c *config) error {
		if p == "" {
			return errors.New("the password is empty")
		}
		c.adminPassword = p
		return nil
	})
}

// DefaultMaxRecords is the default of control.WithMaxRecords: fakekit's,
// 100,000.
const DefaultMaxRecords = fakekit.DefaultMaxRecords

func (s *Server) maxRecords() int {
	if s.cfg.maxRecords > 0 {
		return s.cfg.maxRecords
	}
	return DefaultMaxRecords
}

// DefaultMaxBody is the default cap on a request body: a login body is a
// few hundred bytes.
const DefaultMaxBody = 64 << 10

// New returns a fake with one user, admin, in the default tenant. Unless
// WithKey gives a key, it signs with the process's key, made by the first
// fake that needs it (see WithKey); that it cannot be made is an error, as
// is an option New cannot use. It serves nothing until Serve or Listen (in
// memory at once, with control.WithInMemory); it is an http.Handler
// meanwhile.
func New(opts ...Option) (*Server, error) {
	s, _, err := newServer(opts, false)
	return s, err
}

// newServer is New, or the New of Start (start: see fakekit.Options), and
// what the options every fake shares asked for.
func newServer(opts []Option, start bool) (*Server, control.Settings, error) {
	cfg := config{lifetime: DefaultTokenLifetime, defaultTenant: DefaultTenant, adminPassword: AdminPassword}
	st, err := fakekit.Options("cloudauthfake", &cfg, opts, start)
	if err != nil {
		return nil, st, err
	}
	cfg.maxRecords = st.MaxRecords
	if cfg.defaultTenant == "" {
		cfg.defaultTenant = DefaultTenant
	}
	if cfg.key == nil {
		key, err := processKey()
		if err != nil {
			return nil, st, err
		}
		cfg.key = key
	}
	if cfg.kid == "" {
		cfg.kid = Thumbprint(&cfg.key.PublicKey)
	}
	s := &Server{cfg: cfg}
	s.keys.Store(&keySet{current: signingKey{kid: cfg.kid, key: cfg.key}})
	s.kit = fakekit.New(fakekit.Config{Clock: st.Clock, Limits: fakekit.LimitsOf(st, DefaultMaxBody), Error: errorAnswer,
		Routes: routeTable().Bind(s), SecretFields: secretFields, SecretAnswerFields: secretAnswerFields})
	s.cfg.clock = s.kit.Clock()
	if err := s.kit.InjectFaults("cloudauthfake", st.Faults); err != nil {
		return nil, st, err
	}
	s.resetState()
	if st.InMemory {
		s.ep.ServeInMemoryOnDemand("cloudauthfake", s)
	}
	return s, st, nil
}

// resetState makes the users and tokens New starts with: admin alone, no
// token issued or revoked.
func (s *Server) resetState() {
	s.mu.Lock()
	s.users, s.revoked, s.issued, s.pruneAt = map[userKey]*user{}, map[string]time.Time{}, 0, 0
	s.apiTokens = map[string]*apiToken{}
	s.mu.Unlock()
	if err := s.AddUser(UserSeed{Username: AdminUsername, Password: s.cfg.adminPassword, Name: "Administrator",
		Email: "admin@example.com", Roles: []string{"org_owner"}}); err != nil {
		panic(err) // the state is empty: only an empty password could fail
	}
}

// Thumbprint returns an RSA public key's RFC 7638 thumbprint, the fake's
// default key id.
func Thumbprint(pub *rsa.PublicKey) string {
	jwk := cloudauth.PublicJWK("", pub)
	sum := sha256.Sum256([]byte(`{"e":"` + jwk.E + `","kty":"RSA","n":"` + jwk.N + `"}`))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Start serves a new fake until the test ends: on a loopback port, over
// TLS (control.WithTLS: a certificate for 127.0.0.1 signed by an authority
// of its own, which [Server.Client] and [Server.CACertFile] trust), or in
// memory (control.WithInMemory, or every Start of a test binary that
// called control.ServeInMemoryByDefault). An option the fake cannot use
// fails the test.
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

// URL returns the address the fake serves on ("" before Start or Listen).
func (s *Server) URL() string { return s.ep.URL() }

// Client returns a client pointed at the fake, trusting its certificate in
// TLS mode, on the fake's clock. Options are applied after those.
func (s *Server) Client(opts ...cloudauth.Option) *cloudauth.Client {
	u := s.URL()
	if u == "" {
		panic("cloudauthfake: Client called before Start or Listen")
	}
	base := []cloudauth.Option{cloudauth.WithClock(s.cfg.clock)}
	if hc := s.ep.HTTPClient(); hc != nil {
		base = append(base, cloudauth.WithHTTPClient(hc))
	}
	if s.cfg.issuer != "" {
		base = append(base, cloudauth.WithIssuer(s.cfg.issuer))
	}
	c, err := cloudauth.New(u, append(base, opts...)...)
	if err != nil {
		panic(fmt.Sprintf("cloudauthfake: building client: %v", err))
	}
	return c
}

// CertificatePEM returns the TLS certificate of a fake started with
// control.WithTLS, PEM-encoded, for a client to trust; nil otherwise.
func (s *Server) CertificatePEM() []byte { return s.ep.CertificatePEM() }

// CACertFile writes CertificatePEM to a file in a temporary directory of
// the test and returns its path, for cloudauth.WithCAFile or CLI_CA_CERT.
func (s *Server) CACertFile(tb testing.TB) string {
	tb.Helper()
	return s.ep.CACertFile(tb, "cloudauthfake")
}

// ServeHTTP answers one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.kit.ServeHTTP(w, r) }

// Clock returns the fake's clock: advancing it makes tokens expire.
func (s *Server) Clock() *clock.Fake { return s.cfg.clock }

// PublicKey returns the key new tokens are verified with.
func (s *Server) PublicKey() *rsa.PublicKey { return &s.keys.Load().current.key.PublicKey }

// KeyID returns the key id (kid) new tokens carry.
func (s *Server) KeyID() string { return s.keys.Load().current.kid }

// TokenLifetime returns how long issued tokens are valid.
func (s *Server) TokenLifetime() time.Duration { return s.cfg.lifetime }

// DefaultTenant returns the tenant of logins that name none.
func (s *Server) DefaultTenant() string { return s.cfg.defaultTenant }

// InjectFault makes requests matching route (RouteLogin, …, or "" for all)
// answer as f says. A fault with a status and no body answers in the
// gateway's error shape.
func (s *Server) InjectFault(route string, f control.Fault) error { return s.kit.InjectFault(route, f) }

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() { s.kit.ClearFaults() }

// Faults returns the faults in force, in the order they apply.
func (s *Server) Faults() []control.ActiveFault { return s.kit.Faults() }

// Requests returns the requests received, oldest first.
func (s *Server) Requests() []control.Request { return s.kit.Requests() }

// RequestsTo returns the requests a route answered (RouteLogin, …).
func (s *Server) RequestsTo(route string) []control.Request { return s.kit.RequestsTo(route) }

// ResetRequests empties the request log.
func (s *Server) ResetRequests() { s.kit.ResetRequests() }

// Reset puts the fake back as New left it: admin alone (with its
// password), no token issued or revoked, no fault, an empty request log.
// The keys (rotated ones included), the options and the clock stay, so
// tokens issued before still verify but are no longer known as revoked.
func (s *Server) Reset() {
	s.kit.ClearFaults()
	s.kit.ResetRequests()
	s.resetState()
}

var _ control.Controls = (*Server)(nil)

// errUnknownUser is returned by the seeding methods for a missing user.
var errUnknownUser = errors.New("cloudauthfake: no such user")
