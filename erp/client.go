package erp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/jsonscan"
	"github.com/apitwin/apitwin/internal/paging"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/retry"
)

// APIPath is where the REST API lives under the ERP's root URL.
const APIPath = "/api/index.php"

// APIKeyHeader is the header that carries an API key.
const APIKeyHeader = "ERPAPIKEY"

// EntityHeader is the header that names the entity (the company, in a
// multi-company ERP) an API call works in; see [WithEntity].
const EntityHeader = "ERPAPIENTITY"

// Client talks to one ERP. It is safe for concurrent use.
type Client struct {
	api    *rest.Client // {root}/api/index.php
	web    *rest.Client // {root}: the web root and its login form
	root   string
	hasKey bool     // for String; the key is the rest clients', behind a pointer (see sourcehost.Client)
	bearer bool     // the key travels as a bearer token
	sess   *session // nil unless WithLogin
}

// The per-call types every apitwin client shares, under the same names in
// each (erp, cloudauth, orch, sourcehost, mcp): package apicall's, and the
// retry policy of package retry.
type (
	// RateLimit is what an answer said about the caller's rate limit (the ERP
	// itself sends none; a proxy in front of it may).
	RateLimit = apicall.RateLimit
	// RateLimitError is the error of a call the server refused for its rate
	// once the client stopped retrying (the retries were spent, or waiting
	// again would pass the context's deadline). errors.Is(err, ErrRateLimited)
	// matches it, and errors.As gives both it and the *Error of the last
	// answer.
	RateLimitError = apicall.RateLimitError
	// RetryPolicy says when and how long the client waits before sending a
	// call again; the zero value means 3 retries with waits from 1 s
	// (doubling) up to 60 s. See the package documentation for which requests
	// are retried.
	RetryPolicy = retry.Policy
)

// Option configures a Client.
type Option func(*options) error

type options struct {
	rest     rest.Config
	key      string
	user     string
	password string
	login    bool
	bearer   bool   // the key goes in Authorization: Bearer
	entity   string // the EntityHeader of every API call, if any
}

func restOption(o rest.Option) Option { return func(s *options) error { return o(&s.rest) } }

// WithAPIKey authenticates every API call with an API key, sent in the
// ERPAPIKEY header. A key belongs to a user and is generated on the user's
// card in the web interface once the REST API module is on.
func WithAPIKey(key string) Option {
	return func(o *options) error {
		if strings.TrimSpace(key) == "" {
			return errors.New("empty API key")
		}
		if strings.ContainsAny(key, "\r\n") {
			return errors.New("API key contains a line break")
		}
		o.key = key
		return nil
	}
}

// WithBearerAPIKey authenticates every API call with an API key sent as
// "Authorization: Bearer <key>", which the ERP reads when the ERPAPIKEY
// header is absent: for proxies and gateways that pass only the standard
// header on. It replaces WithAPIKey; use one or the other.
func WithBearerAPIKey(key string) Option {
	return func(o *options) error {
		if err := WithAPIKey(key)(o); err != nil {
			return err
		}
		o.bearer = true
		return nil
	}
}

// WithLogin authenticates with a web session instead: the client posts the
// login form ({root}/index.php, fields username and password) before its
// first call, sends the session cookie with every call, and logs in again,
// once, when the server says the session has ended. See the package
// documentation for when a refused call is sent again.
func WithLogin(username, password string) Option {
	return func(o *options) error {
		if strings.TrimSpace(username) == "" {
			return errors.New("empty username")
		}
		if password == "" {
			return errors.New("empty password")
		}
		o.user, o.password, o.login = username, password, true
		return nil
	}
}

// WithEntity makes every API call work in entity n (a company of a
// multi-company ERP) by sending n in the [EntityHeader] header: the third
// parties, products, invoices and other records the call lists, reads and
// makes are that entity's. Without it the ERP works in the entity of the
// key's user (entity 1 when there is one company). n must be positive.
func WithEntity(n int) Option {
	return func(o *options) error {
		if n < 1 || n > math.MaxInt32 {
			return fmt.Errorf("entity %d: not a company's id (1 to %d)", n, math.MaxInt32)
		}
		o.entity = strconv.Itoa(n)
		return nil
	}
}

// WithRetry sets the retry policy.
func WithRetry(p RetryPolicy) Option { return restOption(rest.WithRetry(p)) }

// WithoutRetries sends every request once.
func WithoutRetries() Option { return restOption(rest.WithoutRetries()) }

// WithHTTPClient sends requests through hc instead of a pooled default
// client. The client keeps the session cookie itself; hc needs no jar.
func WithHTTPClient(hc *http.Client) Option { return restOption(rest.WithHTTPClient(hc)) }

// WithLogger logs requests (debug), retries (info) and failures (warn). Keys,
// passwords, session cookies and headers are never logged.
func WithLogger(l *slog.Logger) Option { return restOption(rest.WithLogger(l)) }

// WithHook makes h see each call start and end: the place for a span or a
// metric per call, with the service, the operation, the status and the
// retry count (see package apicall).
func WithHook(h apicall.Hook) Option { return restOption(rest.WithHook(h)) }

// WithTransport wraps the client's HTTP transport with t, which then sees
// every attempt on the wire (see package apicall).
func WithTransport(t apicall.Transport) Option { return restOption(rest.WithTransport(t)) }

// WithClock makes the client wait on clk, for example a fake's clock so that
// retry waits in tests take no real time.
func WithClock(clk clock.Clock) Option { return restOption(rest.WithClock(clk)) }

// WithUserAgent appends a product token ("myapp/1.2") to the User-Agent.
func WithUserAgent(product string) Option { return restOption(rest.WithUserAgent(product)) }

// WithCAFile trusts the certificate authorities of a PEM file besides the
// system's.
func WithCAFile(path string) Option { return restOption(rest.WithCAFile(path)) }

// WithInsecureSkipVerify turns TLS certificate verification off.
func WithInsecureSkipVerify() Option { return restOption(rest.WithInsecureSkipVerify()) }

// New returns a client for the ERP whose root URL is baseURL
// ("https://erp.example.com", or with the API path ".../api/index.php",
// which is dropped). Without WithAPIKey or WithLogin the client is
// anonymous: Ping works, API calls are refused.
func New(baseURL string, opts ...Option) (*Client, error) {
	o := options{}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&o); err != nil {
			return nil, fmt.Errorf("erp: %w", err)
		}
	}
	if o.key != "" && o.login {
		return nil, errors.New("erp: WithAPIKey and WithLogin exclude each other; choose one")
	}
	root := strings.TrimSuffix(strings.TrimRight(baseURL, "/"), APIPath)
	c := &Client{hasKey: o.key != "", bearer: o.bearer}
	// The key, or the password and the session's cookies, which change at
	// each login: one set for both REST clients, which keep them out of
	// every error (and the errors it wraps), hook outcome and log line.
	secrets := rest.NewSecrets(o.key, o.password)
	if o.login {
		c.sess = newSession(o.user, o.password, secrets)
	}

	web := o.rest
	web.Service = "erp"
	web.BaseURL = root
	web.DecodeError = decodeError
	web.Live = secrets
	web.ScrubError = scrubError
	wc, err := rest.New(web)
	if err != nil {
		return nil, err
	}

	api := web
	api.BaseURL = root + APIPath
	api.IsError = pageInsteadOfJSON
	api.Transient = notAnAPIRefusal
	switch {
	case o.key != "" && o.bearer:
		api.Authorize = func(h http.Header) { h["Authorization"] = []string{"Bearer " + o.key} }
	case o.key != "":
		api.Authorize = func(h http.Header) { h[APIKeyHeader] = []string{o.key} }
	case o.login:
		api.Authorize = c.sess.authorize
	}
	if o.entity != "" {
		auth := api.Authorize
		api.Authorize = func(h http.Header) {
			if auth != nil {
				auth(h)
			}
			h[EntityHeader] = []string{o.entity}
		}
	}
	ac, err := rest.New(api)
	if err != nil {
		return nil, err
	}
	c.api, c.web, c.root = ac, wc, wc.BaseURL()
	if c.sess != nil {
		c.sess.web = wc
	}
	return c, nil
}

// Ptr returns a pointer to v, for the optional fields of requests:
// &erp.LineRequest{Subprice: erp.Ptr(erp.MustDecimal("9.90"))}.
func Ptr[T any](v T) *T { return &v }

// pageInsteadOfJSON is the API client's IsError: a 2xx answer that is not
// JSON is the page the ERP serves in place of its API when the REST module
// is off.
func pageInsteadOfJSON(resp *http.Response) bool {
	if resp.StatusCode == http.StatusNoContent {
		return false
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return ct != "" && ct != "application/json" && !strings.HasSuffix(ct, "+json")
}

// notAnAPIRefusal is the API client's Transient: a 500 in the ERP's own
// JSON error shape is a refusal its code decided ("Error creating
// product"), which a retry would only meet again; a 500 page from PHP or a
// proxy may pass, and so may a 502, 503 or 504 whatever its body (a
// gateway, or the ERP in maintenance).
func notAnAPIRefusal(resp *http.Response) bool {
	return resp.StatusCode != http.StatusInternalServerError || !isJSON(resp.Header)
}

// BaseURL returns the ERP's root URL, without the user information it
// may have been given (sent as basic authentication, never shown).
func (c *Client) BaseURL() string { return c.root }

// RateLimit returns the rate-limit values of the most recent response that
// carried any.
func (c *Client) RateLimit() RateLimit { return c.api.RateLimit() }

// String describes the client without its credentials. It has a value
// receiver so that a Client printed by value does not show them either.
func (c Client) String() string {
	auth := "none"
	switch {
	case c.hasKey && c.bearer:
		auth = "bearer api key " + rest.Redacted
	case c.hasKey:
		auth = "api key " + rest.Redacted
	case c.sess != nil:
		auth = "login " + c.sess.user + " " + rest.Redacted
	}
	return fmt.Sprintf("erp.Client{BaseURL: %s, Auth: %s}", printableURL(c.root), auth)
}

// GoString is String, so that %#v does not print credentials either.
func (c Client) GoString() string { return c.String() }

// LogValue logs the client as String describes it.
func (c Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// Ping checks that the ERP answers: GET on its root URL, which is
// available when it answers 200.
//
// ERP web: GET /
func (c *Client) Ping(ctx context.Context) error {
	res, err := c.web.Do(ctx, &rest.Request{Method: http.MethodGet, Path: "/", Header: http.Header{"Accept": {"text/html"}}}, nil)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return &Error{StatusCode: res.StatusCode, Method: http.MethodGet, Path: "/", Message: "the web root answered " + http.StatusText(res.StatusCode)}
	}
	return nil
}

// call sends one API request, logging in first and again as the session
// needs. The credential never reaches the error.
func (c *Client) call(ctx context.Context, req *rest.Request, out any) (rest.Response, error) {
	if c.sess == nil {
		return c.api.Do(ctx, req, out) // Do cleans its errors
	}
	// A session's errors are also the login's, and put together here.
	res, err := c.sessionCall(ctx, req, out)
	return res, c.api.Scrub(err, req.Secrets...)
}

func (c *Client) sessionCall(ctx context.Context, req *rest.Request, out any) (rest.Response, error) {
	gen, err := c.sess.ensure(ctx)
	if err != nil {
		return rest.Response{}, err
	}
	res, err := c.api.Do(ctx, req, out)
	if err == nil || !errors.Is(err, ErrUnauthorized) {
		return res, err
	}
	// The session may have ended: log in again (once per ended session,
	// whoever notices first). Send the request again only if that cannot
	// do it twice: an idempotent method, or a refusal at the door, before
	// the API did anything. Otherwise the caller gets the 401, and its own
	// next call finds a fresh session.
	if lerr := c.sess.renew(ctx, gen); lerr != nil {
		return res, fmt.Errorf("%w (logging in again failed: %w)", err, lerr)
	}
	if !rest.Idempotent(req.Method, req.Header) && !refusedAtLogin(err) {
		return res, err
	}
	return c.api.Do(ctx, req, out)
}

// Do sends a request the client does not wrap (yet): method, a path under
// the API root ("/setup/company", "/contacts", escaped already), a query,
// and a JSON body (nil for none). The answer is decoded into out: a pointer
// for JSON, an io.Writer for the raw bytes, or nil to drop it. It gets what
// every call gets: the API key or the session (renewed once it ends),
// retries, rate limits, errors as *Error, and apicall.Capture for its
// status and headers.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("erp: Do: path %q must start with / (it is under the API root)", path)
	}
	_, err := c.call(ctx, &rest.Request{Method: method, Path: path, Query: query, JSON: body}, out)
	return err
}

// do sends one request with a JSON body (or none) and decodes the answer
// into a new T. secrets are those the body carries (a new user's password):
// a server may quote what it was sent, and no error shows them.
func do[T any](ctx context.Context, c *Client, method, path string, q url.Values, body any, secrets ...string) (*T, error) {
	out := new(T)
	if _, err := c.call(ctx, &rest.Request{Method: method, Path: path, Query: q, JSON: body, Secrets: secrets}, out); err != nil {
		return nil, err
	}
	return out, nil
}

// create posts body to a collection and returns the new record: the
// record the server answers with, or, when it answers with the bare id (as
// many ERP versions do), the record read back by id. secrets are those the
// body carries (see do).
func create[T any, PT interface {
	*T
	recordID() ID
}](ctx context.Context, c *Client, collection string, body any, secrets ...string) (*T, error) {
	var out created[T]
	if _, err := c.call(ctx, &rest.Request{Method: http.MethodPost, Path: collection, JSON: body, Secrets: secrets}, &out); err != nil {
		return nil, err
	}
	if out.record != nil && PT(out.record).recordID() != 0 {
		return out.record, nil
	}
	if out.id == 0 {
		return nil, fmt.Errorf("erp: POST %s: the answer carries no id", collection)
	}
	rec, err := do[T](ctx, c, http.MethodGet, collection+"/"+out.id.String(), nil, nil)
	if err != nil {
		return nil, fmt.Errorf("erp: created %s %d, then reading it back failed: %w", strings.TrimPrefix(collection, "/"), out.id, err)
	}
	return rec, nil
}

// created reads the answer of a create: the new record, or its bare id (a
// number or a string holding one).
type created[T any] struct {
	record *T
	id     ID
}

func (c *created[T]) UnmarshalJSON(b []byte) error {
	i := jsonscan.SkipSpace(b, 0)
	if i < len(b) && b[i] == '{' {
		c.record = new(T)
		return json.Unmarshal(b, c.record)
	}
	return c.id.UnmarshalJSON(b)
}

// list fetches one page of the collection at path.
func list[T any](ctx context.Context, c *Client, path string, o *ListOptions, extra url.Values) (*Page[T], error) {
	q, err := o.values(extra)
	if err != nil {
		return nil, err
	}
	p := &Page[T]{Page: o.page(), Limit: o.limit(), Total: -1, PageCount: -1}
	var out any = &p.Items
	var withTotal *paginated[T]
	if o != nil && o.WithTotal {
		withTotal = &paginated[T]{}
		out = withTotal
	}
	res, err := c.call(ctx, &rest.Request{Method: http.MethodGet, Path: path, Query: q}, out)
	p.RateLimit = res.RateLimit
	switch {
	case err != nil && noRecords(err):
		p.Items = nil
	case err != nil:
		return nil, err
	case withTotal != nil:
		p.Items, p.Total, p.PageCount = withTotal.Data, withTotal.Pagination.Total, withTotal.Pagination.PageCount
	}
	p.More = p.Limit > 0 && len(p.Items) >= p.Limit
	return p, nil
}

// all iterates the collection at path a page at a time, on a copy of the
// options so the caller's stay as they were.
func all[T any](ctx context.Context, c *Client, path string, o *ListOptions, extra url.Values) iter.Seq2[*T, error] {
	var lo ListOptions
	if o != nil {
		lo = *o
	}
	if lo.Limit <= 0 {
		lo.Limit = DefaultLimit // the server's "no limit" would fetch everything at once
	}
	lo.WithTotal = false
	return paging.Seq(max(lo.Page, 0), func(page int) ([]*T, int, bool, error) {
		po := lo // each fetch's own: the sequence may be ranged by several goroutines at once
		po.Page = page
		p, err := list[T](ctx, c, path, &po, extra)
		if err != nil {
			return nil, 0, false, err
		}
		return p.Items, page + 1, p.More, nil
	})
}

// deleteRecord sends DELETE path; the answer ({"success":…}, or 1) is
// dropped.
func (c *Client) deleteRecord(ctx context.Context, path string) error {
	_, err := c.call(ctx, &rest.Request{Method: http.MethodDelete, Path: path}, nil)
	return err
}
