package erp_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// startFake serves a fake for an example, on a clock set to 20 November
// 2026; a test would use erpfake.Start(t).
func startFake(opts ...erpfake.Option) *erpfake.Server {
	clk := clock.NewFake(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC))
	srv, err := erpfake.New(append([]erpfake.Option{control.WithClock(clk)}, opts...)...)
	if err != nil {
		panic(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	return srv
}

func Example() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()

	c, err := erp.New(srv.URL(), erp.WithAPIKey(srv.APIKey()))
	if err != nil {
		panic(err)
	}
	acme, err := c.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Acme", Client: erp.Customer})
	if err != nil {
		panic(err)
	}
	widget, err := c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "WIDGET", Label: "Widget", Price: erp.MustDecimal("19.99"),
		VATRate: erp.Ptr(erp.MustDecimal("20"))})
	if err != nil {
		panic(err)
	}
	inv, err := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: acme.ID, Lines: []erp.LineRequest{
		{ProductID: widget.ID, Qty: erp.MustDecimal("3")},
	}})
	if err != nil {
		panic(err)
	}
	fmt.Println(inv.Ref, inv.Status)
	inv, err = c.ValidateInvoice(ctx, inv.ID, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(inv.Ref, inv.Status, inv.TotalHT.Round(2), inv.TotalTVA.Round(2), inv.TotalTTC.Round(2))
	_, err = c.ValidateInvoice(ctx, inv.ID, nil)
	fmt.Println(errors.Is(err, erp.ErrNothingDone))
	// Output:
	// (PROV1) draft
	// FA2611-0001 validated 59.97 11.99 71.96
	// true
}

func ExampleClient_AllInvoices() {
	srv := startFake()
	defer srv.Close()
	acme, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	for _, price := range []string{"50", "120", "300"} {
		srv.AddInvoice(erpfake.InvoiceSeed{SocID: acme, Lines: []erpfake.LineSeed{{Qty: "1", Subprice: price}}, Validated: true})
	}
	c := srv.Client()
	opts := &erp.ListInvoicesOptions{ListOptions: erp.ListOptions{
		Limit:     1,
		Filter:    erp.And(erp.Field("t.ref").Like("FA%"), erp.Field("t.total_ht").Ge(100)),
		SortField: "t.total_ht", SortOrder: erp.Desc,
	}}
	for inv, err := range c.AllInvoices(context.Background(), opts) {
		if err != nil {
			panic(err)
		}
		fmt.Println(inv.Ref, inv.TotalHT.Round(2))
	}
	fmt.Println("requests:", len(srv.RequestsTo("GET /api/index.php/invoices")))
	// Output:
	// FA2611-0003 300.00
	// FA2611-0002 120.00
	// requests: 3
}

func ExampleField() {
	f := erp.And(
		erp.Field("t.nom").Eq("O'Brien & Sons"),
		erp.Or(erp.Field("t.client").In(1, 3), erp.Field("t.fournisseur").Eq(true)),
	)
	fmt.Println(f)
	// Output: (t.nom:=:'O\'Brien & Sons') and ((t.client:in:(1,3)) or (t.fournisseur:=:1))
}

func ExampleDecimal() {
	price := erp.MustDecimal("100.00000000") // as the ERP sends it
	total := price.Mul(erp.MustDecimal("3")).Add(erp.MustDecimal("0.1")).Add(erp.MustDecimal("0.2"))
	fmt.Println(price.Text(), price, price.Equal(erp.MustDecimal("100")), total.Round(2))
	// Output: 100.00000000 100.00 true 300.30
}

func ExampleWithLogin() {
	srv := startFake(erpfake.WithAdminPassword("correct horse"))
	defer srv.Close()
	ctx := context.Background()
	c, err := erp.New(srv.URL(), erp.WithLogin("admin", "correct horse"), erp.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}
	me, err := c.GetUser(ctx, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(me.Login, bool(me.Admin))
	// The session ends after 24 idle minutes; the client logs in again.
	srv.Clock().Advance(time.Hour)
	if _, err := c.GetUser(ctx, 1); err != nil {
		panic(err)
	}
	fmt.Println("logins:", len(srv.RequestsTo("POST /index.php")))
	// Output:
	// admin true
	// logins: 2
}

func ExampleError() {
	srv := startFake()
	defer srv.Close()
	_, err := srv.Client().GetInvoice(context.Background(), 42)
	var e *erp.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.Message, errors.Is(err, erp.ErrNotFound))
	}
	srv.SetAPIEnabled(false)
	_, err = srv.Client().GetInvoice(context.Background(), 42)
	fmt.Println(errors.Is(err, erp.ErrAPINotEnabled))
	// Output:
	// 404 Not Found: Invoice not found true
	// true
}

func ExampleLoadSettings() {
	env := map[string]string{"ERP_ADMIN_PASSWORD": "s3cret", "DB_PORT": "db", "ERP_PORT": "9000"}
	_, err := erp.LoadSettings(erp.ProfileExternalDB, func(k string) string { return env[k] })
	fmt.Println(err)
	// Output: erp: deployment settings for profile external-db: DB_PASSWORD is required; DB_HOST is required with an external database; DB_USER is required with an external database; DB_NAME is required with an external database; DB_PORT "db" is not a port number (1-65535)
}
