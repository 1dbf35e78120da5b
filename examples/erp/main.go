// Command erp runs a short, realistic story through the erp client (a
// customer, two products, an invoice validated and listed with a sqlfilters
// filter, an order validated and closed, the typed errors) and prints each
// step.
//
// With no setup it starts the embedded ERP fake on a loopback port. Set
// ERP_URL (the ERP's root URL) and ERP_API_KEY (a user's API key, from the
// user's card once the REST API module is on) to run the same story against
// a real ERP instead; it creates a third party, two products, an invoice and
// an order there. Set ERP_LOGIN and ERP_PASSWORD as well to try the
// session-login alternative too.
//
//	go run ./examples/erp
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "erp example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	c, fake, err := erpClient()
	if err != nil {
		return err
	}
	login, password := os.Getenv("ERP_LOGIN"), os.Getenv("ERP_PASSWORD")
	if fake != nil {
		defer fake.Close()
		fmt.Printf("erp: embedded fake at %s\n", fake.URL())
		login, password = erpfake.AdminLogin, fake.AdminPassword()
	} else {
		fmt.Printf("erp: real ERP at %s\n", c.BaseURL())
	}
	fmt.Printf("client with an API key: %v (the key is never printed)\n", c)

	// The alternative: a web session, as a browser would log in. The client
	// logs in again by itself when the session ends.
	if login != "" && password != "" {
		sc, err := erp.New(c.BaseURL(), erp.WithLogin(login, password))
		if err != nil {
			return err
		}
		if err := sc.Login(ctx); err != nil {
			return err
		}
		fmt.Printf("session login as %s works too\n", login)
	} else {
		fmt.Println("session login skipped (set ERP_LOGIN and ERP_PASSWORD)")
	}

	suffix := time.Now().Format("150405")
	acme, err := c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{
		Name: "Acme Corp " + suffix, Client: erp.Customer, Email: "billing@acme.example", Town: "Lyon", CountryCode: "FR",
	})
	if err != nil {
		return err
	}
	fmt.Printf("created customer %q (id %s, code %s)\n", acme.Name, acme.ID, acme.CustomerCode)

	vat := erp.Ptr(erp.MustDecimal("20"))
	widget, err := c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "WIDGET-" + suffix, Label: "Widget", Price: erp.MustDecimal("19.99"), VATRate: vat})
	if err != nil {
		return err
	}
	support, err := c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "SUPPORT-" + suffix, Label: "Support hour", Price: erp.MustDecimal("85"),
		VATRate: vat, Type: erp.TypeService})
	if err != nil {
		return err
	}
	fmt.Printf("created products %s (%s) and %s (%s, a %s)\n", widget.Ref, widget.Price.Round(2), support.Ref, support.Price.Round(2), support.Type)

	_, err = c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: widget.Ref, Label: "Widget again"})
	fmt.Printf("creating %s twice: errors.Is(err, erp.ErrAlreadyExists) = %t\n", widget.Ref, errors.Is(err, erp.ErrAlreadyExists))

	inv, err := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: acme.ID, RefClient: "PO-7731", Lines: []erp.LineRequest{
		{ProductID: widget.ID, Qty: erp.MustDecimal("3")},
		{ProductID: support.ID, Qty: erp.MustDecimal("2"), Discount: erp.Ptr(erp.MustDecimal("10"))},
	}})
	if err != nil {
		return err
	}
	fmt.Printf("created invoice %s (%s, %d lines)\n", inv.Ref, inv.Status, len(inv.Lines))
	inv, err = c.ValidateInvoice(ctx, inv.ID, nil)
	if err != nil {
		return err
	}
	fmt.Printf("validated invoice %s: %s + %s VAT = %s\n", inv.Ref, inv.TotalHT.Round(2), inv.TotalTVA.Round(2), inv.TotalTTC.Round(2))
	_, err = c.ValidateInvoice(ctx, inv.ID, nil)
	fmt.Printf("validating it again: errors.Is(err, erp.ErrNothingDone) = %t\n", errors.Is(err, erp.ErrNothingDone))

	draft, err := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: acme.ID, Lines: []erp.LineRequest{{ProductID: widget.ID, Qty: erp.MustDecimal("1")}}})
	if err != nil {
		return err
	}
	fmt.Printf("created a second invoice %s, left as a draft\n", draft.Ref)

	filter := erp.And(erp.Field("t.fk_soc").Eq(acme.ID), erp.Field("t.total_ttc").Ge(erp.MustDecimal("100")))
	fmt.Printf("unpaid invoices where %s:\n", filter)
	for inv, err := range c.AllInvoices(ctx, &erp.ListInvoicesOptions{Status: erp.InvoicesUnpaid, ListOptions: erp.ListOptions{Filter: filter}}) {
		if err != nil {
			return err
		}
		fmt.Printf("  %s %s due %s: %s\n", inv.Ref, inv.Status, inv.DueDate.Format(time.DateOnly), inv.TotalTTC.Round(2))
	}

	order, err := c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: acme.ID, Lines: []erp.LineRequest{{ProductID: widget.ID, Qty: erp.MustDecimal("10")}}})
	if err != nil {
		return err
	}
	_, err = c.CloseOrder(ctx, order.ID, nil)
	fmt.Printf("closing draft order %s: errors.Is(err, erp.ErrBadRequest) = %t\n", order.Ref, errors.Is(err, erp.ErrBadRequest))
	if order, err = c.ValidateOrder(ctx, order.ID, nil); err != nil {
		return err
	}
	if order, err = c.CloseOrder(ctx, order.ID, nil); err != nil {
		return err
	}
	fmt.Printf("order %s validated and closed: %s, %s\n", order.Ref, order.Status, order.TotalTTC.Round(2))

	_, err = c.GetInvoice(ctx, 999999999)
	var e *erp.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("want an *erp.Error for a missing invoice, got %v", err)
	}
	fmt.Printf("invoice 999999999: errors.Is(err, erp.ErrNotFound) = %t, status %d, %q\n", errors.Is(err, erp.ErrNotFound), e.StatusCode, e.Message)
	fmt.Println("done")
	return nil
}

// erpClient connects to the real ERP named in the environment, or starts
// the embedded fake.
func erpClient() (*erp.Client, *erpfake.Server, error) {
	if url, key := os.Getenv("ERP_URL"), os.Getenv("ERP_API_KEY"); url != "" && key != "" {
		c, err := erp.New(url, erp.WithAPIKey(key))
		return c, nil, err
	}
	fake, err := erpfake.New()
	if err != nil {
		return nil, nil, err
	}
	if _, err := fake.Listen("127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	return fake.Client(), fake, nil
}
