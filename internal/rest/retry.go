package rest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/apitwin/apitwin/retry"
)

// attempt is the state of one call to Do, carried in the request's context
// to the redirect policy, and kept for the log and the error.
type attempt struct {
	method     string
	path       string
	idempotent bool
	noRedirect bool // answer redirects instead of following them
	// secrets are the request's own (Request.Secrets) and the learned ones
	// the set held when an attempt was authorized (see Secrets.pin).
	secrets []string
	res     retry.Result
}

type attemptKey struct{}

// failure reads one attempt's outcome as the retry policy sees it: a
// transport error, or an answer (429 throttled; a 5xx but 501 transient,
// unless transient says it is a deliberate refusal). An answer that is not
// a failure at all has the zero Failure.
func (c *Client) failure(at *attempt, resp *http.Response, err error) retry.Failure {
	if err != nil {
		// retryablehttp knows the transport errors no retry can cure
		// (bad certificate, bad scheme, redirect loop, invalid header).
		curable, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err)
		return retry.Failure{Transient: true, Permanent: !curable, Safe: at.idempotent || NeverSent(err)}
	}
	f := retry.Failure{Safe: at.idempotent}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		f.Throttled = true
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		f.Transient = c.transient == nil || c.transient(resp)
	default:
		return retry.Failure{}
	}
	f.ServerWait = c.serverWait(resp)
	return f
}

// serverWait is the wait an answer asked for: Retry-After, then (for 429)
// the rate-limit reset time; 0 when it asked for none.
func (c *Client) serverWait(resp *http.Response) time.Duration {
	now := c.clock.Now()
	if d, ok := ParseRetryAfter(first(resp.Header, hRetryAfter), now); ok {
		return d
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		if reset := ParseRateLimit(resp.Header, now).Reset; reset.After(now) {
			return reset.Sub(now)
		}
	}
	return 0
}

// NeverSent reports whether a transport error proves the request did not
// reach the server: the connection was never made. Such a request is safe to
// send again whatever its method.
func NeverSent(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect") {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// Idempotent reports whether sending a request twice is harmless: an
// idempotent method, or a request carrying an Idempotency-Key header. It is
// the rule retries follow, exported for client packages that send a request
// again for reasons of their own (a renewed login).
func Idempotent(method string, h http.Header) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	return h.Get("Idempotency-Key") != ""
}

func retryReason(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}
