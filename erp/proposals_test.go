package erp_test

import (
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
)

// A proposal's life: a draft whose lines change, validated with its final
// ref, closed signed, made into an order.
func TestProposalLifecycle(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc := tg.customer(t)
	p := tg.product(t, "40", "20")
	pr, err := tg.c.CreateProposal(ctx, &erp.CreateProposalRequest{SocID: soc.ID, RefClient: "RFQ-7",
		Lines: []erp.LineRequest{{ProductID: p.ID, Qty: dec("2")}}})
	if err != nil {
		t.Fatal(err)
	}
	if pr.Status != erp.ProposalDraft || !strings.HasPrefix(pr.Ref, "(PROV") || !pr.TotalHT.Equal(dec("80")) || !pr.TotalTTC.Equal(dec("96")) {
		t.Fatalf("draft %+v", pr)
	}
	if valid := pr.EndValidity.Sub(pr.Date.Time); valid != 15*24*time.Hour {
		t.Errorf("valid for %v after %v, want 15 days", valid, pr.Date)
	}

	// Lines change while it is a draft; the totals follow.
	lineID, err := tg.c.AddProposalLine(ctx, pr.ID, &erp.LineRequest{Description: "Setup", Qty: dec("1"), Subprice: erp.Ptr(dec("10")), VATRate: erp.Ptr(dec("0"))})
	if err != nil || lineID <= 0 {
		t.Fatalf("add line: %v %v", lineID, err)
	}
	u := &erp.UpdateLineRequest{Qty: dec("3"), Subprice: dec("10"), Description: "Setup"}
	pr, err = tg.c.UpdateProposalLine(ctx, pr.ID, lineID, u)
	if err != nil || len(pr.Lines) != 2 || !pr.TotalHT.Equal(dec("110")) || !pr.TotalTTC.Equal(dec("126")) {
		t.Fatalf("updated line: %+v %v", pr, err)
	}
	pr, err = tg.c.DeleteProposalLine(ctx, pr.ID, lineID)
	if err != nil || len(pr.Lines) != 1 || !pr.TotalHT.Equal(dec("80")) {
		t.Fatalf("deleted line: %+v %v", pr, err)
	}
	lines, err := tg.c.ListProposalLines(ctx, pr.ID)
	if err != nil || len(lines) != 1 || lines[0].ProductID != p.ID || !lines[0].Qty.Equal(dec("2")) {
		t.Fatalf("lines %+v %v", lines, err)
	}
	page, err := tg.c.ListProposals(ctx, &erp.ListProposalsOptions{ThirdpartyIDs: []erp.ID{soc.ID}})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != pr.ID || page.Items[0].RefClient != "RFQ-7" {
		t.Fatalf("list %+v %v", page, err)
	}

	if tg.fake != nil {
		// The fake refuses to close a draft (the ERP's pages offer closing
		// a validated proposal only).
		if _, err := tg.c.CloseProposal(ctx, pr.ID, &erp.CloseProposalRequest{Status: erp.ProposalSigned}); !errors.Is(err, erp.ErrBadRequest) {
			t.Fatalf("closing a draft: %v", err)
		}
	}
	v, err := tg.c.ValidateProposal(ctx, pr.ID, &erp.ValidateOptions{NoTrigger: true})
	if err != nil || v.Status != erp.ProposalValidated || !regexp.MustCompile(`^PR\d{4}-\d{4}$`).MatchString(v.Ref) || v.DateValidation.IsZero() {
		t.Fatalf("validated %+v %v", v, err)
	}
	if _, err := tg.c.ValidateProposal(ctx, pr.ID, nil); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("second validation: %v", err)
	}
	// Its lines no longer change.
	if _, err := tg.c.AddProposalLine(ctx, pr.ID, &erp.LineRequest{ProductID: p.ID, Qty: dec("1")}); !errors.Is(err, erp.ErrBadRequest) {
		t.Fatalf("line added to a validated proposal: %v", err)
	}
	var e *erp.Error
	if _, err := tg.c.DeleteProposalLine(ctx, pr.ID, v.Lines[0].ID); !errors.As(err, &e) || e.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("line deleted from a validated proposal: %v", err)
	}
	if tg.fake != nil {
		// The ERP answers 200 false, the fake 304.
		if _, err := tg.c.UpdateProposalLine(ctx, pr.ID, v.Lines[0].ID, v.Lines[0].Update()); !errors.Is(err, erp.ErrNothingDone) {
			t.Fatalf("line changed in a validated proposal: %v", err)
		}
	}

	signed, err := tg.c.CloseProposal(ctx, pr.ID, &erp.CloseProposalRequest{Status: erp.ProposalSigned, NotePrivate: "signed by phone"})
	if err != nil || signed.Status != erp.ProposalSigned || signed.Ref != v.Ref || signed.DateSignature.IsZero() ||
		!strings.Contains(signed.NotePrivate, "signed by phone") || signed.Status.String() != "signed" {
		t.Fatalf("signed %+v %v", signed, err)
	}
	if _, err := tg.c.CloseProposal(ctx, pr.ID, &erp.CloseProposalRequest{Status: erp.ProposalNotSigned}); !errors.Is(err, erp.ErrNothingDone) {
		t.Fatalf("second close: %v", err)
	}

	o, err := tg.c.CreateOrderFromProposal(ctx, pr.ID)
	if err != nil || o.Status != erp.OrderDraft || o.SocID != soc.ID || o.RefClient != "RFQ-7" || len(o.Lines) != 1 ||
		!o.TotalTTC.Equal(dec("96")) || o.Lines[0].ProductID != p.ID {
		t.Fatalf("order %+v %v", o, err)
	}
	if got, err := tg.c.GetOrder(ctx, o.ID); err != nil || got.ID != o.ID {
		t.Fatalf("the order made: %+v %v", got, err)
	}
}

func TestProposalRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc := tg.customer(t)
	pr, err := tg.c.CreateProposal(ctx, &erp.CreateProposalRequest{SocID: soc.ID,
		Lines: []erp.LineRequest{{Description: "Audit", Qty: dec("1"), Subprice: erp.Ptr(dec("500"))}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.ValidateProposal(ctx, pr.ID, nil); err != nil {
		t.Fatal(err)
	}
	refused, err := tg.c.CloseProposal(ctx, pr.ID, &erp.CloseProposalRequest{Status: erp.ProposalNotSigned, NoTrigger: true})
	if err != nil || refused.Status != erp.ProposalNotSigned || !refused.DateSignature.IsZero() || refused.DateClosing.IsZero() {
		t.Fatalf("not signed %+v %v", refused, err)
	}
	// A status other than signed or not signed never leaves the client.
	for _, req := range []*erp.CloseProposalRequest{nil, {Status: erp.ProposalBilled}, {Status: erp.ProposalDraft}} {
		if _, err := tg.c.CloseProposal(ctx, pr.ID, req); err == nil || errors.Is(err, erp.ErrBadRequest) {
			t.Errorf("close %+v: %v, want the client's own error", req, err)
		}
	}
	const missing = 987654321
	if _, err := tg.c.GetProposal(ctx, missing); !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("get a missing proposal: %v", err)
	}
	if _, err := tg.c.ValidateProposal(ctx, missing, nil); !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("validate a missing proposal: %v", err)
	}
	if _, err := tg.c.CloseProposal(ctx, missing, &erp.CloseProposalRequest{Status: erp.ProposalSigned}); !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("close a missing proposal: %v", err)
	}
	if _, err := tg.c.AddProposalLine(ctx, missing, &erp.LineRequest{Qty: dec("1"), Subprice: erp.Ptr(dec("1"))}); !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("line of a missing proposal: %v", err)
	}
	if _, err := tg.c.CreateOrderFromProposal(ctx, missing); !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("order from a missing proposal: %v", err)
	}
	if _, err := tg.c.CreateOrderFromProposal(ctx, 0); !errors.Is(err, erp.ErrBadRequest) {
		t.Errorf("order from proposal 0: %v", err)
	}
	if _, err := tg.c.CreateProposal(ctx, &erp.CreateProposalRequest{SocID: missing}); !errors.Is(err, erp.ErrBadRequest) {
		t.Errorf("unknown socid: %v", err)
	}
	if _, err := tg.c.CreateProposal(ctx, nil); err == nil {
		t.Error("nil request accepted")
	}
}

// The close body as the ERP's Restler layer checks it: status is required
// and is 2 or 3.
func TestProposalCloseBody(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc := tg.customer(t)
	pr, err := tg.c.CreateProposal(ctx, &erp.CreateProposalRequest{SocID: soc.ID,
		Lines: []erp.LineRequest{{Description: "Audit", Qty: dec("1"), Subprice: erp.Ptr(dec("500"))}}})
	if err != nil {
		t.Fatal(err)
	}
	tg.c.ValidateProposal(ctx, pr.ID, nil)
	path := "/proposals/" + pr.ID.String() + "/close"
	for _, body := range []map[string]any{{}, {"status": 5}, {"status": 1}, {"status": "x"}} {
		err := tg.c.Do(ctx, http.MethodPost, path, nil, body, nil)
		if !errors.Is(err, erp.ErrBadRequest) {
			t.Errorf("close with %v: %v", body, err)
		}
	}
	if got, _ := tg.c.GetProposal(ctx, pr.ID); got == nil || got.Status != erp.ProposalValidated {
		t.Fatalf("after refused closes: %+v", got)
	}
}
