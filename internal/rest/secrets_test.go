package rest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/observe"
	"github.com/apitwin/apitwin/retry"
)

// headerDump is a transport's error that keeps the request's headers.
type headerDump struct {
	Header http.Header
	dump   string
}

func (e *headerDump) Error() string { return "refused:\n" + e.dump }

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// chain is err and every error it wraps.
func chain(err error) []error {
	if err == nil {
		return nil
	}
	out := []error{err}
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, chain(x.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range x.Unwrap() {
			out = append(out, chain(e)...)
		}
	}
	return out
}

func assertClean(t *testing.T, err error, secrets ...string) {
	t.Helper()
	for _, e := range chain(err) {
		for _, s := range []string{e.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
			for _, sec := range secrets {
				if strings.Contains(s, sec) || strings.Contains(s, url.QueryEscape(sec)) {
					t.Errorf("%T shows %q: %s", e, sec, s)
				}
			}
		}
	}
	var hd *headerDump
	if errors.As(err, &hd) {
		t.Errorf("the transport's error is reachable: %v", hd.Header)
	}
}

// TestSecretsLearnedLaterLeaveNoWrappedError: a credential the client
// learns after it was built (Secrets.Add) and one a request carries
// (Request.Secrets) are taken out of the error and every error it wraps,
// and out of the hook's outcome; the transport error stays a *url.Error
// and errors.Is still finds context.Canceled.
func TestSecretsLearnedLaterLeaveNoWrappedError(t *testing.T) {
	t.Parallel()
	var cookie atomic.Value
	cookie.Store("session-0000")
	var mu sync.Mutex
	var outcomes []error
	hook := func(ctx context.Context, _ observe.Call) (context.Context, func(observe.Outcome)) {
		return ctx, func(o observe.Outcome) { mu.Lock(); outcomes = append(outcomes, o.Err); mu.Unlock() }
	}
	c, err := rest.New(rest.Config{
		Service: "test", BaseURL: "http://example.invalid", Retry: retry.Policy{Disabled: true}, Hook: hook,
		Authorize: func(h http.Header) { h.Set("Cookie", "sid="+cookie.Load().(string)) },
		Transport: func(http.RoundTripper) http.RoundTripper {
			return rtFunc(func(req *http.Request) (*http.Response, error) {
				d, _ := httputil.DumpRequest(req, false)
				return nil, &headerDump{Header: req.Header.Clone(), dump: string(d)}
			})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	const fresh = "session-Fr3sh/val+ue"
	cookie.Store(fresh)
	c.Secrets().Add(fresh)
	_, err = c.Do(context.Background(), &rest.Request{Method: "GET", Path: "/x", Header: http.Header{"X-Pass": {"req-p4ssword"}}, Secrets: []string{"req-p4ssword"}}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	assertClean(t, err, fresh, "req-p4ssword")
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("no longer a *url.Error: %#v", err)
	}
	mu.Lock()
	for _, o := range outcomes {
		assertClean(t, o, fresh, "req-p4ssword")
	}
	mu.Unlock()
	if s := fmt.Sprintf("%v %+v %#v", c.Secrets(), c.Secrets(), c.Secrets()); strings.Contains(s, fresh) {
		t.Errorf("the set prints its values: %s", s)
	}

	// A cancelled call through a URL holding the secret.
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	const tok = "tok-in-the-path-1234"
	c2, err := rest.New(rest.Config{Service: "test", BaseURL: srv.URL + "/" + tok, Secrets: []string{tok}, Retry: retry.Policy{Disabled: true}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c2.Do(ctx, get("/x"), nil)
	assertClean(t, err, tok)
	if !errors.Is(err, context.Canceled) || !errors.As(err, &ue) {
		t.Errorf("a cancelled call: %#v", err)
	}
}
