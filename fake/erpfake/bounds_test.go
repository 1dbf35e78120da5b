package erpfake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
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
		resp, err := srv.RawClient().Do(req)
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
	resp, err := srv.RawClient().Do(req)
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

	// WithMaxBody moves the limit; 0 keeps the default.
	small := erpfake.Start(t, control.WithMaxBody(100))
	if a := send(t, small, "POST", api+"/thirdparties", "application/json", `{"name":"`+strings.Repeat("x", 100)+`"}`); a.status != 413 {
		t.Fatalf("over 100 bytes: %d", a.status)
	}
	zero := erpfake.Start(t, control.WithMaxBody(0))
	zero.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	if a := send(t, zero, "POST", api+"/invoices", "application/json", hugeQty(1_100_000)); a.status != 413 {
		t.Fatalf("WithMaxBody(0): %d", a.status)
	}
}

// TestNumbersKeepTheERPsPrecision checks each bound on what a request
// carries: every refusal is a 400 in the ERP's shape naming the field.
func TestNumbersKeepTheERPsPrecision(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	srv.AddProduct(erpfake.ProductSeed{Ref: "W", Label: "Widget", Price: "2"})
	line := func(qty string) string {
		return `{"socid":1,"lines":[{"desc":"x","subprice":"1","qty":` + qty + `}]}`
	}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		msg                      string // the start of the message
	}{
		{"16 digits and 8 decimals", "POST", "/invoices", line(`"1234567890123456.12345678"`), 200, ""},
		{"17 digits", "POST", "/invoices", line(`"12345678901234567"`), 400, "Bad Request: lines[0]: qty 12345678901234567 has more digits than the ERP keeps"},
		{"9 decimals", "POST", "/invoices", line(`"0.123456789"`), 400, "Bad Request: lines[0]: qty 0.123456789 has more digits"},
		{"a JSON number", "POST", "/invoices", line(`1e16`), 400, "Bad Request: lines[0]: qty 1e16 has more digits"},
		{"an exponent that fits", "POST", "/invoices", line(`"1.5e15"`), 200, ""},
		{"a small exponent", "POST", "/invoices", line(`"1e-8"`), 200, ""},
		{"too small", "POST", "/invoices", line(`"1e-9"`), 400, "Bad Request: lines[0]: qty 1e-9 has more digits"},
		{"a huge exponent of zero", "POST", "/invoices", line(`"0e99999999999999999999"`), 200, ""},
		{"a huge exponent", "POST", "/invoices", line(`"1e99999999999999999999"`), 400, "Bad Request: lines[0]: qty 1e99999999999999999999 has more"},
		{"zeros aside", "POST", "/invoices", line(`"000000000000000000000001.50000000000000000000"`), 200, ""},
		{"not a number", "POST", "/invoices", line(`"1/3"`), 400, "Bad Request: lines[0]: qty must be a number"},
		{"a price", "POST", "/products", `{"ref":"P","label":"p","price":"1e400"}`, 400, "Bad Request: price 1e400 has more digits"},
		{"a vat rate", "POST", "/products", `{"ref":"P","label":"p","tva_tx":"0.000000001"}`, 400, "Bad Request: tva_tx 0.000000001 has more digits"},
		{"a price with tax past the column", "POST", "/products", `{"ref":"P","label":"p","price":"9999999999999999","tva_tx":"20"}`, 400,
			"Bad Request: price_ttc 11999999999999998.8 (the price with tax) has more digits"},
		{"a line's total past the column", "POST", "/invoices", `{"socid":1,"lines":[{"desc":"x","subprice":"9999999999999999","qty":"9999999999999999"}]}`, 400,
			"Bad Request: lines[0]: the line's total 99999999999999980000000000000001 has more digits"},
		{"the total past the column", "POST", "/invoices", `{"socid":1,"lines":[{"desc":"x","subprice":"6000000000000000","qty":"1"},{"desc":"y","subprice":"6000000000000000","qty":"1"}]}`, 400,
			"Bad Request: the invoice's total 12000000000000000 has more digits"},
		{"socid past INT", "POST", "/invoices", `{"socid":2147483648}`, 400, "Bad Request: socid 2147483648 is out of range: the ERP's integers are -2147483648 to 2147483647"},
		{"socid past int64", "POST", "/orders", `{"socid":"99999999999999999999999"}`, 400, "Bad Request: socid 99999999999999999999999 is out of range"},
		{"fk_product past INT", "POST", "/invoices", `{"socid":1,"lines":[{"fk_product":-2147483649,"qty":1}]}`, 400, "Bad Request: lines[0]: fk_product -2147483649 is out of range"},
		{"a type past INT", "POST", "/products", `{"ref":"P","label":"p","type":4294967296}`, 400, "Bad Request: type 4294967296 is out of range"},
		{"a flag past INT", "POST", "/thirdparties", `{"name":"n","fournisseur":"1e3"}`, 400, "Bad Request: fournisseur must be an integer"},
		{"a date past DATETIME", "POST", "/invoices", `{"socid":1,"date":253402300800}`, 400, "Bad Request: date 253402300800 is out of range: dates are 1000-01-01 to 9999-12-31"},
		{"a date past int64", "POST", "/orders", `{"socid":1,"delivery_date":"-99999999999999999999"}`, 400, "Bad Request: delivery_date -99999999999999999999 is out of range"},
		{"the last date", "POST", "/invoices", `{"socid":1,"date":253402300799}`, 200, ""},
		{"an id past INT", "GET", "/invoices/2147483648", "", 400, "Bad Request: Invalid value specified for `id`. Expecting integer value from -2147483648 to 2147483647"},
		{"an id past int64", "PUT", "/products/99999999999999999999", `{}`, 400, "Bad Request: Invalid value specified for `id`"},
		{"the last id", "GET", "/invoices/2147483647", "", 404, "Not Found: Invoice not found"},
		{"not an id", "GET", "/invoices/x1", "", 404, "Not Found: Invoice not found"},
		{"limit past INT", "GET", "/products?limit=2147483648", "", 400, "Bad Request: Invalid value specified for `limit`. Expecting integer value from"},
		{"page past int64", "GET", "/products?page=9223372036854775808", "", 400, "Bad Request: Invalid value specified for `page`. Expecting integer value from"},
		{"the last page", "GET", "/products?page=2147483647&limit=2147483647", "", 200, ""},
		{"mode past INT", "GET", "/thirdparties?mode=-2147483649", "", 400, "Bad Request: Invalid value specified for `mode`"},
		{"thirdparty_ids past INT", "GET", "/orders?thirdparty_ids=1,2147483648", "", 400,
			"Bad Request: Error when validating parameter thirdparty_ids -> 2147483648 is out of range"},
	} {
		ct := ""
		if tc.body != "" {
			ct = "application/json"
		}
		a := send(t, srv, tc.method, api+tc.path, ct, tc.body)
		if tc.status == 200 {
			if a.status != 200 {
				t.Errorf("%s: %d %.300s", tc.name, a.status, a.body)
			}
			continue
		}
		if code, msg := erpError(t, a); code != tc.status || !strings.HasPrefix(msg, tc.msg) {
			t.Errorf("%s: %d %s", tc.name, code, msg)
		}
	}
	if a := send(t, srv, "GET", api+"/products?page=2147483647&limit=2147483647", "", ""); a.body != "[]" {
		t.Errorf("the last page: %s", a.body)
	}
	inv := srv.Invoice(1)
	if inv == nil || inv.Lines[0].Qty.Text() != "1234567890123456.12345678" || inv.TotalHT.Text() != "1234567890123456.12000000" {
		t.Fatalf("16 digits and 8 decimals kept: %+v", inv)
	}
}
