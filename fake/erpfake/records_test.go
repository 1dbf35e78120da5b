package erpfake_test

import (
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// TestRecordsAreBounded fills every kind of record to a bound of 2 and
// wants the next create refused in the ERP's words, with nothing written;
// a record deleted makes room again. Before the bound (issue 38), a loop
// of creates grew the fake by about 290 bytes a record without end.
func TestRecordsAreBounded(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, control.WithMaxRecords(2))
	refused := func(a answer, want string) {
		t.Helper()
		if a.status != 500 && a.status != 400 && a.status != 405 || a.body != want {
			t.Fatalf("got %d %s\nwant %s", a.status, a.body, want)
		}
	}
	created := func(a answer) {
		t.Helper()
		if a.status != 200 {
			t.Fatalf("%d %s", a.status, a.body)
		}
	}
	full := func(status int, msg, table string) string {
		text := map[int]string{400: "Bad Request", 405: "Method Not Allowed", 500: "Internal Server Error"}[status]
		if msg == "" {
			return `{"error":{"code":` + itoa(int64(status)) + `,"message":"` + text + `: The table '` + table + `' is full"}}`
		}
		return `{"error":{"0":"The table '` + table + `' is full","code":` + itoa(int64(status)) + `,"message":"` + text + `: ` + msg + `"}}`
	}
	json := "application/json"

	// Users: admin and one more.
	created(send(t, srv, "POST", api+"/users", json, `{"login":"bob"}`))
	refused(send(t, srv, "POST", api+"/users", json, `{"login":"carol"}`), full(500, "Error creating", "llx_user"))
	if _, err := srv.AddUser(erpfake.UserSeed{Login: "dave"}); err == nil || !strings.Contains(err.Error(), "'llx_user' is full") {
		t.Fatalf("seeded past the bound: %v", err)
	}
	if n := len(srv.Users()); n != 2 {
		t.Fatalf("%d users", n)
	}

	for _, k := range []struct{ path, body, msg, table string }{
		{"/thirdparties", `{"name":"T%d","client":1}`, "Error creating thirdparty", "llx_societe"},
		{"/products", `{"ref":"P%d","label":"p","price":"10"}`, "Error creating product", "llx_product"},
		{"/contacts", `{"lastname":"C%d"}`, "Error creating contact", "llx_socpeople"},
	} {
		for i := range 2 {
			created(send(t, srv, "POST", api+k.path, json, strings.Replace(k.body, "%d", itoa(int64(i)), 1)))
		}
		refused(send(t, srv, "POST", api+k.path, json, strings.Replace(k.body, "%d", "9", 1)), full(500, k.msg, k.table))
	}
	if _, err := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Seeded"}); err == nil || !strings.Contains(err.Error(), "'llx_societe' is full") {
		t.Fatalf("seeded past the bound: %v", err)
	}
	if a, b, c := len(srv.Thirdparties()), len(srv.Products()), len(srv.Contacts()); a != 2 || b != 2 || c != 2 {
		t.Fatalf("%d third parties, %d products, %d contacts", a, b, c)
	}

	// Lines count across documents: an invoice of two lines fills them.
	created(send(t, srv, "POST", api+"/invoices", json, `{"socid":1,"lines":[{"fk_product":1,"qty":"1"},{"fk_product":1,"qty":"1"}]}`))
	refused(send(t, srv, "POST", api+"/invoices", json, `{"socid":1,"lines":[{"fk_product":1,"qty":"1"}]}`),
		full(500, "Error creating invoice", "llx_facturedet"))
	refused(send(t, srv, "POST", api+"/orders", json, `{"socid":1,"lines":[{"fk_product":1,"qty":"1"}]}`),
		full(500, "Error creating order", "llx_commandedet"))
	created(send(t, srv, "POST", api+"/invoices", json, `{"socid":1}`)) // invoice 2, no lines
	refused(send(t, srv, "POST", api+"/invoices/2/lines", json, `{"fk_product":1,"qty":"1"}`),
		`{"error":{"code":400,"message":"Bad Request: Unable to insert the new line. Check your inputs. The table 'llx_facturedet' is full"}}`)
	refused(send(t, srv, "POST", api+"/invoices", json, `{"socid":1}`), full(500, "Error creating invoice", "llx_facture"))
	if invs := srv.Invoices(); len(invs) != 2 || len(invs[1].Lines) != 0 {
		t.Fatalf("%d invoices, the second with %d lines", len(invs), len(invs[1].Lines))
	}
	// A line deleted makes room for one.
	lineID := itoa(int64(srv.Invoice(1).Lines[1].ID))
	created(send(t, srv, "DELETE", api+"/invoices/1/lines/"+lineID, "", ""))
	created(send(t, srv, "POST", api+"/invoices/2/lines", json, `{"fk_product":1,"qty":"1"}`))

	// An invoice made from an order, past the bound, is refused as the
	// ERP refuses a failed createFromOrder.
	created(send(t, srv, "POST", api+"/orders", json, `{"socid":1}`))
	refused(send(t, srv, "POST", api+"/invoices/createfromorder/1", "", ""), full(405, "", "llx_facture"))

	// Payments: each invoice a payment pays is a row.
	for _, id := range []string{"1", "2"} {
		created(send(t, srv, "POST", api+"/invoices/"+id+"/validate", json, `{}`))
	}
	pay := `{"arrayofamounts":{"1":{"amount":"1"}},"datepaye":1700000000,"paymentid":2,"closepaidinvoices":"no"}`
	created(send(t, srv, "POST", api+"/invoices/paymentsdistributed", json, pay))
	created(send(t, srv, "POST", api+"/invoices/paymentsdistributed", json, pay))
	refused(send(t, srv, "POST", api+"/invoices/2/payments", json, `{"datepaye":1700000000,"paymentid":2,"closepaidinvoices":"yes"}`),
		`{"error":{"code":400,"message":"Bad Request: Payment error : The table 'llx_paiement_facture' is full"}}`)
	if inv := srv.Invoice(2); bool(inv.Paid) || !inv.TotalPaid.IsZero() {
		t.Fatalf("invoice 2: paid %v, %s", inv.Paid, inv.TotalPaid)
	}

	// Reset empties the state: the bound counts from nothing again.
	srv.Reset()
	created(send(t, srv, "POST", api+"/users", json, `{"login":"bob"}`))
}
