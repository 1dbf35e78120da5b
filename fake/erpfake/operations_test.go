package erpfake_test

import (
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/erpfake"
)

// Every refusal of the operations of issue 20, as the fake answers it to a
// request made by hand: status and message.
func TestOperationRefusals(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	if err := srv.Load(erpfake.Seed{
		Thirdparties: []erpfake.ThirdpartySeed{{Name: "Acme", Customer: true}, {Name: "Idle"}},
		Products:     []erpfake.ProductSeed{{Ref: "W", Label: "Widget", Price: "10", VATRate: "20"}, {Ref: "FREE", Label: "Unused"}},
		Invoices: []erpfake.InvoiceSeed{
			{Thirdparty: "Acme", Lines: []erpfake.LineSeed{{Product: "W", Qty: "1"}}},                  // 1: draft
			{Thirdparty: "Acme", Validated: true, Lines: []erpfake.LineSeed{{Product: "W", Qty: "1"}}}, // 2: validated, 12.00
			{Thirdparty: "Acme", Paid: true, Lines: []erpfake.LineSeed{{Product: "W", Qty: "1"}}},      // 3: paid
		},
		Orders: []erpfake.OrderSeed{
			{Thirdparty: "Acme", Lines: []erpfake.LineSeed{{Product: "W", Qty: "1"}}},
			{Thirdparty: "Acme", Validated: true, Lines: []erpfake.LineSeed{{Product: "W", Qty: "1"}}},
		},
	}); err != nil {
		t.Fatal(err)
	}
	const js = "application/json"
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		msg                      string
	}{
		{"payment without mode", "POST", "/invoices/2/payments", `{"closepaidinvoices":"yes"}`, 400, "Payment ID or Payment Code is mandatory"},
		{"unknown payment mode", "POST", "/invoices/2/payments", `{"paymentid":5}`, 400, "5 is no payment mode"},
		{"bad closepaidinvoices", "POST", "/invoices/2/payments", `{"paymentid":2,"closepaidinvoices":"maybe"}`, 400, "Expecting one of yes, no"},
		{"account 0", "POST", "/invoices/2/payments", `{"paymentid":2,"accountid":0}`, 400, "`accountid`. Expecting integer value from 1"},
		{"bad date", "POST", "/invoices/2/payments", `{"paymentid":2,"datepaye":"soon"}`, 400, "datepaye must be a date"},
		{"paying a draft", "POST", "/invoices/1/payments", `{"paymentid":2}`, 400, "Payment error : invoice (PROV1) is a draft"},
		{"paying a paid invoice", "POST", "/invoices/3/payments", `{"paymentid":2}`, 400, "has nothing left to pay"},
		{"paying a missing invoice", "POST", "/invoices/99/payments", `{"paymentid":2}`, 404, "Invoice not found"},
		{"payments of a missing invoice", "GET", "/invoices/99/payments", "", 404, "Invoice not found"},
		{"no arrayofamounts", "POST", "/invoices/paymentsdistributed", `{"paymentid":2}`, 400, "arrayofamounts must be an object"},
		{"invoice id not a number", "POST", "/invoices/paymentsdistributed", `{"paymentid":2,"arrayofamounts":{"x":{"amount":"1"}}}`, 400, "Invoice ID is mandatory"},
		{"negative amount", "POST", "/invoices/paymentsdistributed", `{"paymentid":2,"arrayofamounts":{"2":{"amount":"-1"}}}`, 400, "amount must be more than 0"},
		{"amount not a number", "POST", "/invoices/paymentsdistributed", `{"paymentid":2,"arrayofamounts":{"2":{"amount":"lots"}}}`, 400, "arrayofamounts[2]: amount must be a number"},
		{"unknown invoice in a payment", "POST", "/invoices/paymentsdistributed", `{"paymentid":2,"arrayofamounts":{"2":{"amount":"1"},"77":{"amount":"1"}}}`, 404, "Invoice ID 77 not found"},
		{"overpaying", "POST", "/invoices/paymentsdistributed", `{"paymentid":2,"arrayofamounts":{"2":{"amount":"12.01"}}}`, 400, "Payment amount on invoice ID 2 (12.01) is higher than remain to pay (12)"},
		{"bad close code", "POST", "/invoices/2/settopaid", `{"close_code":"because"}`, 400, "`close_code`"},
		{"classifying a draft paid", "POST", "/invoices/1/settopaid", "", 500, "Error : (PROV1) is not validated"},
		{"line id out of range", "PUT", "/invoices/1/lines/99999999999", `{"qty":1}`, 400, "`lineid`"},
		{"line of a missing invoice", "DELETE", "/invoices/99/lines/1", "", 404, "Invoice not found"},
		{"line of another invoice", "DELETE", "/invoices/1/lines/2", "", 404, "Line not found"},
		{"line without qty", "POST", "/invoices/1/lines", `{"fk_product":1}`, 400, "qty field missing"},
		{"free line without price", "POST", "/invoices/1/lines", `{"qty":1,"desc":"x"}`, 400, "subprice field missing"},
		{"negative rate", "PUT", "/invoices/1/lines/1", `{"qty":1,"tva_tx":"-1"}`, 400, "tva_tx must not be negative"},
		{"line of a validated order", "POST", "/orders/2/lines", `{"fk_product":1,"qty":1}`, 400, "Order status makes operation forbidden"},
		{"changing a validated order's line", "PUT", "/orders/2/lines/5", `{"qty":1}`, 400, "Order status makes operation forbidden"},
		{"lines of a missing order", "GET", "/orders/99/lines", "", 404, "Order not found"},
		{"invoice from order 0", "POST", "/invoices/createfromorder/0", "", 400, "Order ID is mandatory"},
		{"invoice from a missing order", "POST", "/invoices/createfromorder/99", "", 404, "Order not found"},
		{"invoice from an order id past INT", "POST", "/invoices/createfromorder/99999999999", "", 400, "`orderid`"},
		{"invoice from an order that is no number", "POST", "/invoices/createfromorder/abc", "", 404, "Order not found"},
		{"updating a missing order", "PUT", "/orders/99", `{"ref_client":"x"}`, 404, "Order not found"},
		{"bad delivery date", "PUT", "/orders/1", `{"delivery_date":"tomorrow"}`, 400, "delivery_date must be a date"},
		{"deleting a missing order", "DELETE", "/orders/99", "", 404, "Order not found"},
		{"deleting a missing product", "DELETE", "/products/99", "", 404, "Product not found"},
		{"contact of a missing third party", "PUT", "/contacts/1", `{"socid":5}`, 404, "Contact not found"},
		{"contacts filtered badly", "GET", "/contacts?thirdparty_ids=a", "", 400, "thirdparty_ids"},
		{"contact without lastname", "POST", "/contacts", `{"lastname":"  "}`, 400, "lastname field missing"},
	} {
		ct := ""
		if tc.body != "" {
			ct = js
		}
		a := send(t, srv, tc.method, api+tc.path, ct, tc.body)
		if a.status != tc.status || !strings.Contains(a.body, tc.msg) {
			t.Errorf("%s: %d %s", tc.name, a.status, a.body)
		}
	}
	// None of it changed anything.
	for id, want := range map[int64]string{1: "0.00", 2: "0.00", 3: "12.00"} {
		if got := srv.Invoice(id).TotalPaid.String(); got != want {
			t.Errorf("invoice %d paid %s, want %s", id, got, want)
		}
	}
	if len(srv.Invoices()) != 3 || len(srv.Orders()) != 2 || len(srv.Products()) != 2 || len(srv.Contacts()) != 0 {
		t.Fatal("a refusal changed the state")
	}
	// What goes through: list lines, a contact's life with its third party.
	if a := send(t, srv, "GET", api+"/invoices/1/lines", "", ""); a.status != 200 || !strings.Contains(a.body, `"fk_product":"1"`) {
		t.Fatalf("lines: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "POST", api+"/contacts", js, `{"lastname":"Doe","socid":2}`); a.status != 200 {
		t.Fatalf("contact: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "PUT", api+"/contacts/1", js, `{"socid":99}`); a.status != 500 || !strings.Contains(a.body, "Error updating contact") {
		t.Fatalf("contact moved to nobody: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "PUT", api+"/contacts/1", js, `{"socid":0,"lastname":""}`); a.status != 400 {
		t.Fatalf("contact without a name: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "GET", api+"/contacts?sqlfilters=(t.fk_soc:=:2)", "", ""); a.status != 200 || !strings.Contains(a.body, `"lastname":"Doe"`) {
		t.Fatalf("contacts by filter: %d %s", a.status, a.body)
	}
	if a := send(t, srv, "DELETE", api+"/thirdparties/2", "", ""); a.status != 200 || len(srv.Contacts()) != 0 {
		t.Fatalf("the unused third party: %d %s, %d contacts", a.status, a.body, len(srv.Contacts()))
	}
	if a := send(t, srv, "DELETE", api+"/products/2", "", ""); a.status != 200 {
		t.Fatalf("the unused product: %d %s", a.status, a.body)
	}
}
