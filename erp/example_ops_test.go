package erp_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// seedShop is a fake with a customer (1) and a product (1, 10.00 before
// 20% tax) for the examples.
func seedShop() (*erpfake.Server, *erp.Client) {
	srv := startFake()
	srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	srv.AddProduct(erpfake.ProductSeed{Ref: "WIDGET", Label: "Widget", Price: "10", VATRate: "20"})
	return srv, srv.Client()
}

func ExampleClient_AddInvoiceLine() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	inv, _ := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("1")}}})

	// Lines change while the invoice is a draft.
	lineID, err := c.AddInvoiceLine(ctx, inv.ID, &erp.LineRequest{Description: "Setup", Qty: erp.MustDecimal("1"), Subprice: erp.Ptr(erp.MustDecimal("50"))})
	if err != nil {
		panic(err)
	}
	inv, _ = c.GetInvoice(ctx, inv.ID)
	u := inv.Lines[0].Update() // the line as it is, to change one value
	u.Qty = erp.MustDecimal("3")
	inv, _ = c.UpdateInvoiceLine(ctx, inv.ID, inv.Lines[0].ID, u)
	inv, _ = c.DeleteInvoiceLine(ctx, inv.ID, lineID)
	fmt.Println(len(inv.Lines), inv.TotalHT.Round(2), inv.TotalTTC.Round(2))
	lines, _ := c.ListInvoiceLines(ctx, inv.ID)
	fmt.Println(lines[0].ProductRef, lines[0].Qty.Round(0))

	// Once validated, they cannot.
	c.ValidateInvoice(ctx, inv.ID, nil)
	_, err = c.AddInvoiceLine(ctx, inv.ID, &erp.LineRequest{ProductID: 1, Qty: erp.MustDecimal("1")})
	fmt.Println(errors.Is(err, erp.ErrBadRequest))
	// Output:
	// 1 30.00 36.00
	// WIDGET 3
	// true
}

func ExampleClient_AddInvoicePayment() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	inv, _ := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("10")}}})
	inv, _ = c.ValidateInvoice(ctx, inv.ID, nil)

	// 20.00 now, by cheque; then the rest, by transfer, which pays it.
	pay := &erp.PaymentRequest{Mode: erp.PaymentCheque, ClosePaid: true}
	if _, err := c.PayInvoices(ctx, map[erp.ID]*erp.Decimal{inv.ID: erp.Ptr(erp.MustDecimal("20"))}, pay); err != nil {
		panic(err)
	}
	inv, _ = c.GetInvoice(ctx, inv.ID)
	fmt.Println(inv.Status, inv.TotalPaid.Round(2), inv.RemainToPay.Round(2))
	if _, err := c.AddInvoicePayment(ctx, inv.ID, &erp.PaymentRequest{Mode: erp.PaymentTransfer, ClosePaid: true}); err != nil {
		panic(err)
	}
	inv, _ = c.GetInvoice(ctx, inv.ID)
	fmt.Println(inv.Status, inv.TotalPaid.Round(2), inv.RemainToPay.Round(2))
	payments, _ := c.ListInvoicePayments(ctx, inv.ID)
	for _, p := range payments {
		fmt.Println(p.Ref, p.Type, p.Amount.Round(2))
	}
	// Output:
	// validated 20.00 100.00
	// paid 120.00 0.00
	// PAY2611-0001 CHQ 20.00
	// PAY2611-0002 VIR 100.00
}

func ExampleClient_CreateInvoiceFromOrder() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	o, _ := c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: 1, RefClient: "PO-42", Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("2")}}})
	o, _ = c.ValidateOrder(ctx, o.ID, nil)
	o, _ = c.CloseOrder(ctx, o.ID, nil)
	fmt.Println(o.Ref, o.Status)
	o, _ = c.ReopenOrder(ctx, o.ID)
	fmt.Println(o.Ref, o.Status)

	inv, err := c.CreateInvoiceFromOrder(ctx, o.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println(inv.Ref, inv.Status, inv.RefClient, inv.TotalTTC.Round(2))
	// Output:
	// CO2611-0001 closed
	// CO2611-0001 validated
	// (PROV1) draft PO-42 24.00
}

func ExampleClient_DeleteInvoice() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	lines := []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("1")}}
	draft, _ := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: lines})
	fmt.Println(c.DeleteInvoice(ctx, draft.ID))

	valid, _ := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: lines})
	c.ValidateInvoice(ctx, valid.ID, nil)
	fmt.Println(c.DeleteInvoice(ctx, valid.ID))
	// The product and the customer are in use now.
	fmt.Println(c.DeleteProduct(ctx, 1))
	fmt.Println(c.DeleteThirdparty(ctx, 1))
	// Output:
	// <nil>
	// erp: DELETE /api/index.php/invoices/2: 403 Forbidden: Invoice not erasable
	// erp: DELETE /api/index.php/products/1: 409 Conflict: Can't delete, that product is probably used
	// erp: DELETE /api/index.php/thirdparties/1: 409 Conflict: Can't delete, that product is probably used
}

func ExampleClient_CreateContact() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	ct, err := c.CreateContact(ctx, &erp.CreateContactRequest{ThirdpartyID: 1, Firstname: "Jane", Lastname: "Doe", Job: "Buyer"})
	if err != nil {
		panic(err)
	}
	ct, _ = c.UpdateContact(ctx, ct.ID, &erp.UpdateContactRequest{Email: erp.Ptr("jane@acme.example")})
	for ct, err := range c.AllContacts(ctx, &erp.ListContactsOptions{ThirdpartyIDs: []erp.ID{1}}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ct.Firstname, ct.Lastname, ct.Job, ct.Email)
	}
	fmt.Println(c.DeleteContact(ctx, ct.ID))
	_, err = c.GetContact(ctx, ct.ID)
	fmt.Println(errors.Is(err, erp.ErrNotFound))
	// Output:
	// Jane Doe Buyer jane@acme.example
	// <nil>
	// true
}

func ExampleClient_UpdateOrder() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	o, _ := c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("1")}}})
	lineID, _ := c.AddOrderLine(ctx, o.ID, &erp.LineRequest{ProductID: 1, Qty: erp.MustDecimal("4")})
	o, _ = c.UpdateOrderLine(ctx, o.ID, lineID, &erp.UpdateLineRequest{Qty: erp.MustDecimal("2"), Subprice: erp.MustDecimal("9"), VATRate: erp.MustDecimal("20")})
	o, _ = c.DeleteOrderLine(ctx, o.ID, o.Lines[0].ID)
	o, _ = c.UpdateOrder(ctx, o.ID, &erp.UpdateOrderRequest{RefClient: erp.Ptr("PO-7")})
	fmt.Println(o.RefClient, len(o.Lines), o.TotalHT.Round(2))
	fmt.Println(c.DeleteOrder(ctx, o.ID))
	// Output:
	// PO-7 1 18.00
	// <nil>
}

func ExampleClient_UpdateInvoice() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	inv, _ := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1})
	inv, err := c.UpdateInvoice(ctx, inv.ID, &erp.UpdateInvoiceRequest{RefClient: erp.Ptr("PO-9"), NotePublic: erp.Ptr("Thank you")})
	if err != nil {
		panic(err)
	}
	fmt.Println(inv.Ref, inv.RefClient, inv.NotePublic)
	// Output: (PROV1) PO-9 Thank you
}

func ExampleWithBearerAPIKey() {
	srv := startFake()
	defer srv.Close()
	c, err := erp.New(srv.URL(), erp.WithBearerAPIKey(srv.APIKey()))
	if err != nil {
		panic(err)
	}
	me, err := c.GetUser(context.Background(), 1)
	if err != nil {
		panic(err)
	}
	// The fake's request log shows how the key was sent, never the key.
	r := srv.Requests()[0]
	fmt.Println(me.Login, r.Header.Get("Authorization"), r.Caller)
	// Output: admin Bearer [REDACTED] admin
}

func ExampleClient_SetInvoicePaid() {
	srv, c := seedShop()
	defer srv.Close()
	ctx := context.Background()
	inv, _ := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("1")}}})
	inv, _ = c.ValidateInvoice(ctx, inv.ID, nil)
	// The customer paid 11.50 of 12.00; the rest went in bank charges.
	c.PayInvoices(ctx, map[erp.ID]*erp.Decimal{inv.ID: erp.Ptr(erp.MustDecimal("11.50"))}, &erp.PaymentRequest{Mode: erp.PaymentTransfer})
	inv, err := c.SetInvoicePaid(ctx, inv.ID, &erp.SetPaidOptions{CloseCode: erp.CloseBankCharge})
	if err != nil {
		panic(err)
	}
	fmt.Println(inv.Status, inv.TotalPaid.Round(2), inv.RemainToPay.Round(2), inv.CloseCode)
	inv, _ = c.SetInvoiceUnpaid(ctx, inv.ID)
	fmt.Println(inv.Status)
	// Output:
	// paid 11.50 0.50 bankcharge
	// validated
}
