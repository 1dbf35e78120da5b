package erp_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/response"
)

// Do reaches an endpoint the client does not wrap, with what every call
// gets: credentials, a retried 503 for a GET, the rate limit and the
// request id of its own answer, and errors mapped to the package's.
func TestDoReachesAnUnwrappedEndpoint(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/index.php" + "/unwrapped":
			if r.Header.Get(erp.APIKeyHeader) == "" {
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
	c, err := erp.New(srv.URL, erp.WithAPIKey("key-123"), erp.WithClock(clock.NewFake(time.Now())))
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Name string }
	var res response.Info
	if err := c.Do(response.Capture(t.Context(), &res), http.MethodGet, "/unwrapped", url.Values{"q": {"x"}}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if out.Name != "x" || calls.Load() != 2 {
		t.Fatalf("%+v after %d calls", out, calls.Load())
	}
	if res.StatusCode != 200 || res.Retries != 1 || res.RequestID != "req-42" || res.RateLimit.Remaining != 9 {
		t.Errorf("response %+v", res)
	}
	err = c.Do(t.Context(), http.MethodGet, "/nowhere", nil, nil, nil)
	if !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("unknown path: %v", err)
	}
	if err := c.Do(t.Context(), http.MethodGet, "relative", nil, nil, nil); err == nil {
		t.Error("a path without its leading / accepted")
	}
}
