package erpfake_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/benchfloor"
)

// BenchmarkListVersusPlainHandler is each list endpoint of the fake beside
// its floor, in one run: "fake" is the fake answering a page of 100 (the
// handler alone, no network); "floor=plain" is a plain handler encoding the
// same page from plain Go structs with encoding/json per request
// (internal/benchfloor). Issue 18's goal is the fake within 1.4x of the
// floor's time and 2x of its allocations:
//
//	go test -run '^$' -bench BenchmarkListVersusPlainHandler -benchmem ./fake/erpfake
func BenchmarkListVersusPlainHandler(b *testing.B) {
	srv, err := erpfake.New()
	if err != nil {
		b.Fatal(err)
	}
	soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	p, _ := srv.AddProduct(erpfake.ProductSeed{Ref: "W", Label: "Widget", Price: "19.99", VATRate: "20"})
	lines := []erpfake.LineSeed{{ProductID: p, Qty: "3"}, {ProductID: p, Qty: "1"}, {ProductID: p, Qty: "2"}}
	for i := range 99 {
		srv.AddThirdparty(erpfake.ThirdpartySeed{Name: fmt.Sprintf("Customer %d", i), Client: 1, Email: "c@example.com", Town: "Lyon"})
		srv.AddProduct(erpfake.ProductSeed{Ref: fmt.Sprintf("P%d", i), Label: "A product", Price: "9.50", VATRate: "20"})
	}
	for range 100 {
		srv.AddInvoice(erpfake.InvoiceSeed{SocID: soc, Lines: lines})
		srv.AddOrder(erpfake.OrderSeed{SocID: soc, Lines: lines})
		srv.AddContact(erpfake.ContactSeed{SocID: soc, Lastname: "Doe", Firstname: "Jane", Email: "jane@example.com"})
	}
	for _, ep := range []struct {
		name, path string
	}{
		{"invoices", "/api/index.php/invoices?limit=100"},
		{"orders", "/api/index.php/orders?limit=100"},
		{"thirdparties", "/api/index.php/thirdparties?limit=100"},
		{"products", "/api/index.php/products?limit=100"},
		{"contacts", "/api/index.php/contacts?limit=100"},
	} {
		req := httptest.NewRequest(http.MethodGet, ep.path, nil)
		req.Header.Set("ERPAPIKEY", srv.APIKey())
		benchfloor.Compare(b, ep.name, srv, req)
	}
}
