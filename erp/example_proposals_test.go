package erp_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/erp"
)

func ExampleClient_CreateProposal() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()

	// A draft quote: its lines change until it is validated.
	pr, err := c.CreateProposal(ctx, &erp.CreateProposalRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("3")}}})
	if err != nil {
		panic(err)
	}
	c.AddProposalLine(ctx, pr.ID, &erp.LineRequest{Description: "Delivery", Qty: erp.MustDecimal("1"), Subprice: erp.Ptr(erp.MustDecimal("5"))})
	pr, _ = c.ValidateProposal(ctx, pr.ID, nil)
	fmt.Println(pr.Ref, pr.Status, len(pr.Lines), pr.TotalHT.Round(2))
	_, err = c.AddProposalLine(ctx, pr.ID, &erp.LineRequest{ProductID: 1, Qty: erp.MustDecimal("1")})
	fmt.Println(errors.Is(err, erp.ErrBadRequest))
	// Output:
	// PR2611-0001 validated 2 35.00
	// true
}

func ExampleClient_CloseProposal() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	pr, _ := c.CreateProposal(ctx, &erp.CreateProposalRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("2")}}})
	c.ValidateProposal(ctx, pr.ID, nil)

	// The customer signs: the proposal is closed signed, then ordered.
	pr, err := c.CloseProposal(ctx, pr.ID, &erp.CloseProposalRequest{Status: erp.ProposalSigned, NotePrivate: "Signed on site"})
	if err != nil {
		panic(err)
	}
	fmt.Println(pr.Status, pr.NotePrivate)
	o, err := c.CreateOrderFromProposal(ctx, pr.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(o.Ref, o.Status, o.TotalTTC.Round(2))
	// Output:
	// signed Signed on site
	// (PROV1) draft 24.00
}
