package erp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

func TestProducts(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	ref := "APITWIN-" + unique()
	p, err := tg.c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: ref, Label: "Consulting day", Price: dec("650.00"), VATRate: erp.Ptr(dec("20")),
		Type: erp.TypeService, Description: "On site"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ref != ref || p.Type != erp.TypeService || !p.Price.Equal(dec("650")) || !p.PriceTTC.Equal(dec("780")) || !p.VATRate.Equal(dec("20")) ||
		!bool(p.OnSale) || p.PriceBaseType != "HT" {
		t.Fatalf("created %+v", p)
	}
	got, err := tg.c.GetProduct(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(p, got); d != "" {
		t.Fatalf("get differs (-create +get):\n%s", d)
	}
	upd, err := tg.c.UpdateProduct(ctx, p.ID, &erp.UpdateProductRequest{Price: erp.Ptr(dec("700.10")), Label: erp.Ptr("Day")})
	if err != nil || !upd.Price.Equal(dec("700.1")) || !upd.PriceTTC.Equal(dec("840.12")) || upd.Label != "Day" || upd.Ref != ref {
		t.Fatalf("updated %+v %v", upd, err)
	}
}

func TestProductRules(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	first := tg.product(t, "10", "0")
	// A ref is unique ignoring case; the ERP refuses with 500 and its code,
	// which the client does not retry.
	_, err := tg.c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: strings.ToLower(first.Ref), Label: "Copy"})
	var e *erp.Error
	if !errors.Is(err, erp.ErrAlreadyExists) || !errors.As(err, &e) || e.StatusCode != 500 || e.Message != "Internal Server Error: Error creating product" ||
		len(e.Details) == 0 || e.Details[0] != "ErrorProductAlreadyExists" {
		t.Fatalf("duplicate ref: %v", err)
	}
	second := tg.product(t, "5", "0")
	_, err = tg.c.UpdateProduct(ctx, second.ID, &erp.UpdateProductRequest{Ref: erp.Ptr(strings.ToUpper(first.Ref))})
	if !errors.Is(err, erp.ErrAlreadyExists) {
		t.Fatalf("renaming onto a taken ref: %v", err)
	}
	if n := len(srv.RequestsTo("PUT /api/index.php/products/{id}")); n != 1 {
		t.Fatalf("the refused PUT was sent %d times: a 500 in the ERP's shape is not retried", n)
	}
	// Keeping its own ref, in another case, is fine.
	if _, err := tg.c.UpdateProduct(ctx, first.ID, &erp.UpdateProductRequest{Ref: erp.Ptr(strings.ToLower(first.Ref))}); err != nil {
		t.Fatalf("own ref: %v", err)
	}
	for _, tc := range []struct{ body, msg string }{
		{`{"label":"x"}`, "Bad Request: ref field missing"},
		{`{"ref":"R-1"}`, "Bad Request: label field missing"},
		{`{"ref":"R-1","label":"x","price":"ten"}`, "Bad Request: price must be a number"},
		{`{"ref":"R-1","label":"x","type":7}`, "Bad Request: type must be 0 (product) or 1 (service)"},
	} {
		status, got := rawPost(t, srv, "/products", tc.body)
		if status != 400 || !strings.Contains(got, `"message":"`+tc.msg+`"`) {
			t.Errorf("%s: %d %s", tc.body, status, got)
		}
	}
	if _, err := tg.c.CreateProduct(ctx, &erp.CreateProductRequest{Ref: "R"}); err == nil {
		t.Fatal("a product without label passed the client")
	}
}

func TestProductPriceWithTax(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t)
	p, err := srv.Client().CreateProduct(ctx, &erp.CreateProductRequest{Ref: "TTC", Label: "Priced with tax", PriceBaseType: "TTC",
		Price: dec("120"), VATRate: erp.Ptr(dec("20"))})
	if err != nil || !p.Price.Equal(dec("100")) || !p.PriceTTC.Equal(dec("120")) || p.PriceBaseType != "TTC" {
		t.Fatalf("%+v %v", p, err)
	}
}

// TestStringTypedNumbers reads the same records from a fake answering
// numbers as strings ("id":"3", "price":"12.50000000"), as the ERP does on
// older PHP drivers, and from one answering JSON numbers.
func TestStringTypedNumbers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		opts      []erpfake.Option
		priceText string
	}{
		{"strings", nil, "12.50000000"},
		{"numbers", []erpfake.Option{erpfake.WithNativeNumbers()}, "12.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := erpfake.Start(t, tc.opts...)
			srv.AddProduct(erpfake.ProductSeed{Ref: "A", Label: "first", Price: "1"})
			srv.AddProduct(erpfake.ProductSeed{Ref: "B", Label: "second", Price: "1"})
			id, err := srv.AddProduct(erpfake.ProductSeed{Ref: "C", Label: "Widget", Price: "12.5", VATRate: "5.5", Service: true})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("seeding logged %d requests", n)
			}
			_, body := rawDo(t, srv, "GET", "/products/3", "", "")
			if tc.opts == nil && !strings.Contains(body, `"id":"3"`) || tc.opts != nil && !strings.Contains(body, `"id":3`) {
				t.Fatalf("wire form: %s", body)
			}
			p, err := srv.Client().GetProduct(ctx, erp.ID(id))
			if err != nil {
				t.Fatal(err)
			}
			want := struct {
				ID                     erp.ID
				Type                   erp.ProductType
				Price, VAT, TTC, Stock erp.Decimal
				OnSale                 erp.Bool
			}{3, erp.TypeService, dec("12.5"), dec("5.5"), dec("13.1875"), dec("0"), true}
			got := want
			got.ID, got.Type, got.Price, got.VAT, got.TTC, got.Stock, got.OnSale = p.ID, p.Type, p.Price, p.VATRate, p.PriceTTC, p.Stock, p.OnSale
			if d := diff(want, got); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
			if p.Price.Text() != tc.priceText {
				t.Fatalf("price text %q, want the server's %q", p.Price, tc.priceText)
			}
			if p.DateCreation.Unix() != srv.Clock().Now().Unix() {
				t.Fatalf("date %v", p.DateCreation)
			}
		})
	}
}
