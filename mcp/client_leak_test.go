package mcp_test

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
	"time"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/observe"
)

// TestClientTokenNeverInErrorChains: however a call of the client fails (a
// transport error quoting the request's headers, an HTTP error answer or a
// JSON-RPC error answer echoing the token in its message and data, a
// result whose decoding quotes it, a redirect loop through a URL holding
// it), no rendering of the error, of any error it wraps, of the *Error's
// fields, of what the hook saw or of the log shows the token or the
// signing secret.
func TestClientTokenNeverInErrorChains(t *testing.T) {
	t.Parallel()
	const token = "glpat-Mcp/T0ken+s3cret"
	const signing = "signing-Secret/42+x"
	rpcError := func(status int, quote string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{
			"code": mcp.CodeInvalidParams, "message": "bad token " + quote,
			"data": map[string]any{"status": status, "message": quote, "param": "token " + quote, "reason": quote}}})
		return string(b)
	}
	call := func(c *mcp.Client) error {
		var out struct{ T time.Time }
		return c.Call(context.Background(), "ping", nil, &out)
	}
	batch := func(c *mcp.Client) error {
		b := c.NewBatch()
		bc := b.Call("ping", nil)
		if err := b.Send(context.Background()); err != nil {
			return err
		}
		var out struct{ T time.Time }
		return bc.Decode(&out)
	}
	rpcBatchError := func(status int, quote string) string { return "[" + rpcError(status, quote) + "]" }
	for _, tc := range []struct {
		name   string
		srv    *leakServer
		call   func(*mcp.Client) error
		opts   []mcp.Option
		is     error
		urlErr bool
	}{
		{name: "transport error quoting the headers", call: call, opts: []mcp.Option{mcp.WithTransport(dumpingTransport)}, urlErr: true},
		{name: "HTTP 400 quoting the token", call: call, srv: &leakServer{status: 400, errorBody: rpcError}, is: mcp.ErrInvalidParams},
		{name: "JSON-RPC error quoting the token", call: call, srv: &leakServer{status: 200, errorBody: rpcError}, is: mcp.ErrInvalidParams},
		{name: "result that does not decode", call: call, srv: &leakServer{decodeBody: func(s string) string { return `{"jsonrpc":"2.0","id":1,"result":{"T":"` + s + `"}}` }}},
		{name: "redirect loop through the token", call: call, srv: &leakServer{redirect: true}, urlErr: true},
		{name: "batch: JSON-RPC error quoting the token", call: batch, srv: &leakServer{status: 200, errorBody: rpcBatchError}, is: mcp.ErrInvalidParams},
		{name: "batch: result that does not decode", call: batch, srv: &leakServer{decodeBody: func(s string) string { return `[{"jsonrpc":"2.0","id":1,"result":{"T":"` + s + `"}}]` }}},
		{name: "batch: transport error quoting the headers", call: batch, opts: []mcp.Option{mcp.WithTransport(dumpingTransport)}, urlErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls := tc.srv
			if ls == nil {
				ls = &leakServer{}
			}
			ls.secrets = []string{token, signing}
			hs := httptest.NewServer(ls)
			t.Cleanup(hs.Close)
			var obs observed
			opts := append([]mcp.Option{mcp.WithToken(token), mcp.WithSigningSecret(signing), mcp.WithoutRetries(),
				mcp.WithHook(obs.hook), mcp.WithLogger(obs.logger())}, tc.opts...)
			c, err := mcp.New(hs.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(c)
			if err == nil {
				t.Fatal("the call did not fail")
			}
			noSecretInErr(t, "the error", err, token, signing)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("the error no longer matches %v: %v", tc.is, err)
			}
			var ue *url.Error
			if tc.urlErr && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer a *url.Error: %#v", err)
			}
			var e *mcp.Error
			if errors.As(err, &e) {
				for name, v := range map[string]string{"message": e.Message, "data": string(e.Data), "detail": e.Detail, "param": e.Param, "reason": e.Reason} {
					noSecretIn(t, "the *Error's "+name, v, token, signing)
				}
			} else if tc.is != nil {
				t.Errorf("the error is no longer an *mcp.Error: %#v", err)
			}
			obs.check(t, token, signing)
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
