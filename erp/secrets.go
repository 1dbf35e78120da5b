package erp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/observe"
	"github.com/apitwin/apitwin/retry"
)

// minSecret is the shortest text taken for a secret: replacing one or two
// letters would shred every message (and a password that short guards
// nothing); internal/rest draws the same line.
const minSecret = 4

// secretForms returns the ways a secret can travel and come back in a
// server's answer: as it is, escaped inside a JSON string, and URL-encoded
// (a login form's body, a query). Secrets shorter than minSecret are left
// out.
func secretForms(secrets ...string) []string {
	var forms []string
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		j, _ := json.Marshal(s)
		for _, f := range []string{s, string(j[1 : len(j)-1]), url.QueryEscape(s), url.PathEscape(s)} {
			if !slices.Contains(forms, f) {
				forms = append(forms, f)
			}
		}
	}
	// Longest first, so that a form containing another is replaced whole.
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return forms
}

// redactor replaces every form of some secrets with rest.Redacted; nil
// when there is nothing to hide.
func redactor(secrets ...string) *strings.Replacer {
	forms := secretForms(secrets...)
	if len(forms) == 0 {
		return nil
	}
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, rest.Redacted)
	}
	return strings.NewReplacer(pairs...)
}

// scrub hides secrets a request carried (a new user's password) from an
// error about it: a server may quote what it was sent. See scrubWith.
func scrub(err error, secrets ...string) error {
	return scrubWith(err, redactor(secrets...))
}

// scrubWith returns err with every form of the secrets r replaces taken out
// of its text and of the text of every error it wraps, so that neither
// printing it (%v, %+v, %#v) nor errors.As down its chain shows one. The
// *Error inside is cleaned in place (message, details, body); *url.Error,
// *retry.Error and *RateLimitError that show a secret are copied clean; any
// other error that shows one, or wraps one that does, is replaced by an
// error of the cleaned text that wraps the cleaned errors beneath it and
// answers errors.Is as the one it replaces did, so errors.Is keeps working
// but errors.As no longer reaches that type. An error that shows no secret
// comes back as it is.
func scrubWith(err error, r *strings.Replacer) error {
	if err == nil || r == nil || !leaks(err, r, 0) {
		return err
	}
	return rebuild(err, r, 0)
}

// maxErrorDepth bounds how deep an error chain is walked.
const maxErrorDepth = 64

// shows reports whether any rendering of err itself holds a secret.
func shows(err error, r *strings.Replacer) bool {
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
		if r.Replace(s) != s {
			return true
		}
	}
	return false
}

// leaks reports whether err or any error it wraps shows a secret.
func leaks(err error, r *strings.Replacer, depth int) bool {
	if err == nil {
		return false
	}
	if depth > maxErrorDepth || shows(err, r) {
		return true
	}
	return slices.ContainsFunc(unwrapAll(err), func(e error) bool { return leaks(e, r, depth+1) })
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

// rebuild is scrubWith for an err known to leak.
func rebuild(err error, r *strings.Replacer, depth int) error {
	if err == nil || !leaks(err, r, depth) {
		return err
	}
	if depth > maxErrorDepth {
		return &scrubbedError{msg: r.Replace(err.Error())}
	}
	switch x := err.(type) {
	case *Error:
		x.Message = r.Replace(x.Message)
		x.Method, x.Path = r.Replace(x.Method), r.Replace(x.Path)
		for i, d := range x.Details {
			x.Details[i] = r.Replace(d)
		}
		if len(x.Body) > 0 {
			x.Body = []byte(r.Replace(string(x.Body)))
		}
		return x
	case *url.Error:
		return &url.Error{Op: x.Op, URL: r.Replace(x.URL), Err: rebuild(x.Err, r, depth+1)}
	case *retry.Error:
		return &retry.Error{Retries: x.Retries, Reason: r.Replace(x.Reason), Err: rebuild(x.Err, r, depth+1)}
	case *RateLimitError:
		cp := *x
		cp.Reason, cp.Err = r.Replace(x.Reason), rebuild(x.Err, r, depth+1)
		return &cp
	}
	e := &scrubbedError{msg: r.Replace(err.Error())}
	if is, ok := err.(interface{ Is(error) bool }); ok {
		e.is = is.Is
	}
	for _, w := range unwrapAll(err) {
		e.errs = append(e.errs, rebuild(w, r, depth+1))
	}
	return e
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

// printableURL is raw with the password of its user information, if any,
// replaced (url.URL.Redacted): a root URL may carry a proxy's basic
// authentication, which net/http sends from it.
func printableURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}

// scrubbingHook is h seeing each call's error through scrub.
func scrubbingHook(h observe.Hook, scrub func(error) error) observe.Hook {
	if h == nil {
		return nil
	}
	return func(ctx context.Context, call observe.Call) (context.Context, func(observe.Outcome)) {
		ctx, done := h(ctx, call)
		return ctx, func(o observe.Outcome) {
			o.Err = scrub(o.Err)
			done(o)
		}
	}
}

// scrubbingLogger is l with the secrets that secrets replaces (as they
// are when a record is logged) taken out of every message and attribute.
func scrubbingLogger(l *slog.Logger, secrets func() *strings.Replacer) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(&scrubHandler{next: l.Handler(), secrets: secrets})
}

// scrubHandler hides secrets from the records it passes on.
type scrubHandler struct {
	next    slog.Handler
	secrets func() *strings.Replacer
}

func (h *scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *scrubHandler) Handle(ctx context.Context, rec slog.Record) error {
	r := h.secrets()
	if r == nil {
		return h.next.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, r.Replace(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(a, r))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *scrubHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if r := h.secrets(); r != nil {
		attrs = slices.Clone(attrs)
		for i, a := range attrs {
			attrs[i] = scrubAttr(a, r)
		}
	}
	return &scrubHandler{next: h.next.WithAttrs(attrs), secrets: h.secrets}
}

func (h *scrubHandler) WithGroup(name string) slog.Handler {
	return &scrubHandler{next: h.next.WithGroup(name), secrets: h.secrets}
}

// scrubAttr is a with every form of r's secrets replaced in its value.
func scrubAttr(a slog.Attr, r *strings.Replacer) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.Replace(v.String()))
	case slog.KindGroup:
		g := slices.Clone(v.Group())
		for i, ga := range g {
			g[i] = scrubAttr(ga, r)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(g...)}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.Any(a.Key, scrubWith(err, r))
		}
		if s := fmt.Sprint(v.Any()); r.Replace(s) != s {
			return slog.String(a.Key, r.Replace(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
