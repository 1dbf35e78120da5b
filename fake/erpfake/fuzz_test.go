package erpfake_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/erpfake"
)

// FuzzRequests throws arbitrary parameters and bodies at every route: the
// fake must never panic or answer 5xx other than the ERP's own 500s, and
// its JSON answers must be JSON.
func FuzzRequests(f *testing.F) {
	routes := []string{
		"GET /api/index.php/users", "POST /api/index.php/users", "PUT /api/index.php/users/2", "DELETE /api/index.php/users/2",
		"GET /api/index.php/thirdparties", "POST /api/index.php/thirdparties", "PUT /api/index.php/thirdparties/1",
		"GET /api/index.php/products", "POST /api/index.php/products", "PUT /api/index.php/products/1",
		"GET /api/index.php/invoices", "POST /api/index.php/invoices", "POST /api/index.php/invoices/1/validate",
		"GET /api/index.php/orders", "POST /api/index.php/orders", "POST /api/index.php/orders/1/validate", "POST /api/index.php/orders/1/close",
		"POST /index.php", "GET /api/index.php/explorer",
	}
	for i := range routes {
		f.Add(uint8(i), "limit=2&page=x&sortfield=t.ref", "application/json", `{"name":"n","ref":"r","label":"l","socid":1,"lines":[{"fk_product":1,"qty":"2"}]}`)
		f.Add(uint8(i), "sqlfilters=(t.ref:like:'%25')&pagination_data=true", "application/json", `{"login":"x","price":"1e400","type":"1"}`)
		f.Add(uint8(i), "thirdparty_ids=1,a&status=paid&mode=4", "application/json", `{"lines":"x","socid":"1","date":"2026-13-45"}`)
	}
	f.Fuzz(func(t *testing.T, route uint8, query, contentType, body string) {
		srv := erpfake.New()
		soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
		srv.AddProduct(erpfake.ProductSeed{Ref: "P", Label: "P", Price: "1"})
		srv.AddUser(erpfake.UserSeed{Login: "u2"})
		srv.AddInvoice(erpfake.InvoiceSeed{SocID: soc, Lines: []erpfake.LineSeed{{ProductID: 1, Qty: "1"}}})
		srv.AddOrder(erpfake.OrderSeed{SocID: soc, Lines: []erpfake.LineSeed{{ProductID: 1, Qty: "1"}}, Validated: true})
		method, path, _ := strings.Cut(routes[int(route)%len(routes)], " ")
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.URL.RawQuery = query
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("ERPAPIKEY", srv.APIKey())
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		isJSON := strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json")
		if rec.Code >= 500 && !(rec.Code == http.StatusInternalServerError && isJSON && strings.Contains(rec.Body.String(), `"Internal Server Error: Error`)) {
			t.Fatalf("%s %s?%s %q: %d %s", method, path, query, body, rec.Code, rec.Body)
		}
		if isJSON && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("invalid JSON answer %q", rec.Body)
		}
	})
}
