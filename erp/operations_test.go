package erp_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
)

// status is the HTTP status of an *erp.Error, 0 for anything else.
func status(err error) int {
	var e *erp.Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// draftInvoice creates a draft invoice of one line of p (qty 2) for soc.
func (tg *target) draftInvoice(t *testing.T, soc *erp.Thirdparty, p *erp.Product) *erp.Invoice {
	t.Helper()
	inv, err := tg.c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: soc.ID, Lines: []erp.LineRequest{{ProductID: p.ID, Qty: dec("2")}}})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestDeletes(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc, p := tg.customer(t), tg.product(t, "10", "20")

	// A draft invoice can be deleted; a validated one cannot.
	draft := tg.draftInvoice(t, soc, p)
	if err := tg.c.DeleteInvoice(ctx, draft.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetInvoice(ctx, draft.ID); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("deleted draft: %v", err)
	}
	valid := tg.draftInvoice(t, soc, p)
	if _, err := tg.c.ValidateInvoice(ctx, valid.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := tg.c.DeleteInvoice(ctx, valid.ID); !errors.Is(err, erp.ErrForbidden) {
		t.Fatalf("deleting a validated invoice: %v", err)
	}
	// A product on a line, and a third party with invoices, are in use.
	if err := tg.c.DeleteProduct(ctx, p.ID); status(err) != http.StatusConflict {
		t.Fatalf("deleting a product in use: %v", err)
	}
	if err := tg.c.DeleteThirdparty(ctx, soc.ID); status(err) != http.StatusConflict {
		t.Fatalf("deleting a third party in use: %v", err)
	}
	// An order can be deleted whatever its state.
	o, err := tg.c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: soc.ID, Lines: []erp.LineRequest{{ProductID: p.ID, Qty: dec("1")}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.ValidateOrder(ctx, o.ID, nil); err != nil {
		t.Fatal(err)
	}
	if err := tg.c.DeleteOrder(ctx, o.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetOrder(ctx, o.ID); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("deleted order: %v", err)
	}
	// Unused ones go, and a second delete is 404.
	free, other := tg.product(t, "1", "0"), tg.customer(t)
	for _, del := range []func() error{
		func() error { return tg.c.DeleteProduct(ctx, free.ID) },
		func() error { return tg.c.DeleteThirdparty(ctx, other.ID) },
	} {
		if err := del(); err != nil {
			t.Fatal(err)
		}
		if err := del(); !errors.Is(err, erp.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
	}
	if err := tg.c.DeleteInvoice(ctx, 987654321); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("missing invoice: %v", err)
	}
}

func TestInvoiceLines(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc, p := tg.customer(t), tg.product(t, "10", "20")
	inv := tg.draftInvoice(t, soc, p) // 20.00 + 4.00

	lineID, err := tg.c.AddInvoiceLine(ctx, inv.ID, &erp.LineRequest{Description: "Setup", Qty: dec("1"), Subprice: erp.Ptr(dec("50")), VATRate: erp.Ptr(dec("10"))})
	if err != nil || lineID == 0 {
		t.Fatalf("add: %d %v", lineID, err)
	}
	inv, err = tg.c.GetInvoice(ctx, inv.ID)
	if err != nil || len(inv.Lines) != 2 || inv.Lines[1].ID != lineID || !inv.TotalTTC.Equal(dec("79")) {
		t.Fatalf("after add: %+v %v", inv, err)
	}
	u := inv.Lines[1].Update()
	u.Qty = dec("3")
	inv, err = tg.c.UpdateInvoiceLine(ctx, inv.ID, lineID, u)
	if err != nil || !inv.Lines[1].Qty.Equal(dec("3")) || inv.Lines[1].Description != "Setup" || !inv.TotalHT.Equal(dec("170")) || !inv.TotalTTC.Equal(dec("189")) {
		t.Fatalf("after update: %+v %v", inv, err)
	}
	inv, err = tg.c.DeleteInvoiceLine(ctx, inv.ID, inv.Lines[0].ID)
	if err != nil || len(inv.Lines) != 1 || inv.Lines[0].ID != lineID || !inv.TotalHT.Equal(dec("150")) {
		t.Fatalf("after delete: %+v %v", inv, err)
	}
	lines, err := tg.c.ListInvoiceLines(ctx, inv.ID)
	if err != nil || diff(inv.Lines, lines) != "" {
		t.Fatalf("lines alone differ from the invoice's: %s %v", diff(inv.Lines, lines), err)
	}

	// A validated invoice's lines cannot change.
	if _, err := tg.c.ValidateInvoice(ctx, inv.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.AddInvoiceLine(ctx, inv.ID, &erp.LineRequest{ProductID: p.ID, Qty: dec("1")}); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("add to a validated invoice: %v", err)
	}
	if _, err := tg.c.UpdateInvoiceLine(ctx, inv.ID, lineID, u); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("update on a validated invoice: %v", err)
	}
	if _, err := tg.c.DeleteInvoiceLine(ctx, inv.ID, lineID); status(err) != http.StatusMethodNotAllowed {
		t.Fatalf("delete on a validated invoice: %v", err)
	}
	after, err := tg.c.GetInvoice(ctx, inv.ID)
	if err != nil || len(after.Lines) != 1 || !after.TotalHT.Equal(dec("150")) {
		t.Fatalf("a refused change changed the invoice: %+v %v", after, err)
	}
}

func TestLineRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	tg.needFake(t)
	soc, p := tg.customer(t), tg.product(t, "10", "20")
	inv := tg.draftInvoice(t, soc, p)
	for _, tc := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"unknown line", second(tg.c.UpdateInvoiceLine(ctx, inv.ID, 99999, &erp.UpdateLineRequest{Qty: dec("1")})), 404, "Not Found: Line not found"},
		{"unknown line delete", second(tg.c.DeleteInvoiceLine(ctx, inv.ID, 99999)), 404, "Not Found: Line not found"},
		{"unknown invoice", second(tg.c.AddInvoiceLine(ctx, 99999, &erp.LineRequest{ProductID: p.ID, Qty: dec("1")})), 404, "Not Found: Invoice not found"},
		{"unknown product", second(tg.c.AddInvoiceLine(ctx, inv.ID, &erp.LineRequest{ProductID: 99999, Qty: dec("1")})), 400, "fk_product 99999 does not name a product"},
		{"no qty", second(tg.c.AddOrderLine(ctx, 1, &erp.LineRequest{ProductID: p.ID})), 404, "Order not found"},
		{"discount over 100", second(tg.c.AddInvoiceLine(ctx, inv.ID, &erp.LineRequest{ProductID: p.ID, Qty: dec("1"), Discount: erp.Ptr(dec("101"))})), 400, "remise_percent must be between 0 and 100"},
	} {
		var e *erp.Error
		if !errors.As(tc.err, &e) || e.StatusCode != tc.code || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s: %v", tc.name, tc.err)
		}
	}
	if got := tg.fake.Invoice(int64(inv.ID)); len(got.Lines) != 1 {
		t.Fatalf("refusals changed the lines: %+v", got.Lines)
	}
}

func second[T any](_ T, err error) error { return err }

func TestOrderLinesAndReopen(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc, p := tg.customer(t), tg.product(t, "10", "20")
	o, err := tg.c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: soc.ID, Lines: []erp.LineRequest{{ProductID: p.ID, Qty: dec("1")}}})
	if err != nil {
		t.Fatal(err)
	}
	lineID, err := tg.c.AddOrderLine(ctx, o.ID, &erp.LineRequest{ProductID: p.ID, Qty: dec("4")})
	if err != nil {
		t.Fatal(err)
	}
	o, err = tg.c.UpdateOrderLine(ctx, o.ID, lineID, &erp.UpdateLineRequest{Qty: dec("2"), Subprice: dec("10"), VATRate: dec("20")})
	if err != nil || len(o.Lines) != 2 || !o.TotalHT.Equal(dec("30")) {
		t.Fatalf("after update: %+v %v", o, err)
	}
	if o, err = tg.c.DeleteOrderLine(ctx, o.ID, o.Lines[0].ID); err != nil || len(o.Lines) != 1 || !o.TotalHT.Equal(dec("20")) {
		t.Fatalf("after delete: %+v %v", o, err)
	}
	if lines, err := tg.c.ListOrderLines(ctx, o.ID); err != nil || diff(o.Lines, lines) != "" {
		t.Fatalf("lines alone differ from the order's: %s %v", diff(o.Lines, lines), err)
	}
	if _, err := tg.c.ListOrderLines(ctx, 987654321); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("lines of a missing order: %v", err)
	}
	o, err = tg.c.UpdateOrder(ctx, o.ID, &erp.UpdateOrderRequest{RefClient: erp.Ptr("PO-9"), NotePublic: erp.Ptr("rush")})
	if err != nil || o.RefClient != "PO-9" || o.NotePublic != "rush" || len(o.Lines) != 1 {
		t.Fatalf("update: %+v %v", o, err)
	}
	// A draft is not closed or reopened; validate, close, reopen.
	if _, err := tg.c.ReopenOrder(ctx, o.ID); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("reopening a draft: %v", err)
	}
	if o, err = tg.c.ValidateOrder(ctx, o.ID, nil); err != nil || o.Status != erp.OrderValidated {
		t.Fatalf("validate: %+v %v", o, err)
	}
	if _, err := tg.c.AddOrderLine(ctx, o.ID, &erp.LineRequest{ProductID: p.ID, Qty: dec("1")}); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("add to a validated order: %v", err)
	}
	if _, err := tg.c.DeleteOrderLine(ctx, o.ID, lineID); status(err) != http.StatusMethodNotAllowed {
		t.Fatalf("delete on a validated order: %v", err)
	}
	if o, err = tg.c.CloseOrder(ctx, o.ID, nil); err != nil || o.Status != erp.OrderClosed {
		t.Fatalf("close: %+v %v", o, err)
	}
	if o, err = tg.c.ReopenOrder(ctx, o.ID); err != nil || o.Status != erp.OrderValidated {
		t.Fatalf("reopen: %+v %v", o, err)
	}
	if _, err := tg.c.ReopenOrder(ctx, o.ID); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("reopening an open order: %v", err)
	}
	if _, err := tg.c.ReopenOrder(ctx, 987654321); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("reopening a missing order: %v", err)
	}
}

func TestInvoiceFromOrder(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc, p := tg.customer(t), tg.product(t, "12.5", "20")
	o, err := tg.c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: soc.ID, RefClient: "PO-1", Lines: []erp.LineRequest{
		{ProductID: p.ID, Qty: dec("2")}, {Description: "Delivery", Qty: dec("1"), Subprice: erp.Ptr(dec("5"))},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if o, err = tg.c.ValidateOrder(ctx, o.ID, nil); err != nil {
		t.Fatal(err)
	}
	inv, err := tg.c.CreateInvoiceFromOrder(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if inv.Status != erp.InvoiceDraft || inv.SocID != soc.ID || inv.RefClient != "PO-1" || len(inv.Lines) != 2 ||
		!inv.TotalHT.Equal(o.TotalHT) || !inv.TotalTTC.Equal(o.TotalTTC) || inv.Lines[1].Description != "Delivery" || inv.Lines[0].ID == o.Lines[0].ID {
		t.Fatalf("invoice %+v from order %+v", inv, o)
	}
	if _, err := tg.c.CreateInvoiceFromOrder(ctx, 987654321); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("from a missing order: %v", err)
	}
}

func TestInvoicePayments(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t) // a real ERP with its bank module on needs an account id
	soc, p := tg.customer(t), tg.product(t, "50", "20")
	a := tg.draftInvoice(t, soc, p) // 120.00 with tax
	b := tg.draftInvoice(t, soc, p)
	pay := &erp.PaymentRequest{Mode: erp.PaymentTransfer, ClosePaid: true, Num: "TR-1"}

	if _, err := tg.c.AddInvoicePayment(ctx, a.ID, pay); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("paying a draft: %v", err)
	}
	for _, inv := range []*erp.Invoice{a, b} {
		if _, err := tg.c.ValidateInvoice(ctx, inv.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Part of a, all of b, in one payment.
	date := erp.At(time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC))
	first, err := tg.c.PayInvoices(ctx, map[erp.ID]*erp.Decimal{a.ID: erp.Ptr(dec("20")), b.ID: nil}, &erp.PaymentRequest{Mode: erp.PaymentCheque, ClosePaid: true, Date: date})
	if err != nil || first == 0 {
		t.Fatalf("distributed payment: %d %v", first, err)
	}
	ga, _ := tg.c.GetInvoice(ctx, a.ID)
	gb, _ := tg.c.GetInvoice(ctx, b.ID)
	if ga.Status != erp.InvoiceValidated || bool(ga.Paid) || !ga.TotalPaid.Equal(dec("20")) || !ga.RemainToPay.Equal(dec("100")) {
		t.Fatalf("partly paid: %+v", ga)
	}
	if gb.Status != erp.InvoicePaid || !bool(gb.Paid) || !gb.RemainToPay.Equal(dec("0")) {
		t.Fatalf("paid in full: %+v", gb)
	}
	// More than remains is refused; so is paying a paid invoice.
	_, err = tg.c.PayInvoices(ctx, map[erp.ID]*erp.Decimal{a.ID: erp.Ptr(dec("100.01"))}, pay)
	if status(err) != 400 || !strings.Contains(err.Error(), "is higher than remain to pay (100)") {
		t.Fatalf("overpaying: %v", err)
	}
	if _, err := tg.c.AddInvoicePayment(ctx, b.ID, pay); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("paying a paid invoice: %v", err)
	}
	if _, err := tg.c.AddInvoicePayment(ctx, a.ID, &erp.PaymentRequest{}); err == nil {
		t.Fatal("a payment without a mode passed the client")
	}
	// The rest of a closes it.
	second, err := tg.c.AddInvoicePayment(ctx, a.ID, pay)
	if err != nil || second == first {
		t.Fatalf("paying the rest: %d %v", second, err)
	}
	ga, _ = tg.c.GetInvoice(ctx, a.ID)
	if ga.Status != erp.InvoicePaid || !bool(ga.Paid) || !ga.TotalPaid.Equal(dec("120")) {
		t.Fatalf("paid: %+v", ga)
	}
	payments, err := tg.c.ListInvoicePayments(ctx, a.ID)
	if err != nil || len(payments) != 2 {
		t.Fatalf("payments %+v %v", payments, err)
	}
	if p0, p1 := payments[0], payments[1]; !p0.Amount.Equal(dec("20")) || p0.Type != "CHQ" || !p0.Date.Equal(date) || p0.Ref == "" ||
		!p1.Amount.Equal(dec("100")) || p1.Type != "VIR" || p1.Num != "TR-1" || p1.Ref == p0.Ref {
		t.Fatalf("payments %+v %+v", p0, p1)
	}
	if got, _ := tg.c.ListInvoicePayments(ctx, b.ID); len(got) != 1 || got[0].Ref != payments[0].Ref || !got[0].Amount.Equal(dec("120")) {
		t.Fatalf("b's payments %+v", got)
	}
	// Without ClosePaid a fully paid invoice stays unpaid, as in the ERP.
	c := tg.draftInvoice(t, soc, p)
	tg.c.ValidateInvoice(ctx, c.ID, nil)
	if _, err := tg.c.AddInvoicePayment(ctx, c.ID, &erp.PaymentRequest{Mode: erp.PaymentCash}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Invoice(int64(c.ID)); got.Status != erp.InvoiceValidated || !got.RemainToPay.Equal(dec("0")) {
		t.Fatalf("paid without closing: %+v", got)
	}
	if _, err := tg.c.ListInvoicePayments(ctx, 987654); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("payments of a missing invoice: %v", err)
	}
}

func TestUpdateInvoice(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	inv := tg.draftInvoice(t, tg.customer(t), tg.product(t, "1", "0"))
	due := erp.At(time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC))
	got, err := tg.c.UpdateInvoice(ctx, inv.ID, &erp.UpdateInvoiceRequest{RefClient: erp.Ptr("REF-7"), NotePrivate: erp.Ptr("call first"), DueDate: &due})
	if err != nil || got.RefClient != "REF-7" || got.NotePrivate != "call first" || !got.DueDate.Equal(due) || len(got.Lines) != 1 {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := tg.c.UpdateInvoice(ctx, 987654321, &erp.UpdateInvoiceRequest{}); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
}

func TestContactsCRUD(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc, other := tg.customer(t), tg.customer(t)
	ct, err := tg.c.CreateContact(ctx, &erp.CreateContactRequest{ThirdpartyID: soc.ID, Lastname: "Doe", Firstname: "Jane", Email: "jane@example.com", Job: "Buyer"})
	if err != nil || ct.ID == 0 || ct.ThirdpartyID != soc.ID || ct.Lastname != "Doe" || ct.Job != "Buyer" || !bool(ct.Active) {
		t.Fatalf("create %+v %v", ct, err)
	}
	if _, err := tg.c.CreateContact(ctx, &erp.CreateContactRequest{ThirdpartyID: other.ID, Lastname: "Roe"}); err != nil {
		t.Fatal(err)
	}
	got, err := tg.c.GetContact(ctx, ct.ID)
	if err != nil || diff(ct, got) != "" {
		t.Fatalf("get differs from create: %s %v", diff(ct, got), err)
	}
	ct, err = tg.c.UpdateContact(ctx, ct.ID, &erp.UpdateContactRequest{PhonePro: erp.Ptr("+33 1 23 45 67 89"), Active: erp.Ptr(erp.Bool(false))})
	if err != nil || ct.PhonePro != "+33 1 23 45 67 89" || bool(ct.Active) || ct.Lastname != "Doe" {
		t.Fatalf("update %+v %v", ct, err)
	}
	var names []string
	for c, err := range tg.c.AllContacts(ctx, &erp.ListContactsOptions{ThirdpartyIDs: []erp.ID{soc.ID}}) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, c.Lastname)
	}
	if strings.Join(names, ",") != "Doe" {
		t.Fatalf("the third party's contacts: %v", names)
	}
	if err := tg.c.DeleteContact(ctx, ct.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetContact(ctx, ct.ID); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}
	if _, err := tg.c.CreateContact(ctx, &erp.CreateContactRequest{}); err == nil {
		t.Fatal("a contact without a last name passed the client")
	}
	// A third party's contacts go with it.
	if err := tg.c.DeleteThirdparty(ctx, other.ID); err != nil {
		t.Fatal(err)
	}
	page, err := tg.c.ListContacts(ctx, &erp.ListContactsOptions{ThirdpartyIDs: []erp.ID{other.ID}})
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("contacts of a deleted third party: %+v %v", page, err)
	}
}

func TestContactRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	if status, body := rawPost(t, srv, "/contacts", `{"firstname":"x"}`); status != 400 || !strings.Contains(body, "lastname field missing") {
		t.Fatalf("no lastname: %d %s", status, body)
	}
	_, err := tg.c.CreateContact(ctx, &erp.CreateContactRequest{ThirdpartyID: 9999, Lastname: "X"})
	var e *erp.Error
	if !errors.Is(err, erp.ErrServer) || !errors.As(err, &e) || e.Message != "Internal Server Error: Error creating contact" {
		t.Fatalf("unknown third party: %v", err)
	}
	if _, err := tg.c.UpdateContact(ctx, 9999, &erp.UpdateContactRequest{}); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("update of a missing contact: %v", err)
	}
	if n := len(srv.RequestsTo("POST /api/index.php/contacts")); n != 2 {
		t.Fatalf("%d creates sent", n)
	}
}

func TestSetInvoicePaidAndUnpaid(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc, p := tg.customer(t), tg.product(t, "50", "20")
	inv := tg.draftInvoice(t, soc, p)
	if _, err := tg.c.SetInvoicePaid(ctx, inv.ID, nil); !errors.Is(err, erp.ErrServer) {
		t.Fatalf("classifying a draft paid: %v", err)
	}
	if _, err := tg.c.ValidateInvoice(ctx, inv.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.SetInvoiceUnpaid(ctx, inv.ID); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("unpaying an unpaid invoice: %v", err)
	}
	got, err := tg.c.SetInvoicePaid(ctx, inv.ID, &erp.SetPaidOptions{CloseCode: erp.CloseBadCustomer, CloseNote: "went bust"})
	if err != nil || got.Status != erp.InvoicePaid || !bool(got.Paid) || got.CloseCode != erp.CloseBadCustomer || got.CloseNote != "went bust" ||
		!got.RemainToPay.Equal(dec("120")) {
		t.Fatalf("classified paid: %+v %v", got, err)
	}
	if _, err := tg.c.SetInvoicePaid(ctx, inv.ID, nil); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("paid twice: %v", err)
	}
	if _, err := tg.c.AddInvoicePayment(ctx, inv.ID, &erp.PaymentRequest{Mode: erp.PaymentCash}); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("paying a paid invoice: %v", err)
	}
	got, err = tg.c.SetInvoiceUnpaid(ctx, inv.ID)
	if err != nil || got.Status != erp.InvoiceValidated || bool(got.Paid) {
		t.Fatalf("unpaid again: %+v %v", got, err)
	}
	if _, err := tg.c.SetInvoicePaid(ctx, 987654321, nil); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("missing invoice: %v", err)
	}
}
