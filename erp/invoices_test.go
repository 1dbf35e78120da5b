package erp_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func TestInvoiceLifecycle(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc := tg.customer(t)
	widget := tg.product(t, "19.99", "20")
	service := tg.product(t, "100", "10")
	date := erp.At(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC))
	inv, err := tg.c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{
		SocID: soc.ID, Type: erp.InvoiceStandard, Date: &date, RefClient: "PO-77",
		Lines: []erp.LineRequest{
			{ProductID: widget.ID, Qty: dec("3")},                                                                // 59.97 + 11.99 tax
			{ProductID: service.ID, Qty: dec("1.5"), Discount: erp.Ptr(dec("10"))},                               // 135.00 + 13.50
			{Description: "Shipping", Qty: dec("1"), Subprice: erp.Ptr(dec("7.5")), VATRate: erp.Ptr(dec("20"))}, // 7.50 + 1.50
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if inv.Status != erp.InvoiceDraft || !regexp.MustCompile(`^\(PROV\d+\)$`).MatchString(inv.Ref) || inv.SocID != soc.ID || inv.RefClient != "PO-77" {
		t.Fatalf("draft %+v", inv)
	}
	type totals struct{ HT, TVA, TTC erp.Decimal }
	if d := diff(totals{dec("202.47"), dec("26.99"), dec("229.46")}, totals{inv.TotalHT, inv.TotalTVA, inv.TotalTTC}); d != "" {
		t.Fatalf("totals (-want +got):\n%s", d)
	}
	if len(inv.Lines) != 3 || inv.Lines[0].ProductID != widget.ID || !inv.Lines[0].Subprice.Equal(dec("19.99")) ||
		!inv.Lines[1].TotalHT.Equal(dec("135")) || inv.Lines[2].Description != "Shipping" || inv.Lines[2].ProductID != 0 {
		t.Fatalf("lines %+v", inv.Lines)
	}
	if !inv.Date.Equal(date) {
		t.Fatalf("date %v, want %v", inv.Date, date)
	}

	valid, err := tg.c.ValidateInvoice(ctx, inv.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if valid.Status != erp.InvoiceValidated || !regexp.MustCompile(`^FA2611-\d{4}$`).MatchString(valid.Ref) || valid.DateValidation.IsZero() || bool(valid.Paid) {
		t.Fatalf("validated %+v", valid)
	}
	// Validating again is "nothing done", its own error.
	_, err = tg.c.ValidateInvoice(ctx, inv.ID, nil)
	var e *erp.Error
	if !errors.Is(err, erp.ErrNothingDone) || !errors.As(err, &e) || e.StatusCode != 304 || errors.Is(err, erp.ErrServer) {
		t.Fatalf("second validation: %v", err)
	}
	again, err := tg.c.GetInvoice(ctx, inv.ID)
	if err != nil || again.Ref != valid.Ref || again.Status != erp.InvoiceValidated {
		t.Fatalf("after the second validation %+v %v", again, err)
	}
	if _, err := tg.c.ValidateInvoice(ctx, 987654321, nil); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("validate missing: %v", err)
	}
}

func TestInvoiceRefsFollowDateAndCounter(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, control.WithClock(clock.NewFake(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))))
	c := srv.Client()
	soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	line := []erp.LineRequest{{Description: "x", Qty: dec("1"), Subprice: erp.Ptr(dec("1"))}}
	var refs []string
	for _, tc := range []struct {
		date *erp.Time
		typ  erp.InvoiceType
	}{
		{nil, erp.InvoiceStandard},
		{erp.Ptr(erp.At(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))), erp.InvoiceStandard},
		{nil, erp.InvoiceCreditNote},
		{nil, erp.InvoiceDeposit},
	} {
		inv, err := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: erp.ID(soc), Type: tc.typ, Date: tc.date, Lines: line})
		if err != nil {
			t.Fatal(err)
		}
		if inv, err = c.ValidateInvoice(ctx, inv.ID, nil); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, inv.Ref)
	}
	if got, want := strings.Join(refs, " "), "FA2611-0001 FA2612-0002 AV2611-0001 AC2611-0001"; got != want {
		t.Fatalf("refs %s, want %s", got, want)
	}
}

func TestInvoiceRules(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	soc := tg.customer(t)
	for _, tc := range []struct {
		name string
		req  *erp.CreateInvoiceRequest
		msg  string
	}{
		{"unknown third party", &erp.CreateInvoiceRequest{SocID: 9999}, "socid 9999 does not name a thirdparty"},
		{"unknown product", &erp.CreateInvoiceRequest{SocID: soc.ID, Lines: []erp.LineRequest{{ProductID: 9999, Qty: dec("1")}}}, "fk_product 9999 does not name a product"},
		{"free line without price", &erp.CreateInvoiceRequest{SocID: soc.ID, Lines: []erp.LineRequest{{Description: "x", Qty: dec("1")}}}, "subprice field missing"},
		{"bad type", &erp.CreateInvoiceRequest{SocID: soc.ID, Type: 9}, "type must be 0"},
		{"discount over 100", &erp.CreateInvoiceRequest{SocID: soc.ID, Lines: []erp.LineRequest{{Description: "x", Qty: dec("1"), Subprice: erp.Ptr(dec("1")), Discount: erp.Ptr(dec("101"))}}}, "remise_percent must be between 0 and 100"},
		// The ERP's columns: DECIMAL(24,8) amounts, INT ids.
		{"qty past DECIMAL(24,8)", &erp.CreateInvoiceRequest{SocID: soc.ID, Lines: []erp.LineRequest{{Description: "x", Qty: dec("12345678901234567"), Subprice: erp.Ptr(dec("1"))}}},
			"lines[0]: qty 12345678901234567 has more digits than the ERP keeps"},
		{"price past 8 decimals", &erp.CreateInvoiceRequest{SocID: soc.ID, Lines: []erp.LineRequest{{Description: "x", Qty: dec("1"), Subprice: erp.Ptr(dec("0.000000001"))}}},
			"lines[0]: subprice 0.000000001 has more digits"},
		{"socid past INT", &erp.CreateInvoiceRequest{SocID: 2147483648}, "socid 2147483648 is out of range"},
	} {
		_, err := tg.c.CreateInvoice(ctx, tc.req)
		var e *erp.Error
		if !errors.Is(err, erp.ErrBadRequest) || !errors.As(err, &e) || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := tg.c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{}); err == nil {
		t.Fatal("an invoice without socid passed the client")
	}
	if status, body := rawPost(t, srv, "/invoices", `{"type":0}`); status != 400 || !strings.Contains(body, "socid field missing") {
		t.Fatalf("no socid: %d %s", status, body)
	}
	if n := len(srv.Invoices()); n != 0 {
		t.Fatalf("%d invoices created by refused requests", n)
	}
	// An invoice without lines is refused at validation, as the ERP does.
	empty, err := tg.c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: soc.ID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tg.c.ValidateInvoice(ctx, empty.ID, nil)
	var e *erp.Error
	if !errors.Is(err, erp.ErrServer) || !errors.As(err, &e) || !strings.Contains(e.Message, "must have lines to be validated") {
		t.Fatalf("validating an empty invoice: %v", err)
	}
}

func TestInvoiceListFilters(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	a, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "A", Client: 1})
	b, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "B", Client: 1})
	line := func(price string) []erpfake.LineSeed { return []erpfake.LineSeed{{Qty: "1", Subprice: price}} }
	for _, seed := range []erpfake.InvoiceSeed{
		{SocID: a, Lines: line("10")},
		{SocID: a, Lines: line("250"), Validated: true},
		{SocID: b, Lines: line("99.99"), Validated: true},
		{SocID: b, Lines: line("1000"), Paid: true},
	} {
		if _, err := srv.AddInvoice(seed); err != nil {
			t.Fatal(err)
		}
	}
	c := srv.Client()
	ids := func(opts *erp.ListInvoicesOptions) string {
		t.Helper()
		var out []string
		for inv, err := range c.AllInvoices(ctx, opts) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, inv.ID.String())
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name string
		opts *erp.ListInvoicesOptions
		want string
	}{
		{"all", nil, "1,2,3,4"},
		{"drafts", &erp.ListInvoicesOptions{Status: erp.InvoicesDraft}, "1"},
		{"unpaid", &erp.ListInvoicesOptions{Status: erp.InvoicesUnpaid}, "2,3"},
		{"paid", &erp.ListInvoicesOptions{Status: erp.InvoicesPaid}, "4"},
		{"of B", &erp.ListInvoicesOptions{ThirdpartyIDs: []erp.ID{erp.ID(b)}}, "3,4"},
		{"total at least 100", &erp.ListInvoicesOptions{ListOptions: erp.ListOptions{Filter: erp.Field("t.total_ttc").Ge(dec("100"))}}, "2,4"},
		{"final refs, largest first", &erp.ListInvoicesOptions{ListOptions: erp.ListOptions{
			Filter: erp.Field("t.ref").Like("FA%"), SortField: "t.total_ht", SortOrder: erp.Desc}}, "4,2,3"},
		{"or", &erp.ListInvoicesOptions{ListOptions: erp.ListOptions{Filter: erp.Or(
			erp.Field("t.fk_statut").Eq(0), erp.Field("t.total_ht").Lt(100))}}, "1,3"},
		{"in", &erp.ListInvoicesOptions{ListOptions: erp.ListOptions{Filter: erp.Field("t.rowid").In(1, 4, 7)}}, "1,4"},
	} {
		if got := ids(tc.opts); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// Paid invoices are validated and paid.
	if inv := srv.Invoice(4); inv.Status != erp.InvoicePaid || !bool(inv.Paid) {
		t.Fatalf("paid invoice %+v", inv)
	}
}
