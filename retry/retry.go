// Package retry is the one place every apitwin client decides whether a
// failed call is sent again, and the one loop that sends it: the REST
// clients (erp, cloudauth, sourcehost), the orch client over gRPC and over
// HTTP, and the mcp client all run their calls through [Do] with a
// [Policy].
//
// The rules, the same for every client:
//
//   - A call the server refused for its rate (HTTP 429, RESOURCE_EXHAUSTED,
//     the gateway's -32000 with status 429) is sent again whatever it is:
//     the server did not do it.
//   - A call that failed in a way that may pass (a 5xx, UNAVAILABLE, a
//     connection error) is sent again only when that is harmless: an
//     idempotent call (GET, PUT, DELETE, a request with an Idempotency-Key,
//     a read-only RPC), or one the transport knows never left. A POST is
//     never sent twice by surprise.
//   - Nothing is sent again after a failure no retry can cure (a bad
//     certificate), after MaxRetries retries, or with retries Disabled.
//   - The wait is the longer of the backoff (MinWait doubling, at most
//     MaxWait: 1, 2, 4 s by default) and the wait the server asked for
//     (the service's own field, else Retry-After, else the rate-limit reset
//     time): never shorter than either, so a server answering
//     "Retry-After: 1" every time still sees 1, 2, 4 s. A server asking for
//     more than MaxWait, or a wait that would outlast the context's
//     deadline, ends the retries at once: the caller gets the error, with
//     the reason, instead of a sleep in vain.
//
// Waits run on a [clock.Clock], so tests on a fake clock wait no real time.
package retry

import (
	"context"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// Policy says how often and after how long a failed call is sent again.
// The zero value means the defaults: 3 retries, waits from 1 s up to 60 s.
type Policy struct {
	// MaxRetries is how many times a call may be sent again; 0 means the
	// default, 3. Use Disabled for none.
	MaxRetries int
	// MinWait is the first backoff wait; 0 means 1 s.
	MinWait time.Duration
	// MaxWait caps one wait, and is the longest wait a server may ask for;
	// 0 means 60 s.
	MaxWait time.Duration
	// Disabled turns retries off: every failure goes straight to the
	// caller.
	Disabled bool
}

// The defaults of the zero Policy.
const (
	DefaultMaxRetries = 3
	DefaultMinWait    = time.Second
	DefaultMaxWait    = 60 * time.Second
)

// WithDefaults fills the zero fields and checks the rest.
func (p Policy) WithDefaults() (Policy, error) {
	if p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < 0 {
		return p, fmt.Errorf("retry policy: negative value in %+v", p)
	}
	if p.MaxRetries == 0 {
		p.MaxRetries = DefaultMaxRetries
	}
	if p.MinWait == 0 {
		p.MinWait = DefaultMinWait
	}
	if p.MaxWait == 0 {
		p.MaxWait = max(DefaultMaxWait, p.MinWait)
	}
	if p.MaxWait < p.MinWait {
		return p, fmt.Errorf("retry policy: MaxWait %v is less than MinWait %v", p.MaxWait, p.MinWait)
	}
	return p, nil
}

// Backoff is the wait before retry number n (0-based) when the server gave
// no hint: MinWait doubling, capped at MaxWait. Call it on a policy with its
// defaults filled in.
func (p Policy) Backoff(n int) time.Duration {
	d := p.MinWait
	for i := 0; i < n && d < p.MaxWait; i++ {
		d *= 2
	}
	return min(d, p.MaxWait)
}

// Failure is what a client learnt of one failed attempt, in terms every
// transport shares. Each client reads its own answers into a Failure; the
// Policy decides from it.
type Failure struct {
	// Throttled: the server refused the call for its rate, without doing
	// it. Sent again whatever the call.
	Throttled bool
	// Transient: a failure that may pass (a 5xx, UNAVAILABLE, a connection
	// error). Sent again only when Safe.
	Transient bool
	// Safe: sending the call again is harmless (an idempotent call, or one
	// that never reached the server).
	Safe bool
	// Permanent: nothing a retry can cure (a bad certificate, a malformed
	// URL). Never sent again.
	Permanent bool
	// ServerWait is the wait the server asked for (Retry-After, a rate-limit
	// reset), 0 if none.
	ServerWait time.Duration
}

// retryable reports whether f is a failure worth another attempt at all.
func (f Failure) retryable() bool {
	return !f.Permanent && (f.Throttled || f.Transient && f.Safe)
}

// Next decides whether a call is sent again after f, when retries retries
// were made already (0 after the first attempt), and after how long. When
// it is not, why says why a retryable failure was not retried ("" when f is
// not one to retry at all). p must have its defaults filled in.
func (p Policy) Next(retries int, f Failure) (wait time.Duration, ok bool, why string) {
	if f.Transient && !f.Safe && !f.Permanent && !f.Throttled {
		return 0, false, "not retried: the call is not idempotent, and sending it again could do it twice"
	}
	if !f.retryable() {
		return 0, false, ""
	}
	// The longer of the backoff and the server's wait: a server that keeps
	// answering "Retry-After: 1" still gets the doubling the clients
	// promise, and one asking for longer gets what it asked.
	wait = max(p.Backoff(retries), f.ServerWait)
	switch {
	case p.Disabled:
		return wait, false, "retries are disabled"
	case retries >= p.MaxRetries:
		return wait, false, fmt.Sprintf("gave up after %d retries", retries)
	case f.ServerWait > p.MaxWait:
		return wait, false, fmt.Sprintf("the server asked for a wait of %v, more than the client's MaxWait of %v", wait, p.MaxWait)
	}
	return wait, true, ""
}

// Attempt is one try of a call: nil when it succeeded, otherwise the error
// to give the caller and what it was.
type Attempt func(ctx context.Context, retries int) (Failure, error)

// Result is how a call run by Do ended.
type Result struct {
	// Retries is how many times the call was sent again.
	Retries int
	// Wait is the wait Next computed after the last failure, sent or not.
	Wait time.Duration
	// GaveUp says why a retryable failure was not retried, "" otherwise.
	GaveUp string
}

// Do runs attempt until it succeeds or p says stop, waiting on clk between
// tries; before each wait it calls onRetry, if set (for a log line). It
// returns the last attempt's error, or the context's when the caller gave
// up during a wait, and how the call ended.
func Do(ctx context.Context, p Policy, clk clock.Clock, attempt Attempt, onRetry func(retry int, wait time.Duration, err error)) (Result, error) {
	var res Result
	for {
		f, err := attempt(ctx, res.Retries)
		if err == nil {
			return res, nil
		}
		wait, ok, why := p.Next(res.Retries, f)
		res.Wait, res.GaveUp = wait, why
		if ok {
			if deadline, has := ctx.Deadline(); has && wait > time.Until(deadline) {
				ok, res.GaveUp = false, fmt.Sprintf("a wait of %v would pass the context deadline", wait)
			}
		}
		if !ok {
			return res, err
		}
		if onRetry != nil {
			onRetry(res.Retries+1, wait, err)
		}
		if serr := clk.Sleep(ctx, wait); serr != nil {
			return res, serr
		}
		res.Retries++
	}
}

// Error is the error of a call that failed in a way a retry might have
// cured, but was not sent again (or no more): Reason says why ("gave up
// after 3 retries", "not retried: the call is not idempotent, …"). It wraps
// the client's own error, which errors.As and errors.Is still reach. (A call
// refused for its rate gets apicall.RateLimitError instead, which says the same.)
type Error struct {
	// Retries is how many times the call was sent again.
	Retries int
	// Reason says why it was not sent again.
	Reason string
	// Err is the client's error for the last answer.
	Err error
}

func (e *Error) Error() string { return e.Err.Error() + " (" + e.Reason + ")" }

func (e *Error) Unwrap() error { return e.Err }
