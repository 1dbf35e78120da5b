package erpfake_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// startExampleFake serves a fake on loopback for an example, on a clock set to
// 20 November 2026; a test would use erpfake.Start(t).
func startExampleFake() *erpfake.Server {
	srv, err := erpfake.New(control.WithClock(clock.NewFake(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	return srv
}

// Seed what the code under test expects to find, run it through a client,
// and read the fake's state back to check what it did.
func Example() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()

	acme, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	widget, _ := srv.AddProduct(erpfake.ProductSeed{Ref: "WIDGET", Label: "Widget", Price: "12.50", VATRate: "20"})
	draft, err := srv.AddInvoice(erpfake.InvoiceSeed{SocID: acme, Lines: []erpfake.LineSeed{{ProductID: widget, Qty: "4"}}})
	if err != nil {
		panic(err)
	}

	// The code under test: validate the customer's draft invoice.
	c := srv.Client() // admin's API key, on the fake's clock
	if _, err := c.ValidateInvoice(ctx, erp.ID(draft), nil); err != nil {
		panic(err)
	}

	inv := srv.Invoice(draft)
	fmt.Println(inv.Ref, inv.Status, inv.TotalHT.Round(2), inv.TotalTTC.Round(2))
	fmt.Println("invoices:", len(srv.Invoices()), "products:", len(srv.Products()))
	fmt.Println("validations:", len(srv.RequestsTo("POST /api/index.php/invoices/{id}/validate")))
	// Output:
	// FA2611-0001 validated 50.00 60.00
	// invoices: 1 products: 1
	// validations: 1
}

// An injected fault makes the next requests to a route fail, to test how the
// code under test copes. A 500 in the ERP's error shape is the ERP's own
// refusal and comes back to the caller; a proxy's 503 page on a GET is
// retried, on the fake's clock, until it gets through.
func ExampleServer_InjectFault() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()

	srv.InjectFault("POST /api/index.php/products", control.Fault{Status: http.StatusInternalServerError, Times: 1})
	_, err := c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "WIDGET", Label: "Widget", Price: erp.MustDecimal("12.50")})
	var e *erp.Error
	fmt.Println(err)
	fmt.Println(errors.As(err, &e), e.StatusCode)
	fmt.Println("products:", len(srv.Products()))

	srv.AddProduct(erpfake.ProductSeed{Ref: "GADGET", Label: "Gadget", Price: "99"})
	srv.InjectFault("GET /api/index.php/products", control.Fault{
		Status: http.StatusServiceUnavailable, Times: 2,
		Header: http.Header{"Content-Type": {"text/html"}}, Body: "<h1>Service Unavailable</h1>",
	})
	page, err := c.ListProducts(ctx, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("products:", len(page.Items), page.Items[0].Ref)
	for _, r := range srv.RequestsTo("GET /api/index.php/products") {
		fmt.Println(r.Status, r.Fault)
	}
	// Output:
	// erp: POST /api/index.php/products: 500 Internal Server Error
	// true 500
	// products: 0
	// products: 1 GADGET
	// 503 true
	// 503 true
	// 200 false
}

// A Seed holds every kind of record the fake keeps: the same shape as the
// ERP part of apitwin-fake's --seed file. Invoices and orders name their
// third party by name and their products by ref.
func ExampleServer_Load() {
	srv, err := erpfake.New(control.WithClock(clock.NewFake(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))))
	if err != nil {
		log.Fatal(err)
	}
	err = srv.Load(erpfake.Seed{
		Thirdparties: []erpfake.ThirdpartySeed{{Name: "Acme", Customer: true}},
		Products:     []erpfake.ProductSeed{{Ref: "WIDGET", Label: "Widget", Price: "12.50", VATRate: "20"}},
		Invoices: []erpfake.InvoiceSeed{{Thirdparty: "Acme", Validated: true, Lines: []erpfake.LineSeed{
			{Product: "WIDGET", Qty: "4"},
			{Description: "Freight", Qty: "1", Subprice: "7.50"},
		}}},
		Orders: []erpfake.OrderSeed{{Thirdparty: "Acme", Lines: []erpfake.LineSeed{{Product: "WIDGET", Qty: "1"}}}},
	})
	if err != nil {
		panic(err)
	}
	inv, o := srv.Invoice(1), srv.Order(1)
	fmt.Println(inv.Ref, inv.Status, inv.TotalHT.Round(2), inv.TotalTTC.Round(2))
	fmt.Println(o.Ref, o.Status, o.TotalTTC.Round(2))

	err = srv.Load(erpfake.Seed{Products: []erpfake.ProductSeed{{Ref: "GADGET", Label: "Gadget"}, {Ref: "widget", Label: "Again"}}})
	fmt.Println(err)
	// Output:
	// FA2611-0001 validated 57.50 67.50
	// (PROV1) draft 15.00
	// products[1]: ref "widget" already exists
}
