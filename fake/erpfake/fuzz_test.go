package erpfake_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
	"github.com/apitwin/apitwin/internal/fakekit"
)

// FuzzFrontDoor sends scripts of arbitrary requests to the fake's front
// door, as admin unless a script says otherwise: no handler may panic,
// every error must be in the ERP's shape, a read must still be answered
// after each script, and the state must keep its invariants (see
// checkInvariants).
func FuzzFrontDoor(f *testing.F) {
	const json = "Content-Type: application/json\n\n"
	seeds := []string{
		// Issue 14, finding 2: a qty of too many digits, over the body
		// limit and under it. (The fuzzed fake's limit is 64 KiB, so that
		// the fuzzer does not spend its time minimizing megabytes; the
		// regression tests send the 1.5 million digits of the finding.)
		"POST " + api + "/invoices\n" + json + hugeQty(70_000),
		"POST " + api + "/invoices\n" + json + hugeQty(20_000),
		// Issue 14, finding 1, as the ERP would meet it: pages and ids past
		// every integer.
		"GET " + api + "/products?page=9223372036854775807&limit=100\n===\nGET " + api + "/invoices?page=2147483647&limit=2147483647",
		"GET " + api + "/invoices/99999999999999999999\n===\nPUT " + api + "/products/-9223372036854775809\n" + json + "{}",
		// A day's work.
		"POST " + api + "/thirdparties\n" + json + `{"name":"Initech","client":1}` +
			"\n===\nPOST " + api + "/products\n" + json + `{"ref":"TPS","label":"Report","price":"19.99","tva_tx":"20"}` +
			"\n===\nPOST " + api + "/invoices\n" + json + `{"socid":3,"lines":[{"fk_product":3,"qty":"3"},{"desc":"x","qty":1,"subprice":"0.5","remise_percent":"50"}]}` +
			"\n===\nPOST " + api + "/invoices/3/validate\n===\nPOST " + api + "/orders\n" + json + `{"socid":"1","lines":[{"fk_product":"1","qty":"2"}]}` +
			"\n===\nPOST " + api + "/orders/3/validate\n===\nPOST " + api + "/orders/3/close\n===\nGET " + api + "/invoices?sqlfilters=(t.total_ttc:>:10)&sortfield=t.ref&sortorder=desc&pagination_data=true",
		"PUT " + api + "/invoices/1\n===\nPOST " + api + "/invoices/2/validate\n===\nPOST " + api + "/orders/1/close\n===\nPOST " + api + "/orders/2/close",
		"POST " + api + "/invoices\n" + json + `{"socid":1,"date":253402300800,"lines":[{"desc":"x","qty":"9999999999999999","subprice":"9999999999999999"}]}`,
		"POST " + api + "/invoices\n" + json + `{"socid":2147483648,"type":"3"}` + "\n===\nPOST " + api + "/invoices\n" + json + `{"socid":1,"lines":"x"}`,
		"GET " + api + "/thirdparties?sqlfilters=" + strings.Repeat("(", 40) + "t.nom:like:'A%'" + strings.Repeat(")", 40),
		"GET " + api + "/products?sqlfilters=(t.price:in:(1,2,3e4))+or+(t.ref:notlike:'\\%25')&mode=2147483648",
		"PUT " + api + "/users/1\n" + json + `{"statut":0,"admin":0}` + "\n===\nDELETE " + api + "/users/1\n===\nPOST " + api + "/users\n" + json + `{"login":"Admin"}`,
		"PUT " + api + "/products/1\n" + json + `{"ref":"gadget"}` + "\n===\nPUT " + api + "/thirdparties/2\n" + json + `{"code_client":"CU"}`,
		"POST /index.php\nContent-Type: application/x-www-form-urlencoded\n\nusername=admin&password=nope\n===\nGET /\n===\nGET /nowhere",
		"GET " + api + "/users\nERPAPIKEY: wrong\n===\nGET " + api + "/explorer\n===\nPATCH " + api + "/users/1",
		"POST " + api + "/thirdparties\nContent-Type: text/plain\n\nname=x\n===\nPOST " + api + "/thirdparties\n" + json + strings.Repeat("[", 10_000),
		// Issue 20: the operations users expect.
		"POST " + api + "/invoices/2/lines\n" + json + `{"fk_product":1,"qty":"2","remise_percent":"10"}` +
			"\n===\nPUT " + api + "/invoices/2/lines/4\n" + json + `{"qty":"3","subprice":"9999999999999999","tva_tx":"20"}` +
			"\n===\nDELETE " + api + "/invoices/2/lines/3\n===\nPOST " + api + "/invoices/1/lines\n" + json + `{"desc":"x","qty":1,"subprice":1}` +
			"\n===\nPUT " + api + "/invoices/1/lines/1\n" + json + `{"qty":1}` + "\n===\nDELETE " + api + "/invoices/1/lines/1\n===\nDELETE " + api + "/invoices/1\n===\nDELETE " + api + "/invoices/2",
		"POST " + api + "/invoices/1/payments\n" + json + `{"paymentid":2,"closepaidinvoices":"yes","datepaye":"2026-11-20"}` +
			"\n===\nPOST " + api + "/invoices/paymentsdistributed\n" + json + `{"arrayofamounts":{"1":{"amount":"10"},"2":{"amount":"remain"},"x":{}},"paymentid":"7","closepaidinvoices":"no"}` +
			"\n===\nGET " + api + "/invoices/1/payments\n===\nPOST " + api + "/invoices/2/payments\n" + json + `{"paymentid":99,"accountid":0}` +
			"\n===\nPOST " + api + "/invoices/1/settounpaid\n===\nPOST " + api + "/invoices/1/settopaid\n" + json + `{"close_code":"badcustomer","close_note":"gone"}`,
		"POST " + api + "/invoices/createfromorder/2\n===\nPOST " + api + "/invoices/createfromorder/99999999999\n===\nPOST " + api + "/invoices/createfromorder/x/y" +
			"\n===\nPOST " + api + "/orders/2/close\n===\nPOST " + api + "/orders/2/reopen\n===\nPUT " + api + "/orders/1\n" + json + `{"ref_client":"PO","date":"2026-11-01"}` +
			"\n===\nPOST " + api + "/orders/1/lines\n" + json + `{"fk_product":2,"qty":1}` + "\n===\nDELETE " + api + "/orders/1",
		"POST " + api + "/contacts\n" + json + `{"lastname":"Doe","socid":1}` + "\n===\nPUT " + api + "/contacts/1\n" + json + `{"socid":99,"statut":0}` +
			"\n===\nGET " + api + "/contacts?thirdparty_ids=1,2&sqlfilters=(t.lastname:like:'%oe')\n===\nDELETE " + api + "/thirdparties/1\n===\nDELETE " + api + "/products/2\n===\nDELETE " + api + "/contacts/1",
		"GET " + api + "/nowhere/at/all\n===\nGET " + api + "/thirdparties?sqlfilters=(t.nom:like:'%acme%')\nAuthorization: Bearer nope",
	}
	fakekit.FuzzHTTP(f, seeds, func(t *testing.T) *fakekit.FuzzTarget {
		srv, err := erpfake.New(control.WithMaxBody(64 << 10))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Load(fuzzSeed); err != nil {
			t.Fatal(err)
		}
		return &fakekit.FuzzTarget{
			Handler:    srv,
			Header:     http.Header{"Erpapikey": {srv.APIKey()}},
			Requests:   srv.Requests,
			ErrorShape: errorShape,
			Probe: func() *http.Request {
				r := httptest.NewRequest("GET", api+"/users/1", nil)
				r.Header.Set("ERPAPIKEY", srv.APIKey())
				return r
			},
			ProbeStatus: http.StatusOK,
			Check:       func() error { return checkInvariants(srv) },
			Close:       srv.Close,
		}
	})
}

var fuzzSeed = erpfake.Seed{
	Thirdparties: []erpfake.ThirdpartySeed{{Name: "Acme", Customer: true}, {Name: "Globex", Supplier: true}},
	Products:     []erpfake.ProductSeed{{Ref: "WIDGET", Label: "Widget", Price: "12.50", VATRate: "20"}, {Ref: "SETUP", Label: "Setup", Price: "90", Service: true}},
	Invoices: []erpfake.InvoiceSeed{
		{Thirdparty: "Acme", Validated: true, Lines: []erpfake.LineSeed{{Product: "WIDGET", Qty: "4"}}},
		{Thirdparty: "Globex", Lines: []erpfake.LineSeed{{Product: "SETUP", Qty: "1"}}},
	},
	Orders: []erpfake.OrderSeed{
		{Thirdparty: "Acme", Lines: []erpfake.LineSeed{{Product: "WIDGET", Qty: "2"}}},
		{Thirdparty: "Globex", Validated: true, Lines: []erpfake.LineSeed{{Description: "Support", Qty: "1", Subprice: "40"}}},
	},
}

// errorShape accepts the ERP's API errors, {"error":{"code","message"}}
// with the status as code and its text first, and the web server's 404
// page for paths outside the API.
func errorShape(status int, h http.Header, body []byte) error {
	if strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		if status == http.StatusNotImplemented && string(body) == "API not found (failed to include API file)" {
			return nil // the ERP's index.php, for an API it has no file for
		}
		if status == http.StatusForbidden && bytes.Contains(body, []byte("refused by CSRF protection in main.inc.php. Token not provided.")) {
			return nil // the ERP's main.inc.php, for a form posted without its token
		}
		if status != http.StatusNotFound || !bytes.Contains(body, []byte("<h1>Not Found</h1>")) {
			return fmt.Errorf("an HTML %d", status)
		}
		return nil
	}
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if h.Get("Content-Type") != "application/json" {
		return fmt.Errorf("Content-Type %q", h.Get("Content-Type"))
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return err
	}
	if e.Error.Code != status || !strings.HasPrefix(e.Error.Message, http.StatusText(status)) {
		return fmt.Errorf("code %d, message %q", e.Error.Code, e.Error.Message)
	}
	return nil
}

var (
	invoiceRef = regexp.MustCompile(`^(FA|AV|AC)\d{4}-\d{4}$`)
	orderRef   = regexp.MustCompile(`^CO\d{4}-\d{4}$`)
	decimalMax = new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(16), nil))
)

// checkInvariants checks what must hold of the fake's state whatever was
// sent: ids increase; admin is there and enabled; logins and product refs
// are unique; every document's third party and every line's product exist;
// a document's totals are the sums of its lines', and a line's TTC its HT
// plus its tax; every amount fits DECIMAL(24,8); drafts have the ref
// (PROVn), other documents a final ref, unique.
func checkInvariants(srv *erpfake.Server) error {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	increasing := func(kind string, ids []erp.ID) {
		for i := 1; i < len(ids); i++ {
			if ids[i] <= ids[i-1] {
				fail("%s ids not increasing: %v", kind, ids)
			}
		}
	}

	users := srv.Users()
	logins := map[string]bool{}
	var userIDs []erp.ID
	for _, u := range users {
		userIDs = append(userIDs, u.ID)
		if l := strings.ToLower(u.Login); logins[l] || l == "" {
			fail("login %q twice or empty", u.Login)
		}
		logins[strings.ToLower(u.Login)] = true
	}
	increasing("user", userIDs)
	if len(users) == 0 || users[0].ID != 1 || users[0].Login != "admin" || !bool(users[0].Enabled) {
		fail("admin is gone or disabled")
	}

	socs := map[erp.ID]bool{}
	var socIDs []erp.ID
	for _, t := range srv.Thirdparties() {
		socs[t.ID] = true
		socIDs = append(socIDs, t.ID)
		if strings.TrimSpace(t.Name) == "" {
			fail("third party %d without a name", t.ID)
		}
	}
	increasing("thirdparty", socIDs)

	products, refs := map[erp.ID]bool{}, map[string]bool{}
	var productIDs []erp.ID
	for _, p := range srv.Products() {
		products[p.ID] = true
		productIDs = append(productIDs, p.ID)
		if r := strings.ToLower(p.Ref); refs[r] || r == "" || p.Label == "" {
			fail("product %d: ref %q twice or empty, or no label", p.ID, p.Ref)
		}
		refs[strings.ToLower(p.Ref)] = true
		for _, d := range []erp.Decimal{p.Price, p.PriceTTC} {
			if !fits(d) {
				fail("product %d: %s does not fit DECIMAL(24,8)", p.ID, d)
			}
		}
	}
	increasing("product", productIDs)

	lineIDs := map[erp.ID]bool{}
	finalRefs := map[string]bool{}
	document := func(kind string, id, soc erp.ID, ref string, draft bool, final *regexp.Regexp, ht, tva, ttc erp.Decimal, lines []erp.Line) {
		if !socs[soc] {
			fail("%s %d: third party %d does not exist", kind, id, soc)
		}
		switch {
		case draft && ref != fmt.Sprintf("(PROV%d)", id):
			fail("%s %d: a draft with ref %q", kind, id, ref)
		case !draft && !final.MatchString(ref):
			fail("%s %d: validated with ref %q", kind, id, ref)
		case !draft && finalRefs[ref]:
			fail("%s %d: ref %q twice", kind, id, ref)
		}
		finalRefs[ref] = true
		sum := [3]*big.Rat{new(big.Rat), new(big.Rat), new(big.Rat)}
		for _, l := range lines {
			if lineIDs[l.ID] || l.ID == 0 {
				fail("%s %d: line id %d twice", kind, id, l.ID)
			}
			lineIDs[l.ID] = true
			if l.ProductID != 0 && !products[l.ProductID] {
				fail("%s %d: product %d does not exist", kind, id, l.ProductID)
			}
			if new(big.Rat).Add(l.TotalHT.Rat(), l.TotalTVA.Rat()).Cmp(l.TotalTTC.Rat()) != 0 {
				fail("%s %d: line %d: %s + %s != %s", kind, id, l.ID, l.TotalHT, l.TotalTVA, l.TotalTTC)
			}
			for i, d := range []erp.Decimal{l.TotalHT, l.TotalTVA, l.TotalTTC} {
				sum[i].Add(sum[i], d.Rat())
			}
			for _, d := range []erp.Decimal{l.Qty, l.Subprice, l.TotalTTC} {
				if !fits(d) {
					fail("%s %d: line %d: %s does not fit DECIMAL(24,8)", kind, id, l.ID, d)
				}
			}
		}
		for i, d := range []erp.Decimal{ht, tva, ttc} {
			if d.Rat().Cmp(sum[i]) != 0 || !fits(d) {
				fail("%s %d: total %s is not the lines' %s, or does not fit", kind, id, d, sum[i].FloatString(8))
			}
		}
	}
	var invoiceIDs []erp.ID
	for _, inv := range srv.Invoices() {
		invoiceIDs = append(invoiceIDs, inv.ID)
		// Payments never pay more than the total, nor a draft; paid and
		// status agree.
		if inv.TotalPaid.Rat().Cmp(inv.TotalTTC.Rat()) > 0 || inv.TotalPaid.Rat().Sign() < 0 ||
			bool(inv.Paid) != (inv.Status == erp.InvoicePaid) || inv.Status == erp.InvoiceDraft && inv.TotalPaid.Rat().Sign() != 0 {
			fail("invoice %d: status %v, paid %s of %s", inv.ID, inv.Status, inv.TotalPaid, inv.TotalTTC)
		}
		document("invoice", inv.ID, inv.SocID, inv.Ref, inv.Status == erp.InvoiceDraft, invoiceRef, inv.TotalHT, inv.TotalTVA, inv.TotalTTC, inv.Lines)
	}
	increasing("invoice", invoiceIDs)
	var orderIDs []erp.ID
	for _, o := range srv.Orders() {
		orderIDs = append(orderIDs, o.ID)
		document("order", o.ID, o.SocID, o.Ref, o.Status == erp.OrderDraft, orderRef, o.TotalHT, o.TotalTVA, o.TotalTTC, o.Lines)
	}
	increasing("order", orderIDs)
	var contactIDs []erp.ID
	for _, ct := range srv.Contacts() {
		contactIDs = append(contactIDs, ct.ID)
		if ct.ThirdpartyID != 0 && !socs[ct.ThirdpartyID] || strings.TrimSpace(ct.Lastname) == "" {
			fail("contact %d: third party %d, last name %q", ct.ID, ct.ThirdpartyID, ct.Lastname)
		}
	}
	increasing("contact", contactIDs)

	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// fits reports whether d fits a DECIMAL(24,8) column.
func fits(d erp.Decimal) bool {
	r := d.Rat()
	return new(big.Rat).Abs(r).Cmp(decimalMax) < 0 && new(big.Rat).Mul(r, big.NewRat(100_000_000, 1)).IsInt()
}
