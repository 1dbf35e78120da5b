package sourcehost_test

import (
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
	"github.com/apitwin/apitwin/sourcehost"
)

// Do reaches an endpoint the client does not wrap, with what every call
// gets: credentials, a retried 503 for a GET, the rate limit and the
// request id of its own answer, and errors mapped to the package's.
func TestDoReachesAnUnwrappedEndpoint(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v4" + "/unwrapped":
			if r.Header.Get("Private-Token") == "" {
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
	c, err := sourcehost.New(srv.URL, sourcehost.WithToken("tok-123"), sourcehost.WithClock(clock.NewFake(time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Name string }
	var res apicall.Info
	if err := c.Do(apicall.Capture(t.Context(), &res), http.MethodGet, "/unwrapped", url.Values{"q": {"x"}}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "x" || calls.Load() != 2 {
		t.Fatalf("%+v after %d calls", out, calls.Load())
	}
	if res.StatusCode != 200 || res.Retries != 1 || res.RequestID != "req-42" || res.RateLimit.Remaining != 9 {
		t.Errorf("response %+v", res)
	}
	err = c.Do(t.Context(), http.MethodGet, "/nowhere", nil, nil, nil)
	if !errors.Is(err, sourcehost.ErrNotFound) {
		t.Errorf("unknown path: %v", err)
	}
	if err := c.Do(t.Context(), http.MethodGet, "relative", nil, nil, nil); err == nil {
		t.Error("a path without its leading / accepted")
	}
}

// Two calls in flight at once each read the rate limit of their own
// answer, not the last one the client saw.
func TestConcurrentCallsReadTheirOwnRateLimit(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 2)
	both := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-both // answer only once both calls are in flight
		w.Header().Set("RateLimit-Limit", "100")
		w.Header().Set("RateLimit-Remaining", r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	c, err := sourcehost.New(srv.URL, sourcehost.WithToken("tok-123"))
	if err != nil {
		t.Fatal(err)
	}
	var infos [2]apicall.Info
	errs := make(chan error, 2)
	for i := range infos {
		go func() {
			errs <- c.Do(apicall.Capture(t.Context(), &infos[i]), http.MethodGet, "/version", url.Values{"n": {[]string{"11", "22"}[i]}}, nil, nil)
		}()
	}
	<-arrived
	<-arrived
	close(both)
	for range infos {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if infos[0].RateLimit.Remaining != 11 || infos[1].RateLimit.Remaining != 22 {
		t.Errorf("call 1 read %d, call 2 read %d", infos[0].RateLimit.Remaining, infos[1].RateLimit.Remaining)
	}
}
