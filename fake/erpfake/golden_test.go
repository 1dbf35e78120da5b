package erpfake_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/testtools"
)

// TestAnswersGolden pins, byte for byte, what the fake answers to its
// list endpoints (and to the reads of one record, which write records the
// same way) over a state that holds every kind of record in its several
// states: strings with characters JSON escapes, amounts with and without
// cents, unset dates, payments, credit notes, closed orders, contacts
// without a third party, a draft and a signed proposal. Both number styles are pinned. The golden files
// were written from the answers before the list path was reworked
// (issue 18); go test -run TestAnswersGolden -args -update-golden rewrites them.
func TestAnswersGolden(t *testing.T) {
	t.Parallel()
	for _, native := range []bool{false, true} {
		name := "strings"
		if native {
			name = "native"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := goldenAnswers(t, native)
			path := filepath.Join("testdata", "answers_"+name+".golden")
			testtools.Golden(t, path, got)
		})
	}
}

// goldenAnswers builds the state and answers every request of the golden
// file, each as its request line, status, headers (but Date) and body.
func goldenAnswers(t *testing.T, native bool) []byte {
	t.Helper()
	opts := []erpfake.Option{
		control.WithClock(clock.NewFake(time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC))),
		erpfake.WithAdminAPIKey("golden-key"), erpfake.WithAdminPassword("golden-password"),
	}
	if native {
		opts = append(opts, erpfake.WithNativeNumbers())
	}
	srv, err := erpfake.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string) (int, []byte, http.Header) {
		t.Helper()
		var req *http.Request
		if body != "" {
			req = httptest.NewRequest(method, path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req = httptest.NewRequest(method, path, nil)
		}
		req.Header.Set("ERPAPIKEY", "golden-key")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes(), rec.Header()
	}
	must := func(method, path, body string) {
		t.Helper()
		if code, b, _ := do(method, path, body); code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, code, b)
		}
	}
	add := func(id int64, err error) int64 {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	const api = "/api/index.php"

	acme := add(srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme <Corp> & \"Sons\"", Customer: true, Email: "a@acme.example", Town: "Lyon", CountryCode: "FR"}))
	add(srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Zèbre Ltd\u2028line\ttab\x01ctl", Supplier: true, Town: "Zürich"}))
	add(srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "bad\xffutf8 \\ back/slash", Client: 2}))
	must("POST", api+"/thirdparties", `{"name":"beta","client":3,"fournisseur":1,"phone":"+33 1","address":"1 rue\nB","zip":"69001","tva_intra":"FR12","note_public":"pub","note_private":"priv","name_alias":"B"}`)
	must("PUT", api+"/thirdparties/3", `{"status":0}`)
	srv.Clock().Advance(90 * time.Minute)

	add(srv.AddContact(erpfake.ContactSeed{SocID: acme, Lastname: "Doe", Firstname: "Jane", Email: "jane@example.com", Phone: "01", Job: "CFO"}))
	add(srv.AddContact(erpfake.ContactSeed{Lastname: "Nobody <x>"}))
	must("POST", api+"/contacts", `{"lastname":"Smith","socid":2,"civility_code":"MR","phone_mobile":"06","address":"a","zip":"z","town":"t","country_code":"DE","note_public":"n","note_private":"p","statut":0}`)

	w := add(srv.AddProduct(erpfake.ProductSeed{Ref: "W-1", Label: "Widget", Price: "19.99", VATRate: "20"}))
	add(srv.AddProduct(erpfake.ProductSeed{Ref: "a-2", Label: "Service & co", Price: "100", VATRate: "5.5", Service: true}))
	must("POST", api+"/products", `{"ref":"Z-3","label":"Ttc priced","price_ttc":"12.345","price_base_type":"TTC","tva_tx":"8.5","price_min":"1.5","weight":"0.125","barcode":"123","description":"<b>bold</b>","status":0,"status_buy":1}`)
	add(srv.AddProduct(erpfake.ProductSeed{Ref: "m-4", Label: "Tiny", Price: "0.00000001", VATRate: "0"}))

	lines := []erpfake.LineSeed{{ProductID: w, Qty: "3"}, {Description: "Free \"text\"", Qty: "1.5", Subprice: "33.333", VATRate: "10", Discount: "12.5"}}
	add(srv.AddInvoice(erpfake.InvoiceSeed{SocID: acme, Lines: lines, RefClient: "PO-1"}))
	add(srv.AddInvoice(erpfake.InvoiceSeed{SocID: acme, Lines: lines, Validated: true, Date: time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)}))
	add(srv.AddInvoice(erpfake.InvoiceSeed{SocID: 2, Lines: lines[:1], Paid: true}))
	add(srv.AddInvoice(erpfake.InvoiceSeed{SocID: 4, Lines: lines[1:], Type: 2, Validated: true}))
	add(srv.AddInvoice(erpfake.InvoiceSeed{SocID: 4}))
	srv.Clock().Advance(24 * time.Hour)
	must("POST", api+"/invoices/2/payments", `{"datepaye":1793000000,"paymentid":2,"closepaidinvoices":"no","accountid":1,"num_payment":"T1"}`)
	must("POST", api+"/invoices/4/settopaid", `{"close_code":"discount_vat","close_note":"a <note>"}`)

	add(srv.AddOrder(erpfake.OrderSeed{SocID: acme, Lines: lines}))
	add(srv.AddOrder(erpfake.OrderSeed{SocID: 2, Lines: lines[:1], Validated: true, RefClient: "R&D"}))
	add(srv.AddOrder(erpfake.OrderSeed{SocID: acme, Lines: lines[1:], Closed: true}))
	must("PUT", api+"/orders/1", `{"delivery_date":1794000000,"note_public":"deliver <fast>"}`)
	must("POST", api+"/invoices/createfromorder/2", `{}`)
	add(srv.AddUser(erpfake.UserSeed{Login: "jdoe", Lastname: "Doe", Email: "j@example.com", APIKey: "jdoe-key"}))
	must("POST", api+"/proposals", `{"socid":1,"ref_client":"Q <1>","lines":[{"fk_product":1,"qty":"3"},{"desc":"Free","qty":"2","subprice":"12.5","tva_tx":"20"}]}`)
	must("POST", api+"/proposals", `{"socid":2,"lines":[{"fk_product":1,"qty":1}]}`)
	must("POST", api+"/proposals/2/validate", `{}`)
	must("POST", api+"/proposals/2/close", `{"status":2,"note_private":"signed <ok>"}`)

	reqs := []string{
		"/users", "/users/1",
		"/thirdparties", "/thirdparties?pagination_data=true", "/thirdparties?sortfield=t.nom&sortorder=desc",
		"/thirdparties?limit=2&page=1", "/thirdparties?mode=4", "/thirdparties?mode=1&sortfield=t.town,t.rowid",
		"/thirdparties?sqlfilters=(t.nom:like:'%25a%25')", "/thirdparties/1", "/thirdparties/3",
		"/contacts", "/contacts?thirdparty_ids=1", "/contacts?sortfield=t.lastname&sortorder=DESC&pagination_data=1", "/contacts/2",
		"/products", "/products?sortfield=t.rowid", "/products?sortfield=t.price&sortorder=desc", "/products?mode=2",
		"/products?limit=2&page=1&pagination_data=true", "/products?limit=0", "/products/3",
		"/invoices", "/invoices?pagination_data=true", "/invoices?status=paid", "/invoices?status=unpaid", "/invoices?status=draft",
		"/invoices?thirdparty_ids=2,4", "/invoices?sortfield=t.total_ttc,t.ref&sortorder=desc", "/invoices?sortfield=t.datef",
		"/invoices?sqlfilters=(t.ref:like:'FA%25')", "/invoices?sqlfilters=(t.ref:=:'none')",
		"/invoices?sqlfilters=(t.ref:=:'none')&pagination_data=true", "/invoices?limit=2&page=5&pagination_data=true",
		"/invoices/2", "/invoices/2/lines", "/invoices/2/payments", "/invoices/6",
		"/orders", "/orders?pagination_data=true", "/orders?thirdparty_ids=1", "/orders?sortfield=t.date_livraison&sortorder=desc",
		"/orders/1", "/orders/3/lines",
		"/contacts?sqlfilters=(t.fk_soc:is:null)", "/contacts?sqlfilters=(t.fk_soc:isnot:null)",
		"/contacts?sqlfilters=(t.lastname:<:'NOBODY')", "/contacts?sqlfilters=(t.statut:=:0)%20or%20(t.fk_soc:=:1)",
		"/thirdparties?sqlfilters=(t.rowid:in:(1,3,4))", "/thirdparties?sqlfilters=(t.rowid:notin:(1,2))",
		"/thirdparties?sqlfilters=(t.rowid:>=:2.5)", "/thirdparties?sqlfilters=(t.rowid:%3C:'3')",
		"/thirdparties?sqlfilters=(t.datec:>=:'2026-11-02')", "/thirdparties?sqlfilters=(t.datec:<:1793611800)",
		"/thirdparties?sqlfilters=(t.nom:=:'BETA')", "/thirdparties?sqlfilters=(t.nom:>:'b')", "/thirdparties?sqlfilters=(t.status:!=:1)",
		"/invoices?sqlfilters=(t.fk_soc:in:(2,4))%20and%20(t.total_ttc:>:50)", "/invoices?sqlfilters=(t.paye:=:1)",
		"/invoices?sqlfilters=(t.date_valid:is:null)", "/invoices?sqlfilters=(t.type:=:'2')",
		"/orders?sqlfilters=(t.date_livraison:isnot:null)", "/orders?sqlfilters=(t.facture:=:0)%20and%20(t.fk_statut:%3E:0)",
		"/products?sqlfilters=(t.tosell:=:1)%20and%20(t.price:%3C:50)", "/products?sqlfilters=(t.fk_product_type:=:1)",
		"/products?sqlfilters=(t.price:=:'abc')", "/invoices?sqlfilters=(t.datef:=:'yesterday')",
		"/invoices?sortfield=nope", "/invoices?limit=x", "/invoices?status=bad", "/orders?thirdparty_ids=a",
		"/proposals", "/proposals?thirdparty_ids=2&pagination_data=true", "/proposals/1", "/proposals/2/lines",
		"/proposals?sqlfilters=(t.fk_statut:=:2)", "/proposals?sortfield=t.datep&sortorder=desc",
	}
	var out bytes.Buffer
	for _, r := range reqs {
		code, body, h := do("GET", api+r, "")
		fmt.Fprintf(&out, "### GET %s\n%d\n", r, code)
		keys := make([]string, 0, len(h))
		for k := range h {
			if k != "Date" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&out, "%s: %s\n", k, strings.Join(h[k], ", "))
		}
		out.Write(body)
		out.WriteString("\n")
	}
	return out.Bytes()
}
