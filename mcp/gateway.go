package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/sourcehost"
)

// Gateway is the tool gateway: an http.Handler answering JSON-RPC 2.0 (and
// the Model Context Protocol) at Config.Path, running each method against
// the source-hosting API with the caller's own token.
//
// A request passes these checks in order, each refusal an HTTP error status
// with a JSON-RPC error body (id null): method POST (405), caller address
// (403), bearer token present (401), Content-Type application/json (415),
// body size (413), signature (401), rate limit (429). The token's scopes are
// checked (once per token, remembered) before the first upstream call.
type Gateway struct {
	cfg     Config
	clk     clock.Clock
	ips     *ipFilter
	secret  []byte
	limiter Limiter
	cache   Cache
	log     *slog.Logger
	http    *http.Client // shared by every caller's upstream client
	mcp     http.Handler // the Model Context Protocol side

	mu      sync.Mutex
	callers map[string]*caller // by token digest
}

// maxCallers bounds the upstream clients kept; past it one is dropped (it
// is rebuilt, and its scopes checked again, on its next call).
const maxCallers = 4096

// caller is one token's state: its upstream client and scope check.
type caller struct {
	key string // hex SHA-256 of the token: the limiter's and cache's key
	up  *sourcehost.Client

	mu       sync.Mutex // held across the scope check, so it runs once
	scopesOK time.Time  // the scope check holds until then
}

// NewGateway checks cfg and returns the gateway.
func NewGateway(cfg Config) (*Gateway, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &Gateway{
		cfg: cfg, clk: cfg.Clock, ips: newIPFilter(cfg.Security), secret: []byte(cfg.Security.SigningSecret),
		limiter: cfg.Limiter, cache: cfg.CacheStore, log: cfg.Logger,
		http: cleanhttp.DefaultPooledClient(), callers: make(map[string]*caller),
	}
	if g.clk == nil {
		g.clk = clock.Real()
	}
	if g.limiter == nil && !cfg.RateLimit.Disabled {
		g.limiter = NewMemoryLimiter(g.clk, cfg.RateLimit.PerMinute, cfg.RateLimit.Burst)
	}
	if g.cache == nil {
		g.cache = NewMemoryCache(g.clk, cfg.Cache.MaxEntries)
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	// A bad UpstreamOption (a missing CA file, say) fails here, once,
	// rather than on every caller's first request.
	if _, err := sourcehost.New(cfg.Upstream, g.upstreamOptions("config-check")...); err != nil {
		return nil, fmt.Errorf("mcp: config: upstream options: %w", err)
	}
	g.mcp = g.protocolHandler()
	return g, nil
}

// String never shows the signing secret.
func (g *Gateway) String() string { return "mcp.Gateway(" + g.cfg.Upstream + g.cfg.Path + ")" }

// GoString is String, so that %#v shows no secret.
func (g *Gateway) GoString() string { return g.String() }

// LogValue is String, for slog.
func (g *Gateway) LogValue() slog.Value { return slog.StringValue(g.String()) }

// ServeHTTP answers one HTTP request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != g.cfg.Path {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuse(w, http.StatusMethodNotAllowed, CodeInvalidRequest, "the gateway takes POST only")
		return
	}
	if addr, ok := g.ips.clientAddr(r); !ok || !g.ips.allowed(addr) {
		refuse(w, http.StatusForbidden, CodeUpstreamError, "requests from this address are not allowed")
		return
	}
	token := bearerToken(r.Header)
	if token == "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
		refuse(w, http.StatusUnauthorized, CodeUpstreamError, "Authorization: Bearer <token> is required")
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		refuse(w, http.StatusUnsupportedMediaType, CodeInvalidRequest, "Content-Type must be application/json")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.cfg.MaxBodyBytes))
	if err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			refuse(w, http.StatusRequestEntityTooLarge, CodeInvalidRequest, fmt.Sprintf("the body is larger than %d bytes", g.cfg.MaxBodyBytes))
			return
		}
		refuse(w, http.StatusBadRequest, CodeParseError, "reading the body failed")
		return
	}
	if reason := g.checkSignature(body, r.Header.Get(SignatureHeader)); reason != "" {
		refuse(w, http.StatusUnauthorized, CodeUpstreamError, reason)
		return
	}

	c, err := g.callerFor(token)
	if err != nil {
		refuse(w, http.StatusUnauthorized, CodeUpstreamError, "the bearer token cannot be used: "+err.Error())
		return
	}
	msgs, batch, fatal := decodeBody(body)
	if fatal == nil && batch && len(msgs) > g.cfg.Batch.MaxSize {
		fatal = newError(CodeInvalidRequest, &errorData{Reason: fmt.Sprintf("a batch holds at most %d requests, this one has %d", g.cfg.Batch.MaxSize, len(msgs))})
		msgs = nil
	}
	if !g.admit(w, r.Context(), c, msgs, batch) {
		return
	}
	if fatal != nil {
		writeAnswer(w, http.StatusOK, []response{errorResponse(nil, fatal)}, false)
		return
	}
	if protocolMessages(msgs) {
		// The Model Context Protocol's own methods go to its handler, which
		// applies that protocol's rules (batches among them).
		r.Body = io.NopCloser(bytes.NewReader(body))
		pw := &protocolErrors{ResponseWriter: w}
		g.mcp.ServeHTTP(pw, r)
		pw.finish()
		return
	}
	writeAnswer(w, http.StatusOK, g.runAll(r.Context(), c, msgs), batch)
}

// protocolErrors turns the plain-text refusals of the MCP handler (a
// missing Accept header, a malformed session request) into JSON-RPC errors
// with id null, as every other refusal of the gateway is: a JSON-RPC client
// can read no other kind.
type protocolErrors struct {
	http.ResponseWriter
	status int // a refusal being held back, 0 if none
	text   bytes.Buffer
}

func (p *protocolErrors) WriteHeader(code int) {
	if p.status == 0 && code >= 400 && !strings.HasPrefix(p.Header().Get("Content-Type"), "application/json") {
		p.status = code
		return
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *protocolErrors) Write(b []byte) (int, error) {
	if p.status != 0 {
		if p.text.Len() < 1024 { // a refusal's reason, not a body to keep whole
			p.text.Write(b[:min(len(b), 1024-p.text.Len())])
		}
		return len(b), nil
	}
	return p.ResponseWriter.Write(b)
}

// Flush passes on the streamed answers the handler makes.
func (p *protocolErrors) Flush() {
	if f, ok := p.ResponseWriter.(http.Flusher); ok && p.status == 0 {
		f.Flush()
	}
}

func (p *protocolErrors) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// finish writes the refusal held back, if any.
func (p *protocolErrors) finish() {
	if p.status == 0 {
		return
	}
	h := p.Header()
	h.Del("X-Content-Type-Options")
	h.Del("Content-Length")
	code := CodeInvalidRequest
	if p.status >= 500 {
		code = CodeInternalError
	}
	refuse(p.ResponseWriter, p.status, code, strings.TrimSpace(p.text.String()))
}

// admit spends one rate-limit token per message (one for a body that is not
// a request at all) and sets the X-RateLimit-* headers. A refused request
// gets -32000 with data.status 429, for each request of a batch, and
// Retry-After.
func (g *Gateway) admit(w http.ResponseWriter, ctx context.Context, c *caller, msgs []message, batch bool) bool {
	if g.limiter == nil {
		return true
	}
	d, err := g.limiter.Take(ctx, c.key, max(1, len(msgs)))
	if err != nil {
		// A shared limiter that is down must not take the gateway with it.
		g.log.WarnContext(ctx, "rate limiter failed; letting the request through", "error", err)
		return true
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(d.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(d.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
	if d.Allowed {
		return true
	}
	secs := max(1, int((d.RetryAfter+time.Second-1)/time.Second))
	h.Set("Retry-After", strconv.Itoa(secs))
	limited := newError(CodeUpstreamError, &errorData{Status: http.StatusTooManyRequests,
		Message: fmt.Sprintf("rate limit of %d requests a minute exceeded; retry in %d s", d.Limit, secs)})
	var rs []response
	for i := range msgs {
		if msgs[i].answered() {
			rs = append(rs, errorResponse(msgs[i].id, limited))
		}
	}
	if len(rs) == 0 { // only notifications, or no request at all: still say why
		rs, batch = []response{errorResponse(nil, limited)}, false
	}
	writeAnswer(w, http.StatusTooManyRequests, rs, batch)
	return false
}

// checkSignature returns why the body's signature is not acceptable, or "".
func (g *Gateway) checkSignature(body []byte, header string) string {
	switch policy := g.cfg.Security.Signature; {
	case policy == SignatureOff:
		return ""
	case header == "" && policy == SignatureRequired:
		return SignatureHeader + " is required"
	case header == "":
		return ""
	case !verifySignature(g.secret, body, header):
		return SignatureHeader + " does not match the body"
	}
	return ""
}

// runAll runs the messages of one body, the calls of a batch concurrently
// (at most Batch.Concurrency at once), and returns the answers in the order
// of the requests: none for notifications.
func (g *Gateway) runAll(ctx context.Context, c *caller, msgs []message) []response {
	out := make([]response, len(msgs))
	sem := make(chan struct{}, g.cfg.Batch.Concurrency)
	var wg sync.WaitGroup
	for i := range msgs {
		m := &msgs[i]
		if m.err != nil {
			out[i] = errorResponse(m.id, m.err)
			continue
		}
		run := func() {
			res, e := g.invoke(ctx, c, m.method, m.params)
			if e != nil {
				out[i] = errorResponse(m.id, e)
			} else {
				out[i] = resultResponse(m.id, res)
			}
		}
		if len(msgs) == 1 {
			run()
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			run()
		}()
	}
	wg.Wait()
	rs := out[:0]
	for i := range out {
		if msgs[i].answered() {
			rs = append(rs, out[i])
		}
	}
	return rs
}

// invoke runs one method with its params (a JSON object or nil) for c and
// returns the encoded result. It is shared by the JSON-RPC side and MCP's
// tools/call.
func (g *Gateway) invoke(ctx context.Context, c *caller, method string, raw json.RawMessage) (result json.RawMessage, e *Error) {
	defer func() {
		if p := recover(); p != nil {
			g.log.ErrorContext(ctx, "method panicked", "method", method, "panic", p)
			result, e = nil, newError(CodeInternalError, nil)
		}
	}()
	t := toolsByName()[method]
	if t == nil {
		return nil, newError(CodeMethodNotFound, nil)
	}
	if e := checkParams(raw, t.params); e != nil {
		return nil, e
	}
	p := t.newParams()
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, p); err != nil { // checked already; kept for safety
			return nil, paramError("params", err.Error())
		}
	}
	if v, ok := p.(interface{ validate() *Error }); ok {
		if e := v.validate(); e != nil {
			return nil, e
		}
	}
	ttl, cached := p.caching().ttl()
	var key string
	if cached {
		key = cacheKey(c, method, p)
		if b, ok, err := g.cache.Get(ctx, key); err != nil {
			g.log.WarnContext(ctx, "cache read failed", "error", err)
		} else if ok {
			return b, nil
		}
	}
	if e := g.checkScopes(ctx, c); e != nil {
		return nil, e
	}
	res, err := t.run(ctx, c.up, p)
	if !t.read {
		// Even a failed write may have happened (a timeout after the
		// upstream acted), so the reads it could have changed go.
		if err := g.cache.Invalidate(ctx, p.tags()...); err != nil {
			g.log.WarnContext(ctx, "cache invalidation failed", "error", err)
		}
	}
	if err != nil {
		if errors.Is(err, sourcehost.ErrUnauthorized) {
			c.forgetScopes() // the token may have been revoked: check again next time
		}
		return nil, g.upstreamFailure(ctx, method, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		g.log.ErrorContext(ctx, "encoding a result failed", "method", method, "error", err)
		return nil, newError(CodeInternalError, nil)
	}
	if cached {
		if err := g.cache.Set(ctx, key, b, ttl, p.tags()); err != nil {
			g.log.WarnContext(ctx, "cache write failed", "error", err)
		}
	}
	return b, nil
}

// cacheKey is the digest of the caller, the method and the params other
// than the cache options themselves.
func cacheKey(c *caller, method string, p callParams) string {
	co := p.caching()
	saved := *co
	*co = CacheOptions{}
	canon, _ := json.Marshal(p) // plain structs: cannot fail
	*co = saved
	h := sha256.New()
	h.Write([]byte(c.key))
	h.Write([]byte{0})
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil))
}

// upstreamFailure maps an error of the source-hosting client as the
// specification's table says.
func (g *Gateway) upstreamFailure(ctx context.Context, method string, err error) *Error {
	var se *sourcehost.Error
	if errors.As(err, &se) {
		e := upstreamError(se.StatusCode, se.Message)
		// A rate-limited caller learns how long the source-hosting API
		// asked it to wait (data.retry_after, whole seconds).
		var rl *sourcehost.RateLimitError
		if errors.As(err, &rl) && rl.RetryAfter > 0 {
			secs := min(int64((rl.RetryAfter+time.Second-1)/time.Second), maxRetryAfter)
			e = newError(e.Code, &errorData{Status: se.StatusCode, Message: se.Message, RetryAfter: secs})
		}
		return e
	}
	if ctx.Err() != nil {
		return newError(CodeInternalError, &errorData{Message: "the request was canceled"})
	}
	g.log.WarnContext(ctx, "source-hosting API unreachable", "method", method, "error", err)
	return newError(CodeInternalError, &errorData{Message: "the source-hosting API could not be reached"})
}

// checkScopes makes sure c's token has the required scopes, asking the
// source-hosting API once and remembering the answer.
func (g *Gateway) checkScopes(ctx context.Context, c *caller) *Error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := g.clk.Now()
	if now.Before(c.scopesOK) {
		return nil
	}
	tok, err := c.up.CurrentToken(ctx)
	if err != nil {
		return g.upstreamFailure(ctx, "scope check", err)
	}
	var missing []string
	for _, s := range g.cfg.Security.RequiredScopes {
		if !tok.HasScopes(s) {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return newError(CodeUpstreamError, &errorData{Status: http.StatusForbidden,
			Message: "the token lacks the required scopes: " + strings.Join(missing, ", ")})
	}
	c.scopesOK = now.Add(time.Duration(g.cfg.Security.ScopeCacheSeconds) * time.Second)
	return nil
}

func (c *caller) forgetScopes() {
	c.mu.Lock()
	c.scopesOK = time.Time{}
	c.mu.Unlock()
}

// callerFor returns the state of token, making it on first use.
func (g *Gateway) callerFor(token string) (*caller, error) {
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.callers[key]; c != nil {
		return c, nil
	}
	up, err := sourcehost.New(g.cfg.Upstream, g.upstreamOptions(token)...)
	if err != nil { // the options were tried in NewGateway; only the token is new here
		return nil, err
	}
	if len(g.callers) >= maxCallers {
		for k := range g.callers { // any one: map order is random
			delete(g.callers, k)
			break
		}
	}
	c := &caller{key: key, up: up}
	g.callers[key] = c
	return c, nil
}

// upstreamOptions are the options of a caller's source-hosting client.
func (g *Gateway) upstreamOptions(token string) []sourcehost.Option {
	opts := append([]sourcehost.Option{
		sourcehost.WithHTTPClient(g.http),
		sourcehost.WithClock(g.clk),
		sourcehost.WithUserAgent("apitwin-mcp-gateway/" + version.Version),
		// The caller decides about retries: a 429 reaches it as -32000
		// with data.status 429, which the client package retries.
		sourcehost.WithoutRetries(),
	}, g.cfg.UpstreamOptions...)
	return append(opts, sourcehost.WithToken(token))
}

// bearerToken is the token of "Authorization: Bearer <token>", or "".
func bearerToken(h http.Header) string {
	scheme, token, ok := strings.Cut(h.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	token = strings.TrimSpace(token)
	if strings.ContainsAny(token, " \t") {
		return ""
	}
	return token
}

// refuse answers a request the gateway will not run, with a JSON-RPC error
// (id null) carrying the HTTP status and the reason in data.
func refuse(w http.ResponseWriter, status, code int, reason string) {
	writeAnswer(w, status, []response{errorResponse(nil, newError(code, &errorData{Status: status, Message: reason}))}, false)
}

// writeAnswer writes the answers with status; none at all (a body of only
// notifications) is 204 with no body.
func writeAnswer(w http.ResponseWriter, status int, rs []response, batch bool) {
	b, err := encodeResponses(rs, batch)
	if err != nil {
		b, status = []byte(`{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"},"id":null}`), http.StatusInternalServerError
	}
	if len(b) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}
