package erpfake

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fullState is a state with every field of every record set, built by
// hand: what the round trip must keep.
func fullState(s *Server) *state {
	clk := s.cfg.clock
	at := func(h int) time.Time { return time.Date(2026, 11, 2, h, 0, 0, 0, time.UTC) }
	rat := func(v string) *big.Rat { r, _ := new(big.Rat).SetString(v); return r }
	st := newState(clk)
	st.seq = map[string]int64{"user": 3, "thirdparty": 2, "contact": 1, "product": 1, "invoice": 2, "order": 1, "proposal": 1, "line": 5, "payment": 1}
	st.refs = map[string]int{"FA": 1, "CO": 1, "PR": 1, "PAY": 1, "CU": 1, "SU": 1}
	st.pruneAt = 7
	admin := &user{id: 1, login: AdminLogin, password: s.cfg.adminPassword, lastname: "SuperAdmin", firstname: "Ada", email: "a@x",
		job: "boss", admin: true, employee: true, enabled: true, datec: at(1), datem: at(2), lastLogin: at(3)}
	jdoe := &user{id: 3, login: "jdoe", password: "pw", lastname: "Doe", firstname: "J", email: "j@x", job: "clerk",
		employee: true, enabled: true, datec: at(1), datem: at(2), lastLogin: at(4)}
	st.users = []*user{admin, jdoe}
	st.setKey(admin, s.cfg.adminKey)
	st.setKey(jdoe, "jdoe-key")
	st.sessions["sess-1"] = &session{user: jdoe, lastSeen: clk.Now()}
	acme := &thirdparty{id: 1, name: "Acme", alias: "ACME", client: 1, supplier: true, codeClient: "CU2611-00001",
		codeSupplier: "SU2611-00001", email: "acme@x", phone: "01", address: "1 rue", zip: "69000", town: "Lyon",
		country: "FR", vat: "FR1", active: true, notePublic: "pub", notePrivate: "priv", datec: at(1), datem: at(2)}
	other := &thirdparty{id: 2, name: "Other", client: 1, active: true, datec: at(1), datem: at(1)}
	st.thirdparties = []*thirdparty{acme, other}
	st.contacts = []*contact{{id: 1, soc: acme, lastname: "Roe", firstname: "R", email: "r@x", phonePro: "02", phoneMobile: "06",
		poste: "buyer", address: "2 rue", zip: "69001", town: "Lyon", country: "FR", notePublic: "p", notePrivate: "q",
		active: true, datec: at(1), datem: at(2), civility: "MME"}}
	widget := &product{id: 1, ref: "WIDGET", label: "Widget", description: "a widget", typ: 1, price: rat("12.5"),
		priceTTC: rat("15"), priceMin: rat("10"), baseType: "HT", vat: rat("20"), onSale: true, onPurchase: true,
		barcode: "123", stock: rat("7"), weight: rat("0.25"), notePublic: "n", notePrivate: "m", datec: at(1), datem: at(2)}
	st.products = []*product{widget}
	ln := func(id int64, p *product) *line {
		return &line{id: id, product: p, typ: 1, desc: "four", qty: rat("4"), subprice: rat("12.5"), discount: rat("10"),
			vat: rat("20"), ht: rat("45"), tva: rat("9"), ttc: rat("54"), rank: id}
	}
	doc := func(id int64, ref string, l ...*line) document {
		return document{id: id, ref: ref, refClient: "PO-" + ref, soc: acme, status: statusValidated, date: at(0),
			datec: at(1), dateValidation: at(2), ht: rat("45"), tva: rat("9"), ttc: rat("54"), notePublic: "np",
			notePrivate: "nq", author: jdoe, lines: l, pdf: []byte("%PDF-1.4 " + ref)}
	}
	o := &order{document: doc(1, "CO2611-0001", ln(1, widget)), billed: true, delivery: at(5), closedAt: at(6)}
	st.orders = []*order{o}
	pr := doc(1, "PR2611-0001", ln(5, widget))
	pr.status = propalSigned
	st.proposals = []*proposal{{document: pr, endValidity: at(8), closedAt: at(9)}}
	pay := &payment{id: 1, ref: "PAY2611-0001", date: at(3), code: "VIR", num: "N1", comment: "thanks"}
	inv1 := &invoice{document: doc(1, "FA2611-0001", ln(2, widget), ln(3, nil)), typ: 2, paid: true, due: at(7),
		payments: []paymentPart{{pay: pay, amount: rat("50")}}, order: o, closeCode: "discount_vat", closeNote: "rounding"}
	inv2 := &invoice{document: doc(2, "(PROV2)", ln(4, widget)), due: at(7), payments: []paymentPart{{pay: pay, amount: rat("4")}}}
	st.invoices = []*invoice{inv1, inv2}
	return st
}

// A snapshot restored into another fake gives back the same state, every
// field of every record: the fixture sets each one (UnsetFields), so one
// the snapshot forgot is seen lost.
func TestSnapshotRoundTripKeepsEveryField(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC))
	opts := []Option{control.WithClock(clk), WithAdminPassword("admin-pw"), WithAdminAPIKey("admin-key")}
	src, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	want := fullState(src)
	if unset := testtools.UnsetFields(want, "github.com/apitwin/apitwin/fake/erpfake", "state.clock"); len(unset) > 0 {
		t.Fatalf("the fixture leaves fields unset, so the round trip would not see them lost: %s", strings.Join(unset, ", "))
	}
	src.mu.Lock()
	src.st, src.admin = want, want.users[0]
	src.mu.Unlock()
	src.SetAPIEnabled(false)
	data, err := src.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	dst, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Restore(data); err != nil {
		t.Fatal(err)
	}
	opt := []cmp.Option{
		cmp.AllowUnexported(state{}, entityRecords{}, user{}, session{}, thirdparty{}, contact{}, product{}, line{}, document{}, invoice{}, order{}, proposal{}, payment{}, paymentPart{}),
		cmpopts.IgnoreFields(state{}, "clock", "pruneAt"), // the fake's own clock; a cost counter, not data
		cmp.Comparer(func(a, b *big.Rat) bool { return (a == nil) == (b == nil) && (a == nil || a.Cmp(b) == 0) }),
	}
	if diff := cmp.Diff(want, dst.st, opt...); diff != "" {
		t.Errorf("restored state (-want +got):\n%s", diff)
	}
	if dst.admin != dst.st.users[0] || dst.APIEnabled() {
		t.Errorf("admin %p (want the restored user 1), API enabled %v (want off)", dst.admin, dst.APIEnabled())
	}
	again, err := dst.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(data), string(again)); diff != "" {
		t.Errorf("a snapshot of the restored fake differs (-first +second):\n%s", diff)
	}
}
