// Package leaktest checks, for tests, that no rendering of an error, a
// value, a hook's outcomes or a log shows a secret (a token, a password, a
// session cookie...).
//
// A secret is looked for in every form it can travel in (SecretForms: as it
// is, JSON-escaped, URL-encoded in a query or a path), in every way a value
// can be printed (NoSecretIn: Error(), %v, %+v, %#v, %s, slog's text and
// JSON handlers), through every error a chain wraps (NoSecretInErr), and in
// what an apicall.Hook and a logger were given (Observed).
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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/apicall"
)

// SecretForms is a secret as it travels: as it is, JSON-escaped, Go-quoted
// (%q, slog's text handler), URL-encoded in a query and in a path.
func SecretForms(secret string) []string {
	j, _ := json.Marshal(secret)
	q := strconv.Quote(secret) // as slog's text handler and %q write it
	return []string{secret, string(j[1 : len(j)-1]), q[1 : len(q)-1], url.QueryEscape(secret), url.PathEscape(secret)}
}

// Quoting is every form of the secrets, joined by " | ", for a server that
// echoes them.
func Quoting(secrets ...string) string {
	var parts []string
	for _, s := range secrets {
		parts = append(parts, SecretForms(s)...)
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

// Renderings is every way v can be printed, by name: Error() for an error,
// %v, %+v, %#v, %s, and a log line of slog's text and JSON handlers.
func Renderings(v any) map[string]string {
	out := map[string]string{"%v": fmt.Sprintf("%v", v), "%+v": fmt.Sprintf("%+v", v), "%#v": fmt.Sprintf("%#v", v), "%s": fmt.Sprintf("%s", v)}
	if err, ok := v.(error); ok && err != nil {
		out["Error()"] = err.Error()
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("x", "v", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("x", "v", v)
	out["slog text"], out["slog json"] = text.String(), js.String()
	return out
}

// NoSecretIn fails the test (with Errorf) for every rendering of v that
// holds any form of any of the secrets; what names v in the message.
func NoSecretIn(t testing.TB, what string, v any, secrets ...string) {
	t.Helper()
	for how, s := range Renderings(v) {
		for _, sec := range secrets {
			for _, f := range SecretForms(sec) {
				if strings.Contains(s, f) {
					t.Errorf("%s printed with %s holds a secret (as %q): %s", what, how, f, s)
				}
			}
		}
	}
}

// NoSecretInErr checks with NoSecretIn err and every error it wraps, and
// the *url.Error errors.As finds and its URL; and it fails the test when
// the *DumpError of a DumpingTransport, which holds the request's headers,
// can be reached with errors.As.
func NoSecretInErr(t testing.TB, what string, err error, secrets ...string) {
	t.Helper()
	for _, e := range ErrTree(err) {
		NoSecretIn(t, fmt.Sprintf("%s, or an error it wraps (%T)", what, e), e, secrets...)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		NoSecretIn(t, what+": the *url.Error", ue, secrets...)
		NoSecretIn(t, what+": the *url.Error's URL", ue.URL, secrets...)
	}
	var de *DumpError
	if errors.As(err, &de) {
		t.Errorf("%s: the transport's error, which holds the headers, is reachable: %v", what, de.Header)
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

// Check checks with NoSecretInErr every error the hook saw, and with
// NoSecretIn the log.
func (o *Observed) Check(t testing.TB, secrets ...string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.outcomes {
		NoSecretInErr(t, "an error the hook saw", e, secrets...)
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
