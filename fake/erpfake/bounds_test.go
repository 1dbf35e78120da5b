package erpfake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/erpfake"
)

// erpError decodes an answer in the ERP's error shape, failing the test if
// it is not in it.
func erpError(t *testing.T, a answer) (code int, message string) {
	t.Helper()
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(a.body), &e); err != nil || e.Error.Code != a.status || a.header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %q %.300s: not in the ERP's error shape (%v)", a.status, a.header.Get("Content-Type"), a.body, err)
	}
	return e.Error.Code, e.Error.Message
}

// beforeDeadline is a context that ends a little before the test binary's
// own deadline, so that a request held forever fails the test with a
// message instead of a timeout.
func beforeDeadline(t *testing.T) context.Context {
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
		t.Cleanup(cancel)
	}
	return ctx
}

// hugeQty is an invoice whose one line has a qty of n digits (issue 14,
// finding 2: with 1.5 million, the fake took 11.5 s to answer, holding its
// lock all along).
func hugeQty(n int) string {
	return `{"socid":1,"lines":[{"desc":"x","subprice":"1","qty":"1` + strings.Repeat("0", n-1) + `"}]}`
}

func TestHugeQtyIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	a := send(t, srv, "POST", api+"/invoices", "application/json", hugeQty(1_000_000))
	code, msg := erpError(t, a)
	if code != 400 || !strings.HasPrefix(msg, "Bad Request: lines[0]: qty ") || len(msg) > 300 {
		t.Fatalf("%d %.300s", code, msg)
	}
	if n := len(srv.Invoices()); n != 0 {
		t.Fatalf("%d invoices made", n)
	}
}

// TestParsingHoldsNoLock holds a request with a huge body once its body is
// parsed: an ordinary request must still be answered meanwhile, as nothing
// of the big one holds the fake's state.
func TestParsingHoldsNoLock(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	parsed, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	erpfake.SetParsedHook(srv, func(r *http.Request) {
		if r.Method == http.MethodPost {
			close(parsed)
			<-release
		}
	})
	big := make(chan int, 1)
	go func() { big <- post(srv, "/invoices", hugeQty(1_000_000)) }()
	<-parsed

	ordinary := make(chan int, 1)
	go func() {
		req, _ := http.NewRequestWithContext(beforeDeadline(t), "GET", srv.URL()+api+"/thirdparties/1", nil)
		req.Header.Set("ERPAPIKEY", srv.APIKey())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ordinary <- 0
			return
		}
		resp.Body.Close()
		ordinary <- resp.StatusCode
	}()
	if status := <-ordinary; status != 200 {
		t.Fatalf("an ordinary request while a big one was parsed: %d (0: held until the test's deadline)", status)
	}
	release <- struct{}{}
	if status := <-big; status != 400 {
		t.Fatalf("the big request: %d", status)
	}
}

// post sends a JSON body to an API path with admin's key, from any
// goroutine, and returns the status (0 if the request failed).
func post(srv *erpfake.Server, path, body string) int {
	req, _ := http.NewRequest("POST", srv.URL()+api+path, strings.NewReader(body))
	req.Header.Set("ERPAPIKEY", srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	a := send(t, srv, "POST", api+"/invoices", "application/json", hugeQty(1_500_000))
	if code, msg := erpError(t, a); code != 413 || msg != "Request Entity Too Large" {
		t.Fatalf("%d %s", code, msg)
	}
	if a := send(t, srv, "GET", api+"/thirdparties/1", "", ""); a.status != 200 {
		t.Fatalf("after a refused body: %d", a.status)
	}
	if r := srv.RequestsTo("POST /api/index.php/invoices"); len(r) != 1 || r[0].Status != 413 || len(r[0].Body) != 0 {
		t.Fatalf("log: %v", r)
	}
}
