package erpfake_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// BenchmarkFakeListInvoices100 is the fake alone answering a page of 100
// invoices of three lines, without the network.
func BenchmarkFakeListInvoices100(b *testing.B) {
	srv, err := erpfake.New()
	if err != nil {
		b.Fatal(err)
	}
	soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	p, _ := srv.AddProduct(erpfake.ProductSeed{Ref: "W", Label: "Widget", Price: "19.99", VATRate: "20"})
	for range 100 {
		srv.AddInvoice(erpfake.InvoiceSeed{SocID: soc, Lines: []erpfake.LineSeed{{ProductID: p, Qty: "3"}, {ProductID: p, Qty: "1"}, {ProductID: p, Qty: "2"}}})
	}
	// With pagination_data the page is wrapped in an object: its records'
	// buffer went to the garbage collector, not back to the pool (396 KB
	// and 23 allocations a call against 224 KB and 20).
	for _, query := range []string{"limit=100", "limit=100&pagination_data=true"} {
		b.Run(query, func(b *testing.B) { benchGet(b, srv, "/api/index.php/invoices?"+query) })
	}
}

// BenchmarkFakeStart starts a fake, answers one API request and closes it.
func BenchmarkFakeStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		srv, err := erpfake.New()
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/index.php/users", nil)
		req.Header.Set("ERPAPIKEY", srv.APIKey())
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ts.Close()
	}
}

// BenchmarkFakeInvoiceLineCycle is the fake alone adding a line to a draft
// of three lines and deleting it again (totals computed each time).
func BenchmarkFakeInvoiceLineCycle(b *testing.B) {
	srv, err := erpfake.New()
	if err != nil {
		b.Fatal(err)
	}
	soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	p, _ := srv.AddProduct(erpfake.ProductSeed{Ref: "W", Label: "Widget", Price: "19.99", VATRate: "20"})
	inv, _ := srv.AddInvoice(erpfake.InvoiceSeed{SocID: soc, Lines: []erpfake.LineSeed{{ProductID: p, Qty: "3"}, {ProductID: p, Qty: "1"}, {ProductID: p, Qty: "2"}}})
	path := "/api/index.php/invoices/" + erp.ID(inv).String() + "/lines"
	b.ReportAllocs()
	for b.Loop() {
		add := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"fk_product":1,"qty":"2","remise_percent":"5"}`))
		add.Header.Set("ERPAPIKEY", srv.APIKey())
		add.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, add)
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body.String())
		}
		del := httptest.NewRequest(http.MethodDelete, path+"/"+strings.Trim(rec.Body.String(), `"`), nil)
		del.Header.Set("ERPAPIKEY", srv.APIKey())
		rec = httptest.NewRecorder()
		srv.ServeHTTP(rec, del)
		if rec.Code != 200 {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}

// BenchmarkFakeListContacts100 is the fake alone answering a page of 100
// contacts of one third party.
func BenchmarkFakeListContacts100(b *testing.B) {
	srv, err := erpfake.New()
	if err != nil {
		b.Fatal(err)
	}
	soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	for range 100 {
		srv.AddContact(erpfake.ContactSeed{SocID: soc, Lastname: "Doe", Firstname: "Jane", Email: "jane@example.com"})
	}
	benchGet(b, srv, "/api/index.php/contacts?limit=100&thirdparty_ids=1")
}

// benchGet measures srv answering GET target with its API key, 200 each
// time.
func benchGet(b *testing.B, srv *erpfake.Server, target string) {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("ERPAPIKEY", srv.APIKey())
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
