// Package rest is the HTTP core every apitwin REST client stands on: request
// building, authentication headers, rate-limit reading, retries (the retry
// package's policy and loop), error decoding through a hook of the calling
// package, secret redaction, logging and TLS settings.
//
// A client package (sourcehost, erp, …) builds one Client from a Config and
// calls Do; everything the package's users configure arrives through Options
// that the package re-exports under its own names.
package rest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/retry"
)

// Config is what a client package hands to New.
type Config struct {
	// Service names the API in error messages and logs ("sourcehost").
	Service string
	// BaseURL is the absolute URL request paths are joined to, without a
	// trailing slash (New trims one).
	BaseURL string
	// UserAgent is appended to "apitwin/<version>" when set.
	UserAgent string
	// Authorize sets the authentication headers of each request. It runs for
	// every attempt, so it may read a credential that changes.
	Authorize func(http.Header)
	// Secrets are values never to appear in an error or a log line (tokens,
	// keys, passwords); each is replaced by [REDACTED], as it is and in the
	// forms it travels in (JSON-escaped, URL-encoded).
	Secrets []string
	// Live, when set, is the set of secrets the client hides, which the
	// client package adds to during the client's life (a session cookie, a
	// refreshed token) and may share between clients; Secrets are added to
	// it. Without it the client has a set of its own (Client.Secrets).
	Live *Secrets
	// ScrubError, when set, cleans the package's own error types of
	// secrets: for an error of one of them it returns the error cleaned
	// (in place or copied) and true, using s for its text and for the
	// errors it wraps (s.Error); for any other error it returns false.
	ScrubError func(err error, s *Scrubber) (error, bool)
	// DecodeError turns a non-2xx answer into the package's own error. body
	// holds at most MaxErrorBody bytes, already redacted.
	DecodeError func(resp *http.Response, body []byte) error
	// IsError, when set, marks a 2xx answer as an error answer all the same:
	// its body goes to DecodeError like any other. It exists for servers
	// that report some failures with a success status (an ERP that answers
	// 200 with an HTML page when its API module is switched off).
	IsError func(resp *http.Response) bool
	// Transient, when set, narrows which 5xx answers are retried: only those
	// it reports as passing failures. It exists for servers that answer
	// deliberate refusals with 500 in their own error shape, which the same
	// request would only meet again. Without it every 5xx but 501 is.
	Transient func(resp *http.Response) bool

	// Hook sees each call start and end (tracing, metrics).
	Hook apicall.Hook
	// Transport wraps the HTTP transport.
	Transport apicall.Transport

	Retry      retry.Policy
	Clock      clock.Clock
	Logger     *slog.Logger
	HTTPClient *http.Client
	TLS        TLSOptions
}

// MaxErrorBody caps how much of an error answer is read and kept.
const MaxErrorBody = 1 << 20

// Client sends requests for one API. It is safe for concurrent use.
type Client struct {
	service   string
	base      string
	ua        string
	auth      func(http.Header)
	decode    func(*http.Response, []byte) error
	isError   func(*http.Response) bool
	transient func(*http.Response) bool
	retry     retry.Policy
	clock     clock.Clock
	log       *slog.Logger
	clean     Cleaner
	hc        *http.Client
	hook      apicall.Hook

	mu   sync.Mutex
	last RateLimit
}

// New checks cfg and builds a Client.
func New(cfg Config) (*Client, error) {
	if cfg.Service == "" {
		return nil, errors.New("rest: Config.Service is required")
	}
	base, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Service, err)
	}
	policy, err := cfg.Retry.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Service, err)
	}
	hc := cfg.HTTPClient
	switch {
	case hc != nil && !cfg.TLS.empty():
		return nil, fmt.Errorf("%s: TLS options cannot be combined with a custom HTTP client; configure its transport instead", cfg.Service)
	case hc == nil:
		tr := cleanhttp.DefaultPooledTransport()
		tr.TLSClientConfig = cfg.TLS.config()
		hc = &http.Client{Transport: tr}
	}
	if cfg.Transport != nil {
		cp := *hc
		base := cp.Transport
		if base == nil {
			base = http.DefaultTransport
		}
		cp.Transport = cfg.Transport(base)
		hc = &cp
	}
	c := &Client{
		hook:      cfg.Hook,
		hc:        withRedirectSwitch(hc),
		service:   cfg.Service,
		base:      base,
		ua:        version.UserAgent,
		auth:      cfg.Authorize,
		decode:    cfg.DecodeError,
		isError:   cfg.IsError,
		transient: cfg.Transient,
		retry:     policy,
		clock:     cfg.Clock,
		log:       cfg.Logger,
	}
	if cfg.UserAgent != "" {
		c.ua += " " + cfg.UserAgent
	}
	if c.clock == nil {
		c.clock = clock.Real()
	}
	if c.decode == nil {
		c.decode = genericError
	}
	c.clean = Cleaner{Secrets: cfg.Live, ScrubError: cfg.ScrubError}
	if c.clean.Secrets == nil {
		c.clean.Secrets = &Secrets{}
	}
	c.clean.Secrets.keep(cfg.Secrets...)
	c.log = c.clean.Logger(c.log)
	return c, nil
}

// WithAuth returns a copy of c that authorizes its requests with authorize
// (Config.Authorize) and hides secrets besides those c was made with
// (Config.Secrets), with c's settings and HTTP client otherwise: a client
// per credential, as a server acting for many callers needs, without
// checking and building each from its Config again. The copy learns its
// own secrets (Secrets.Add) and keeps its own rate limit; c is unchanged.
func (c *Client) WithAuth(authorize func(http.Header), secrets ...string) *Client {
	cp := &Client{
		service: c.service, base: c.base, ua: c.ua, auth: authorize, decode: c.decode, isError: c.isError,
		transient: c.transient, retry: c.retry, clock: c.clock, hc: c.hc, hook: c.hook,
		clean: Cleaner{Secrets: &Secrets{}, ScrubError: c.clean.ScrubError},
	}
	cp.clean.Secrets.keep(append(c.clean.Secrets.fixedValues(), secrets...)...)
	cp.log = c.log
	if c.log != nil {
		if h, ok := c.log.Handler().(*scrubHandler); ok { // it hid c's secrets: the copy's instead
			cp.log = slog.New(&scrubHandler{next: h.next, secrets: cp.clean.Secrets, bound: h.bound})
		}
	}
	return cp
}

func parseBaseURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("invalid base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("invalid base URL %q: want an absolute http or https URL", credential.RedactURL(u))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("invalid base URL %q: it must not carry a query or fragment", credential.RedactURL(u))
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// BaseURL returns the URL paths are joined to.
func (c *Client) BaseURL() string { return c.base }

// RateLimit returns the rate-limit values of the most recent response that
// carried any.
func (c *Client) RateLimit() RateLimit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Request is one API call.
type Request struct {
	Method string
	// Path is joined to the base URL; it must start with "/" and be escaped
	// already (a project path "a/b" as "a%2Fb").
	Path  string
	Query url.Values
	JSON  any        // encoded as the JSON body when non-nil
	Form  url.Values // encoded as a form body when non-nil (JSON wins)
	// RawJSON is sent as the JSON body byte for byte (it wins over JSON and
	// Form), for callers that sign the exact bytes they send.
	RawJSON []byte
	Header  http.Header
	// NoRedirect answers a redirect to the caller instead of following it:
	// a 3xx answer with a Location header is then a successful Response
	// (its body discarded), for flows such as a login form whose redirect
	// and cookies are the answer.
	NoRedirect bool
	// Secrets are values this request carries (a password in its body, a
	// token in its header) that the client does not hold: they are kept out
	// of its error, its hook's outcome and its log lines like the client's.
	Secrets []string
}

// Response is what Do reports of a successful answer.
type Response struct {
	StatusCode int
	Header     http.Header
	RateLimit  RateLimit
}

// Do sends r, retrying as the policy says, and decodes a 2xx answer into out:
// JSON into a pointer, raw bytes into an io.Writer, nothing for nil or 204.
// A non-2xx answer becomes the package's error (wrapped in *RateLimitError for
// 429). Neither the error nor any error it wraps, nor what the hook and the
// logger are given, holds a secret of the client or of the request (see
// Scrub).
func (c *Client) Do(ctx context.Context, r *Request, out any) (res Response, err error) {
	if ctx == nil {
		return Response{}, fmt.Errorf("%s: nil context", c.service)
	}
	if r == nil {
		return Response{}, fmt.Errorf("%s: nil request", c.service)
	}
	if c.hook != nil {
		var done func(apicall.Outcome)
		ctx, done = c.hook(ctx, apicall.Call{Service: c.service, Operation: r.Method + " " + r.Path})
		defer func() {
			retries := 0
			if at, _ := ctx.Value(attemptKey{}).(*attempt); at != nil { // ctx as the call left it
				retries = at.res.Retries
			}
			done(apicall.Outcome{StatusCode: res.StatusCode, Retries: retries, Err: err})
		}()
	}
	at := &attempt{method: r.Method, path: r.Path, idempotent: Idempotent(r.Method, r.Header), noRedirect: r.NoRedirect, secrets: r.Secrets}
	defer func() { // before the hook sees err
		if err != nil {
			err = c.Scrub(err, at.secrets...)
		}
	}()
	body, contentType, err := encodeBody(r)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %s %s: encoding request: %w", c.service, r.Method, r.Path, err)
	}
	target := c.base + r.Path
	if len(r.Query) > 0 {
		target += "?" + r.Query.Encode()
	}
	ctx = context.WithValue(ctx, attemptKey{}, at)
	header := make(http.Header, len(r.Header)+4)
	for k, v := range r.Header {
		header[k] = v
	}
	// What Header.Set would write, the values from one array rather than
	// one each (the keys are canonical already).
	own := []string{c.ua, "application/json", contentType}
	header["User-Agent"] = own[0:1:1]
	if header.Get("Accept") == "" {
		header["Accept"] = own[1:2:2]
	}
	if contentType != "" {
		header["Content-Type"] = own[2:3:3]
	}

	start := time.Now()
	var resp *http.Response // the answer of the last attempt
	rr, err := retry.Do(ctx, c.retry, c.clock, func(ctx context.Context, _ int) (retry.Failure, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body) // a fresh reader for every attempt
		}
		req, err := http.NewRequestWithContext(ctx, r.Method, target, rd)
		if err != nil {
			return retry.Failure{Permanent: true}, err
		}
		req.Header = header // one map for every attempt: an attempt is over before the next begins
		if c.auth != nil {
			c.auth(req.Header) // every attempt: a credential may change between them
			at.secrets = c.clean.Secrets.pin(at.secrets)
		}
		resp, err = c.hc.Do(req)
		if err != nil {
			return c.failure(at, nil, err), err
		}
		if f := c.failure(at, resp, nil); f != (retry.Failure{}) {
			return f, errRetryableAnswer
		}
		return retry.Failure{}, nil
	}, func(n int, wait time.Duration, err error) {
		if c.log != nil {
			c.log.LogAttrs(ctx, slog.LevelInfo, "retrying request",
				slog.String("service", c.service), slog.String("method", at.method), slog.String("path", at.path),
				slog.String("reason", c.Redact(retryReason(resp, answerOrNil(err)), at.secrets...)), slog.Duration("wait", wait), slog.Int("retry", n))
		}
		if resp != nil && err == errRetryableAnswer {
			drainAndClose(resp.Body) // free the connection before waiting
		}
	})
	at.res = rr
	if into := apicall.From(ctx); into != nil {
		*into = apicall.Info{Retries: rr.Retries}
		if resp != nil {
			into.StatusCode, into.Header = resp.StatusCode, resp.Header
			into.RateLimit, into.RequestID = ParseRateLimit(resp.Header, c.clock.Now()), apicall.RequestID(resp.Header)
		}
	}
	if err != nil && err != errRetryableAnswer {
		if resp != nil && resp.Body != nil {
			drainAndClose(resp.Body)
		}
		c.logDone(ctx, at, 0, start, err)
		return Response{}, notRetried(fmt.Errorf("%s: %s %s: %w", c.service, r.Method, r.Path, err), rr)
	}
	rl := ParseRateLimit(resp.Header, c.clock.Now())
	if rl.Known() {
		c.mu.Lock()
		c.last = rl
		c.mu.Unlock()
	}
	res = Response{StatusCode: resp.StatusCode, Header: resp.Header, RateLimit: rl}
	c.logDone(ctx, at, resp.StatusCode, start, nil)

	if !c.success(resp, at) {
		return res, c.errorFrom(resp, at, rl)
	}
	defer drainAndClose(resp.Body)
	if resp.StatusCode/100 == 3 {
		return res, nil
	}
	if err := decodeBody(resp, out); err != nil {
		return res, fmt.Errorf("%s: %s %s: reading response: %w", c.service, r.Method, r.Path, err)
	}
	return res, nil
}

// notRetried says on err why a failure a retry might have cured was not
// sent again, when it was not.
func notRetried(err error, res retry.Result) error {
	if res.GaveUp == "" {
		return err
	}
	return &retry.Error{Retries: res.Retries, Reason: res.GaveUp, Err: err}
}

// errRetryableAnswer marks an attempt whose answer (429, a 5xx) the policy
// may retry; when it does not, the answer is the call's error answer.
var errRetryableAnswer = errors.New("retryable answer")

// answerOrNil is err, or nil for an answer (whose status is the reason).
func answerOrNil(err error) error {
	if err == errRetryableAnswer {
		return nil
	}
	return err
}

// success reports whether an answer is one to decode rather than an error.
func (c *Client) success(resp *http.Response, at *attempt) bool {
	switch {
	case resp.StatusCode/100 == 3:
		return at.noRedirect && resp.Header.Get("Location") != ""
	case resp.StatusCode/100 != 2:
		return false
	}
	return c.isError == nil || !c.isError(resp)
}

// withRedirectSwitch returns a copy of hc whose redirect policy first asks
// whether the request wants its redirects answered rather than followed
// (Request.NoRedirect), then defers to hc's own policy.
func withRedirectSwitch(hc *http.Client) *http.Client {
	cp := *hc
	own := hc.CheckRedirect
	if own == nil { // the usual case: one function for every client, not a closure each
		cp.CheckRedirect = redirectSwitch
		return &cp
	}
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if wantsRedirect(req) {
			return http.ErrUseLastResponse
		}
		return own(req, via)
	}
	return &cp
}

// redirectSwitch is the redirect policy of a client whose HTTP client has
// none: the request's choice, then net/http's default.
func redirectSwitch(req *http.Request, via []*http.Request) error {
	if wantsRedirect(req) {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 { // net/http's own limit, which a non-nil policy replaces
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// wantsRedirect reports whether req's call asked for its redirects to be
// answered rather than followed (Request.NoRedirect).
func wantsRedirect(req *http.Request) bool {
	at, _ := req.Context().Value(attemptKey{}).(*attempt)
	return at != nil && at.noRedirect
}

func encodeBody(r *Request) ([]byte, string, error) {
	switch {
	case r.RawJSON != nil:
		return r.RawJSON, "application/json", nil
	case r.JSON != nil:
		b, err := json.Marshal(r.JSON)
		return b, "application/json", err
	case r.Form != nil:
		return []byte(r.Form.Encode()), "application/x-www-form-urlencoded", nil
	}
	return nil, "", nil
}

func decodeBody(resp *http.Response, out any) error {
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if w, ok := out.(io.Writer); ok {
		_, err := io.Copy(w, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// errorFrom reads an error answer and hands it to the package's decoder.
func (c *Client) errorFrom(resp *http.Response, at *attempt, rl RateLimit) error {
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	drainAndClose(resp.Body)
	body = c.clean.scrubber(at.secrets).Bytes(body)
	err := c.decode(resp, body)
	if readErr != nil {
		err = fmt.Errorf("%w (reading the error body failed: %v)", err, readErr)
	}
	if resp.StatusCode == http.StatusTooManyRequests {
		wait := at.res.Wait
		if rl.RetryAfter > 0 {
			wait = rl.RetryAfter
		}
		err = &RateLimitError{RateLimit: rl, RetryAfter: wait, Retries: at.res.Retries, Reason: at.res.GaveUp, Err: err}
	} else {
		err = notRetried(err, at.res)
	}
	return err
}

func (c *Client) logDone(ctx context.Context, at *attempt, status int, start time.Time, err error) {
	if c.log == nil {
		return
	}
	level := slog.LevelDebug
	attrs := []slog.Attr{
		slog.String("service", c.service), slog.String("method", at.method), slog.String("path", at.path),
		slog.Int("status", status), slog.Int("retries", at.res.Retries), slog.Duration("elapsed", time.Since(start)),
	}
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, slog.String("error", c.Redact(err.Error(), at.secrets...)))
	}
	c.log.LogAttrs(ctx, level, "request", attrs...)
}

// drainAndClose reads what is left of a body (up to a bound) so the
// connection can be reused, then closes it.
func drainAndClose(body io.ReadCloser) {
	if body == nil {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 64<<10))
	_ = body.Close()
}

// genericError is the error of a package that has no decoder of its own.
func genericError(resp *http.Response, body []byte) error {
	return fmt.Errorf("%s %s: %s: %s", resp.Request.Method, resp.Request.URL.Path, resp.Status, Excerpt(string(body)))
}
