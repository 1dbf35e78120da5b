package erpfake_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func TestCallerInTheRequestLog(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword("pw"), erpfake.WithBareLogin())
	srv.AddUser(erpfake.UserSeed{Login: "clerk", APIKey: "clerk-key"})
	send(t, srv, "GET", api+"/users/1", "", "")
	send(t, srv, "GET", api+"/users/1", "", "", "ERPAPIKEY", "clerk-key")
	send(t, srv, "GET", api+"/users/1", "", "", "ERPAPIKEY", "wrong")
	login := send(t, srv, "POST", "/index.php", "application/x-www-form-urlencoded", url.Values{"username": {"admin"}, "password": {"pw"}}.Encode())
	cookie, _, _ := strings.Cut(login.header.Get("Set-Cookie"), ";")
	send(t, srv, "GET", "/", "", "", "Cookie", cookie)
	var got []string
	for _, r := range srv.Requests() {
		got = append(got, r.Caller)
	}
	if diff := cmp.Diff([]string{"admin", "clerk", "", "admin", "admin"}, got); diff != "" {
		t.Fatalf("callers (-want +got):\n%s", diff)
	}
}

func TestServeAndClose(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := erpfake.New()
	if err != nil {
		t.Fatal(err)
	}
	u := srv.Serve(l)
	if u != "http://"+l.Addr().String() || srv.URL() != u {
		t.Fatalf("Serve = %q, URL %q", u, srv.URL())
	}
	if _, err := srv.Client().GetUser(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	srv.Close()
	if _, err := http.Get(u + "/"); err == nil {
		t.Fatal("still serving after Close")
	}
	if _, err := srv.Listen(l.Addr().String()); err != nil {
		t.Fatalf("the port is free again: %v", err)
	}
	srv.Close()

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	if _, err := newFake(t).Listen(busy.Addr().String()); err == nil || !strings.Contains(err.Error(), port) {
		t.Fatalf("a busy port: %v", err)
	}
}

func TestStartTLS(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, control.WithTLS())
	if !strings.HasPrefix(srv.URL(), "https://") {
		t.Fatal(srv.URL())
	}
	if _, err := srv.Client().GetUser(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
}

func TestFaultsAndTheRequestLog(t *testing.T) {
	t.Parallel()
	const route = "GET /api/index.php/users/{id}"
	srv := erpfake.Start(t, control.WithFault(route, control.Fault{Status: 503, Times: 1}), control.WithRequestLog(2, 4))
	if f := srv.Faults(); len(f) != 1 || f[0].Route != route || f[0].Remaining != 1 {
		t.Fatalf("WithFault: %v", f)
	}
	if a := send(t, srv, "GET", api+"/users/1", "", ""); a.status != 503 || a.body != `{"error":{"code":503,"message":"Service Unavailable"}}` {
		t.Fatalf("the fault: %d %s", a.status, a.body)
	}
	send(t, srv, "GET", api+"/users/1", "", "")
	send(t, srv, "POST", api+"/thirdparties", "application/json", `{"name":"Acme"}`)
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Status != 200 || reqs[1].Status != 200 || string(reqs[1].Body) != `{"na` || !reqs[1].Truncated() {
		t.Fatalf("log of 2 entries and 4 bytes of each body: %v", reqs)
	}
	if len(srv.RequestsTo(route)) != 1 || len(srv.Faults()) != 0 {
		t.Fatalf("RequestsTo %v, faults %v", srv.RequestsTo(route), srv.Faults())
	}
	if err := srv.InjectFault("", control.Fault{Code: "UNAVAILABLE"}); err == nil {
		t.Fatal("the ERP has no error codes")
	}
	srv.InjectFault("", control.Fault{Status: 500})
	srv.ClearFaults()
	srv.ResetRequests()
	if len(srv.Faults()) != 0 || len(srv.Requests()) != 0 {
		t.Fatal("ClearFaults, ResetRequests")
	}
}

// newFake is New, which fails the test on an error.
func newFake(tb testing.TB, opts ...erpfake.Option) *erpfake.Server {
	tb.Helper()
	s, err := erpfake.New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestWithFaultRefusesABadFault(t *testing.T) {
	t.Parallel()
	_, err := erpfake.New(control.WithFault("GET /no such{", control.Fault{Status: 500}))
	if err == nil || !strings.HasPrefix(err.Error(), `erpfake: control.WithFault("GET /no such{"): invalid fault`) {
		t.Fatalf("New: %v", err)
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithAdminPassword("pw"), erpfake.WithAdminAPIKey("admin-key"))
	if err := srv.Load(demo()); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	if _, err := c.UpdateUser(context.Background(), 1, &erp.UpdateUserRequest{Extra: map[string]any{"pass": "changed"}}); err != nil {
		t.Fatal(err)
	}
	if err := srv.ClientWithLogin("admin", "changed").Login(context.Background()); err != nil {
		t.Fatal(err)
	}
	srv.SetAPIEnabled(false)
	srv.InjectFault("", control.Fault{Status: 500, Times: 5})

	srv.Reset()
	if len(srv.Users()) != 1 || len(srv.Thirdparties())+len(srv.Products())+len(srv.Invoices())+len(srv.Orders()) != 0 ||
		srv.Sessions() != 0 || !srv.APIEnabled() || len(srv.Faults()) != 0 || len(srv.Requests()) != 0 {
		t.Fatalf("after Reset: %d users, %d sessions, API %v, faults %v, log %v", len(srv.Users()), srv.Sessions(), srv.APIEnabled(), srv.Faults(), srv.Requests())
	}
	if srv.APIKey() != "admin-key" || srv.AdminPassword() != "pw" {
		t.Fatal("credentials changed")
	}
	if err := srv.ClientWithLogin("admin", "pw").Login(context.Background()); err != nil {
		t.Fatalf("New's password after Reset: %v", err)
	}
	if _, err := srv.ClientWithAPIKey("clerk-key").GetUser(context.Background(), 1); !errors.Is(err, erp.ErrUnauthorized) {
		t.Fatalf("a seeded key after Reset: %v", err)
	}
	// Ids and refs start again.
	if err := srv.Load(demo()); err != nil {
		t.Fatal(err)
	}
	if inv := srv.Invoices(); inv[0].ID != 1 || inv[0].Ref != "FA2611-0001" {
		t.Fatalf("after a second Load: %+v", inv[0])
	}
}

// demo is a seed of every kind of record, as a YAML seed file has it.
func demo() erpfake.Seed {
	const file = `
users:
  - {login: clerk, password: pw, firstname: Clara, lastname: Clerk, email: clara@example.com, api_key: clerk-key}
  - {login: boss, admin: true, disabled: true}
thirdparties:
  - {name: Acme Corp, customer: true, supplier: true, email: ap@acme.example, town: Lyon, country: FR}
  - {name: Globex, client: 2}
products:
  - {ref: WIDGET-1, label: Widget, price: "12.50", vat_rate: "20"}
  - {ref: SETUP, label: Setup, price: 90, service: true}
invoices:
  - thirdparty: Acme Corp
    date: 2026-11-02
    validated: true
    lines: [{product: WIDGET-1, qty: "4"}, {description: Freight, qty: 1, subprice: "7.5", vat_rate: "20", discount: "10"}]
  - {socid: 2, type: 2, ref_client: RC-9, paid: true, lines: [{product_id: 2, qty: "1"}]}
  - {thirdparty: globex, lines: []}
orders:
  - {thirdparty: Acme Corp, closed: true, lines: [{product: SETUP, qty: "2"}]}
  - {thirdparty: Globex, lines: [{product: widget-1, qty: "1"}]}
`
	var seed erpfake.Seed
	dec := yaml.NewDecoder(strings.NewReader(file))
	dec.KnownFields(true)
	if err := dec.Decode(&seed); err != nil {
		panic(err)
	}
	return seed
}

func TestLoad(t *testing.T) {
	t.Parallel()
	clk := newFake(t).Clock()
	clk.Set(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	srv := erpfake.Start(t, control.WithClock(clk))
	if err := srv.Load(demo()); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Ref, Status, HT, TTC string
		Soc                  erp.ID
		Lines                int
	}
	var got []doc
	for _, inv := range srv.Invoices() {
		got = append(got, doc{inv.Ref, inv.Status.String(), inv.TotalHT.Text(), inv.TotalTTC.Text(), inv.SocID, len(inv.Lines)})
	}
	for _, o := range srv.Orders() {
		got = append(got, doc{o.Ref, o.Status.String(), o.TotalHT.Text(), o.TotalTTC.Text(), o.SocID, len(o.Lines)})
	}
	want := []doc{
		{"FA2611-0001", "validated", "56.75000000", "68.10000000", 1, 2},
		{"AV2611-0001", "paid", "90.00000000", "90.00000000", 2, 1},
		{"(PROV3)", "draft", "0.00000000", "0.00000000", 2, 0},
		{"CO2611-0001", "closed", "180.00000000", "180.00000000", 1, 1},
		{"(PROV2)", "draft", "12.50000000", "15.00000000", 2, 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("documents (-want +got):\n%s", diff)
	}
	if inv := srv.Invoice(1); !inv.Date.Time.Equal(time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("date %v", inv.Date)
	}
	acme := srv.Thirdparty(1)
	if acme.Client != erp.Customer || !acme.Supplier || acme.Town != "Lyon" || acme.CountryCode != "FR" || srv.Thirdparty(2).Client != erp.Prospect {
		t.Fatalf("third parties %+v %+v", acme, srv.Thirdparty(2))
	}
	if p := srv.Product(2); p.Type != erp.TypeService || p.Price.Text() != "90.00000000" {
		t.Fatalf("product %+v", p)
	}
	if u := srv.User(3); u.Login != "boss" || bool(u.Enabled) || !bool(u.Admin) {
		t.Fatalf("user %+v", u)
	}
	if _, err := srv.ClientWithAPIKey("clerk-key").GetUser(context.Background(), 1); err != nil {
		t.Fatalf("the seeded key: %v", err)
	}

	// The same seed in JSON.
	b, err := json.Marshal(demo())
	if err != nil {
		t.Fatal(err)
	}
	var back erpfake.Seed
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(demo(), back, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("JSON round trip (-yaml +json):\n%s", diff)
	}
}

func TestLoadNamesTheEntryItStoppedAt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seed erpfake.Seed
		err  string
	}{
		{erpfake.Seed{Users: []erpfake.UserSeed{{Login: "a"}, {Login: " A "}}}, `users[1]: login "A" already exists`},
		{erpfake.Seed{Users: []erpfake.UserSeed{{Login: "a", APIKey: "k"}, {Login: "b", APIKey: "k"}}}, `users[1]: api_key is another user's already`},
		{erpfake.Seed{Users: []erpfake.UserSeed{{}}}, `users[0]: a user needs a login`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "x", Client: 9}}}, `thirdparties[0]: client must be 0 (none), 1 (customer), 2 (prospect) or 3 (both)`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{}}}, `thirdparties[0]: a third party needs a name`},
		{erpfake.Seed{Products: []erpfake.ProductSeed{{Ref: "X", Label: "x"}, {Ref: "x", Label: "y"}}}, `products[1]: ref "x" already exists`},
		{erpfake.Seed{Products: []erpfake.ProductSeed{{Ref: "X", Label: "x", Price: "1e20"}}}, `products[0]: price 1e20 has more digits than the ERP keeps`},
		{erpfake.Seed{Products: []erpfake.ProductSeed{{Ref: "X"}}}, `products[0]: label field missing`},
		{erpfake.Seed{Invoices: []erpfake.InvoiceSeed{{}}}, `invoices[0]: needs a third party: thirdparty (its name) or socid`},
		{erpfake.Seed{Invoices: []erpfake.InvoiceSeed{{Thirdparty: "Nobody"}}}, `invoices[0]: thirdparty "Nobody" does not exist`},
		{erpfake.Seed{Invoices: []erpfake.InvoiceSeed{{SocID: 7}}}, `invoices[0]: socid 7 does not name a thirdparty`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}, {Name: "a"}}, Invoices: []erpfake.InvoiceSeed{{Thirdparty: "A"}}},
			`invoices[0]: thirdparty "A" names 2 third parties; give socid`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}}, Invoices: []erpfake.InvoiceSeed{{Thirdparty: "A", SocID: 2}}},
			`invoices[0]: thirdparty "A" is id 1, not socid 2`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}}, Invoices: []erpfake.InvoiceSeed{{Thirdparty: "A", Validated: true}}},
			`invoices[0]: a validated invoice needs lines`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}}, Invoices: []erpfake.InvoiceSeed{{Thirdparty: "A", Lines: []erpfake.LineSeed{{Product: "P", Qty: "1"}}}}},
			`invoices[0]: lines[0]: product "P" does not exist`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}}, Products: []erpfake.ProductSeed{{Ref: "P", Label: "p"}},
			Invoices: []erpfake.InvoiceSeed{{Thirdparty: "A", Lines: []erpfake.LineSeed{{Product: "P", ProductID: 3, Qty: "1"}}}}},
			`invoices[0]: lines[0]: product "P" is id 1, not product_id 3`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}}, Invoices: []erpfake.InvoiceSeed{{Thirdparty: "A", Lines: []erpfake.LineSeed{{Qty: "1"}}}}},
			`invoices[0]: lines[0]: subprice field missing (a line without fk_product needs a price)`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}}, Invoices: []erpfake.InvoiceSeed{{Thirdparty: "A", Date: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
			`invoices[0]: date 253402300800 is out of range: dates are 1000-01-01 to 9999-12-31`},
		{erpfake.Seed{Thirdparties: []erpfake.ThirdpartySeed{{Name: "A"}}, Orders: []erpfake.OrderSeed{{Thirdparty: "A", Closed: true}}},
			`orders[0]: a validated order needs lines`},
		{erpfake.Seed{Orders: []erpfake.OrderSeed{{Thirdparty: "B"}}}, `orders[0]: thirdparty "B" does not exist`},
	} {
		srv := newFake(t)
		err := srv.Load(tc.seed)
		if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("%s: %v", tc.err, err)
		}
		if len(srv.Invoices())+len(srv.Orders()) != 0 {
			t.Errorf("%s: a refused document was added", tc.err)
		}
	}
	if _, err := newFake(t).AddProduct(erpfake.ProductSeed{Ref: "X"}); err == nil || err.Error() != "erpfake: label field missing" {
		t.Fatalf("AddProduct: %v", err)
	}
}

// Issue 20, defect 7: a message naming a document kind reads as English
// ("an invoice", "an order"), never "a invoice".
func TestMessagesUseTheRightArticle(t *testing.T) {
	t.Parallel()
	for _, seed := range []erpfake.Seed{
		{Invoices: []erpfake.InvoiceSeed{{SocID: 7}}},
		{Orders: []erpfake.OrderSeed{{SocID: 7}}},
	} {
		err := newFake(t).Load(seed)
		if err == nil || strings.Contains(err.Error(), "a invoice") || strings.Contains(err.Error(), "a order") || !strings.Contains(err.Error(), "an ") {
			t.Errorf("%v", err)
		}
	}
}
