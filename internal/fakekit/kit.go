// Package fakekit holds what every apitwin fake needs and nothing any one API
// decides: one guard around every handler, bounded bodies, a bounded request
// log, fault injection per route or operation, rate-limit windows per key
// with their headers, a settable clock, serving with timeouts, answers, and
// a fuzz harness that attacks a fake through its front door. Each fake
// (fake/<api>fake) composes these with its own API's rules.
//
// The request of every fake goes through one Kit: Kit.ServeHTTP for HTTP, or
// Kit.Begin and Exchange.Finish around a gRPC call. Either way the request
// is logged once, with its route, caller, status and error code; a panic in
// a handler is answered 500 in the service's error shape and logged, not
// passed on; and a body over the limit is refused before it is read whole.
package fakekit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/credential"
)

// Limits bound what one request, and the request log, can hold. Zero fields
// take the defaults below.
type Limits struct {
	// MaxBody caps a request body; a larger one is refused with 413 in the
	// service's error shape, before it is read whole. Default 10 MiB.
	MaxBody int64
	// LogEntries caps the request log; the oldest entries go first.
	// Default 10,000.
	LogEntries int
	// LogBodyBytes is how much of each body the log keeps. Default 64 KiB.
	LogBodyBytes int
	// LogBytes caps the memory the log holds in all (bodies, headers,
	// paths); past it the oldest entries go. Default 32 MiB.
	LogBytes int64
	// LogHeaderBytes is how much of each request's header the log keeps:
	// names and values, and 48 bytes for each field kept (what a field
	// costs to hold beyond its text). Fields past it are left out, and the
	// entry says so (control.Request.HeaderTruncated). Default 16 KiB.
	LogHeaderBytes int
}

// The default limits.
const (
	DefaultMaxBody        = 10 << 20
	DefaultLogEntries     = 10_000
	DefaultLogBodyBytes   = 64 << 10
	DefaultLogBytes       = 32 << 20
	DefaultLogHeaderBytes = 16 << 10
)

func (l Limits) withDefaults() Limits {
	if l.MaxBody <= 0 {
		l.MaxBody = DefaultMaxBody
	}
	if l.LogEntries <= 0 {
		l.LogEntries = DefaultLogEntries
	}
	if l.LogBodyBytes <= 0 {
		l.LogBodyBytes = DefaultLogBodyBytes
	}
	if l.LogBytes <= 0 {
		l.LogBytes = DefaultLogBytes
	}
	if l.LogHeaderBytes <= 0 {
		l.LogHeaderBytes = DefaultLogHeaderBytes
	}
	return l
}

// Config sets up a Kit.
type Config struct {
	// Clock is the fake's time; nil means a new fake clock at the current
	// wall time, truncated to the second.
	Clock *clock.Fake
	// Limits bound bodies and the request log.
	Limits Limits
	// Routes answers the requests that no fault stops (see Routes.Bind).
	Routes Router
	// Error is the service's error answer for a status and a message (""
	// for the service's own text): injected faults without a body, bodies
	// over the limit (413), panics (500). Nil answers plain text.
	Error func(r *http.Request, status int, msg string) Answer
	// Operations, when set, makes fault routes operation names instead of
	// http.ServeMux patterns: it reports whether a name is one. The fake
	// then applies faults itself, with TakeFault, once it knows the
	// operation (orchfake, whose operations come by gRPC and HTTP).
	Operations func(name string) bool
	// Codes, when set, reports whether an error code a fault names is one
	// of the service's. Nil: the service has no codes, and a fault that
	// names one is refused.
	Codes func(code string) bool
	// Logger receives the panics of handlers; nil discards them (they are
	// in the request log either way).
	Logger *slog.Logger
	// SecretFields names the fields in which requests carry the service's
	// secrets (passwords, webhook secrets, keys), in any case: the request
	// log keeps "[REDACTED]" in place of their values, in JSON bodies at
	// any depth, form bodies and query strings (see credential.Fields).
	// Credential headers and query parameters (package credential's lists)
	// are masked whatever the fake names here.
	SecretFields []string
	// SecretAnswerFields names the fields in which the service answers
	// secrets (the tokens a login gives): the log masks them in the answers
	// it keeps. It is a list of its own, as short as the service allows,
	// because every answer kept is searched for these names (for the
	// rarest letter of each; see credential.Fields.MaskAnswer), and a name
	// of common letters (pass) would cost a list answer tens of
	// microseconds.
	SecretAnswerFields []string
}

// Kit routes a fake's requests through the guard, the body limit, the
// request log and the injected faults to the fake's handlers. It is an
// http.Handler and safe for concurrent use.
type Kit struct {
	clock  *clock.Fake
	cfg    Config
	limits Limits

	done      chan struct{}
	closeOnce sync.Once

	faultMu sync.Mutex
	faults  []*faultRule

	logMu   sync.Mutex
	log     ring[*logEntry]
	secrets *credential.Fields // Config.SecretFields
	answers *credential.Fields // Config.SecretAnswerFields
}

// New builds a Kit.
func New(cfg Config) *Kit {
	k := &Kit{clock: cfg.Clock, cfg: cfg, limits: cfg.Limits.withDefaults(), done: make(chan struct{})}
	if k.clock == nil {
		k.clock = clock.NewFake(time.Now().Truncate(time.Second))
	}
	if k.cfg.Routes == nil {
		k.cfg.Routes = NewRoutes[struct{}]().Bind(struct{}{})
	}
	k.log = newRing[*logEntry](k.limits.LogEntries, k.limits.LogBytes)
	k.log.onDrop = (*logEntry).dropped
	k.secrets = credential.NewFields(cfg.SecretFields...)
	k.answers = credential.NewFields(cfg.SecretAnswerFields...)
	return k
}

// Clock returns the fake's clock.
func (k *Kit) Clock() *clock.Fake { return k.clock }

// Limits returns the limits in force, defaults filled in.
func (k *Kit) Limits() Limits { return k.limits }

// Close ends every wait the kit started (fault latencies) and makes Done
// report closed; requests still arriving are served as before.
func (k *Kit) Close() { k.closeOnce.Do(func() { close(k.done) }) }

// Done is closed by Close: long waits of a fake's handlers end on it.
func (k *Kit) Done() <-chan struct{} { return k.done }

// ServeHTTP answers one request: it logs it, guards it, bounds its body,
// applies the first matching fault, and otherwise passes it to its route.
func (k *Kit) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, x := k.Begin(r.Context(), control.TransportHTTP, r.Method, r.URL.Path, r.Header)
	x.rawQuery = k.secrets.MaskQuery(r.URL.RawQuery) // parsed when the log is read
	x.req.Route = k.cfg.Routes.Match(r)
	x.req.BodySize = max(r.ContentLength, 0)
	rec := &x.rec // in the Exchange: one allocation for both
	*rec = statusRecorder{ResponseWriter: w, x: x, keep: k.limits.LogBodyBytes}
	r = r.WithContext(ctx)
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler { // a deliberate abort (Drop over HTTP/2): pass it on
				x.Finish(rec.status)
				panic(p)
			}
			x.Recovered(p)
			if rec.status == 0 {
				k.writeError(rec, r, http.StatusInternalServerError, "")
			}
		}
		x.keepResponse(rec.body, rec.written, rec.Header().Get("Content-Type"), rec.secretFree, rec.keptPooled)
		x.Finish(rec.status)
	}()

	// How long the client may take to send the body and to read the
	// answer is the serving Endpoint's to bound (Timeouts), whatever the
	// handler.
	if r.Body != nil && r.Body != http.NoBody {
		if r.ContentLength > k.limits.MaxBody {
			rec.Header().Set("Connection", "close")
			k.writeError(rec, r, http.StatusRequestEntityTooLarge, "")
			return
		}
		body, err := readBody(r.Body, r.ContentLength, k.limits.MaxBody)
		_ = r.Body.Close()
		x.req.BodySize = int64(len(body))
		if err == errTooLarge {
			rec.Header().Set("Connection", "close")
			k.writeError(rec, r, http.StatusRequestEntityTooLarge, "")
			return
		}
		if err != nil { // the client went away mid-body, or was too slow: nobody is left to answer
			return
		}
		x.keepBody(body, r.Header.Get("Content-Type"))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}

	if k.cfg.Operations == nil {
		if f, ok := k.TakeFault(r, x.req.Route); ok {
			x.MarkFault()
			if !k.applyFault(rec, r, f) {
				return
			}
		}
	}
	k.cfg.Routes.ServeHTTP(rec, r)
}

var errTooLarge = fmt.Errorf("body too large")

// readBody reads a body of at most limit bytes; a larger one is errTooLarge
// once limit+1 bytes are in. A small known length sizes the buffer once;
// a larger or unknown one is read in chunks joined at the end, so that a
// body refused at the limit costs the limit in garbage, not the doublings
// of a growing buffer (four times as much), and a client that announces
// 10 MiB and sends a byte a second holds what it sent, not 10 MiB, until
// the body timeout cuts it off.
func readBody(body io.Reader, length, limit int64) ([]byte, error) {
	const chunkSize = 32 << 10
	if length > 0 && length <= chunkSize {
		buf := make([]byte, length)
		if _, err := io.ReadFull(body, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	var chunks [][]byte
	total := int64(0)
	for total <= limit {
		chunk := make([]byte, min(chunkSize, limit+1-total))
		n, err := io.ReadFull(body, chunk)
		if n > 0 {
			chunks = append(chunks, chunk[:n])
			total += int64(n)
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if total > limit {
		return nil, errTooLarge
	}
	if length > 0 && total != length { // the connection ended before the body did
		return nil, io.ErrUnexpectedEOF
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	return bytes.Join(chunks, nil), nil
}

// writeError answers status in the service's shape.
func (k *Kit) writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if k.cfg.Error == nil {
		if msg == "" {
			msg = http.StatusText(status)
		}
		http.Error(w, msg, status)
		return
	}
	WriteAnswer(w, k.cfg.Error(r, status, msg))
}

// ErrorAnswer is the service's error answer for status and msg, as
// Config.Error gives it.
func (k *Kit) ErrorAnswer(r *http.Request, status int, msg string) Answer {
	if k.cfg.Error == nil {
		if msg == "" {
			msg = http.StatusText(status)
		}
		return Answer{Status: status, Raw: []byte(msg + "\n"), ContentType: "text/plain; charset=utf-8"}
	}
	return k.cfg.Error(r, status, msg)
}

// Exchange is one request being answered: what the request log will keep
// of it. Handlers reach theirs with ExchangeFrom to name the caller, the
// route or the error code; every method is safe on a nil Exchange.
type Exchange struct {
	kit      *Kit
	start    time.Time
	req      control.Request
	rawQuery string     // req.Query before it is parsed (logEntry.request)
	header   flatHeader // req.Header before it is rebuilt (logEntry.request)
	ctx      exchangeContext
	owner    any       // the owner of the routes serving it (boundRoutes)
	entry    *logEntry // set once logged
	settled  bool
	rec      statusRecorder // the answer's writer, when it came through ServeHTTP
}

type exchangeKey struct{}

// ExchangeFrom returns the Exchange of the request ctx belongs to, nil if
// none.
func ExchangeFrom(ctx context.Context) *Exchange {
	x, _ := ctx.Value(exchangeKey{}).(*Exchange)
	return x
}

// Begin starts the log entry of a request that does not come through
// ServeHTTP (a gRPC call); Finish ends it. The returned context carries the
// Exchange.
func (k *Kit) Begin(ctx context.Context, transport, method, path string, header http.Header) (context.Context, *Exchange) {
	x := &Exchange{kit: k, start: time.Now(), req: control.Request{
		Time: k.clock.Now(), Transport: transport, Method: method, Path: path,
	}}
	x.header, x.req.HeaderTruncated = k.keptHeader(header)
	x.ctx = exchangeContext{Context: ctx, x: x}
	return &x.ctx, x
}

// exchangeContext is a request's context with its Exchange as a value: what
// context.WithValue(ctx, exchangeKey{}, x) gives, kept inside the Exchange,
// so that beginning a request costs one allocation for both.
type exchangeContext struct {
	context.Context
	x *Exchange
}

func (c *exchangeContext) Value(key any) any {
	if _, ok := key.(exchangeKey); ok {
		return c.x
	}
	return c.Context.Value(key)
}

// SetBody keeps the start of a body that did not come through ServeHTTP
// (a gRPC request as JSON), and its full size.
func (x *Exchange) SetBody(body []byte, size int64) {
	if x == nil {
		return
	}
	x.update(func(r *control.Request) { r.BodySize = size })
	x.keepBody(body, "application/json")
}

// SetRoute names the route or operation the request reached.
func (x *Exchange) SetRoute(route string) {
	if x != nil {
		x.update(func(r *control.Request) { r.Route = route })
	}
}

// Route is the route the request matched so far.
func (x *Exchange) Route() string {
	if x == nil {
		return ""
	}
	x.kit.logMu.Lock()
	defer x.kit.logMu.Unlock()
	return x.req.Route
}

// SetCaller names who the request was authenticated as.
func (x *Exchange) SetCaller(caller string) {
	if x != nil {
		x.update(func(r *control.Request) { r.Caller = caller })
	}
}

// SetCode records the service's error code answered.
func (x *Exchange) SetCode(code string) {
	if x != nil {
		x.update(func(r *control.Request) { r.Code = code })
	}
}

// MarkFault records that an injected fault matched the request.
func (x *Exchange) MarkFault() {
	if x != nil {
		x.update(func(r *control.Request) { r.Fault = true })
	}
}

// Recovered records a handler's panic p, with the stack where it happened.
func (x *Exchange) Recovered(p any) {
	if x == nil {
		return
	}
	stack := string(debug.Stack())
	if len(stack) > 8<<10 {
		stack = stack[:8<<10] + "…"
	}
	msg := fmt.Sprintf("%v\n%s", p, stack)
	x.update(func(r *control.Request) { r.Panic = msg })
	if l := x.kit.cfg.Logger; l != nil {
		l.Error("fake: a handler panicked", "method", x.req.Method, "path", x.req.Path, "panic", fmt.Sprint(p))
	}
}

// Finish logs the request with the status answered (0: none), if it is not
// logged yet, and its duration. It is called once the answer is complete.
func (x *Exchange) Finish(status int) {
	if x == nil {
		return
	}
	d := time.Since(x.start)
	x.update(func(r *control.Request) {
		if r.Status == 0 {
			r.Status = status
		}
		r.Duration = d
		r.BodyTruncated = r.BodyTruncated || len(r.Body) == 0 && r.BodySize > 0 // refused unread
	})
	x.commit()
	x.kit.logMu.Lock()
	x.settled = true
	x.kit.logMu.Unlock()
}

// answered is called when the status goes out: the request is logged then,
// before any of the answer leaves, so that a client that has read its
// answer finds the request in the log.
func (x *Exchange) answered(status int) {
	x.update(func(r *control.Request) { r.Status = status })
	x.commit()
}

// update changes the request and, once logged, its log entry.
func (x *Exchange) update(fn func(r *control.Request)) {
	k := x.kit
	k.logMu.Lock()
	defer k.logMu.Unlock()
	fn(&x.req)
	if x.entry != nil && !x.settled {
		x.entry.req = x.req
	}
}

// commit puts the request in the log once.
func (x *Exchange) commit() {
	k := x.kit
	k.logMu.Lock()
	defer k.logMu.Unlock()
	if x.entry != nil {
		return
	}
	x.entry = &logEntry{req: x.req, rawQuery: x.rawQuery, header: x.header}
	k.log.add(x.entry, x.entry.size())
}

// statusRecorder notes the status a handler wrote, logs the request
// before the status goes out, and keeps the start of the answer's body
// (its first keep bytes) for the log.
type statusRecorder struct {
	http.ResponseWriter
	x          *Exchange
	status     int
	keep       int
	body       []byte
	written    int64
	secretFree bool // the answer holds no secret answer field (Answer.SecretFree)
	pooled     bool // the next Write's bytes are a pooled answer's (Answer.Pooled)
	keptPooled bool // body is that pooled buffer, kept without a copy
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
		s.x.answered(code)
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	switch room := s.keep - len(s.body); {
	case s.pooled && s.body == nil && len(b) <= room:
		s.body, s.keptPooled = b, true
	case room > 0:
		s.body = append(s.body, b[:min(len(b), room)]...)
	}
	s.pooled = false
	n, err := s.ResponseWriter.Write(b)
	s.written += int64(n)
	return n, err
}

// Flush passes a flush on (long polls, streamed answers).
func (s *statusRecorder) Flush() {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines,
// Hijack).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
