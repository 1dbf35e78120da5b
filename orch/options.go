package orch

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/retry"
)

// Option configures a Client. Options check their input: a bad value makes
// the constructor fail rather than being ignored.
type Option func(*settings) error

// The per-call types every apitwin client shares, under the same names in
// each (erp, cloudauth, orch, sourcehost, mcp): package apicall's, and the
// retry policy of package retry.
type (
	// RateLimit is what an answer said about the caller's rate limit: the
	// X-RateLimit-Limit, -Remaining, -Reset and -Scope values, from HTTP
	// headers or gRPC metadata.
	RateLimit = apicall.RateLimit
	// RateLimitError is the error of a call the server refused for its rate
	// once the client stopped retrying (the retries were spent, or waiting
	// again would pass the context's deadline). errors.Is(err, ErrRateLimited)
	// matches it, and errors.As gives both it and the *Error of the last
	// answer.
	RateLimitError = apicall.RateLimitError
	// RetryPolicy says when and how long the client waits before sending a
	// call again; the zero value means 3 retries with waits from 1 s
	// (doubling) up to 60 s. See the package documentation for which calls
	// are retried.
	RetryPolicy = retry.Policy
)

type settings struct {
	rest        rest.Config // HTTP side: clock, logger, HTTP client, TLS
	namespace   string
	token       string
	insecure    bool
	tlsConfig   *tls.Config
	apiVersion  string
	identity    string
	limits      ClientLimits
	dialOptions []grpc.DialOption
	callTimeout time.Duration
	hook        apicall.Hook
}

func restOption(o rest.Option) Option { return func(s *settings) error { return o(&s.rest) } }

// WithHook makes h see each call start and end, over either transport:
// the place for a span or a metric per call, with the operation, the
// status, the error code and the retry count (see package apicall).
func WithHook(h apicall.Hook) Option {
	return func(s *settings) error {
		if h == nil {
			return errors.New("nil hook")
		}
		s.hook = h
		return nil
	}
}

// WithTransport wraps the HTTP transport of a client made by NewHTTP with
// t, which then sees every attempt on the wire (see package apicall). Over
// gRPC, give interceptors or a stats handler to WithGRPCDialOptions.
func WithTransport(t apicall.Transport) Option { return restOption(rest.WithTransport(t)) }

// WithNamespace sets the namespace the client's calls go to (default
// "default"). A raw request whose namespace field is set keeps its own.
func WithNamespace(namespace string) Option {
	return func(s *settings) error {
		if strings.TrimSpace(namespace) == "" {
			return errors.New("empty namespace")
		}
		s.namespace = namespace
		return nil
	}
}

// WithToken authenticates every call with a bearer token (a JWT or an API
// key), sent as "Authorization: Bearer <token>" on HTTP and as the
// authorization metadata on gRPC. The token never appears in an error, a log
// line or a printed Client.
func WithToken(token string) Option {
	return func(s *settings) error {
		if strings.TrimSpace(token) == "" {
			return errors.New("empty token")
		}
		if strings.ContainsAny(token, "\r\n") {
			return errors.New("token contains a line break")
		}
		s.token = token
		return nil
	}
}

// WithClock makes the client read the time and wait (retry backoff,
// client-side limits) on clk, for example a fake's clock so that waits in
// tests take no real time.
func WithClock(clk clock.Clock) Option { return restOption(rest.WithClock(clk)) }

// WithInsecure dials gRPC in plaintext, without TLS. Only for loopback
// servers and tests: a token is then sent in the clear. It has no effect on
// NewHTTP, whose scheme (http or https) says the same thing.
func WithInsecure() Option {
	return func(s *settings) error { s.insecure = true; return nil }
}

// WithTLSConfig uses cfg for TLS on either transport (a clone is kept). It
// cannot be combined with WithCAFile, WithInsecureSkipVerify or
// WithHTTPClient.
func WithTLSConfig(cfg *tls.Config) Option {
	return func(s *settings) error {
		if cfg == nil {
			return errors.New("nil *tls.Config")
		}
		s.tlsConfig = cfg.Clone()
		return nil
	}
}

// WithCAFile trusts the certificate authorities of a PEM file besides the
// system's. The file is read now, so a bad file fails construction.
func WithCAFile(path string) Option { return restOption(rest.WithCAFile(path)) }

// WithInsecureSkipVerify turns TLS certificate verification off. Only for
// tests and lab setups.
func WithInsecureSkipVerify() Option { return restOption(rest.WithInsecureSkipVerify()) }

// WithRetry sets the retry policy of RESOURCE_EXHAUSTED and UNAVAILABLE
// answers.
func WithRetry(p RetryPolicy) Option { return restOption(rest.WithRetry(p)) }

// WithoutRetries sends every call once: every error goes straight to the
// caller.
func WithoutRetries() Option { return restOption(rest.WithoutRetries()) }

// WithLogger logs calls (debug), retries (info) and failures (warn) to l.
// Tokens and headers are never logged. Without it the client is silent.
func WithLogger(l *slog.Logger) Option { return restOption(rest.WithLogger(l)) }

// WithHTTPClient sends the HTTP transport's requests through hc instead of a
// pooled default client. It has no effect on gRPC.
func WithHTTPClient(hc *http.Client) Option { return restOption(rest.WithHTTPClient(hc)) }

// WithUserAgent appends a product token ("myapp/1.2") to the user agent of
// both transports.
func WithUserAgent(product string) Option { return restOption(rest.WithUserAgent(product)) }

// WithAPIVersion selects the API version: "v1" (the default, current) or
// "v1beta1" (deprecated, supported until 2024-12-31). It is sent as the
// Orch-API-Version header or metadata, and on HTTP it also selects the
// /api/<version> path prefix.
func WithAPIVersion(version string) Option {
	return func(s *settings) error {
		switch version {
		case orchwire.V1, orchwire.V1Beta1:
			s.apiVersion = version
			return nil
		}
		return fmt.Errorf("unsupported API version %q (want %q or %q)", version, orchwire.V1, orchwire.V1Beta1)
	}
}

// WithIdentity sets the identity the client reports in the requests that
// carry one (start, signal, terminate, polls, task answers). The default is
// "<pid>@<hostname>".
func WithIdentity(identity string) Option {
	return func(s *settings) error {
		if strings.TrimSpace(identity) == "" {
			return errors.New("empty identity")
		}
		s.identity = identity
		return nil
	}
}

// WithClientLimits replaces the client-side limits (see ClientLimits; zero
// fields keep their defaults).
func WithClientLimits(l ClientLimits) Option {
	return func(s *settings) error {
		if err := l.validate(); err != nil {
			return err
		}
		s.limits = l
		return nil
	}
}

// WithGRPCDialOptions adds options to the gRPC connection Dial makes
// (interceptors, keepalive, a custom dialer). It has no effect on NewHTTP and
// NewFromConn.
func WithGRPCDialOptions(opts ...grpc.DialOption) Option {
	return func(s *settings) error {
		s.dialOptions = append(s.dialOptions, opts...)
		return nil
	}
}

// WithCallTimeout gives every call whose context has no deadline this one
// (long polls excepted: they end at the server's poll deadline). The default
// is none: a call waits as long as its context allows.
func WithCallTimeout(d time.Duration) Option {
	return func(s *settings) error {
		if d <= 0 {
			return fmt.Errorf("call timeout %v: want a positive duration", d)
		}
		s.callTimeout = d
		return nil
	}
}

func applyOptions(opts []Option) (settings, error) {
	s := settings{namespace: DefaultNamespace, apiVersion: orchwire.V1}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return s, fmt.Errorf("orch: %w", err)
		}
	}
	if s.tlsConfig != nil && (s.rest.TLS.RootCAs != nil || s.rest.TLS.InsecureSkipVerify) {
		return s, errors.New("orch: WithTLSConfig cannot be combined with WithCAFile or WithInsecureSkipVerify")
	}
	if s.tlsConfig != nil && s.rest.HTTPClient != nil {
		return s, errors.New("orch: WithTLSConfig cannot be combined with WithHTTPClient; configure its transport instead")
	}
	if s.identity == "" {
		s.identity = defaultIdentity()
	}
	if s.rest.Clock == nil {
		s.rest.Clock = clock.Real()
	}
	s.limits = s.limits.withDefaults()
	return s, nil
}

// tlsForGRPC is the TLS configuration of a gRPC connection.
func (s *settings) tlsForGRPC() *tls.Config {
	if s.tlsConfig != nil {
		return s.tlsConfig
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: s.rest.TLS.RootCAs, InsecureSkipVerify: s.rest.TLS.InsecureSkipVerify} //nolint:gosec // insecure only when asked for
}
