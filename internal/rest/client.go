// Package rest is the HTTP core every apitwin REST client stands on: request
// building, authentication headers, rate-limit reading, error decoding
// through a hook of the calling package, secret redaction and TLS settings.
// Its Do runs each request as a call of internal/callrun, which does the
// hook, the retries, the call's apicall.Info and the log lines, the same
// way for every client.
//
// A client package (sourcehost, erp, …) builds one Client from a Config and
// calls Do; everything the package's users configure arrives through Options
// that the package re-exports under its own names. A client whose calls are
// not plain HTTP requests (orch over HTTP, the mcp client's JSON-RPC) sends
// each attempt with Send, and runs its calls through a callrun.Runner.
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
	"github.com/apitwin/apitwin/internal/callrun"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/retry"
)

// Config is what a client package hands to New.
type Config struct {
	// Service names the API in error messages and logs ("sourcehost").
	Service string
	// BaseURL is the absolute URL request paths are joined to, without a
	// trailing slash (New trims one). Its user information (user:password@,
	// or a token as the user) is sent as basic authentication when a
	// request has no Authorization of its own, as net/http does, and is
	// hidden like any secret: no URL, error or log of the client shows it.
	BaseURL string
	// APIPath is the end of BaseURL's path that is the API's own, below
	// the server's root ("/api/v4"): a request marked AtServerRoot goes to
	// BaseURL without it. Empty: the server's root is BaseURL.
	APIPath string
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
	// ResponseHeaderTimeout bounds the wait for an answer's headers on the
	// client's own transport (0: no bound). A custom HTTPClient keeps its
	// own timeouts.
	ResponseHeaderTimeout time.Duration
}

// MaxErrorBody caps how much of an error answer is read and kept.
const MaxErrorBody = 1 << 20

// Client sends requests for one API. It is safe for concurrent use.
type Client struct {
	service   string
	base      string        // without user information: every URL and error the client makes holds none
	root      string        // base without Config.APIPath: where AtServerRoot paths go
	user      *url.Userinfo // the base URL's user information, sent as basic authentication
	ua        string
	auth      func(http.Header)
	decode    func(*http.Response, []byte) error
	isError   func(*http.Response) bool
	transient func(*http.Response) bool
	clock     clock.Clock
	log       *slog.Logger
	clean     Cleaner
	hc        *http.Client
	run       callrun.Runner // by value: one allocation less per client
}

// New checks cfg and builds a Client.
func New(cfg Config) (*Client, error) {
	if cfg.Service == "" {
		return nil, errors.New("rest: Config.Service is required")
	}
	base, user, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Service, err)
	}
	if cfg.APIPath != "" && (!strings.HasPrefix(cfg.APIPath, "/") || !strings.HasSuffix(base, cfg.APIPath)) {
		return nil, fmt.Errorf("%s: the base URL %s does not end in the API's path %q", cfg.Service, base, cfg.APIPath)
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
		tr.ResponseHeaderTimeout = cfg.ResponseHeaderTimeout
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
		hc:        withRedirectSwitch(hc),
		service:   cfg.Service,
		base:      base,
		root:      strings.TrimSuffix(base, cfg.APIPath),
		user:      user,
		ua:        version.UserAgent,
		auth:      cfg.Authorize,
		decode:    cfg.DecodeError,
		isError:   cfg.IsError,
		transient: cfg.Transient,
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
	c.clean.Secrets.keep(userSecret(user))
	c.log = c.clean.Logger(c.log)
	_ = c.run.Init(callrun.Config{ // the policy was checked above
		Service: c.service, Policy: policy, Clock: c.clock, Logger: c.log, Hook: cfg.Hook, Clean: &c.clean,
	})
	return c, nil
}

// Runner is the pipeline c's calls run through, for a client package
// that sends its attempts with Send (the mcp client): the client's hook,
// retry policy, clock and logger, its secrets kept out of what it reports.
func (c *Client) Runner() *callrun.Runner { return &c.run }

// WithAuth returns a copy of c that authorizes its requests with authorize
// (Config.Authorize) and hides secrets besides those c was made with
// (Config.Secrets), with c's settings and HTTP client otherwise: a client
// per credential, as a server acting for many callers needs, without
// checking and building each from its Config again. The copy learns its
// own secrets (Secrets.Add) and keeps its own rate limit; c is unchanged.
func (c *Client) WithAuth(authorize func(http.Header), secrets ...string) *Client {
	cp := &Client{
		service: c.service, base: c.base, root: c.root, user: c.user, ua: c.ua, auth: authorize, decode: c.decode, isError: c.isError,
		transient: c.transient, clock: c.clock, hc: c.hc,
		clean: Cleaner{Secrets: &Secrets{}, ScrubError: c.clean.ScrubError},
	}
	cp.clean.Secrets.keep(append(c.clean.Secrets.fixedValues(), secrets...)...)
	cp.log = c.log
	if c.log != nil {
		if h, ok := c.log.Handler().(*scrubHandler); ok { // it hid c's secrets: the copy's instead
			cp.log = slog.New(&scrubHandler{next: h.next, secrets: cp.clean.Secrets, bound: h.bound})
		}
	}
	cp.run.InitFrom(&c.run, cp.log, &cp.clean)
	return cp
}

// parseBaseURL checks raw and returns it without its user information,
// and that apart: a proxy's basic authentication, or a token given as the
// user (https://TOKEN@host). Kept out of the base, it is in no URL the
// client builds, so in no error net/http makes of one (url.Error keeps
// the user and masks only the password), nor in what prints the base.
func parseBaseURL(raw string) (string, *url.Userinfo, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", nil, fmt.Errorf("invalid base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", nil, fmt.Errorf("invalid base URL %q: want an absolute http or https URL", credential.RedactURL(u))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", nil, fmt.Errorf("invalid base URL %q: it must not carry a query or fragment", credential.RedactURL(u))
	}
	user := u.User
	u.User = nil
	return strings.TrimRight(u.String(), "/"), user, nil
}

// userSecret is the secret of a base URL's user information: the password,
// or the user when there is none (a token given as the user); "" for none.
func userSecret(user *url.Userinfo) string {
	if user == nil {
		return ""
	}
	if pw, ok := user.Password(); ok {
		return pw
	}
	return user.Username()
}

// BaseURL returns the URL paths are joined to, without the user
// information the base URL was given with.
func (c *Client) BaseURL() string { return c.base }

// RateLimit returns the rate-limit values of the most recent response that
// carried any.
func (c *Client) RateLimit() apicall.RateLimit { return c.run.RateLimit() }

// Request is one API call.
type Request struct {
	Method string
	// Path is joined to the base URL (to the server's root when
	// AtServerRoot); it must start with "/" and be escaped already (a
	// project path "a/b" as "a%2Fb").
	Path string
	// AtServerRoot joins Path to the server's root, the base URL without
	// Config.APIPath: for what a server keeps outside its versioned API
	// (an OAuth authorization server's /oauth/...), sent through the same
	// client, with its transport, retries and secrets.
	AtServerRoot bool
	Query        url.Values
	JSON         any        // encoded as the JSON body when non-nil
	Form         url.Values // encoded as a form body when non-nil (JSON wins)
	// RawJSON is sent as the JSON body byte for byte (it wins over JSON and
	// Form), for callers that sign the exact bytes they send.
	RawJSON []byte
	Header  http.Header
	// NoRedirect answers a redirect to the caller instead of following it:
	// a 3xx answer with a Location header is then a successful Response
	// (its body discarded), for flows such as a login form whose redirect
	// and cookies are the answer.
	NoRedirect bool
	// MaxBody, when positive, bounds the body of a successful answer: a
	// longer one fails the call (not retried) rather than being read to
	// its end. Zero reads it all.
	MaxBody int64
	// Secrets are values this request carries (a password in its body, a
	// token in its header) that the client does not hold: they are kept out
	// of its error, its hook's outcome and its log lines like the client's.
	Secrets []string
}

// Response is what Do reports of the answer (of the last attempt): the
// answer decoded, or the one the error describes; zero when none came.
type Response struct {
	StatusCode int
	Header     http.Header
	RateLimit  apicall.RateLimit
}

// Do sends r, retrying as the policy says, and decodes a 2xx answer into out:
// JSON into a pointer, raw bytes into an io.Writer, nothing for nil or 204.
// A non-2xx answer becomes the package's error (in an
// *apicall.RateLimitError for 429, in a *retry.Error when a retry might
// have cured it but it was not sent again). Neither the error nor any error
// it wraps, nor what the hook and the logger are given, holds a secret of
// the client or of the request (see Scrub).
func (c *Client) Do(ctx context.Context, r *Request, out any) (Response, error) {
	if ctx == nil {
		return Response{}, fmt.Errorf("%s: nil context", c.service)
	}
	if r == nil {
		return Response{}, fmt.Errorf("%s: nil request", c.service)
	}
	call := callrun.Call{Method: r.Method, Path: r.Path, Idempotent: Idempotent(r.Method, r.Header), Secrets: r.Secrets}
	if r.NoRedirect {
		ctx = context.WithValue(ctx, noRedirectKey{}, true)
	}
	var p prepared
	perr := c.prepare(r, &p)
	var res Response
	err := c.run.Run(ctx, &call, func(ctx context.Context, _ int) callrun.Outcome {
		if perr != nil {
			return callrun.Outcome{Err: perr}
		}
		var o callrun.Outcome
		res, o = c.send(ctx, &call, &p, out)
		return o
	})
	return res, err
}

// Send sends r once, for a client package that runs its calls through a
// callrun.Runner of its own (orch over HTTP) or through Runner (the mcp
// client): one attempt of call, whose Secrets it adds the learned secrets
// it sent to. It reads the answer as Do does (a 2xx into out, another into
// the package's error), and says what the attempt learnt: a 429 is
// Throttled, a 5xx but 501 Transient (unless Config.Transient says it is
// a refusal), a failure of the network Transient, NotSent or Permanent as
// package callrun says. The outcome's error is not yet cleaned of
// secrets: the runner does that.
func (c *Client) Send(ctx context.Context, call *callrun.Call, r *Request, out any) (Response, callrun.Outcome) {
	var p prepared
	if err := c.prepare(r, &p); err != nil {
		return Response{}, callrun.Outcome{Err: err}
	}
	if r.NoRedirect {
		ctx = context.WithValue(ctx, noRedirectKey{}, true)
	}
	return c.send(ctx, call, &p, out)
}

// prepared is a request ready to send: its body encoded, its URL and its
// header built, once for all its attempts.
type prepared struct {
	r      *Request
	body   []byte
	target string
	header http.Header
}

// prepare encodes r into p.
func (c *Client) prepare(r *Request, p *prepared) error {
	body, contentType, err := encodeBody(r)
	if err != nil {
		return fmt.Errorf("%s: %s %s: encoding request: %w", c.service, r.Method, r.Path, err)
	}
	p.r, p.body, p.target = r, body, c.base+r.Path
	if r.AtServerRoot {
		p.target = c.root + r.Path
	}
	if len(r.Query) > 0 {
		p.target += "?" + r.Query.Encode()
	}
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
	p.header = header
	return nil
}

// send is one attempt of p.
func (c *Client) send(ctx context.Context, call *callrun.Call, p *prepared, out any) (Response, callrun.Outcome) {
	r := p.r
	var rd io.Reader
	if p.body != nil {
		rd = bytes.NewReader(p.body) // a fresh reader for every attempt
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, p.target, rd)
	if err != nil {
		return Response{}, callrun.Outcome{Err: fmt.Errorf("%s: %s %s: %w", c.service, r.Method, r.Path, err)}
	}
	req.Header = p.header // one map for every attempt: an attempt is over before the next begins
	if c.auth != nil {
		c.auth(req.Header) // every attempt: a credential may change between them
		call.Secrets = c.clean.Secrets.pin(call.Secrets)
	}
	if c.user != nil && req.Header.Get("Authorization") == "" {
		// What net/http does with a URL's user information: basic
		// authentication, unless the request has its own.
		pw, _ := c.user.Password()
		req.SetBasicAuth(c.user.Username(), pw)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return Response{}, callrun.Outcome{Err: fmt.Errorf("%s: %s %s: %w", c.service, r.Method, r.Path, err),
			Transient: true, NotSent: callrun.NeverSent(err), Permanent: callrun.Permanent(err)}
	}
	rl := apicall.ParseRateLimit(resp.Header, c.clock.Now())
	res := Response{StatusCode: resp.StatusCode, Header: resp.Header, RateLimit: rl}
	o := callrun.Outcome{Status: resp.StatusCode, Header: resp.Header, RateLimit: rl}
	if !c.success(resp, r.NoRedirect) {
		o.Err = c.errorFrom(resp, call.Secrets)
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			o.Throttled = true
		case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
			o.Transient = c.transient == nil || c.transient(resp)
		}
		return res, o
	}
	defer drainAndClose(resp.Body)
	if resp.StatusCode/100 == 3 {
		return res, o
	}
	if err := decodeBody(resp, out, r.MaxBody); err != nil {
		o.Err = fmt.Errorf("%s: %s %s: reading response: %w", c.service, r.Method, r.Path, err)
	}
	return res, o
}

// success reports whether an answer is one to decode rather than an error.
func (c *Client) success(resp *http.Response, noRedirect bool) bool {
	switch {
	case resp.StatusCode/100 == 3:
		return noRedirect && resp.Header.Get("Location") != ""
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

// noRedirectKey marks the context of a call that wants its redirects
// answered rather than followed (Request.NoRedirect), for the redirect
// policy to read.
type noRedirectKey struct{}

// wantsRedirect reports whether req's call asked for its redirects to be
// answered rather than followed (Request.NoRedirect).
func wantsRedirect(req *http.Request) bool {
	no, _ := req.Context().Value(noRedirectKey{}).(bool)
	return no
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

// ErrUnreadableAnswer marks a successful answer that came but is not what
// the call reads: empty, not JSON of the expected shape, or longer than
// Request.MaxBody. A transport that fails while the body is read (a reset
// connection, a timeout) is not one: its error is the transport's.
var ErrUnreadableAnswer = errors.New("unreadable answer")

// unreadable is err marked as ErrUnreadableAnswer, its text unchanged.
type unreadable struct{ err error }

func (u unreadable) Error() string   { return u.err.Error() }
func (u unreadable) Unwrap() []error { return []error{u.err, ErrUnreadableAnswer} }

// decodeBody reads a successful answer into out, at most max bytes of it
// when max is positive.
func decodeBody(resp *http.Response, out any, max int64) error {
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	body := io.Reader(resp.Body)
	if max > 0 {
		body = &boundedBody{r: resp.Body, max: max}
	}
	if w, ok := out.(io.Writer); ok {
		_, err := io.Copy(w, body)
		return err
	}
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer putBodyBuffer(buf)
	if _, err := buf.ReadFrom(body); err != nil {
		return err
	}
	if buf.Len() == 0 {
		return unreadable{io.EOF} // what json.Decoder said of an empty answer
	}
	if err := json.Unmarshal(buf.Bytes(), out); err != nil {
		return unreadable{err}
	}
	return nil
}

// boundedBody reads an answer's body up to max bytes (Request.MaxBody),
// and fails at the first byte past them.
type boundedBody struct {
	r         io.Reader
	max, read int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if b.read+int64(n) > b.max {
		keep := int(b.max - b.read)
		b.read = b.max
		return keep, unreadable{fmt.Errorf("the answer is longer than %d bytes", b.max)}
	}
	b.read += int64(n)
	return n, err
}

// bodyBuffers lend the buffers JSON answers are read into before they are
// decoded: json.Unmarshal keeps nothing of its input, so one buffer serves
// call after call, where json.NewDecoder made a decoder and grew a buffer
// of its own for every answer (about 2.3 kB for a 1 kB answer).
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest buffer kept for the next answer: a rare
// large answer's buffer goes, rather than stay in the pool.
const maxPooledBody = 64 << 10

func putBodyBuffer(b *bytes.Buffer) {
	if b.Cap() > maxPooledBody {
		return
	}
	b.Reset()
	bodyBuffers.Put(b)
}

// errorFrom reads an error answer, cleaned of the client's secrets and
// of extra, and hands it to the package's decoder.
func (c *Client) errorFrom(resp *http.Response, extra []string) error {
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
	drainAndClose(resp.Body)
	body = c.clean.scrubber(extra).Bytes(body)
	err := c.decode(resp, body)
	if readErr != nil {
		err = fmt.Errorf("%w (reading the error body failed: %v)", err, readErr)
	}
	return err
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
