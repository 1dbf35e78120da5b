package erp_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apitwin/apitwin/apicall"
	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/retry"
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
	if !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("unknown path: %v", err)
	}
	if err := c.Do(t.Context(), http.MethodGet, "relative", nil, nil, nil); err == nil {
		t.Error("a path without its leading / accepted")
	}
}

// A 503 in the ERP's own JSON shape (the fake's injected fault) passes, as
// a gateway's or maintenance's would: a GET is sent again and gets in; a
// POST is not, and its error says why. A 500 in that shape is a refusal the
// ERP's code decided, and is not retried.
func TestServerErrorsRetriedAsTheyMayPass(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	c := srv.Client()
	if err := srv.InjectFault("GET /api/index.php/users/{id}", control.Fault{Status: http.StatusServiceUnavailable, Times: 1}); err != nil {
		t.Fatal(err)
	}
	var res apicall.Info
	if _, err := c.GetUser(apicall.Capture(t.Context(), &res), 1); err != nil || res.Retries != 1 {
		t.Fatalf("a GET after a JSON 503: %v, %d retries", err, res.Retries)
	}
	if err := srv.InjectFault("POST /api/index.php/thirdparties", control.Fault{Status: http.StatusServiceUnavailable, Times: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateThirdparty(t.Context(), &erp.CreateThirdpartyRequest{Name: "Once"})
	var re *retry.Error
	if !errors.Is(err, erp.ErrServer) || !errors.As(err, &re) || !strings.Contains(err.Error(), "not retried: the call is not idempotent") {
		t.Fatalf("a POST after a JSON 503: %v", err)
	}
	if err := srv.InjectFault("GET /api/index.php/users/{id}", control.Fault{Status: http.StatusInternalServerError, Times: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetUser(apicall.Capture(t.Context(), &res), 1); !errors.Is(err, erp.ErrServer) || res.Retries != 0 {
		t.Fatalf("a GET after a JSON 500: %v, %d retries", err, res.Retries)
	}
	if n := len(srv.RequestsTo("POST /api/index.php/thirdparties")); n != 1 {
		t.Errorf("the POST was sent %d times", n)
	}
}
