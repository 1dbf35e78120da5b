package mcp

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
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/callrun"
	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/retry"
)

// Client calls the gateway's methods over JSON-RPC 2.0. It is safe for
// concurrent use.
type Client struct {
	rest     *rest.Client
	hasToken bool // for String; the token is rest's, in its authorizer
	// sign signs a request with the signing secret, which only it holds:
	// a Client printed by value (fmt prints its fields without String)
	// shows a function's address, not the secret. Nil: unsigned.
	sign func(ts time.Time, nonce, method, path string, body []byte) string
	form SignatureForm // the form sign makes, for String
	path string        // the endpoint's path, which signatures cover
	clk  clock.Clock
	ids  atomic.Int64
}

// The per-call types every apitwin client shares, under the same names in
// each (erp, cloudauth, orch, sourcehost, mcp): package apicall's, and the
// retry policy of package retry.
type (
	// RateLimit is what an answer said about the caller's rate limit (the
	// gateway's X-RateLimit-* headers).
	RateLimit = apicall.RateLimit
	// RateLimitError is the error of a call the server refused for its rate
	// once the client stopped retrying (the retries were spent, or waiting
	// again would pass the context's deadline). errors.Is(err, ErrRateLimited)
	// matches it, and errors.As gives both it and the *Error of the last
	// answer.
	RateLimitError = apicall.RateLimitError
	// RetryPolicy says when and how long the client waits before sending a
	// call again; the zero value means 3 retries with waits from 1 s
	// (doubling) up to 60 s. A call the gateway refused for its rate (-32000
	// with data.status 429, or HTTP 429) was refused before anything ran, so
	// it is sent again even when it writes; it waits the data.retry_after or
	// Retry-After the gateway asked for.
	RetryPolicy = retry.Policy
)

// Option configures a Client.
type Option func(*settings) error

type settings struct {
	rest    rest.Config
	token   string
	secret  string
	form    SignatureForm
	formSet bool
}

func restOption(o rest.Option) Option { return func(s *settings) error { return o(&s.rest) } }

// WithToken sends a source-hosting personal access token as
// "Authorization: Bearer <token>".
func WithToken(token string) Option {
	return func(s *settings) error {
		if strings.TrimSpace(token) == "" || strings.ContainsAny(token, " \t\r\n") {
			return errors.New("token is empty or contains white space")
		}
		s.token = token
		return nil
	}
}

// WithSigningSecret signs every request (X-MCP-Signature): its time, a
// fresh nonce, its method, path and body, as the gateway checks them.
func WithSigningSecret(secret string) Option {
	return func(s *settings) error {
		if secret == "" {
			return errors.New("empty signing secret")
		}
		s.secret = secret
		return nil
	}
}

// WithSignatureForm chooses the form of the signature WithSigningSecret
// makes: SignatureReplayProof (the default, which this gateway always
// accepts) or SignatureBodyOnly (the specification's form, for a gateway
// that knows only that one; this gateway accepts it only with
// security.accept_body_only_signature on). It needs WithSigningSecret.
func WithSignatureForm(f SignatureForm) Option {
	return func(s *settings) error {
		if f != SignatureReplayProof && f != SignatureBodyOnly {
			return fmt.Errorf("unknown signature form %v", f)
		}
		s.form, s.formSet = f, true
		return nil
	}
}

// WithRetry sets the policy for retrying rate-limited calls (and calls
// that never reached the gateway).
func WithRetry(p RetryPolicy) Option { return restOption(rest.WithRetry(p)) }

// WithoutRetries returns a rate-limited call's error at once.
func WithoutRetries() Option { return restOption(rest.WithoutRetries()) }

// WithHTTPClient sends requests through hc instead of a pooled default client.
func WithHTTPClient(hc *http.Client) Option { return restOption(rest.WithHTTPClient(hc)) }

// WithLogger logs calls (debug), retries (info) and failures (warn); never
// a token or secret.
func WithLogger(l *slog.Logger) Option { return restOption(rest.WithLogger(l)) }

// WithHook makes h see each call start and end: the place for a span or a
// metric per call, with the service, the operation, the status and the
// retry count (see package apicall).
func WithHook(h apicall.Hook) Option { return restOption(rest.WithHook(h)) }

// WithTransport wraps the client's HTTP transport with t, which then sees
// every attempt on the wire (see package apicall).
func WithTransport(t apicall.Transport) Option { return restOption(rest.WithTransport(t)) }

// WithClock makes retry waits run on clk, for example a fake's clock.
func WithClock(clk clock.Clock) Option { return restOption(rest.WithClock(clk)) }

// WithUserAgent appends a product token ("myapp/1.2") to the User-Agent.
func WithUserAgent(product string) Option { return restOption(rest.WithUserAgent(product)) }

// WithCAFile trusts the certificate authorities of a PEM file besides the
// system's.
func WithCAFile(path string) Option { return restOption(rest.WithCAFile(path)) }

// WithInsecureSkipVerify turns TLS certificate verification off.
func WithInsecureSkipVerify() Option { return restOption(rest.WithInsecureSkipVerify()) }

// New returns a client for the gateway at baseURL: the server's root
// ("https://gw.example.com", the endpoint is then /mcp), or the endpoint
// itself, wherever the gateway is mounted (".../mcp", "https://example.com/tools/rpc"):
// a URL with a path is used as it is.
func New(baseURL string, opts ...Option) (*Client, error) {
	var s settings
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&s); err != nil {
			return nil, fmt.Errorf("mcp: %w", err)
		}
	}
	endpoint := strings.TrimRight(baseURL, "/")
	if u, err := url.Parse(endpoint); err == nil && u.Path == "" {
		endpoint += DefaultPath
	}
	cfg := s.rest
	cfg.Service = "mcp"
	cfg.BaseURL = endpoint
	cfg.DecodeError = decodeHTTPError
	cfg.ScrubError = scrubError
	if s.token != "" {
		cfg.Secrets = append(cfg.Secrets, s.token)
		bearer := "Bearer " + s.token // made once, not per request
		cfg.Authorize = func(h http.Header) { h.Set("Authorization", bearer) }
	}
	if s.secret != "" {
		cfg.Secrets = append(cfg.Secrets, s.secret)
	} else if s.formSet {
		return nil, errors.New("mcp: WithSignatureForm needs WithSigningSecret")
	}
	rc, err := rest.New(cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{rest: rc, hasToken: s.token != "", clk: cfg.Clock, path: "/"}
	if u, err := url.Parse(endpoint); err == nil && u.EscapedPath() != "" {
		c.path = u.EscapedPath()
	}
	if s.secret != "" {
		secret := []byte(s.secret)
		c.form = s.form
		if s.form == SignatureBodyOnly {
			c.sign = func(_ time.Time, _, _, _ string, body []byte) string { return Sign(secret, body) }
		} else {
			c.sign = func(ts time.Time, nonce, method, path string, body []byte) string {
				return SignRequest(secret, ts, nonce, method, path, body)
			}
		}
	}
	if c.clk == nil {
		c.clk = clock.Real()
	}
	return c, nil
}

// Endpoint is the URL requests go to, without the user information it
// may have been given (sent as basic authentication, never shown).
func (c *Client) Endpoint() string { return c.rest.BaseURL() }

// RateLimit returns what the most recent answer said of the caller's limit.
func (c *Client) RateLimit() RateLimit { return c.rest.RateLimit() }

// String describes the client without its token or secret.
func (c *Client) String() string {
	if c.sign == nil {
		return fmt.Sprintf("mcp.Client(%s, token set: %t, signing: false)", c.Endpoint(), c.hasToken)
	}
	return fmt.Sprintf("mcp.Client(%s, token set: %t, signing: %v)", c.Endpoint(), c.hasToken, c.form)
}

// GoString is String, so %#v does not show secrets either.
func (c *Client) GoString() string { return c.String() }

// Call calls method with params (a struct or map encoded as a JSON object,
// or nil) and decodes the result into result (a pointer, or nil to drop
// it). An error answer is a *Error. method may be one of the Model
// Context Protocol's too (tools/list, tools/call, ping, …), which the
// gateway serves on the same endpoint; one that streams
// (subscriptions/listen) cannot be called this way.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	id := c.ids.Add(1)
	body, err := encodeRequest(method, params, &id)
	if err != nil {
		return err
	}
	return c.exchange(ctx, method, body, id, result)
}

// decodeAnswer reads the answer to the call with id (0: any id), decoding
// its result straight into out (nil to drop it), or returns its error.
func decodeAnswer(b []byte, id int64, out any) error {
	if out == nil {
		out = new(json.RawMessage)
	}
	if decodeResult(b, id, out) {
		return nil
	}
	return decodeAnswerStruct(b, id, out)
}

// decodeAnswerStruct is decodeAnswer through a struct, for every answer
// decodeResult does not read (errors, escaped or repeated members, ids
// that differ): what the walk must agree with, and is fuzzed against.
func decodeAnswerStruct(b []byte, id int64, out any) error {
	a := struct {
		Result resultInto      `json:"result"`
		Error  *Error          `json:"error"`
		ID     json.RawMessage `json:"id"`
	}{Result: resultInto{out: out}}
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("the answer is not a JSON-RPC response: %w", err)
	}
	switch {
	case a.Error != nil:
		a.Error.HTTPStatus = http.StatusOK
		return a.Error
	case !a.Result.seen:
		return errors.New("the answer has neither result nor error")
	case id != 0 && string(a.ID) != strconv.FormatInt(id, 10):
		return fmt.Errorf("the answer's id %s is not the request's %d", a.ID, id)
	}
	return nil
}

// decodeResult is decodeAnswer for the answer the gateway gives a call that
// succeeded, {"jsonrpc":"2.0","result":…,"id":…}, read by a walk over its
// members rather than decoded into a struct (whose result member was then
// checked once more by its own json.Unmarshal). It reports false, before
// or after decoding the result into out, for decodeAnswer to read the
// answer as it always has, whenever the two could differ: an error member
// that is not null, a member named otherwise or twice (the struct folds
// case and keeps the last), an id that is not the call's, a result that
// does not decode into out, bytes that are not JSON.
func decodeResult(b []byte, id int64, out any) bool {
	if !json.Valid(b) {
		return false
	}
	var result, rid []byte
	var seen [3]bool
	if !mcpwire.Members(b, func(key, v []byte) bool {
		var i int
		switch string(key) {
		case "result":
			i, result = 0, v
		case "id":
			i, rid = 1, v
		case "error":
			i = 2
			if string(v) != "null" {
				return false
			}
		case "jsonrpc":
			return true
		default:
			return false
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		return true
	}) || !seen[0] {
		return false
	}
	var idText [20]byte
	if id != 0 && string(rid) != string(strconv.AppendInt(idText[:0], id, 10)) {
		return false
	}
	return json.Unmarshal(result, out) == nil
}

// resultInto decodes a result member into out, noting that there was one.
type resultInto struct {
	out  any
	seen bool
}

func (r *resultInto) UnmarshalJSON(b []byte) error {
	r.seen = true
	return json.Unmarshal(b, r.out)
}

// call is Call for the typed methods.
func call[R any](ctx context.Context, c *Client, method string, params any) (*R, error) {
	var r R
	if err := c.Call(ctx, method, params, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Notify sends method as a notification: it runs, and no answer comes back
// (the gateway answers 204). An error means the request was refused whole
// (auth, signature, rate limit, a body the gateway could not read).
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	body, err := encodeRequest(method, params, nil)
	if err != nil {
		return err
	}
	return c.exchange(ctx, method, body, 0, nil)
}

// exchange sends one request body as a call of the REST core's pipeline
// (hook, retries, apicall.Info, logs, named by the JSON-RPC method), and
// reads the answer to the call with id into out. id 0 is a notification,
// which expects no answer at all.
func (c *Client) exchange(ctx context.Context, method string, body []byte, id int64, out any) error {
	call := callrun.Call{Operation: method}
	return c.rest.Runner().Run(ctx, &call, func(ctx context.Context, _ int) callrun.Outcome {
		return c.exchangeOnce(ctx, &call, method, body, id, out)
	})
}

// exchangeOnce sends the body once. A call the gateway refused for its rate
// (-32000 with data.status 429, in an answer of any status, or an HTTP 429
// of whatever shape) was refused before anything ran, so it is Throttled:
// sent again even when it writes, after the data.retry_after the gateway
// passed on, if any.
func (c *Client) exchangeOnce(ctx context.Context, call *callrun.Call, method string, body []byte, id int64, out any) callrun.Outcome {
	ans, o := c.post(ctx, call, body)
	if o.Err != nil {
		return withCode(o)
	}
	if id == 0 && len(bytes.TrimSpace(ans)) == 0 {
		return o
	}
	switch err := decodeAnswer(ans, id, out); {
	case errors.As(err, new(*Error)):
		o.Err = err // the gateway's answer, already saying all there is
	case err != nil:
		o.Err = fmt.Errorf("mcp: %s: %w", method, err)
	case id == 0:
		o.Err = fmt.Errorf("mcp: %s: the gateway answered a notification", method)
	}
	return withCode(o)
}

// withCode fills what an error answer's *Error says in o: its code, and,
// for a refusal for rate, that it is one and the wait it asked for.
func withCode(o callrun.Outcome) callrun.Outcome {
	var e *Error
	if !errors.As(o.Err, &e) {
		return o
	}
	o.Code = strconv.Itoa(e.Code)
	if e.rateLimited() {
		o.Throttled, o.Wait = true, e.RetryAfter
	}
	return o
}

func rateLimited(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.rateLimited()
}

// acceptHeader is the Accept header of the Model Context Protocol's
// transport, which the gateway's protocol side requires of its methods
// (tools/list, …); the gateway answers every call in JSON.
const acceptHeader = "application/json, text/event-stream"

// unsignedHeader is the header of every unsigned request. The REST core
// only reads a request's header (it copies it into the one it sends), so
// one map serves every call.
var unsignedHeader = http.Header{"Accept": {acceptHeader}}

// post sends one body, signed when a secret is set, as one attempt of call,
// and returns the answer's bytes (none for 204).
func (c *Client) post(ctx context.Context, call *callrun.Call, body []byte) (json.RawMessage, callrun.Outcome) {
	h := unsignedHeader
	if c.sign != nil {
		// Signed per attempt, with a fresh nonce: the gateway accepts a
		// signature once.
		h = http.Header{"Accept": {acceptHeader},
			SignatureHeader: {c.sign(c.clk.Now(), NewNonce(), http.MethodPost, c.path, body)}}
	}
	var ans answerBytes
	_, o := c.rest.Send(ctx, call, &rest.Request{Method: http.MethodPost, RawJSON: body, Header: h}, &ans)
	return ans.b, o
}

// answerBytes takes an answer's body as it is, for decodeAnswer to read:
// the REST core copies a body into an io.Writer rather than decoding it
// (into a json.RawMessage, which scanned it and copied it once more).
type answerBytes struct{ b []byte }

func (a *answerBytes) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// ReadFrom reads the body whole into one buffer that grows as needed, so
// that io.Copy lends no buffer of its own.
func (a *answerBytes) ReadFrom(r io.Reader) (int64, error) {
	if a.b == nil {
		a.b = make([]byte, 0, 1024)
	}
	start := len(a.b)
	var err error
	a.b, err = mcpwire.AppendRead(a.b, r)
	return int64(len(a.b) - start), err
}

type wireRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	ID      *int64          `json:"id,omitempty"`
}

// encodeRequest encodes one request; id nil makes a notification. The
// bytes are json.Marshal's of the wireRequest, written out directly when
// the method name needs no escaping (json.Marshal would compact the params,
// which it made compact already, once more).
func encodeRequest(method string, params any, id *int64) ([]byte, error) {
	r, err := newWireRequest(method, params, id)
	if err != nil {
		return nil, err
	}
	if !plainMethod(method) {
		return json.Marshal(r)
	}
	b := make([]byte, 0, len(`{"jsonrpc":"2.0","method":"","params":,"id":}`)+len(method)+len(r.Params)+20)
	b = append(b, `{"jsonrpc":"2.0","method":"`...)
	b = append(b, method...)
	b = append(b, '"')
	if len(r.Params) > 0 {
		b = append(append(b, `,"params":`...), r.Params...)
	}
	if id != nil {
		b = strconv.AppendInt(append(b, `,"id":`...), *id, 10)
	}
	return append(b, '}'), nil
}

// plainMethod reports whether json.Marshal writes method as it is between
// quotes: printable ASCII, nothing it escapes.
func plainMethod(method string) bool {
	for i := 0; i < len(method); i++ {
		if c := method[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func newWireRequest(method string, params any, id *int64) (wireRequest, error) {
	r := wireRequest{JSONRPC: mcpwire.Version, Method: method, ID: id}
	if method == "" {
		return r, errors.New("mcp: empty method name")
	}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return r, fmt.Errorf("mcp: %s: encoding params: %w", method, err)
		}
		switch {
		case string(b) == "null": // a nil pointer: no params
		case b[0] != '{':
			return r, fmt.Errorf("mcp: %s: params must encode as a JSON object, not %s", method, kindOf(b))
		default:
			r.Params = b
		}
	}
	return r, nil
}

func kindOf(b []byte) string {
	switch b[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	}
	return "a scalar"
}

// answer is one decoded response.
type answer struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
	ID     json.RawMessage `json:"id"`
}

// scrubError is the REST core's ScrubError: an *Error is cleaned of the
// token and signing secret in place, so errors.As still finds it.
func scrubError(err error, s *rest.Scrubber) (error, bool) {
	e, ok := err.(*Error)
	if !ok {
		return err, false
	}
	e.Message, e.Detail, e.Param, e.Reason = s.String(e.Message), s.String(e.Detail), s.String(e.Param), s.String(e.Reason)
	e.Data = s.Bytes(e.Data)
	return e, true
}

// decodeHTTPError turns a non-2xx answer into a *Error: the JSON-RPC error
// the gateway sent (the first, for a batch), or, for a body that is not one
// (a proxy's page), an error with Code 0 and the HTTP status.
func decodeHTTPError(resp *http.Response, body []byte) error {
	var one answer
	var many []answer
	switch {
	case json.Unmarshal(body, &one) == nil && one.Error != nil:
		one.Error.HTTPStatus = resp.StatusCode
		return one.Error
	case json.Unmarshal(body, &many) == nil && len(many) > 0 && many[0].Error != nil:
		many[0].Error.HTTPStatus = resp.StatusCode
		return many[0].Error
	}
	return &Error{Message: http.StatusText(resp.StatusCode), Status: resp.StatusCode, Detail: rest.Excerpt(string(body)), HTTPStatus: resp.StatusCode}
}
