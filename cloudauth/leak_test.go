package cloudauth_test

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

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/observe"
)

// TestCredentialsNeverInErrorChains: however a login or a call with a
// token fails (a transport error quoting the request's headers, an error
// answer echoing the password or the token, an answer whose decoding
// quotes the token, a redirect loop through a URL holding them), no
// rendering of the error, of any error it wraps, of the *Error and its
// body, of what the hook saw or of the log shows the password or the
// access token.
func TestCredentialsNeverInErrorChains(t *testing.T) {
	t.Parallel()
	srv := startFake(t)
	raw, err := srv.IssueToken(srv.DefaultTenant(), "admin")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := cloudauth.ParseToken(raw)
	if err != nil {
		t.Fatal(err)
	}
	const password = `Pa55 w/rd"&+é-login`
	errorBody := func(status int, quote string) string {
		b, _ := json.Marshal(map[string]any{"statusCode": status, "message": "refused " + quote, "requestId": "r-" + quote})
		return string(b)
	}
	login := func(c *cloudauth.Client) error {
		_, err := c.Login(context.Background(), &cloudauth.LoginRequest{Username: "admin", Password: password})
		return err
	}
	userInfo := func(c *cloudauth.Client) error { _, err := c.UserInfo(context.Background(), tok); return err }
	logout := func(c *cloudauth.Client) error { return c.Logout(context.Background(), tok) }
	rawDo := func(c *cloudauth.Client) error {
		var out struct{ T time.Time }
		return c.Do(context.Background(), tok, http.MethodGet, "/csp/gateway/am/api/loggedin/user", nil, nil, &out)
	}
	for _, tc := range []struct {
		name   string
		call   func(*cloudauth.Client) error
		secret string
		srv    *leakServer
		opts   []cloudauth.Option
		is     error
		urlErr bool
	}{
		{name: "login: 400 quoting the password", call: login, secret: password, srv: &leakServer{status: 400, errorBody: errorBody}, is: cloudauth.ErrBadRequest},
		{name: "login: 401 quoting the password", call: login, secret: password, srv: &leakServer{status: 401, errorBody: errorBody}, is: cloudauth.ErrUnauthorized},
		{name: "login: 429 quoting the password", call: login, secret: password, srv: &leakServer{status: 429, errorBody: errorBody}, is: cloudauth.ErrRateLimited},
		{name: "login: redirect loop through the password", call: login, secret: password, srv: &leakServer{redirect: true}, is: cloudauth.ErrConnectionTimeout, urlErr: true},
		{name: "userinfo: transport error quoting the headers", call: userInfo, secret: raw, opts: []cloudauth.Option{cloudauth.WithTransport(dumpingTransport)}, is: cloudauth.ErrConnectionTimeout, urlErr: true},
		{name: "userinfo: 401 quoting the token", call: userInfo, secret: raw, srv: &leakServer{status: 401, errorBody: errorBody}, is: cloudauth.ErrUnauthorized},
		{name: "userinfo: 500 quoting the token", call: userInfo, secret: raw, srv: &leakServer{status: 500, errorBody: errorBody}, is: cloudauth.ErrServer},
		{name: "userinfo: redirect loop through the token", call: userInfo, secret: raw, srv: &leakServer{redirect: true}, urlErr: true},
		{name: "logout: transport error quoting the headers", call: logout, secret: raw, opts: []cloudauth.Option{cloudauth.WithTransport(dumpingTransport)}, urlErr: true},
		{name: "logout: 403 quoting the token", call: logout, secret: raw, srv: &leakServer{status: 403, errorBody: errorBody}, is: cloudauth.ErrForbidden},
		{name: "do: answer that does not decode", call: rawDo, secret: raw, srv: &leakServer{decodeBody: func(s string) string { return `{"T":"` + s + `"}` }}},
		{name: "do: transport error quoting the headers", call: rawDo, secret: raw, opts: []cloudauth.Option{cloudauth.WithTransport(dumpingTransport)}, urlErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls := tc.srv
			if ls == nil {
				ls = &leakServer{}
			}
			ls.secrets = []string{tc.secret}
			hs := httptest.NewServer(ls)
			t.Cleanup(hs.Close)
			var obs observed
			opts := append([]cloudauth.Option{cloudauth.WithoutRetries(), cloudauth.WithHook(obs.hook), cloudauth.WithLogger(obs.logger())}, tc.opts...)
			c, err := cloudauth.New(hs.URL, opts...)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.call(c)
			if err == nil {
				t.Fatal("the call did not fail")
			}
			noSecretInErr(t, "the error", err, tc.secret)
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("the error no longer matches %v: %v", tc.is, err)
			}
			var ue *url.Error
			if tc.urlErr && !errors.As(err, &ue) {
				t.Errorf("a transport error is no longer a *url.Error: %#v", err)
			}
			var e *cloudauth.Error
			if errors.As(err, &e) {
				noSecretIn(t, "the *Error", e, tc.secret)
				noSecretIn(t, "the *Error's detail", e.Detail(), tc.secret)
				noSecretIn(t, "the *Error's message", e.Message, tc.secret)
				noSecretIn(t, "the *Error's request id", e.RequestID, tc.secret)
				noSecretIn(t, "the *Error's body", string(e.Body), tc.secret)
				noSecretInErr(t, "the *Error's transport error", e.Err, tc.secret)
			} else if tc.is != nil {
				t.Errorf("the error is no longer a *cloudauth.Error: %#v", err)
			}
			obs.check(t, tc.secret)
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
