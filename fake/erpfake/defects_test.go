package erpfake_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// A raw % in sqlfilters, as curl users send it, is read as PHP reads it:
// never dropped with the filter and every record answered.
func TestRawPercentInFilter(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for _, name := range []string{"Acme", "Globex", "Initech"} {
		if _, err := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: name, Client: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, query string
		status      int
		want        []string // names answered, in order
		msg         string
	}{
		// %cm and %' are no escapes: they stay as written.
		{"percent not an escape", "sqlfilters=(t.nom:like:'%cme%')", 200, []string{"Acme"}, ""},
		{"percent at the end", "sqlfilters=(t.nom:like:'Glo%')", 200, []string{"Globex"}, ""},
		{"encoded percent", "sqlfilters=" + url.QueryEscape("(t.nom:like:'%ni%')"), 200, []string{"Initech"}, ""},
		{"plus is a space", "sqlfilters=(t.nom:like:'%25')+and+(t.rowid:>:1)", 200, []string{"Globex", "Initech"}, ""},
		// %ac is an escape (byte 0xAC), which is no text: refused, never
		// ignored.
		{"percent that is an escape", "sqlfilters=(t.nom:like:'%acme%')", 400, nil, `Error when validating parameter sqlfilters -> the filter is not valid UTF-8`},
		{"malformed escape and malformed filter", "sqlfilters=(t.nom:like:'%zz", 400, nil, "Error when validating parameter sqlfilters"},
	} {
		a := send(t, srv, "GET", api+"/thirdparties?"+tc.query, "", "")
		if a.status != tc.status {
			t.Errorf("%s: %d %s", tc.name, a.status, a.body)
			continue
		}
		if tc.msg != "" {
			if !strings.Contains(a.body, tc.msg) {
				t.Errorf("%s: %s", tc.name, a.body)
			}
			continue
		}
		var got []string
		for _, part := range strings.Split(a.body, `"name":"`)[1:] {
			got = append(got, part[:strings.IndexByte(part, '"')])
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The ERP takes the API key as a bearer token too, when neither the
// ERPAPIKEY header nor the URL carries one.
func TestBearerAPIKey(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for _, tc := range []struct {
		name   string
		header []string
		status int
	}{
		{"bearer", []string{"ERPAPIKEY", "", "Authorization", "Bearer " + srv.APIKey()}, 200},
		{"bearer, any case and spaces", []string{"ERPAPIKEY", "", "Authorization", "bEaReR   " + srv.APIKey()}, 200},
		{"wrong bearer", []string{"ERPAPIKEY", "", "Authorization", "Bearer nope"}, 401},
		{"the header wins", []string{"ERPAPIKEY", "nope", "Authorization", "Bearer " + srv.APIKey()}, 401},
	} {
		if a := send(t, srv, "GET", api+"/users/1", "", "", tc.header...); a.status != tc.status {
			t.Errorf("%s: %d %s", tc.name, a.status, a.body)
		}
	}
	a := send(t, srv, "GET", api+"/users/1", "", "", "ERPAPIKEY", "")
	want := `{"error":{"code":401,"message":"Unauthorized: Failed to login to API. Neither parameter 'HTTP_ERPAPIKEY' nor 'Authentication: Bearer' found on HTTP header (and no parameter ERPAPIKEY in URL)."}}`
	if a.status != 401 || a.body != want {
		t.Errorf("no credential: %d %s", a.status, a.body)
	}
}

// Errors as the ERP words them: its status, its message, its body.
func TestErrorsAsTheERPWordsThem(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	clerkID, _ := srv.AddUser(erpfake.UserSeed{Login: "clerk", APIKey: "clerk-key-0001"})
	clerk := []string{"ERPAPIKEY", "clerk-key-0001"}
	for _, tc := range []struct {
		name                 string
		method, path, ct, in string
		header               []string
		status               int
		body, contentType    string
	}{
		{"PUT of a missing user", "PUT", api + "/users/99", "application/json", `{"job":"x"}`, nil, 404,
			`{"error":{"code":404,"message":"Not Found: Account not found"}}`, "application/json"},
		{"unknown API", "GET", api + "/nowhere", "", "", nil, 501, "API not found (failed to include API file)", "text/html; charset=UTF-8"},
		{"unknown API, deeper", "POST", api + "/nowhere/1/x", "", "", nil, 501, "API not found (failed to include API file)", "text/html; charset=UTF-8"},
		{"known API, unknown route", "GET", api + "/invoices/1/nothing", "", "", nil, 404, `{"error":{"code":404,"message":"Not Found"}}`, "application/json"},
		{"user update by a clerk", "PUT", api + "/users/1", "application/json", `{"job":"x"}`, clerk, 403,
			`{"error":{"code":403,"message":"Forbidden: User update not allowed"}}`, "application/json"},
		{"user deletion by a clerk", "DELETE", api + "/users/1", "", "", clerk, 403,
			`{"error":{"code":403,"message":"Forbidden: Not allowed"}}`, "application/json"},
		{"api_key in a create", "POST", api + "/users", "application/json", `{"login":"x","api_key":"k"}`, nil, 405,
			`{"error":{"code":405,"message":"Method Not Allowed: The property api_key can't be set/modified using the APIs"}}`, "application/json"},
		{"pass_crypted in an update", "PUT", api + "/users/" + itoa(clerkID), "application/json", `{"pass_crypted":"x"}`, nil, 405,
			`{"error":{"code":405,"message":"Method Not Allowed: The property pass_crypted can't be set/modified using the APIs"}}`, "application/json"},
	} {
		a := send(t, srv, tc.method, tc.path, tc.ct, tc.in, tc.header...)
		if a.status != tc.status || a.body != tc.body || a.header.Get("Content-Type") != tc.contentType {
			t.Errorf("%s: %d %q %s", tc.name, a.status, a.header.Get("Content-Type"), a.body)
		}
	}
}

// The last active administrator cannot take away its own rights: neither
// disable itself nor lose the admin flag (the ERP refuses to reset the
// admin flag through the API at all), so nobody is locked out.
func TestLastAdminCannotLockEveryoneOut(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	for _, tc := range []struct {
		name, body, want string
	}{
		{"disable", `{"statut":0}`, `{"error":{"code":403,"message":"Forbidden: Users cannot disable their own account"}}`},
		{"disable by status", `{"status":"0"}`, `{"error":{"code":403,"message":"Forbidden: Users cannot disable their own account"}}`},
		{"drop the admin flag", `{"admin":0}`, `{"error":{"code":403,"message":"Forbidden: Reseting the admin status of a user is not possible using the API"}}`},
		{"drop the admin flag with a string", `{"admin":"0"}`, `{"error":{"code":403,"message":"Forbidden: Reseting the admin status of a user is not possible using the API"}}`},
	} {
		if a := send(t, srv, "PUT", api+"/users/1", "application/json", tc.body); a.status != 403 || a.body != tc.want {
			t.Errorf("%s: %d %s", tc.name, a.status, a.body)
		}
	}
	if u := srv.User(1); !bool(u.Admin) || !bool(u.Enabled) {
		t.Fatalf("admin now %+v", u)
	}
	if a := send(t, srv, "GET", api+"/users", "", ""); a.status != 200 {
		t.Fatalf("admin locked out: %d", a.status)
	}
	// Keeping the flag as it is, or giving it, is no reset.
	if a := send(t, srv, "PUT", api+"/users/1", "application/json", `{"admin":1,"statut":1}`); a.status != 200 {
		t.Fatalf("admin 1 on an admin: %d %s", a.status, a.body)
	}
}

func TestSeedContactsAndPaidInvoices(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	err := srv.Load(erpfake.Seed{
		Thirdparties: []erpfake.ThirdpartySeed{{Name: "Acme", Customer: true}},
		Contacts:     []erpfake.ContactSeed{{Thirdparty: "Acme", Lastname: "Doe", Firstname: "Jane", Job: "Buyer"}, {Lastname: "Solo"}},
		Invoices:     []erpfake.InvoiceSeed{{Thirdparty: "Acme", Paid: true, Lines: []erpfake.LineSeed{{Qty: "2", Subprice: "10", VATRate: "20"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ct := srv.Contact(1); ct == nil || ct.ThirdpartyID != 1 || ct.Lastname != "Doe" || ct.Job != "Buyer" || srv.Contact(2).ThirdpartyID != 0 {
		t.Fatalf("contacts %+v", srv.Contacts())
	}
	for name, err := range map[string]error{
		"no lastname":           second(srv.AddContact(erpfake.ContactSeed{Thirdparty: "Acme"})),
		"unknown third party":   second(srv.AddContact(erpfake.ContactSeed{Thirdparty: "Nobody", Lastname: "X"})),
		"unknown third party 2": second(srv.AddContact(erpfake.ContactSeed{SocID: 9, Lastname: "X"})),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// A seeded paid invoice was paid by a payment of its total.
	inv := srv.Invoice(1)
	if !bool(inv.Paid) || !inv.TotalPaid.Equal(erp.MustDecimal("24")) || !inv.RemainToPay.Equal(erp.MustDecimal("0")) {
		t.Fatalf("paid invoice %+v", inv)
	}
	payments, err := srv.Client().ListInvoicePayments(t.Context(), 1)
	if err != nil || len(payments) != 1 || payments[0].Type != "VIR" || !payments[0].Date.Equal(inv.Date) {
		t.Fatalf("payments %+v %v", payments, err)
	}
}

// One payment cannot name an invoice twice ("1" and "01") and so pay it
// past its total.
func TestDistributedPaymentNamesEachInvoiceOnce(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	srv.AddInvoice(erpfake.InvoiceSeed{SocID: 1, Validated: true, Lines: []erpfake.LineSeed{{Qty: "1", Subprice: "10"}}})
	a := send(t, srv, "POST", api+"/invoices/paymentsdistributed", "application/json",
		`{"arrayofamounts":{"1":{"amount":"8"},"01":{"amount":"8"}},"paymentid":2,"closepaidinvoices":"yes"}`)
	if a.status != 400 || !strings.Contains(a.body, "arrayofamounts names invoice 1 twice") {
		t.Fatalf("%d %s", a.status, a.body)
	}
	if inv := srv.Invoice(1); !inv.TotalPaid.Equal(erp.MustDecimal("0")) {
		t.Fatalf("paid %s", inv.TotalPaid)
	}
}

// A PUT that the ERP's object refuses answers the object's error as the
// message, as the ERP's thirdparties API does.
func TestThirdpartyUpdateRefusedAsTheERPWordsIt(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "A", Client: 1})
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "B", Client: 1})
	code := srv.Thirdparty(1).CustomerCode
	a := send(t, srv, "PUT", api+"/thirdparties/2", "application/json", `{"code_client":"`+code+`"}`)
	if want := `{"error":{"code":500,"message":"Internal Server Error: ErrorCustomerCodeAlreadyUsed"}}`; a.status != 500 || a.body != want {
		t.Fatalf("%d %s", a.status, a.body)
	}
}
