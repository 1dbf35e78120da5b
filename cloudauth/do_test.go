package cloudauth_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/cloudauth"
)

// Do reaches an endpoint the client does not wrap, with what every call
// gets: credentials, a retried 503 for a GET, the rate limit and the
// request id of its own answer, and errors mapped to the package's.
func TestDoReachesAnUnwrappedEndpoint(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "" + "/unwrapped":
			if r.Header.Get("User-Agent") == "" {
				http.Error(w, `{"message":"401 Unauthorized"}`, http.StatusUnauthorized)
				return
			}
			if calls.Add(1) == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.Header().Set("X-Request-Id", "req-42")
			w.Header().Set("RateLimit-Remaining", "9")
			w.Header().Set("RateLimit-Limit", "10")
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"name":"`+r.URL.Query().Get("q")+`"}`)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"404 Not Found"}`)
		}
	}))
	defer srv.Close()
	c, err := cloudauth.New(srv.URL, cloudauth.WithClock(clock.NewFake(time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Name string }
	var res apicall.Info
	if err := doWithoutToken(c)(apicall.Capture(t.Context(), &res), http.MethodGet, "/unwrapped", url.Values{"q": {"x"}}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "x" || calls.Load() != 2 {
		t.Fatalf("%+v after %d calls", out, calls.Load())
	}
	if res.StatusCode != 200 || res.Retries != 1 || res.RequestID != "req-42" || res.RateLimit.Remaining != 9 {
		t.Errorf("response %+v", res)
	}
	err = doWithoutToken(c)(t.Context(), http.MethodGet, "/nowhere", nil, nil, nil)
	if !errors.Is(err, cloudauth.ErrNotFound) {
		t.Errorf("unknown path: %v", err)
	}
	if err := doWithoutToken(c)(t.Context(), http.MethodGet, "relative", nil, nil, nil); err == nil {
		t.Error("a path without its leading / accepted")
	}
}

// doWithoutToken is Do for a path that needs no token (a token comes from a
// login; the test's server checks the User-Agent every request carries).
func doWithoutToken(c *cloudauth.Client) func(ctx context.Context, method, path string, q url.Values, body, out any) error {
	return func(ctx context.Context, method, path string, q url.Values, body, out any) error {
		return c.Do(ctx, nil, method, path, q, body, out)
	}
}
