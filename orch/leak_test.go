package orch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/apitwin/apitwin/observe"
	"github.com/apitwin/apitwin/orch"
)

// TestHTTPTokenNeverInErrorChains: over HTTP, however a call fails (a
// transport error quoting the request's headers, an error answer echoing
// the token in its message and details, an answer whose decoding quotes
// it, a redirect loop through a URL holding it), no rendering of the
// error, of any error it wraps, of the *Error's message and details, of
// what the hook saw or of the log shows the bearer token.
func TestHTTPTokenNeverInErrorChains(t *testing.T) {
	t.Parallel()
	const token = "orch-Sup3r/S3cret+tok"
	errorBody := func(status int, quote string) string {
		code := map[int]string{400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}[status]
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": "bad token " + quote,
			"details": []any{map[string]any{"type": "FieldViolation", "field": "token " + quote, "description": "echo " + quote}}}})
		return string(b)
	}
	for _, tc := range []struct {
		name   string
		srv    *leakServer
		opts   []orch.Option
		code   string
		urlErr bool
	}{
		{name: "transport error quoting the headers", opts: []orch.Option{orch.WithTransport(dumpingTransport)}, code: orch.CodeUnavailable, urlErr: true},
		{name: "400 quoting the token", srv: &leakServer{status: 400, errorBody: errorBody}, code: orch.CodeInvalidArgument},
		{name: "429 quoting the token", srv: &leakServer{status: 429, errorBody: errorBody}, code: orch.CodeResourceExhausted},
		{name: "503 quoting the token", srv: &leakServer{status: 503, errorBody: errorBody}, code: orch.CodeUnavailable},
		{name: "answer that does not decode", srv: &leakServer{decodeBody: func(s string) string { return `{"config":{"workflow_execution_retention_ttl":"` + s + `"}}` }}, code: orch.CodeInternal},
		{name: "redirect loop through the token", srv: &leakServer{redirect: true}, code: orch.CodeUnavailable, urlErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls := tc.srv
			if ls == nil {
				ls = &leakServer{}
			}
			ls.secrets = []string{token}
			hs := httptest.NewServer(ls)
			t.Cleanup(hs.Close)
			var obs observed
			opts := append([]orch.Option{orch.WithToken(token), orch.WithoutRetries(), orch.WithHook(obs.hook), orch.WithLogger(obs.logger())}, tc.opts...)
			c, err := orch.NewHTTP(hs.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.DescribeNamespace(context.Background(), "default")
			if err == nil {
				t.Fatal("the call did not fail")
			}
			noSecretInErr(t, "the error", err, token)
			var ue *url.Error
			if tc.urlErr && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer reachable as a *url.Error: %#v", err)
			}
			var e *orch.Error
			if !errors.As(err, &e) {
				t.Fatalf("the error is not an *orch.Error: %#v", err)
			}
			if e.Code != tc.code {
				t.Errorf("code %s, want %s: %v", e.Code, tc.code, err)
			}
			noSecretIn(t, "the *Error's message", e.Message, token)
			for _, d := range e.Details {
				noSecretIn(t, "a detail of the *Error", d.String()+" "+d.GetField()+" "+d.GetDescription(), token)
			}
			obs.check(t, token)
		})
	}
}

// leakKit: the failures through which a credential can leak, and the
// checks that none does.

// dumpError is a transport's error that holds the request's headers and
// prints them, as a proxy's error or a request dump would.
type dumpError struct {
	Header http.Header
	dump   string
}

func (e *dumpError) Error() string { return "proxy refused the request:\n" + e.dump }

// dumpingTransport fails every request with a *dumpError.
func dumpingTransport(http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		dump, _ := httputil.DumpRequest(req, false)
		return nil, &dumpError{Header: req.Header.Clone(), dump: string(dump)}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// secretForms is a secret as it travels: as it is, JSON-escaped and
// URL-encoded.
func secretForms(s string) []string {
	j, _ := json.Marshal(s)
	return []string{s, string(j[1 : len(j)-1]), url.QueryEscape(s), url.PathEscape(s)}
}

// quoting is every form of the secrets, for a server that echoes them.
func quoting(secrets ...string) string {
	var parts []string
	for _, s := range secrets {
		parts = append(parts, secretForms(s)...)
	}
	return strings.Join(parts, " | ")
}

// errTree is err and every error it wraps, as errors.As walks them.
func errTree(err error) []error {
	if err == nil {
		return nil
	}
	out := []error{err}
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, errTree(x.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range x.Unwrap() {
			out = append(out, errTree(e)...)
		}
	}
	return out
}

// noSecretIn fails the test when any rendering of v holds any form of a
// secret.
func noSecretIn(t *testing.T, what string, v any, secrets ...string) {
	t.Helper()
	out := map[string]string{"%v": fmt.Sprintf("%v", v), "%+v": fmt.Sprintf("%+v", v), "%#v": fmt.Sprintf("%#v", v), "%s": fmt.Sprintf("%s", v)}
	if err, ok := v.(error); ok && err != nil {
		out["Error()"] = err.Error()
	}
	var text, js bytes.Buffer
	slog.New(slog.NewTextHandler(&text, nil)).Info("x", "v", v)
	slog.New(slog.NewJSONHandler(&js, nil)).Info("x", "v", v)
	out["slog text"], out["slog json"] = text.String(), js.String()
	for how, s := range out {
		for _, sec := range secrets {
			for _, f := range secretForms(sec) {
				if strings.Contains(s, f) {
					t.Errorf("%s printed with %s holds a secret (as %q): %s", what, how, f, s)
				}
			}
		}
	}
}

// noSecretInErr checks err and every error it wraps, the *url.Error
// errors.As finds, and that the transport's *dumpError is out of reach.
func noSecretInErr(t *testing.T, what string, err error, secrets ...string) {
	t.Helper()
	for _, e := range errTree(err) {
		noSecretIn(t, fmt.Sprintf("%s, or an error it wraps (%T)", what, e), e, secrets...)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		noSecretIn(t, what+": the *url.Error", ue, secrets...)
		noSecretIn(t, what+": the *url.Error's URL", ue.URL, secrets...)
	}
	var de *dumpError
	if errors.As(err, &de) {
		t.Errorf("%s: the transport's error, which holds the headers, is reachable: %v", what, de.Header)
	}
}

// observed is what a hook and a logger were given.
type observed struct {
	mu       sync.Mutex
	outcomes []error
	logs     bytes.Buffer
}

func (o *observed) hook(ctx context.Context, _ observe.Call) (context.Context, func(observe.Outcome)) {
	return ctx, func(out observe.Outcome) {
		o.mu.Lock()
		o.outcomes = append(o.outcomes, out.Err)
		o.mu.Unlock()
	}
}

func (o *observed) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{o}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type lockedWriter struct{ o *observed }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.o.mu.Lock()
	defer w.o.mu.Unlock()
	return w.o.logs.Write(p)
}

func (o *observed) check(t *testing.T, secrets ...string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.outcomes {
		noSecretInErr(t, "an error the hook saw", e, secrets...)
	}
	noSecretIn(t, "the log", o.logs.String(), secrets...)
}

// leakServer answers as mode says: an error answer of status quoting the
// secrets (body built by errorBody), a 200 answer that does not decode
// (decodeBody), or redirects forever through a URL holding them.
type leakServer struct {
	secrets    []string
	status     int
	errorBody  func(status int, quote string) string
	decodeBody func(quote string) string
	redirect   bool
}

func (s *leakServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.redirect:
		http.Redirect(w, r, r.URL.Path+"?s="+url.QueryEscape(s.secrets[0]), http.StatusFound)
	case s.decodeBody != nil:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, s.decodeBody(s.secrets[0]))
	default:
		w.Header().Set("Content-Type", "application/json")
		if s.status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(s.status)
		_, _ = io.WriteString(w, s.errorBody(s.status, quoting(s.secrets...)))
	}
}
