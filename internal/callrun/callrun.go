// Package callrun is the one pipeline every call of every apitwin client
// runs through, whatever carries it: the REST core (erp, cloudauth,
// sourcehost), orch over gRPC and over HTTP, the mcp client's JSON-RPC.
// (Its name is not "pipeline": sourcehost and mcp have CI pipelines.)
// A transport supplies one
// attempt, which sends the call once and says what it learnt in the terms
// every transport shares (an [Outcome]); the [Runner] does the rest, in
// one place for all of them:
//
//   - the hook (apicall.Hook) sees the call start and end, once;
//   - each attempt's outcome is classified by one rule (which failures a
//     retry may cure, which are safe to send again, what wait the server
//     asked for) and the retry loop (retry.Do, under the client's
//     retry.Policy and clock) sends it again or stops;
//   - the caller's apicall.Info gets the last answer;
//   - the error is shaped alike: an *apicall.RateLimitError for a call
//     refused for its rate, a *retry.Error for a failure a retry might have
//     cured but that was not sent again, the context's error joined with
//     the last answer's when the caller gave up during a wait; then cleaned
//     of secrets;
//   - the log lines: "retrying call" (info) before each retry, "call" when
//     it ends (debug, or warn when it failed), with the same fields for
//     every client.
//
// A transport decides only what its own answers mean (a 429 or
// RESOURCE_EXHAUSTED for rate is Throttled, a 5xx or UNAVAILABLE is
// Transient) and, for a failure of the network itself, asks [Permanent]
// and [NeverSent].
package callrun

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/retry"
)

// Config is what a client gives New.
type Config struct {
	// Service names the API in hooks and logs ("sourcehost").
	Service string
	// Policy is the client's retry policy (zero fields take the defaults).
	Policy retry.Policy
	// Clock is what the retries wait on; nil is the real clock.
	Clock clock.Clock
	// Logger receives the log lines; nil is silent. It must already hide
	// the client's own secrets (rest.Cleaner.Logger): the runner hides the
	// call's (Call.Secrets) in what it writes.
	Logger *slog.Logger
	// Hook sees each call start and end; nil for none.
	Hook apicall.Hook
	// Clean takes the client's secrets, and extra ones, out of errors and
	// texts (a *rest.Cleaner); nil leaves them as they are.
	Clean Cleaner
	// ContextError is the client's error for a call whose caller gave up
	// while it waited to send it again (orch: its CANCELED *Error); nil
	// makes "<service>: <operation>: <the context's error>".
	ContextError func(operation string, err error, retries int) error
}

// Cleaner takes secrets out of errors and texts: rest.Cleaner's methods.
type Cleaner interface {
	// Scrub is err with the secrets, and extra ones, taken out of it and
	// of every error it wraps.
	Scrub(err error, extra ...string) error
	// Redact is s with the secrets, and extra ones, replaced.
	Redact(s string, extra ...string) string
}

// Runner runs the calls of one client. It is safe for concurrent use once
// Init has set it up; a client may hold one by value (no allocation of
// its own).
type Runner struct {
	service string
	policy  retry.Policy
	clock   clock.Clock
	log     *slog.Logger
	hook    apicall.Hook
	clean   Cleaner
	ctxErr  func(string, error, int) error

	mu   sync.Mutex
	last apicall.RateLimit
}

// New checks cfg and returns its Runner.
func New(cfg Config) (*Runner, error) {
	r := new(Runner)
	if err := r.Init(cfg); err != nil {
		return nil, err
	}
	return r, nil
}

// Init checks cfg and sets r up with it, before r runs any call.
func (r *Runner) Init(cfg Config) error {
	policy, err := cfg.Policy.WithDefaults()
	if err != nil {
		return err
	}
	r.service, r.policy, r.clock, r.log, r.hook = cfg.Service, policy, cfg.Clock, cfg.Logger, cfg.Hook
	r.clean, r.ctxErr = cfg.Clean, cfg.ContextError
	if r.clock == nil {
		r.clock = clock.Real()
	}
	return nil
}

// InitFrom sets r up with from's settings but log and clean, having seen no
// answer yet (RateLimit): for a client made from another, whose answers
// are its own (orch's WithNamespace) and whose secrets may be too
// (rest.Client.WithAuth).
func (r *Runner) InitFrom(from *Runner, log *slog.Logger, clean Cleaner) {
	r.service, r.policy, r.clock, r.log, r.hook = from.service, from.policy, from.clock, log, from.hook
	r.clean, r.ctxErr = clean, from.ctxErr
}

// Call is one call to run.
type Call struct {
	// Operation names the call for the hook and the log: the RPC
	// ("StartWorkflowExecution"), the JSON-RPC method. For a REST call
	// leave it empty and set Method and Path: "GET /projects/7" is joined
	// from them only when a hook or a log line needs it.
	Operation    string
	Method, Path string
	// Idempotent: sending the call twice is harmless (GET, PUT, DELETE, a
	// request with an Idempotency-Key, a read-only RPC).
	Idempotent bool
	// Secrets are values the call carries that the client does not hold (a
	// password in a login body), and those it learned and sent during the
	// call: kept out of the error, the hook's outcome and the log. An
	// attempt may add to them.
	Secrets []string
}

// operation is what the hook and the log call c.
func (c *Call) operation() string {
	if c.Operation == "" {
		c.Operation = c.Method + " " + c.Path
	}
	return c.Operation
}

// Outcome is what one attempt learnt, in the terms every transport shares.
type Outcome struct {
	// Err is nil when the attempt succeeded, otherwise the error for the
	// caller: the service's own error for an error answer, the transport's
	// for a failure without one.
	Err error
	// Status is the HTTP status of the answer (over gRPC, that of its code:
	// 200 for OK); 0 when no answer came.
	Status int
	// Code is the service's error code of an error answer (orch's code,
	// the mcp gateway's JSON-RPC code); "" otherwise.
	Code string
	// Header holds the answer's headers (over gRPC, its metadata).
	Header http.Header
	// RateLimit is what the answer said of the caller's rate limit.
	RateLimit apicall.RateLimit
	// Throttled: the service refused the call for its rate, without doing
	// it: sent again whatever the call.
	Throttled bool
	// Transient: a failure that may pass (a 5xx, UNAVAILABLE, a network
	// failure): sent again when that is harmless.
	Transient bool
	// NotSent: the transport knows the request never left (see NeverSent),
	// so sending it again is harmless whatever it is.
	NotSent bool
	// Permanent: a failure no retry cures (see Permanent).
	Permanent bool
	// Wait is the wait the service asked for in a field of its own (orch's
	// RateLimitExceeded detail, the gateway's data.retry_after); the
	// Retry-After header and the reset time are read from RateLimit.
	Wait time.Duration
}

// Attempt sends a call once; retries is how many times it was sent before.
type Attempt func(ctx context.Context, retries int) Outcome

// RateLimit returns the rate limit of the most recent answer that carried
// any.
func (r *Runner) RateLimit() apicall.RateLimit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// Run runs a call: the hook, the attempts under the retry policy, the
// caller's apicall.Info, the log lines. It returns the caller's error,
// shaped and cleaned as the package documentation says.
func (r *Runner) Run(ctx context.Context, call *Call, attempt Attempt) (err error) {
	var done func(apicall.Outcome)
	if r.hook != nil {
		ctx, done = r.hook(ctx, apicall.Call{Service: r.service, Operation: call.operation()})
	}
	var start time.Time
	if r.log != nil {
		start = time.Now()
	}
	var last Outcome
	res, err := retry.Do(ctx, r.policy, r.clock, func(ctx context.Context, retries int) (retry.Failure, error) {
		last = attempt(ctx, retries)
		if last.RateLimit.Known() {
			r.mu.Lock()
			r.last = last.RateLimit
			r.mu.Unlock()
		}
		if last.Err == nil {
			return retry.Failure{}, nil
		}
		return r.failure(ctx, call, &last), errAttempt
	}, func(n int, wait time.Duration, _ error) {
		if r.log != nil {
			r.log.LogAttrs(ctx, slog.LevelInfo, "retrying call",
				slog.String("service", r.service), slog.String("operation", call.operation()),
				slog.String("reason", r.redactText(last.Err.Error(), call.Secrets)), slog.Duration("wait", wait), slog.Int("retry", n))
		}
	})
	err = r.shape(err, call, &last, res)
	if into := apicall.From(ctx); into != nil {
		*into = apicall.Info{StatusCode: last.Status, Header: last.Header, RateLimit: last.RateLimit,
			RequestID: apicall.RequestID(last.Header), Retries: res.Retries}
	}
	code := ""
	if err != nil {
		code = last.Code
	}
	if r.log != nil {
		r.logDone(ctx, call, last.Status, code, res.Retries, start, err)
	}
	if done != nil {
		done(apicall.Outcome{StatusCode: last.Status, Code: code, Retries: res.Retries, Err: err})
	}
	return err
}

// errAttempt stands, in the retry loop, for the last attempt's error (in
// Outcome.Err): any other error the loop returns is the context's, ended
// during a wait.
var errAttempt = errors.New("the attempt failed")

// failure is the one rule that reads an attempt's outcome as the retry
// policy sees it.
func (r *Runner) failure(ctx context.Context, call *Call, o *Outcome) retry.Failure {
	if ctx.Err() != nil || !o.Throttled && !o.Transient {
		return retry.Failure{} // the caller gave up, or nothing a retry could change
	}
	f := retry.Failure{Throttled: o.Throttled, Transient: o.Transient && !o.Throttled, Permanent: o.Permanent,
		Safe: call.Idempotent || o.NotSent}
	// The wait the service asked for: in its own field, then Retry-After,
	// then, for a refusal for rate, until the window resets.
	switch now := r.clock.Now(); {
	case o.Wait > 0:
		f.ServerWait = o.Wait
	case o.RateLimit.RetryAfter > 0:
		f.ServerWait = o.RateLimit.RetryAfter
	case o.Throttled && o.RateLimit.Reset.After(now):
		f.ServerWait = o.RateLimit.Reset.Sub(now)
	}
	return f
}

// shape is the caller's error for how the loop ended (err, the last
// attempt o, the loop's result res), cleaned of secrets.
func (r *Runner) shape(err error, call *Call, o *Outcome, res retry.Result) error {
	switch {
	case err == nil:
		return nil
	case err != errAttempt: // the caller's context ended during a wait
		var ce error
		if r.ctxErr != nil {
			ce = r.ctxErr(call.operation(), err, res.Retries)
		} else {
			ce = fmt.Errorf("%s: %s: %w", r.service, call.operation(), err)
		}
		err = errors.Join(ce, o.Err)
	case o.Throttled:
		wait := res.Wait
		if wait == 0 {
			wait = o.RateLimit.RetryAfter
		}
		err = &apicall.RateLimitError{RateLimit: o.RateLimit, RetryAfter: wait, Retries: res.Retries, Reason: res.GaveUp, Err: o.Err}
	case res.GaveUp != "":
		err = &retry.Error{Retries: res.Retries, Reason: res.GaveUp, Err: o.Err}
	default:
		err = o.Err
	}
	if r.clean != nil {
		err = r.clean.Scrub(err, call.Secrets...)
	}
	return err
}

func (r *Runner) redactText(s string, extra []string) string {
	if r.clean == nil {
		return s
	}
	return r.clean.Redact(s, extra...)
}

func (r *Runner) logDone(ctx context.Context, call *Call, status int, code string, retries int, start time.Time, err error) {
	level := slog.LevelDebug
	attrs := make([]slog.Attr, 0, 7)
	attrs = append(attrs, slog.String("service", r.service), slog.String("operation", call.operation()),
		slog.Int("status", status), slog.Int("retries", retries), slog.Duration("elapsed", time.Since(start)))
	if err != nil {
		level = slog.LevelWarn
		if code != "" {
			attrs = append(attrs, slog.String("code", code))
		}
		attrs = append(attrs, slog.String("error", err.Error())) // cleaned by shape
	}
	r.log.LogAttrs(ctx, level, "call", attrs...)
}

// Permanent reports whether a failure of the network (no answer came) is
// one no retry cures: a certificate that does not verify, a bad scheme, a
// redirect loop, an invalid header. It looks down the whole chain, so a
// transport wrapper (apicall.Transport) that wraps its errors changes
// nothing.
func Permanent(err error) bool {
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		return true
	}
	// go-retryablehttp knows the rest by their text, which a wrapper keeps.
	curable, _ := retryablehttp.DefaultRetryPolicy(context.Background(), nil, err)
	return !curable
}

// NeverSent reports whether a failure of the network proves the request did
// not reach the server: the connection was never made. Such a request is
// safe to send again whatever its method.
func NeverSent(err error) bool {
	var opErr *net.OpError
	if errors.As(err, &opErr) && (opErr.Op == "dial" || opErr.Op == "proxyconnect") {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}
