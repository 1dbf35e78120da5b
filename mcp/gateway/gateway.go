package gateway

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
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// Gateway is the tool gateway: an http.Handler answering JSON-RPC 2.0 (and
// the Model Context Protocol) at Config.Path, running each method against
// the source-hosting API with the caller's own token.
//
// A request passes these checks in order, each refusal an HTTP error status
// with a JSON-RPC error body (id null): its Origin, when it has one (403;
// see AllowedOrigins; a CORS preflight of an allowed origin is answered
// 204), method POST (405), caller address
// (403), bearer token present (401), Content-Type application/json (415),
// body size (413), signature (401), the token verified with the
// source-hosting API or remembered (401 with WWW-Authenticate when it is
// not valid, 403 when it lacks scopes, 429 when the caller's address has
// caused too many verifications), batch length (400 before the batch is
// decoded), rate limit of the verified token (429).
type Gateway struct {
	// cfg is the configuration without its secrets (the signing secret
	// cleared, the upstream URL's credentials redacted): a Gateway printed
	// by value, whose fields fmt prints without String, shows none.
	cfg Config
	clk clock.Clock
	ips *ipFilter
	// origins decides which browser pages may call (origin.go).
	origins *originPolicy
	// metadata is where the protected-resource metadata is (resource.go).
	metadata resourceMetadata
	// hooks decides where configure_webhook may send hooks.
	hooks *hookGuard
	// secret returns the signing secret, which only it holds (a function
	// prints as an address).
	secret func() []byte
	store  Store          // the shared store with memory behind it, or memory alone
	shared *fallbackStore // nil without a shared store
	log    *slog.Logger
	// upstream is the source-hosting client every caller's is a copy of
	// (sourcehost.Client.WithToken), with no token of its own: its HTTP
	// client and settings are shared by all, and it asks the
	// authorization server about OAuth tokens (oauth.go).
	upstream *sourcehost.Client
	// mcp is the Model Context Protocol side: g's own transport in front
	// of the server every gateway shares, which is made at the first MCP
	// request of the process (see protocolServer).
	mcp     http.Handler
	metrics metrics

	verifying flights

	mu      sync.Mutex
	callers map[string]*caller // by token digest
}

// maxCallers bounds the upstream clients kept; past it one is dropped (it
// is rebuilt on its next call).
const maxCallers = 4096

// caller is one verified request's caller.
type caller struct {
	digest string   // hex SHA-256 of the token: the key of its verdict and cached answers
	who    *verdict // the token's id and user
	up     *sourcehost.Client
	// seen is the good verdict last read or made for the token, with its
	// bytes as the store holds them: while it is fresh, the next request
	// reads the verdict and takes its rate limit in one step when the
	// store still holds those very bytes (see verify).
	seen atomic.Pointer[seenVerdict]
}

// seenVerdict is a verdict with the bytes it was read from or stored as.
type seenVerdict struct {
	v   *verdict
	raw []byte
}

// New checks cfg and returns the gateway.
func New(cfg Config) (*Gateway, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &Gateway{
		cfg: cfg, clk: cfg.Clock, ips: newIPFilter(cfg.Security), origins: newOriginPolicy(cfg.AllowedOrigins), hooks: newHookGuard(cfg), log: cfg.Logger, callers: make(map[string]*caller),
		metadata: newResourceMetadata(cfg.Resource.URL),
	}
	secret := []byte(cfg.Security.SigningSecret)
	g.secret = func() []byte { return secret }
	g.cfg.Security.SigningSecret = ""
	g.cfg.Upstream = redactUpstream(cfg.Upstream)
	if g.clk == nil {
		g.clk = clock.Real()
	}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	g.mcp = g.protocolHandler()
	memory := NewMemoryStore(g.clk, cfg.Memory)
	g.store = memory
	if cfg.Store != nil {
		g.shared = &fallbackStore{shared: cfg.Store, memory: memory, clk: g.clk, log: g.log,
			onFail: func() { g.metrics.storeFailures.Add(1) }}
		g.store = g.shared
	}
	// A bad UpstreamOption (a missing CA file, say) fails here, once,
	// rather than on every caller's first request.
	opts := []sourcehost.Option{
		sourcehost.WithClock(g.clk),
		sourcehost.WithUserAgent("apitwin-mcp-gateway/" + version.Version),
		// The caller decides about retries: a 429 reaches it as -32000
		// with data.status 429, which the client package retries.
		sourcehost.WithoutRetries(),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, sourcehost.WithHTTPClient(cfg.HTTPClient))
	} else {
		// The client's own pooled transport, with a bound on the wait for
		// an answer's headers, so that an upstream that takes calls and
		// never answers cannot hold a goroutine and a connection per call
		// for as long as callers wait. Its TLS settings stay open to
		// UpstreamOptions (a CA file).
		opts = append(opts, sourcehost.WithResponseHeaderTimeout(cfg.upstreamHeaderTimeout()))
		if cfg.UpstreamCAFile != "" {
			opts = append(opts, sourcehost.WithCAFile(cfg.UpstreamCAFile))
		}
	}
	g.upstream, err = sourcehost.New(cfg.Upstream, append(opts, cfg.UpstreamOptions...)...)
	if err != nil {
		return nil, fmt.Errorf("gateway: config: upstream options: %w", err)
	}
	return g, nil
}

// String never shows the signing secret, nor credentials in the upstream
// URL.
func (g *Gateway) String() string {
	return "gateway.Gateway(" + g.cfg.Upstream + g.cfg.Path + ")"
}

// GoString is String, so that %#v shows no secret.
func (g *Gateway) GoString() string { return g.String() }

// LogValue is String, for slog.
func (g *Gateway) LogValue() slog.Value { return slog.StringValue(g.String()) }

// ClientAddr returns the address of r's caller as the gateway judges it:
// RemoteAddr, or, when that is a trusted proxy (Security.TrustedProxies),
// the nearest X-Forwarded-For hop that is not one. It reports false for an
// address that cannot be parsed, which the gateway refuses. A program
// serving the gateway logs this address rather than RemoteAddr, which
// behind a proxy is the proxy's.
func (g *Gateway) ClientAddr(r *http.Request) (netip.Addr, bool) { return g.ips.clientAddr(r) }

// ServeHTTP answers one HTTP request.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != g.cfg.Path {
		if g.isMetadataPath(r.URL.Path) {
			if !metadataCORS(w, r) { // a preflight: answered
				g.serveMetadata(w, r)
			}
			return
		}
		http.NotFound(w, r)
		return
	}
	g.metrics.requests.Add(1)
	if g.cors(w, r) { // a refused origin, or a preflight
		return
	}
	if rf := g.serve(w, r); rf != nil {
		g.metrics.refused.Add(1)
		g.challenge(rf, r)
		rf.write(w)
	}
}

// serve runs the checks and the request, or returns the refusal to write.
func (g *Gateway) serve(w http.ResponseWriter, r *http.Request) *refusal {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", corsAllowMethods)
		return &refusal{status: http.StatusMethodNotAllowed, code: mcp.CodeInvalidRequest, reason: "the gateway takes POST only"}
	}
	addr, ok := g.ips.clientAddr(r)
	if !ok || !g.ips.allowed(addr) {
		return &refusal{status: http.StatusForbidden, code: mcp.CodeUpstreamError, reason: "requests from this address are not allowed"}
	}
	token := bearerToken(r.Header)
	if token == "" {
		g.metrics.tokensRefused.Add(1)
		return &refusal{status: http.StatusUnauthorized, code: mcp.CodeUpstreamError, authHeader: `Bearer realm="mcp"`,
			reason: "Authorization: Bearer <token> is required"}
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		return &refusal{status: http.StatusUnsupportedMediaType, code: mcp.CodeInvalidRequest, reason: "Content-Type must be application/json"}
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, g.cfg.MaxBodyBytes), r.ContentLength)
	if err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			return &refusal{status: http.StatusRequestEntityTooLarge, code: mcp.CodeInvalidRequest, reason: fmt.Sprintf("the body is larger than %d bytes", g.cfg.MaxBodyBytes)}
		}
		return &refusal{status: http.StatusBadRequest, code: mcp.CodeParseError, reason: "reading the body failed"}
	}
	ctx := r.Context()
	if rf := g.checkSignature(ctx, r, body); rf != nil {
		return rf
	}
	digest := tokenDigest(token)
	// The request's rate limit (one request per message of a batch) is
	// taken with the verdict's read when it can be, so that a call costs
	// one round trip to Redis, batch or not; else admit takes it.
	early := earlyRead{body: body, maxBatch: g.cfg.Batch.MaxSize}
	vd, rf := g.verify(ctx, token, digest, addr, !g.cfg.RateLimit.Disabled, &early)
	if rf != nil {
		return rf
	}
	c, err := g.callerFor(token, digest, vd.who, vd.raw, vd.up)
	if err != nil {
		return &refusal{status: http.StatusUnauthorized, code: mcp.CodeUpstreamError, reason: "the bearer token cannot be used: " + err.Error()}
	}
	msgs, batch, fatal := early.msgs, early.batch, early.fatal
	if !early.decoded {
		msgs, batch, fatal = decodeBody(body, g.cfg.Batch.MaxSize)
	}
	if !g.admit(w, ctx, c, msgs, batch, vd.taken, vd.n) {
		return nil
	}
	if fatal != nil {
		writeAnswer(w, http.StatusOK, []response{errorResponse(nil, fatal)}, false)
		return nil
	}
	if protocolMessages(msgs) {
		// The Model Context Protocol's own methods go to its handler, which
		// applies that protocol's rules (batches among them).
		r.Body = io.NopCloser(bytes.NewReader(body))
		pw := &protocolErrors{ResponseWriter: w}
		g.mcp.ServeHTTP(pw, r.WithContext(withCaller(ctx, g, c)))
		pw.finish()
		return nil
	}
	writeAnswer(w, http.StatusOK, g.runAll(r, c, msgs, early.mc), batch)
	return nil
}

// earlyRead is the work serve may do before a caller is verified, for a
// token this gateway has seen verified and whose verdict is still fresh
// (verify asks for it only then, never for a token it does not know): the
// body decoded, and its call, when it is the only one, prepared, so that
// its cached answer is read in the same step of the store as the verdict
// and the rate limit (one round trip to Redis for a cached call). Nothing
// of it is used unless the caller is then verified: the answer is read
// only when the store still holds the very verdict known, and the call
// runs, as always, only once admitted.
type earlyRead struct {
	body     []byte
	maxBatch int

	decoded bool // msgs, batch and fatal are decodeBody's
	msgs    []message
	batch   bool
	fatal   *mcp.Error
	mc      *methodCall // msgs[0] prepared, when it is a call of the gateway's own alone
}

// key decodes the body and prepares its call, and returns its cached
// answer's key, or "" when it has none (not one call of the gateway's own,
// or one that does not ask for the cache).
func (e *earlyRead) key(digest string) string {
	e.msgs, e.batch, e.fatal = decodeBody(e.body, e.maxBatch)
	e.decoded = true
	if e.fatal != nil || len(e.msgs) != 1 {
		return ""
	}
	m := &e.msgs[0]
	if m.invalid || m.err != nil || protocolMethods[m.method] {
		return ""
	}
	mc, ok := prepareSafely(digest, m.method, m.params)
	if !ok {
		return ""
	}
	e.mc = mc
	if !mc.cached {
		return ""
	}
	return mc.key
}

// prepareSafely is prepareCall outside invoke's recover: a panic (a bug)
// leaves the call to be prepared again there, and answered as invoke
// answers a panic.
func prepareSafely(digest, method string, raw json.RawMessage) (mc *methodCall, ok bool) {
	defer func() {
		if recover() != nil {
			mc, ok = nil, false
		}
	}()
	m := prepareCall(digest, method, raw)
	return &m, true
}

// isJSON reports whether a Content-Type is application/json, parameters
// or not.
func isJSON(contentType string) bool {
	if contentType == "application/json" { // as nearly every client writes it: no parsing
		return true
	}
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "application/json"
}

// readAll is io.ReadAll of r into a buffer made for size bytes (a body's
// Content-Length, -1 when it is not known), so that a body of known size is
// read without growing its buffer, nor a buffer larger than it made. The
// buffer made before anything is read is at most maxReadHint: a
// Content-Length is only what the caller says, and the bytes behind a
// larger one are paid for as they come.
func readAll(r io.Reader, size int64) ([]byte, error) {
	n := int64(512) // a guess, for a body of unknown size
	if size >= 0 {
		n = size + 1 // +1: room for the read that meets the end
	}
	return mcpwire.AppendRead(make([]byte, 0, min(n, maxReadHint)), r)
}

const maxReadHint = 64 << 10

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
	code := mcp.CodeInvalidRequest
	if p.status >= 500 {
		code = mcp.CodeInternalError
	}
	refuse(p.ResponseWriter, p.status, code, strings.TrimSpace(p.text.String()))
}

// admit spends one rate-limit token of the verified caller per message
// (one for a body that is not a request at all) and sets the
// X-RateLimit-* headers. A refused request gets -32000 with data.status
// 429, for each request of a batch, and Retry-After. With taken > 0, the
// bucket was already asked for that many with the verdict's read, and d is
// its answer.
func (g *Gateway) admit(w http.ResponseWriter, ctx context.Context, c *caller, msgs []message, batch bool, d RateDecision, taken int) bool {
	if g.cfg.RateLimit.Disabled {
		return true
	}
	if need := max(1, len(msgs)); taken == 0 || need != taken {
		// (taken was counted from the same decoded body; a mismatch would
		// be a bug, answered by asking.)
		var err error
		d, err = g.store.Take(ctx, c.identity(), need, g.rate(), g.clk.Now())
		if err != nil {
			// Even memory failed (it cannot today): let the request through
			// rather than fail every caller.
			g.log.WarnContext(ctx, "rate limiter failed; letting the request through", "error", err)
			return true
		}
	}
	h := w.Header()
	// What Header.Set would write (X-RateLimit-Limit and so on, in
	// canonical form), the values from one array rather than one each.
	vs := []string{strconv.Itoa(d.Limit), strconv.Itoa(d.Remaining), strconv.FormatInt(d.Reset.Unix(), 10)}
	h["X-Ratelimit-Limit"], h["X-Ratelimit-Remaining"], h["X-Ratelimit-Reset"] = vs[0:1:1], vs[1:2:2], vs[2:3:3]
	if d.Allowed {
		return true
	}
	g.metrics.rateLimited.Add(1)
	g.metrics.refused.Add(1)
	secs := wholeSeconds(d.RetryAfter)
	h.Set("Retry-After", strconv.Itoa(secs))
	limited := newError(mcp.CodeUpstreamError, &mcpwire.ErrorData{Status: http.StatusTooManyRequests,
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

// rate is the per-token rate limit's shape.
func (g *Gateway) rate() Rate {
	return Rate{PerMinute: g.cfg.RateLimit.PerMinute, Burst: g.cfg.RateLimit.Burst}
}

// runAll runs the messages of one body of r, the calls of a batch
// concurrently (at most Batch.Concurrency at once), and returns the answers
// in the order of the requests: none for notifications. A method of the
// Model Context Protocol among them is run by that protocol's handler,
// alone, so that it is answered as it would be on its own.
//
// mc, when not nil, is the only message's call, prepared already (serve's
// earlyRead).
func (g *Gateway) runAll(r *http.Request, c *caller, msgs []message, mc *methodCall) []response {
	ctx := r.Context()
	if len(msgs) == 1 { // alone: no goroutine, semaphore or closure
		m := &msgs[0]
		var res response
		switch {
		case !m.invalid && protocolMethods[m.method]:
			res = g.protocolCall(r, c, m)
		case m.err != nil:
			res = errorResponse(m.id, m.err)
		default:
			if b, e := g.invokeCall(ctx, c, m.method, m.params, mc); e != nil {
				res = errorResponse(m.id, e)
			} else {
				res = resultResponse(m.id, b)
			}
		}
		if !m.answered() {
			return nil
		}
		return []response{res}
	}
	out := make([]response, len(msgs))
	sem := make(chan struct{}, g.cfg.Batch.Concurrency)
	var wg sync.WaitGroup
	for i := range msgs {
		m := &msgs[i]
		protocol := !m.invalid && protocolMethods[m.method]
		if m.err != nil && !protocol {
			out[i] = errorResponse(m.id, m.err)
			continue
		}
		run := func() {
			if protocol {
				out[i] = g.protocolCall(r, c, m)
				return
			}
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
func (g *Gateway) invoke(ctx context.Context, c *caller, method string, raw json.RawMessage) (json.RawMessage, *mcp.Error) {
	return g.invokeCall(ctx, c, method, raw, nil)
}

// methodCall is a call with its params checked and decoded, and its cached
// answer's key: what invoke runs.
type methodCall struct {
	t      *tool
	p      any        // t's params
	e      *mcp.Error // why the call is refused (unknown method, params), or nil
	ttl    time.Duration
	cached bool
	key    string   // the cached answer's key, when cached
	tags   []string // t's tags of p, when cached
	marks  []string // the keys of the marks writes to tags leave, when cached
	// read is set when the cached answer was read already, with the
	// caller's verdict (serve's earlyRead): found and hit are what was
	// there, and marked the marks when it was not found.
	read   bool
	found  bool
	hit    []byte
	marked [][]byte
}

// prepareCall checks and decodes the params of method for the caller with
// digest. It only reads its arguments.
func prepareCall(digest, method string, raw json.RawMessage) methodCall {
	t := toolsByName()[method]
	if t == nil {
		return methodCall{e: newError(mcp.CodeMethodNotFound, nil)}
	}
	if e := checkParams(raw, t.params); e != nil {
		return methodCall{e: e}
	}
	p := t.newParams()
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, p); err != nil { // checked already; kept for safety
			return methodCall{e: paramError("params", err.Error())}
		}
	}
	if t.check != nil {
		if e := t.check(p); e != nil {
			return methodCall{e: e}
		}
	}
	mc := methodCall{t: t, p: p}
	if t.cache != nil {
		if mc.ttl, mc.cached = cacheTTL(t.cache(p)); mc.cached {
			mc.key = cacheKey(digest, method, t.cache(p), p)
			mc.tags = t.tags(p)
			mc.marks = markKeys(mc.tags)
		}
	}
	return mc
}

// invokeCall is invoke of mc, or, when mc is nil, of method and raw
// prepared here.
func (g *Gateway) invokeCall(ctx context.Context, c *caller, method string, raw json.RawMessage, mc *methodCall) (result json.RawMessage, e *mcp.Error) {
	defer func() {
		if p := recover(); p != nil {
			g.log.ErrorContext(ctx, "method panicked", "method", method, "panic", p)
			result, e = nil, newError(mcp.CodeInternalError, nil)
		}
	}()
	g.metrics.calls.Add(1)
	if mc == nil {
		prepared := prepareCall(c.digest, method, raw)
		mc = &prepared
	}
	if mc.e != nil {
		return nil, mc.e
	}
	t, p, ttl, cached, key, tags := mc.t, mc.p, mc.ttl, mc.cached, mc.key, mc.tags
	if t.hookURL != nil {
		// A call that has the source-hosting API send requests of its own
		// goes only where the configuration allows.
		if e := g.hooks.check(ctx, t.hookURL(p)); e != nil {
			g.log.WarnContext(ctx, "hook URL refused", "method", method, "reason", e.Reason)
			return nil, e
		}
	}
	// marked is what the marks of the writes to tags were before the
	// upstream was asked (see markWrite); keep says they could be read,
	// so that the answer may be stored if they are the same after.
	var marked [][]byte
	keep := false
	if cached {
		b, ok, marks, err := mc.hit, mc.found, mc.marked, error(nil)
		if !mc.read {
			b, ok, marks, err = getMarked(ctx, g.store, key, mc.marks)
		}
		if err != nil {
			g.log.WarnContext(ctx, "cache read failed", "error", err)
		} else if ok {
			g.metrics.cacheHits.Add(1)
			return b, nil
		}
		marked, keep = marks, err == nil
	}
	g.metrics.upstreamCalls.Add(1)
	res, err := t.run(ctx, c.up, p)
	if !t.read() {
		// Even a failed write may have happened (a timeout after the
		// upstream acted), so the reads it could have changed go. The
		// marks first: a read storing its answer after the Invalidate
		// then sees them.
		tags = t.tags(p) // a write: not cached, so not prepared
		g.markWrite(ctx, tags)
		if err := g.store.Invalidate(ctx, tags...); err != nil {
			g.log.WarnContext(ctx, "cache invalidation failed", "error", err)
		}
	}
	if err != nil {
		if errors.Is(err, sourcehost.ErrUnauthorized) {
			g.forgetToken(ctx, c) // it may have been revoked: verify it again next time
		}
		return nil, g.upstreamFailure(ctx, method, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		g.log.ErrorContext(ctx, "encoding a result failed", "method", method, "error", err)
		return nil, newError(mcp.CodeInternalError, nil)
	}
	if keep {
		// Stored only while the marks are those read before the upstream
		// was asked: a write to the same tags since may have dropped the
		// cached reads before this answer, read before the write, was
		// stored, and it must not stay.
		if _, err := setMarked(ctx, g.store, key, b, ttl, tags, mc.marks, marked); err != nil {
			g.log.WarnContext(ctx, "cache write failed", "error", err)
		}
	}
	return b, nil
}

// writeMarkTTL is how long a write's mark is kept: as long as a cached
// answer can live.
const writeMarkTTL = maxCacheTTL * time.Second

// markWrite records a write to tags: a fresh random mark per tag, which a
// read running meanwhile finds changed.
func (g *Gateway) markWrite(ctx context.Context, tags []string) {
	for _, t := range tags {
		if err := g.store.Set(ctx, markKey(t), []byte(mcp.NewNonce()), writeMarkTTL); err != nil {
			g.log.WarnContext(ctx, "recording a write failed", "error", err)
		}
	}
}

// markKeys are the keys of the marks of the writes to tags.
func markKeys(tags []string) []string {
	keys := make([]string, len(tags))
	for i, t := range tags {
		keys[i] = markKey(t)
	}
	return keys
}

// markKey is the key of the mark of the writes to tag.
func markKey(tag string) string { return "wr:" + tag }

// cacheKey is the digest of the caller, the method and the params p other
// than the cache options themselves, co (which p holds).
func cacheKey(digest, method string, co *mcp.CacheOptions, p any) string {
	saved := *co
	*co = mcp.CacheOptions{}
	canon, _ := json.Marshal(p) // plain structs: cannot fail
	*co = saved
	h := sha256.New()
	h.Write([]byte(digest))
	h.Write([]byte{0})
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(canon)
	return "ans:" + hex.EncodeToString(h.Sum(nil))
}

// upstreamFailure maps an error of the source-hosting client as the
// specification's table says.
func (g *Gateway) upstreamFailure(ctx context.Context, method string, err error) *mcp.Error {
	var se *sourcehost.Error
	if errors.As(err, &se) {
		e := upstreamError(se.StatusCode, se.Message)
		// A rate-limited caller learns how long the source-hosting API
		// asked it to wait (data.retry_after, whole seconds).
		var rl *sourcehost.RateLimitError
		if errors.As(err, &rl) && rl.RetryAfter > 0 {
			secs := min(int64((rl.RetryAfter+time.Second-1)/time.Second), mcpwire.MaxRetryAfter)
			e = newError(e.Code, &mcpwire.ErrorData{Status: se.StatusCode, Message: se.Message, RetryAfter: secs})
		}
		return e
	}
	if ctx.Err() != nil {
		return newError(mcp.CodeInternalError, &mcpwire.ErrorData{Message: "the request was canceled"})
	}
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		// Answered like a 5xx of the upstream: a gateway timeout.
		g.log.WarnContext(ctx, "source-hosting API did not answer in time", "method", method, "error", err)
		return upstreamError(http.StatusGatewayTimeout, fmt.Sprintf("the source-hosting API did not answer within %v", g.cfg.upstreamHeaderTimeout()))
	}
	g.log.WarnContext(ctx, "source-hosting API unreachable", "method", method, "error", err)
	return newError(mcp.CodeInternalError, &mcpwire.ErrorData{Message: "the source-hosting API could not be reached"})
}

// callerFor returns the caller of a verified token, making its upstream
// client on first use (or keeping up, the one that verified the token, when
// there is one: the same options and token). raw, when not nil, is the
// verdict's bytes as the store holds them, remembered for the token's next
// request.
func (g *Gateway) callerFor(token, digest string, who *verdict, raw []byte, up *sourcehost.Client) (*caller, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := g.callers[digest]; c != nil && c.who.TokenID == who.TokenID && c.who.UserID == who.UserID {
		if raw != nil {
			if s := c.seen.Load(); s == nil || s.v != who {
				c.seen.Store(&seenVerdict{v: who, raw: raw})
			}
		}
		return c, nil
	}
	if up == nil {
		var err error
		if up, err = g.upstreamClient(token); err != nil {
			return nil, err
		}
	}
	if len(g.callers) >= maxCallers {
		for k := range g.callers { // any one: map order is random
			delete(g.callers, k)
			break
		}
	}
	c := &caller{digest: digest, who: who, up: up}
	if raw != nil {
		c.seen.Store(&seenVerdict{v: who, raw: raw})
	}
	g.callers[digest] = c
	return c, nil
}

// knownCaller is the caller of the token with digest, if this gateway has
// one (nil otherwise).
func (g *Gateway) knownCaller(digest string) *caller {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.callers[digest]
}

// upstreamClient is a source-hosting client with token.
func (g *Gateway) upstreamClient(token string) (*sourcehost.Client, error) {
	return g.upstream.WithToken(token)
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
	writeAnswer(w, status, []response{errorResponse(nil, newError(code, &mcpwire.ErrorData{Status: status, Message: reason}))}, false)
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
