package cloudauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/retry"
)

// The gateway's paths, relative to the server's base URL.
const (
	LoginPath     = "/csp/gateway/am/api/login"
	LogoutPath    = "/csp/gateway/am/api/logout"
	UserInfoPath  = "/csp/gateway/am/api/userinfo"
	PublicKeyPath = "/csp/gateway/am/api/auth/token-public-key"
	APITokenPath  = "/csp/gateway/am/api/auth/api-tokens/authorize"
)

// DefaultTimeout is how long one call may take, retries included, before
// it fails with ErrConnectionTimeout.
const DefaultTimeout = 30 * time.Second

// DefaultLeeway is the clock skew allowed when checking a token's times.
const DefaultLeeway = 30 * time.Second

// Client talks to one login gateway. It is safe for concurrent use.
type Client struct {
	rest    *rest.Client
	clock   clock.Clock
	timeout time.Duration
	issuer  string
	leeway  time.Duration
	// log is the client's logger (WithLogger), secrets kept out, for what
	// a Session says; it discards when none was given.
	log *slog.Logger

	keysMu        sync.Mutex
	keys          *KeySet
	keysRefreshed time.Time // when a token with an unknown key id last caused a fetch
}

// The per-call types every apitwin client shares, under the same names in
// each (erp, cloudauth, orch, sourcehost, mcp): package apicall's, and the
// retry policy of package retry.
type (
	// RateLimit is what an answer said about the caller's rate limit.
	RateLimit = apicall.RateLimit
	// RateLimitError is the error of a call the server refused for its rate
	// once the client stopped retrying (the retries were spent, or waiting
	// again would pass the context's deadline). errors.Is(err, ErrRateLimited)
	// matches it, and errors.As gives both it and the *Error of the last
	// answer.
	RateLimitError = apicall.RateLimitError
	// RetryPolicy says when and how long the client waits before sending a
	// call again; the zero value means 3 retries with waits from 1 s
	// (doubling) up to 60 s. A login (a POST) is sent again only after a 429
	// or when the connection could not be made at all.
	RetryPolicy = retry.Policy
)

// Option configures a Client.
type Option func(*settings) error

type settings struct {
	rest    rest.Config
	timeout time.Duration
	issuer  string
	leeway  time.Duration
}

func restOption(o rest.Option) Option { return func(s *settings) error { return o(&s.rest) } }

// WithRetry sets the retry policy.
func WithRetry(p RetryPolicy) Option { return restOption(rest.WithRetry(p)) }

// WithoutRetries sends every request once.
func WithoutRetries() Option { return restOption(rest.WithoutRetries()) }

// WithHTTPClient sends requests through hc instead of a pooled default
// client. It cannot be combined with WithCAFile or WithInsecureSkipVerify:
// configure hc's transport instead.
func WithHTTPClient(hc *http.Client) Option { return restOption(rest.WithHTTPClient(hc)) }

// WithLogger logs requests (debug), retries (info) and failures (warn).
// Passwords, tokens and headers are never logged.
func WithLogger(l *slog.Logger) Option { return restOption(rest.WithLogger(l)) }

// WithHook makes h see each call start and end: the place for a span or a
// metric per call, with the service, the operation, the status and the
// retry count (see package apicall).
func WithHook(h apicall.Hook) Option { return restOption(rest.WithHook(h)) }

// WithTransport wraps the client's HTTP transport with t, which then sees
// every attempt on the wire (see package apicall).
func WithTransport(t apicall.Transport) Option { return restOption(rest.WithTransport(t)) }

// WithClock makes the client read the time (token expiry, key refreshes)
// and wait between retries on clk, for example a fake's clock.
func WithClock(clk clock.Clock) Option { return restOption(rest.WithClock(clk)) }

// WithUserAgent appends a product token ("myapp/1.2") to the User-Agent.
func WithUserAgent(product string) Option { return restOption(rest.WithUserAgent(product)) }

// WithCAFile trusts the certificate authorities of a PEM file besides the
// system's (the command line's CLI_CA_CERT). A file that cannot be read or
// holds no certificate fails New.
func WithCAFile(path string) Option { return restOption(rest.WithCAFile(path)) }

// WithInsecureSkipVerify turns TLS certificate verification off (the
// command line's --no-verify-ssl). Verification is on unless asked.
func WithInsecureSkipVerify() Option { return restOption(rest.WithInsecureSkipVerify()) }

// WithTimeout bounds each call, retries included (default 30 s). A call
// that runs out of time fails with ErrConnectionTimeout.
func WithTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return fmt.Errorf("timeout %v is not positive", d)
		}
		s.timeout = d
		return nil
	}
}

// WithIssuer sets the issuer (iss claim) VerifyToken requires. The default
// is the server's base URL without a trailing slash (and without a user and
// password it may carry), which is what the gateway writes.
func WithIssuer(iss string) Option {
	return func(s *settings) error {
		if strings.TrimSpace(iss) == "" {
			return errors.New("empty issuer")
		}
		s.issuer = iss
		return nil
	}
}

// WithLeeway sets the clock skew allowed when checking a token's times
// (default 30 s; at most 5 minutes).
func WithLeeway(d time.Duration) Option {
	return func(s *settings) error {
		if d < 0 || d > 5*time.Minute {
			return fmt.Errorf("leeway %v is not between 0 and 5m", d)
		}
		s.leeway = d
		return nil
	}
}

// New returns a client for the gateway at baseURL, the server's root
// ("https://cloud.example.com").
func New(baseURL string, opts ...Option) (*Client, error) {
	s := settings{timeout: DefaultTimeout, leeway: DefaultLeeway}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return nil, fmt.Errorf("cloudauth: %w", err)
		}
	}
	cfg := s.rest
	cfg.Service = "cloudauth"
	cfg.BaseURL = baseURL
	cfg.DecodeError = decodeError
	cfg.ScrubError = scrubError
	rc, err := rest.New(cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{rest: rc, clock: cfg.Clock, timeout: s.timeout, issuer: s.issuer, leeway: s.leeway, log: rc.Cleaner().Logger(cfg.Logger)}
	if c.clock == nil {
		c.clock = clock.Real()
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.issuer == "" {
		c.issuer = rc.BaseURL()
		// The gateway writes its URL as the issuer, without the user and
		// password of a proxy that the client's URL may carry.
		if u, err := url.Parse(c.issuer); err == nil && u.User != nil {
			u.User = nil
			c.issuer = u.String()
		}
	}
	return c, nil
}

// BaseURL returns the server's root URL requests go to, without the user
// information it may have been given (sent as basic authentication, never
// shown).
func (c *Client) BaseURL() string { return c.rest.BaseURL() }

// RateLimit returns the rate-limit values of the most recent answer that
// carried any (a proxy's or a gateway's; the login API itself sends none).
func (c *Client) RateLimit() RateLimit { return c.rest.RateLimit() }

// String describes the client. Its base URL holds none of the user
// information it may have been given (a proxy's basic authentication):
// the REST core keeps that apart.
func (c *Client) String() string {
	return fmt.Sprintf("cloudauth.Client{BaseURL: %s}", c.rest.BaseURL())
}

// GoString is String.
func (c *Client) GoString() string { return c.String() }

// Do sends a request the client does not wrap (yet): method, a path from
// the gateway's root ("/csp/gateway/am/api/loggedin/user/orgs", escaped
// already), a query, and a JSON body (nil for none), with the bearer token
// of tok when it is not nil. The answer is decoded into out: a pointer for
// JSON, an io.Writer for the raw bytes, or nil to drop it. It gets what
// every call gets: the client's timeout, retries, rate limits, errors as
// *Error, and apicall.Capture for its status and headers.
func (c *Client) Do(ctx context.Context, tok *Token, method, path string, query url.Values, body, out any) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("cloudauth: Do: path %q must start with /", path)
	}
	req := &rest.Request{Method: method, Path: path, Query: query, JSON: body}
	if tok != nil {
		h, err := bearer(tok)
		if err != nil {
			return err
		}
		req.Header, req.Secrets = h, []string{tok.raw}
	}
	return c.do(ctx, req, out)
}

// do sends one request within the client's timeout and turns a failure
// without an answer into the package's error. The client's secrets and the
// request's (req.Secrets: a password, a token) are kept out of the error,
// the errors it wraps, the hook's outcome and the log.
func (c *Client) do(ctx context.Context, req *rest.Request, out any) error {
	if ctx == nil {
		return errors.New("cloudauth: nil context")
	}
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	_, err := c.rest.Do(callCtx, req, out)
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return transportError(ctx, req.Method, req.Path, err) // err is cleaned already (Do)
}

func bearer(tok *Token) (http.Header, error) {
	if tok == nil || tok.raw == "" {
		return nil, errors.New("cloudauth: no token")
	}
	return http.Header{"Authorization": {"Bearer " + tok.raw}}, nil
}
