package rest

import (
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/retry"
)

// Option changes a Config. Client packages wrap these in their own Option
// type so their users see one set of names per package.
type Option func(*Config) error

// WithRetry sets the retry policy; see retry.Policy.
func WithRetry(p retry.Policy) Option {
	return func(c *Config) error {
		if _, err := p.WithDefaults(); err != nil {
			return err
		}
		c.Retry = p
		return nil
	}
}

// WithoutRetries turns retries off.
func WithoutRetries() Option {
	return func(c *Config) error { c.Retry = retry.Policy{Disabled: true}; return nil }
}

// WithHTTPClient sends requests through hc (its transport, cookie jar and
// redirect policy) instead of the default pooled client.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Config) error {
		if hc == nil {
			return errors.New("nil *http.Client")
		}
		c.HTTPClient = hc
		return nil
	}
}

// WithLogger logs each request (debug), each retry (info) and each failed
// request (warn) to l. Secrets and headers are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *Config) error { c.Logger = l; return nil }
}

// WithClock makes the client wait and read the time on clk.
func WithClock(clk clock.Clock) Option {
	return func(c *Config) error {
		if clk == nil {
			return errors.New("nil clock")
		}
		c.Clock = clk
		return nil
	}
}

// WithUserAgent appends a product token to the User-Agent header.
func WithUserAgent(product string) Option {
	return func(c *Config) error {
		if product == "" {
			return errors.New("empty user agent")
		}
		c.UserAgent = product
		return nil
	}
}

// WithCAFile trusts the certificate authorities in a PEM file, besides the
// system's. The file is read now, so a bad file fails construction.
func WithCAFile(path string) Option {
	return func(c *Config) error {
		pool, err := LoadCAFile(path)
		if err != nil {
			return err
		}
		c.TLS.RootCAs = pool
		return nil
	}
}

// WithResponseHeaderTimeout bounds how long a request waits for the
// answer's headers once it is sent, on the client's own transport: a
// server that takes a request and never answers then fails it rather
// than holding its goroutine and connection for as long as the caller
// waits. A client given WithHTTPClient keeps its own timeouts.
func WithResponseHeaderTimeout(d time.Duration) Option {
	return func(c *Config) error {
		if d < 0 {
			return errors.New("negative response header timeout")
		}
		c.ResponseHeaderTimeout = d
		return nil
	}
}

// WithInsecureSkipVerify turns TLS certificate verification off.
func WithInsecureSkipVerify() Option {
	return func(c *Config) error { c.TLS.InsecureSkipVerify = true; return nil }
}

// WithHook makes h see each call start and end (see apicall.Hook).
func WithHook(h apicall.Hook) Option {
	return func(c *Config) error {
		if h == nil {
			return errors.New("nil hook")
		}
		c.Hook = h
		return nil
	}
}

// WithTransport wraps the HTTP transport with t (see apicall.Transport).
func WithTransport(t apicall.Transport) Option {
	return func(c *Config) error {
		if t == nil {
			return errors.New("nil transport wrapper")
		}
		c.Transport = t
		return nil
	}
}
