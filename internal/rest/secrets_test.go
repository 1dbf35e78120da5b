package rest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/internal/rest"
	"github.com/apitwin/apitwin/retry"
)

// cookieClient is a client that sends the session cookie held in cookie
// and whose every call fails with an error that quotes the whole request,
// cookie included: what its secrets must be taken out of.
func cookieClient(t *testing.T, cookie *atomic.Value, hook apicall.Hook) *rest.Client {
	t.Helper()
	c, err := rest.New(rest.Config{
		Service: "test", BaseURL: "http://example.invalid", Retry: retry.Policy{Disabled: true}, Hook: hook,
		Authorize: func(h http.Header) { h.Set("Cookie", "sid="+cookie.Load().(string)) },
		Transport: func(http.RoundTripper) http.RoundTripper {
			return leaktest.RoundTripFunc(func(req *http.Request) (*http.Response, error) {
				return nil, leaktest.NewDumpError(req)
			})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
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
	hook := func(ctx context.Context, _ apicall.Call) (context.Context, func(apicall.Outcome)) {
		return ctx, func(o apicall.Outcome) { mu.Lock(); outcomes = append(outcomes, o.Err); mu.Unlock() }
	}
	c := cookieClient(t, &cookie, hook)
	const fresh = "session-Fr3sh/val+ue"
	cookie.Store(fresh)
	c.Secrets().Add(fresh)
	_, err := c.Do(context.Background(), &rest.Request{Method: "GET", Path: "/x", Header: http.Header{"X-Pass": {"req-p4ssword"}}, Secrets: []string{"req-p4ssword"}}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	leaktest.NoSecretIn(t, "the error", err, fresh, "req-p4ssword")
	var ue *url.Error
	if !errors.As(err, &ue) {
		t.Errorf("no longer a *url.Error: %#v", err)
	}
	mu.Lock()
	for _, o := range outcomes {
		leaktest.NoSecretIn(t, "the hook's outcome", o, fresh, "req-p4ssword")
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
	leaktest.NoSecretIn(t, "the error", err, tok)
	if !errors.Is(err, context.Canceled) || !errors.As(err, &ue) {
		t.Errorf("a cancelled call: %#v", err)
	}
}

// TestSecretsAddedWhileCleaning: the set's replacer is built when first
// needed after a change; a secret added before a call is hidden in its
// error however the adds and the calls interleave (run with -race). Each
// round adds no more secrets than the set keeps (maxRecentSecrets, 16), so
// that none is forgotten while its call runs.
func TestSecretsAddedWhileCleaning(t *testing.T) {
	t.Parallel()
	for round := range 10 {
		var cookie atomic.Value
		cookie.Store("session-start")
		c := cookieClient(t, &cookie, nil)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range 4 {
					v := fmt.Sprintf("session-%d-%d-%d-s3cret", round, g, i)
					c.Secrets().Add(v)
					cookie.Store(v)
					_, err := c.Do(context.Background(), &rest.Request{Method: "GET", Path: "/x"}, nil)
					if err == nil {
						t.Error("no error")
						return
					}
					if strings.Contains(err.Error(), v) {
						t.Errorf("error after Add(%q) still shows it: %v", v, err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// BenchmarkNewClient is what making a client costs, credentials included:
// the forms its secrets are hidden in are worked out only when an error
// is first cleaned.
func BenchmarkNewClient(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rest.New(rest.Config{Service: "test", BaseURL: "http://example.invalid/api/v4", Secrets: []string{"glpat-0123456789abcdef"}}); err != nil {
			b.Fatal(err)
		}
	}
}

// The credential a call sent stays hidden in that call's error however many
// secrets the client learns meanwhile: the set keeps only the most recent
// ones, so a session renewed more than that many times while the call was
// out (by other goroutines of a busy client) used to fall out of it, and
// the error quoting the request showed it.
func TestSecretSentStaysHiddenAfterRenewals(t *testing.T) {
	t.Parallel()
	var cookie atomic.Value
	const sent = "session-sent-0001"
	cookie.Store(sent)
	var c *rest.Client
	c, err := rest.New(rest.Config{
		Service: "test", BaseURL: "http://example.invalid", Retry: retry.Policy{Disabled: true},
		Authorize: func(h http.Header) { h.Set("Cookie", "sid="+cookie.Load().(string)) },
		Transport: func(http.RoundTripper) http.RoundTripper {
			return leaktest.RoundTripFunc(func(req *http.Request) (*http.Response, error) {
				for i := range 40 { // renewals while the call is out
					renewed := fmt.Sprintf("session-renewed-%04d", i)
					cookie.Store(renewed)
					c.Secrets().Add(renewed)
				}
				return nil, leaktest.NewDumpError(req)
			})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Secrets().Add(sent)
	_, err = c.Do(context.Background(), &rest.Request{Method: "GET", Path: "/x"}, nil)
	if err == nil {
		t.Fatal("no error")
	}
	leaktest.NoSecretIn(t, "the error", err, sent)
}

// TestSecretEchoedAsPHPWritesItIsHidden: an error answer that quotes a
// secret as PHP's json_encode writes it (the ERP is PHP: "/" as "\/",
// "é" as "\u00e9", "&" and "<" as they are) leaves it in no error.
func TestSecretEchoedAsPHPWritesItIsHidden(t *testing.T) {
	t.Parallel()
	const password = `pa/ss"wörd&<x>`
	for name, echoed := range map[string]string{
		"escaped slashes and unicode": `pa\/ss\"w\u00f6rd&<x>`,
		"escaped slashes":             `pa\/ss\"wörd&<x>`,
		"no HTML escapes":             `pa/ss\"wörd&<x>`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"code":400,"message":"Bad password %s"}}`, echoed)
			}))
			t.Cleanup(srv.Close)
			c, err := rest.New(rest.Config{Service: "test", BaseURL: srv.URL, Retry: retry.Policy{Disabled: true}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Do(t.Context(), &rest.Request{Method: http.MethodPost, Path: "/login",
				JSON: map[string]string{"password": password}, Secrets: []string{password}}, nil)
			if err == nil {
				t.Fatal("the call did not fail")
			}
			for e := error(err); e != nil; e = errors.Unwrap(e) {
				if strings.Contains(e.Error(), echoed) || strings.Contains(fmt.Sprintf("%+v", e), echoed) {
					t.Errorf("the error shows the password as echoed: %v", e)
				}
			}
			if !strings.Contains(err.Error(), "Bad password "+rest.Redacted) {
				t.Errorf("the error no longer quotes the answer: %v", err)
			}
		})
	}
}
