package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf16"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/retry"
)

// Redacted is the text that stands where a secret was.
const Redacted = credential.Redacted

// MaxExcerpt is how many characters of an answer's text an error quotes.
const MaxExcerpt = 200

// Excerpt is text from an answer (a body no decoder understood, a
// message) as an error quotes it: valid UTF-8, on one line, at most
// MaxExcerpt characters, "…" marking a cut. The cut is between
// characters, so that an error never carries half of one.
func Excerpt(text string) string {
	text = strings.Join(strings.Fields(strings.ToValidUTF8(text, "")), " ")
	n := 0
	for i := range text { // i: where each character starts
		if n == MaxExcerpt {
			return text[:i] + "…"
		}
		n++
	}
	return text
}

// minSecret is the shortest text taken for a secret: replacing one or two
// letters would shred every message (and a secret that short guards
// nothing).
const minSecret = 4

// maxRecentSecrets bounds how many secrets learned during a client's life
// (session cookies, issued tokens) are kept to be hidden: the current ones
// and those of the last few sessions, which an error about a request sent
// before a renewal may quote.
const maxRecentSecrets = 16

// Secrets is the set of values a client keeps out of its errors, the
// errors they wrap, its hook's outcomes and its log lines: the credentials
// it was built with, and those it learns during its life (a session
// cookie, a token a login issued) through Add. Each is hidden in the forms
// it travels in: as it is, escaped inside a JSON string, and URL-encoded.
// It is safe for concurrent use; the zero value is an empty set.
type Secrets struct {
	mu     sync.Mutex
	fixed  []string // never forgotten
	recent []string // learned, newest last, at most maxRecentSecrets
	// r replaces every form of the set's values; it is built when first
	// needed after a change (stale), not at every change: most clients
	// are made, and learn a session, without ever cleaning an error, and
	// building it (each value in five forms) is a good part of making one.
	r     atomic.Pointer[strings.Replacer]
	stale atomic.Bool
}

// NewSecrets returns a set holding values for the client's whole life.
func NewSecrets(values ...string) *Secrets {
	s := &Secrets{}
	s.keep(values...)
	return s
}

// keep adds values that are never forgotten.
func (s *Secrets) keep(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	added := false
	for _, v := range values {
		if len(v) >= minSecret && !slices.Contains(s.fixed, v) {
			s.fixed = append(s.fixed, v)
			added = true
		}
	}
	if added {
		s.stale.Store(true) // the replacer is built again when next needed
	}
}

// Add adds secrets learned during the client's life: a session's cookies,
// a token a login or a refresh issued. The set keeps the last 16 of them
// (besides those it was built with), so that an error about an older
// request is cleaned too; a value shorter than 4 bytes is no secret.
func (s *Secrets) Add(values ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	added := false
	for _, v := range values {
		if len(v) < minSecret || slices.Contains(s.fixed, v) {
			continue
		}
		if i := slices.Index(s.recent, v); i >= 0 {
			s.recent = slices.Delete(s.recent, i, i+1) // seen again: newest now
		}
		s.recent = append(s.recent, v)
		added = true
	}
	if !added {
		return
	}
	if n := len(s.recent) - maxRecentSecrets; n > 0 {
		s.recent = slices.Delete(s.recent, 0, n)
	}
	s.stale.Store(true) // the replacer is built again when next needed
}

// pin returns extra with the learned secrets the set holds now added (those
// not in it already): what a call keeps hiding once it has sent one of them,
// however many the set learns, and so forgets, before the call ends (a
// client whose other goroutines renew its session). It returns extra itself
// when the set has learned nothing new to it, and never appends to extra's
// array (the caller's Request.Secrets).
func (s *Secrets) pin(extra []string) []string {
	if s == nil {
		return extra
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	copied := false
	for _, v := range s.recent {
		if slices.Contains(extra, v) {
			continue
		}
		if !copied {
			extra = append(make([]string, 0, len(extra)+len(s.recent)), extra...)
			copied = true
		}
		extra = append(extra, v)
	}
	return extra
}

// replacer is the replacer of the set as it is now; nil when empty.
func (s *Secrets) replacer() *strings.Replacer {
	if s == nil {
		return nil
	}
	if s.stale.Load() {
		s.mu.Lock()
		if s.stale.Load() {
			s.r.Store(replacer(s.allLocked()))
			s.stale.Store(false)
		}
		s.mu.Unlock()
	}
	return s.r.Load()
}

// String hides the values: a set printed by mistake shows none of them.
func (s *Secrets) String() string { return "rest.Secrets{" + Redacted + "}" }

// GoString is String.
func (s *Secrets) GoString() string { return s.String() }

// secretForms returns the ways secrets travel and come back in a server's
// answer: as they are, escaped inside a JSON string or a Go-quoted one
// (%q, slog's text handler), and URL-encoded (a form body, a query, a
// path), longest first so that a form containing another is replaced
// whole.
func secretForms(secrets ...string) []string {
	var forms []string
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		j, _ := json.Marshal(s)
		q := strconv.Quote(s) // as %q, Go's errors and slog's text handler write it
		for _, f := range []string{s, string(j[1 : len(j)-1]), q[1 : len(q)-1], url.QueryEscape(s), url.PathEscape(s),
			jsonEscaped(s, false, false), jsonEscaped(s, true, false), jsonEscaped(s, true, true)} {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return forms
}

// jsonEscaped is s inside a JSON string as servers other than Go's write
// it, which escape neither <, > nor & (encoding/json does): with slashes
// written "\/" (PHP's json_encode, the ERP's own, does by default), and
// with every non-ASCII character as \uXXXX (PHP's default too), so that an
// error answer echoing a secret that holds such a character is cleaned
// as well as one written by encoding/json.
func jsonEscaped(s string, slashes, ascii bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '/' && slashes:
			b.WriteString(`\/`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (ascii && r > 0x7f):
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// replacer replaces every form of secrets with Redacted; nil when there is
// nothing to hide.
func replacer(secrets []string) *strings.Replacer {
	forms := secretForms(secrets...)
	if len(forms) == 0 {
		return nil
	}
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	return strings.NewReplacer(pairs...)
}

// Scrubber takes one moment's secrets out of text and errors. A client
// package's Config.ScrubError receives one to clean its own error types.
type Scrubber struct {
	r     *strings.Replacer
	own   func(error, *Scrubber) (error, bool)
	depth int
}

// String is v with every form of the secrets replaced by Redacted.
func (s *Scrubber) String(v string) string {
	if s == nil || s.r == nil {
		return v
	}
	return s.r.Replace(v)
}

// Bytes is b with every form of the secrets replaced; b itself when it
// holds none.
func (s *Scrubber) Bytes(b []byte) []byte {
	if s == nil || s.r == nil || len(b) == 0 {
		return b
	}
	if clean := s.r.Replace(string(b)); clean != string(b) {
		return []byte(clean)
	}
	return b
}

// Error returns err with every form of the secrets taken out of its text
// and of the text of every error it wraps, so that neither printing it
// (%v, %+v, %#v) nor errors.As down its chain shows one.
//
// The package's own error types are cleaned by its ScrubError; a
// *url.Error, *retry.Error or *apicall.RateLimitError that shows a secret, or
// wraps one that does, is copied clean (so a transport error stays a
// *url.Error); any other such error is replaced by one of the cleaned text
// that wraps the cleaned errors beneath it and answers errors.Is as the one
// it replaces did (errors.Is keeps working; errors.As no longer reaches
// that type). An error that shows no secret comes back as it is, so
// sentinels such as context.Canceled stay themselves.
func (s *Scrubber) Error(err error) error {
	if err == nil || s == nil || s.r == nil {
		return err
	}
	if s.depth > maxErrorDepth {
		return &scrubbedError{msg: s.r.Replace(err.Error())}
	}
	deeper := &Scrubber{r: s.r, own: s.own, depth: s.depth + 1}
	if s.own != nil {
		if e, ok := s.own(err, deeper); ok {
			return e
		}
	}
	switch x := err.(type) {
	case *url.Error:
		inner := deeper.Error(x.Err)
		if inner == x.Err && !s.shows(err) {
			return err
		}
		return &url.Error{Op: x.Op, URL: s.r.Replace(x.URL), Err: inner}
	case *retry.Error:
		inner := deeper.Error(x.Err)
		if inner == x.Err && !s.shows(err) {
			return err
		}
		return &retry.Error{Retries: x.Retries, Reason: s.r.Replace(x.Reason), Err: inner}
	case *apicall.RateLimitError:
		inner := deeper.Error(x.Err)
		if inner == x.Err && !s.shows(err) {
			return err
		}
		cp := *x
		cp.Reason, cp.Err = s.r.Replace(x.Reason), inner
		cp.RateLimit.Scope = s.r.Replace(x.RateLimit.Scope)
		return &cp
	}
	wrapped := unwrapAll(err)
	clean := make([]error, len(wrapped))
	same := true
	for i, w := range wrapped {
		clean[i] = deeper.Error(w)
		same = same && clean[i] == w
	}
	if same && !s.shows(err) {
		return err
	}
	e := &scrubbedError{msg: s.r.Replace(err.Error()), errs: clean}
	if is, ok := err.(interface{ Is(error) bool }); ok {
		e.is = is.Is
	}
	return e
}

// maxErrorDepth bounds how deep an error chain is walked.
const maxErrorDepth = 64

// shows reports whether any rendering of err itself holds a secret.
func (s *Scrubber) shows(err error) bool {
	for _, v := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if s.r.Replace(v) != v {
			return true
		}
	}
	return false
}

func unwrapAll(err error) []error {
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		if e := x.Unwrap(); e != nil {
			return []error{e}
		}
	case interface{ Unwrap() []error }:
		return x.Unwrap()
	}
	return nil
}

// scrubbedError stands for an error whose text had a secret taken out: it
// wraps the cleaned errors the original wrapped, and answers errors.Is as
// the original's own Is method did.
type scrubbedError struct {
	msg  string
	errs []error
	is   func(error) bool
}

func (e *scrubbedError) Error() string   { return e.msg }
func (e *scrubbedError) Unwrap() []error { return e.errs }

// Is is the Is method of the error this one replaces, if it had one.
func (e *scrubbedError) Is(target error) bool { return e.is != nil && e.is(target) }

// GoString is the text, so %#v does not show the wrapped errors' fields.
func (e *scrubbedError) GoString() string { return e.msg }

// Cleaner takes secrets out of errors, text and log records: the secrets
// a Client holds and its package's ScrubError, which every Client uses for
// its own (Client.Cleaner), and which a package can use by itself for
// errors that never pass through a Client (orch over gRPC).
type Cleaner struct {
	// Secrets are the values to hide; nil hides nothing.
	Secrets *Secrets
	// ScrubError cleans the package's own error types (Config.ScrubError).
	ScrubError func(err error, s *Scrubber) (error, bool)
}

// scrubber is a Scrubber of the secrets held now and extra ones (those one
// request carries).
func (cl Cleaner) scrubber(extra []string) *Scrubber {
	r := cl.Secrets.replacer()
	if slices.ContainsFunc(extra, func(v string) bool { return len(v) >= minSecret }) {
		r = replacer(append(cl.Secrets.current(), extra...))
	}
	return &Scrubber{r: r, own: cl.ScrubError}
}

// current is the set's values now.
func (s *Secrets) current() []string {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allLocked()
}

// fixedValues are the values the set holds for the client's whole life,
// in a slice of their own.
func (s *Secrets) fixedValues() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.fixed)
}

// allLocked is every value of the set, in a slice of its own.
func (s *Secrets) allLocked() []string { return append(slices.Clone(s.fixed), s.recent...) }

// Scrub is err with the secrets, and extra ones (a password or a token a
// failed request carried), taken out of it and of every error it wraps;
// see Scrubber.Error.
func (cl Cleaner) Scrub(err error, extra ...string) error {
	if err == nil {
		return nil
	}
	return cl.scrubber(extra).Error(err)
}

// Redact is s with the secrets, and extra ones, replaced.
func (cl Cleaner) Redact(s string, extra ...string) string {
	return cl.scrubber(extra).String(s)
}

// Logger is l with the secrets (as they are when a record is logged) taken
// out of every message and attribute; nil for nil.
func (cl Cleaner) Logger(l *slog.Logger) *slog.Logger {
	return scrubbingLogger(l, cl.Secrets)
}

// Cleaner is what cleans the client's errors and logs of its secrets.
func (c *Client) Cleaner() Cleaner { return c.clean }

// Secrets returns the client's set of secrets, to which a client package
// adds those it learns during the client's life (Secrets.Add).
func (c *Client) Secrets() *Secrets { return c.clean.Secrets }

// Scrub is err with the client's secrets, and extra ones, taken out of it
// and of every error it wraps (Cleaner.Scrub). Client packages pass every
// error they return through it, those they build after Do included.
func (c *Client) Scrub(err error, extra ...string) error { return c.clean.Scrub(err, extra...) }

// Redact is s with the client's secrets, and extra ones, replaced.
func (c *Client) Redact(s string, extra ...string) string { return c.clean.Redact(s, extra...) }

// scrubbingLogger is l with the secrets of set (as they are when a record
// is logged) taken out of every message and attribute.
func scrubbingLogger(l *slog.Logger, set *Secrets) *slog.Logger {
	if l == nil {
		return nil
	}
	if _, ok := l.Handler().(*scrubHandler); ok {
		return l
	}
	return slog.New(&scrubHandler{next: l.Handler(), secrets: set})
}

// scrubHandler hides secrets from the records it passes on, and from the
// attributes bound to it (With): those are kept here and scrubbed with the
// secrets as they are when a record is logged, since a secret learned
// after they were bound (a session's token) must not show in them either.
type scrubHandler struct {
	next    slog.Handler // the handler wrapped, without what is bound here
	secrets *Secrets
	bound   []boundOp
	// derived is next with bound applied, scrubbed with replacer r; made
	// again when the set of secrets changes.
	derived atomic.Pointer[derivedHandler]
}

// boundOp is one call of WithGroup (group) or WithAttrs (attrs).
type boundOp struct {
	group string
	attrs []slog.Attr
}

type derivedHandler struct {
	r *strings.Replacer
	h slog.Handler
}

func (h *scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *scrubHandler) Handle(ctx context.Context, rec slog.Record) error {
	sc := &Scrubber{r: h.secrets.replacer()}
	next := h.target(sc)
	if sc.r == nil {
		return next.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, sc.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(a, sc))
		return true
	})
	return next.Handle(ctx, out)
}

// target is the handler a record goes to: next, with the bound groups and
// attributes (scrubbed by sc) applied.
func (h *scrubHandler) target(sc *Scrubber) slog.Handler {
	if len(h.bound) == 0 {
		return h.next
	}
	if d := h.derived.Load(); d != nil && d.r == sc.r {
		return d.h
	}
	t := h.next
	for _, op := range h.bound {
		if op.attrs == nil {
			t = t.WithGroup(op.group)
			continue
		}
		attrs := op.attrs
		if sc.r != nil {
			attrs = make([]slog.Attr, len(op.attrs))
			for i, a := range op.attrs {
				attrs[i] = scrubAttr(a, sc)
			}
		}
		t = t.WithAttrs(attrs)
	}
	h.derived.Store(&derivedHandler{r: sc.r, h: t})
	return t
}

func (h *scrubHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.with(boundOp{attrs: slices.Clone(attrs)})
}

func (h *scrubHandler) WithGroup(name string) slog.Handler {
	if name == "" { // slog's rule: an empty group is no group
		return h
	}
	return h.with(boundOp{group: name})
}

func (h *scrubHandler) with(op boundOp) *scrubHandler {
	return &scrubHandler{next: h.next, secrets: h.secrets, bound: append(slices.Clip(h.bound), op)}
}

// scrubAttr is a with every form of the secrets replaced in its value.
func scrubAttr(a slog.Attr, sc *Scrubber) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, sc.String(v.String()))
	case slog.KindGroup:
		g := slices.Clone(v.Group())
		for i, ga := range g {
			g[i] = scrubAttr(ga, sc)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(g...)}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.Any(a.Key, sc.Error(err))
		}
		if s := fmt.Sprint(v.Any()); sc.String(s) != s {
			return slog.String(a.Key, sc.String(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
