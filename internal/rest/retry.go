package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy says when and how long a client waits before sending a request
// again.
//
// A 429 answer is retried for every method. A 5xx answer or a transport error
// is retried only for an idempotent method (GET, HEAD, OPTIONS, TRACE, PUT,
// DELETE) or a request carrying an Idempotency-Key header, and a transport
// error also when it shows the request never left (the connection could not
// be made). So a POST is never sent twice by surprise.
//
// The wait honours Retry-After, then the rate-limit reset header, then falls
// back to exponential backoff: MinWait, doubling, at most MaxWait. A server
// asking for a longer wait than MaxWait, or a wait that would outlast the
// context's deadline, ends the retries at once with the rate-limit error
// rather than sleeping in vain.
//
// The zero value means the defaults: 3 retries, waits from 1 s up to 60 s.
type RetryPolicy struct {
	// MaxRetries is how many times a request may be sent again; 0 means the
	// default, 3. Use Disabled for none.
	MaxRetries int
	// MinWait is the first backoff wait; 0 means 1 s.
	MinWait time.Duration
	// MaxWait caps one wait; 0 means 60 s.
	MaxWait time.Duration
	// Disabled turns retries off: every answer goes straight to the caller.
	Disabled bool
}

const (
	defaultMaxRetries = 3
	defaultMinWait    = time.Second
	defaultMaxWait    = 60 * time.Second
)

// WithDefaults fills the zero fields and checks the rest.
func (p RetryPolicy) WithDefaults() (RetryPolicy, error) {
	if p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < 0 {
		return p, fmt.Errorf("retry policy: negative value in %+v", p)
	}
	if p.MaxRetries == 0 {
		p.MaxRetries = defaultMaxRetries
	}
	if p.MinWait == 0 {
		p.MinWait = defaultMinWait
	}
	if p.MaxWait == 0 {
		p.MaxWait = max(defaultMaxWait, p.MinWait)
	}
	if p.MaxWait < p.MinWait {
		return p, fmt.Errorf("retry policy: MaxWait %v is less than MinWait %v", p.MaxWait, p.MinWait)
	}
	return p, nil
}

// Backoff is the wait before retry number n (0-based) when the server gave no
// hint: MinWait doubling, capped at MaxWait.
func (p RetryPolicy) Backoff(n int) time.Duration {
	d := p.MinWait
	for i := 0; i < n && d < p.MaxWait; i++ {
		d *= 2
	}
	return min(d, p.MaxWait)
}

// attempt is the retry state of one call to Do, carried to checkRetry in the
// request's context (retryablehttp gives the hook nothing else per request).
type attempt struct {
	method     string
	path       string
	idempotent bool
	noRedirect bool          // answer redirects instead of following them
	retries    int           // retries made so far
	gaveUp     string        // why a retryable answer was not retried ("" if it was not retryable or was retried)
	wait       time.Duration // the wait computed for the answer that ended the call
}

type attemptKey struct{}

// checkRetry is the retryablehttp.CheckRetry hook. It decides, and when the
// answer is to retry it also waits, on the client's clock: retryablehttp's own
// wait uses the wall clock, which tests could not drive, so it is handed a
// zero backoff instead.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return false, ctxErr
	}
	at, _ := ctx.Value(attemptKey{}).(*attempt)
	if at == nil || !retryable(at, resp, err, c.transient) {
		return false, nil
	}
	wait, fromServer := c.waitFor(resp, at.retries)
	at.wait = wait
	switch {
	case c.retry.Disabled:
		at.gaveUp = "retries are disabled"
		return false, nil
	case at.retries >= c.retry.MaxRetries:
		at.gaveUp = fmt.Sprintf("gave up after %d retries", at.retries)
		return false, nil
	case fromServer && wait > c.retry.MaxWait:
		at.gaveUp = fmt.Sprintf("the server asked for a wait of %v, more than the client's MaxWait of %v", wait, c.retry.MaxWait)
		return false, nil
	}
	if deadline, ok := ctx.Deadline(); ok && wait > time.Until(deadline) {
		at.gaveUp = fmt.Sprintf("a wait of %v would pass the context deadline", wait)
		return false, nil
	}
	if c.log != nil {
		c.log.LogAttrs(ctx, slog.LevelInfo, "retrying request",
			slog.String("service", c.service), slog.String("method", at.method), slog.String("path", at.path),
			slog.String("reason", c.redact(retryReason(resp, err))), slog.Duration("wait", wait), slog.Int("retry", at.retries+1))
	}
	if resp != nil {
		// Free the connection for reuse before waiting; retryablehttp's own
		// drain afterwards finds the body closed and does nothing.
		drainAndClose(resp.Body)
	}
	if err := c.clock.Sleep(ctx, wait); err != nil {
		return false, err
	}
	at.retries++
	return true, nil
}

// retryable reports whether an answer may be retried at all for this
// request; transient, when set, must also agree that a 5xx may pass.
func retryable(at *attempt, resp *http.Response, err error, transient func(*http.Response) bool) bool {
	if err != nil {
		// retryablehttp knows the transport errors no retry can cure
		// (bad certificate, bad scheme, redirect loop, invalid header).
		if ok, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err); !ok {
			return false
		}
		return at.idempotent || NeverSent(err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return true
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
		return at.idempotent && (transient == nil || transient(resp))
	}
	return false
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

// waitFor computes the wait before the next retry and whether the server set
// it: Retry-After first, then (for 429) the rate-limit reset time, then
// exponential backoff.
func (c *Client) waitFor(resp *http.Response, retries int) (time.Duration, bool) {
	if resp != nil {
		now := c.clock.Now()
		if d, ok := ParseRetryAfter(first(resp.Header, hRetryAfter), now); ok {
			return d, true
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			if reset := ParseRateLimit(resp.Header, now).Reset; reset.After(now) {
				return reset.Sub(now), true
			}
		}
	}
	return c.retry.Backoff(retries), false
}

func retryReason(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}
