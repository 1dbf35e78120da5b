// Package leaktest checks, for tests, that a value prints no secret (a
// token, a password, an API key, a session cookie, a signing secret): not
// the value, not an error it wraps, not what a hook and a logger were given.
// It is the one place such checks live; every package's secret tests call
// NoSecretIn.
//
// A secret is looked for in every form it can travel in (SecretForms: as it
// is, JSON-escaped, Go-quoted, URL-encoded in a query or a path, as bytes
// in decimal, in hex and in base64), in every way a value can be printed
// (fmt's %v, %+v, %#v, %s, %q, %x and %X, Error(), slog's text and JSON
// handlers, which call LogValue, and an error encoded with encoding/json),
// in the value copied out of a pointer to a struct (where a String method
// on the pointer is not called), and through every error a chain wraps
// (Unwrap() error and Unwrap() []error, as errors.Join builds).
//
// It also gives the failures through which a secret can come back: a
// transport whose error quotes the request's headers (DumpingTransport), and
// a server that answers an error quoting the secret, an answer that does not
// decode around it, or a redirect loop through a URL holding it (Server).
//
// It is imported by tests only.
package leaktest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/apicall"
)

// SecretForms is a secret in every form NoSecretIn looks for: as it
// travels (travelForms) and as fmt prints its bytes: in decimal (%v of a
// []byte), in hex (%x, %X), and in base64, as encoding/json and slog's
// JSON handler write a []byte (the whole groups of 3 bytes, when they make
// at least 8 characters: a shorter run would match by chance). An empty
// secret has no forms (it would be found in everything).
func SecretForms(secret string) []string {
	forms := travelForms(secret)
	if secret == "" {
		return forms
	}
	dec := fmt.Sprint([]byte(secret)) // "[104 105]"
	forms = append(forms, dec[1:len(dec)-1], fmt.Sprintf("%x", secret), fmt.Sprintf("%X", secret))
	if n := len(secret) / 3 * 4; n >= 8 {
		forms = append(forms, base64.StdEncoding.EncodeToString([]byte(secret))[:n])
	}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// travelForms is a secret as it travels, and as a server may echo it: as
// it is; JSON-escaped, as encoding/json writes it (<, > and & as \u003c...)
// and as slog's JSON handler does (them as they are); Go-quoted (%q,
// slog's text handler); URL-encoded in a query and in a path.
func travelForms(secret string) []string {
	if secret == "" {
		return nil
	}
	j, _ := json.Marshal(secret)
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(secret)
	r := bytes.TrimSpace(raw.Bytes())
	q := strconv.Quote(secret)
	forms := []string{secret, string(j[1 : len(j)-1]), string(r[1 : len(r)-1]), q[1 : len(q)-1],
		url.QueryEscape(secret), url.PathEscape(secret)}
	slices.Sort(forms)
	return slices.Compact(forms)
}

// Quoting is every form a secret travels in, of each of the secrets,
// joined by " | ", for a server that echoes them.
func Quoting(secrets ...string) string {
	var parts []string
	for _, s := range secrets {
		parts = append(parts, travelForms(s)...)
	}
	return strings.Join(parts, " | ")
}

// ErrTree is err and every error it wraps, through Unwrap() error and
// Unwrap() []error, as errors.As walks them.
func ErrTree(err error) []error {
	if err == nil {
		return nil
	}
	out := []error{err}
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, ErrTree(x.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range x.Unwrap() {
			out = append(out, ErrTree(e)...)
		}
	}
	return out
}

// verbs are fmt's verbs a value is printed with. %d and the other verbs
// for numbers are left out: for them fmt calls no String method and no
// type that holds a string is meant to be printed so.
var verbs = []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X"}

// renderings is every way v can be printed, by name: fmt's verbs, slog's
// text and JSON handlers, and for an error Error() and encoding/json
// (which a program answering with its errors as JSON uses). A value that
// is not an error is not encoded with encoding/json itself: that is how a
// request body or a configuration file is written, where its secrets
// belong; slog's JSON handler, which a log uses, is checked.
func renderings(v any) []rendering {
	out := make([]rendering, 0, len(verbs)+4)
	if err, ok := v.(error); ok && err != nil {
		out = append(out, rendering{"Error()", err.Error()})
		if b, jerr := json.Marshal(err); jerr == nil {
			out = append(out, rendering{"encoding/json", string(b)})
		}
	}
	for _, verb := range verbs {
		out = append(out, rendering{verb, fmt.Sprintf(verb, v)})
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("x", "v", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("x", "v", v)
	return append(out, rendering{"slog text", text.String()}, rendering{"slog json", js.String()})
}

// rendering is v printed one way: how, and the text.
type rendering struct{ how, text string }

// excerpt is text around what was found at i (n bytes long), at most
// 120 bytes either side, so that a failure quoting a long page stays
// readable.
func excerpt(text string, i, n int) string {
	const side = 120
	start, end := max(0, i-side), min(len(text), i+n+side)
	out := text[start:end]
	if start > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out += "…"
	}
	return out
}

// locker is what vet's copylocks looks for: a type whose pointer has Lock
// and Unlock (sync.Mutex, and the noCopy of sync.WaitGroup and the atomic
// types).
var locker = reflect.TypeFor[sync.Locker]()

// holdsLock reports whether a value of t holds a lock in itself (not
// behind a pointer), so that vet's copylocks refuses a program's copy of it.
func holdsLock(t reflect.Type) bool {
	if reflect.PointerTo(t).Implements(locker) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsLock(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return holdsLock(t.Elem())
	}
	return false
}

// NoSecretIn fails the test (with Errorf) for every way v prints that
// shows any form of any of the secrets; what names v in the message.
//
// v is printed in every rendering (fmt's verbs, Error(), slog's handlers,
// an error's JSON). When v points to a struct, the struct is printed by
// value too: that is how a String method on the pointer is bypassed
// (fmt.Printf("%+v", *client), or a client kept by value in a field), and
// fmt then prints the fields as they are, and with %s also what a pointer
// field points to (fmt's bad-verb report); so a secret may be neither a
// field's value nor one pointer away (a closure, which prints as an
// address, holds it safely). A struct that holds a lock is not copied, as
// vet's copylocks keeps programs from copying it (and fmt would print its
// maps whole).
//
// When v is an error, every error it wraps is checked the same way, and
// the *url.Error errors.As finds and its URL; and the test fails when the
// *DumpError of a DumpingTransport, which holds the request's headers, can
// be reached with errors.As.
func NoSecretIn(t testing.TB, what string, v any, secrets ...string) {
	t.Helper()
	var forms [][]string
	for _, s := range secrets {
		if f := SecretForms(s); len(f) > 0 {
			forms = append(forms, f)
		}
	}
	err, isErr := v.(error)
	if !isErr || err == nil {
		noFormIn(t, what, v, forms)
		return
	}
	for i, e := range ErrTree(err) {
		name := what
		if i > 0 {
			name = fmt.Sprintf("%s, or an error it wraps (%T)", what, e)
		}
		noFormIn(t, name, e, forms)
	}
	var ue *url.Error
	if errors.As(err, &ue) { // errors.As finds it through As methods too
		noFormIn(t, what+": the *url.Error", ue, forms)
		noFormIn(t, what+": the *url.Error's URL", ue.URL, forms)
	}
	var de *DumpError
	if errors.As(err, &de) {
		t.Errorf("%s: the transport's error, which holds the headers, is reachable: %v", what, de.Header)
	}
}

// noFormIn fails the test for each secret (its forms) that a rendering of
// v, or of the struct v points to (unless it holds a lock), holds: once,
// naming every rendering that holds it and quoting the first.
func noFormIn(t testing.TB, what string, v any, forms [][]string) {
	t.Helper()
	check := func(what string, v any) {
		t.Helper()
		rs := renderings(v)
		for _, secret := range forms {
			var hows []string
			var found string // the first find, quoted
			for _, r := range rs {
				for _, f := range secret {
					if i := strings.Index(r.text, f); i >= 0 {
						if found == "" {
							found = fmt.Sprintf("(as %q): %s", f, excerpt(r.text, i, len(f)))
						}
						hows = append(hows, r.how)
						break
					}
				}
			}
			if found != "" {
				t.Errorf("%s printed with %s holds a secret %s", what, strings.Join(hows, ", "), found)
			}
		}
	}
	check(what, v)
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() &&
		rv.Elem().Kind() == reflect.Struct && !holdsLock(rv.Elem().Type()) {
		check(what+", by value", rv.Elem().Interface())
	}
}

// DumpError is a transport's error that holds the request's headers and
// prints them, as a proxy's error or a request dump would.
type DumpError struct {
	Header http.Header
	dump   string
}

// NewDumpError is the *DumpError a transport would give for req.
func NewDumpError(req *http.Request) *DumpError {
	dump, _ := httputil.DumpRequest(req, false)
	return &DumpError{Header: req.Header.Clone(), dump: string(dump)}
}

func (e *DumpError) Error() string { return "proxy refused the request:\n" + e.dump }

// DumpingTransport fails every request with a *DumpError. It takes the
// transport it replaces, to fit a client's WithTransport option.
func DumpingTransport(http.RoundTripper) http.RoundTripper {
	return RoundTripFunc(func(req *http.Request) (*http.Response, error) {
		return nil, NewDumpError(req)
	})
}

// RoundTripFunc is a function that is an http.RoundTripper.
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Observed is what a hook and a logger were given: the error of every
// outcome the hook saw, and every line the logger wrote. Its zero value is
// ready; it is safe for concurrent use.
type Observed struct {
	mu       sync.Mutex
	outcomes []error
	logs     bytes.Buffer
}

// Hook is an apicall.Hook that keeps the error of every outcome.
func (o *Observed) Hook(ctx context.Context, _ apicall.Call) (context.Context, func(apicall.Outcome)) {
	return ctx, func(out apicall.Outcome) {
		o.mu.Lock()
		o.outcomes = append(o.outcomes, out.Err)
		o.mu.Unlock()
	}
}

// Logger is a logger, at the debug level, whose lines o keeps.
func (o *Observed) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{o}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type lockedWriter struct{ o *Observed }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.o.mu.Lock()
	defer w.o.mu.Unlock()
	return w.o.logs.Write(p)
}

// Check checks with NoSecretIn every error the hook saw, and the log.
func (o *Observed) Check(t testing.TB, secrets ...string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.outcomes {
		NoSecretIn(t, "an error the hook saw", e, secrets...)
	}
	NoSecretIn(t, "the log", o.logs.String(), secrets...)
}

// Server is an http.Handler whose every answer holds Secrets, in one of
// three ways: with Redirect, it redirects forever through a URL holding
// the first secret in its query; with DecodeBody, it answers 200 with the
// JSON body DecodeBody builds around the first secret (one that should
// not decode); else it answers Status (with Retry-After: 1 for a 429) and
// the JSON body ErrorBody builds around Quoting(Secrets...).
type Server struct {
	Secrets    []string
	Status     int
	ErrorBody  func(status int, quote string) string
	DecodeBody func(quote string) string
	Redirect   bool
}

// ServeHTTP answers as s says.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.Redirect:
		http.Redirect(w, r, r.URL.Path+"?s="+url.QueryEscape(s.Secrets[0]), http.StatusFound)
	case s.DecodeBody != nil:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, s.DecodeBody(s.Secrets[0]))
	default:
		w.Header().Set("Content-Type", "application/json")
		if s.Status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(s.Status)
		_, _ = io.WriteString(w, s.ErrorBody(s.Status, Quoting(s.Secrets...)))
	}
}
