package erp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hashicorp/go-cleanhttp"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/erpfake"
)

// benchInvoices is a fake holding n validated invoices of three lines each,
// answering numbers as strings (the costlier form to read).
func benchInvoices(b *testing.B, n int) *erpfake.Server {
	b.Helper()
	srv := erpfake.Start(b)
	soc, _ := srv.AddThirdparty(erpfake.ThirdpartySeed{Name: "Acme", Client: 1})
	p1, _ := srv.AddProduct(erpfake.ProductSeed{Ref: "W", Label: "Widget", Price: "19.99", VATRate: "20"})
	p2, _ := srv.AddProduct(erpfake.ProductSeed{Ref: "S", Label: "Service", Price: "650", VATRate: "20"})
	for range n {
		_, err := srv.AddInvoice(erpfake.InvoiceSeed{SocID: soc, Validated: true, Lines: []erpfake.LineSeed{
			{ProductID: p1, Qty: "3"}, {ProductID: p2, Qty: "1.5", Discount: "10"}, {Description: "Shipping", Qty: "1", Subprice: "7.50", VATRate: "20"},
		}})
		if err != nil {
			b.Fatal(err)
		}
	}
	return srv
}

// BenchmarkListInvoices100 lists 100 invoices with their lines through the
// client; compare with BenchmarkListInvoices100Plain, the same request by
// hand into the same structs.
func BenchmarkListInvoices100(b *testing.B) {
	srv := benchInvoices(b, 100)
	c := srv.Client()
	opts := &erp.ListInvoicesOptions{ListOptions: erp.ListOptions{Limit: 100}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		page, err := c.ListInvoices(ctx, opts)
		if err != nil || len(page.Items) != 100 || len(page.Items[99].Lines) != 3 {
			b.Fatal(err)
		}
	}
}

// BenchmarkListInvoices100Plain is the baseline: net/http and encoding/json
// into the same structs, with the same pooled transport.
func BenchmarkListInvoices100Plain(b *testing.B) {
	srv := benchInvoices(b, 100)
	hc := &http.Client{Transport: cleanhttp.DefaultPooledTransport()}
	url := srv.URL() + "/api/index.php/invoices?limit=100"
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("ERPAPIKEY", srv.APIKey())
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var items []*erp.Invoice
		err = json.NewDecoder(resp.Body).Decode(&items)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || len(items) != 100 || len(items[99].Lines) != 3 {
			b.Fatal(err)
		}
	}
}

// BenchmarkAllInvoices1000 iterates 1,000 invoices, ten pages of 100 and an
// empty one.
func BenchmarkAllInvoices1000(b *testing.B) {
	srv := benchInvoices(b, 1000)
	c := srv.Client()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, err := range c.AllInvoices(ctx, nil) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1000 {
			b.Fatalf("iterated %d", n)
		}
	}
}

// BenchmarkDecodeInvoices100 decodes the fake's answer alone: the cost of
// reading string-typed numbers exactly and keeping unknown fields.
func BenchmarkDecodeInvoices100(b *testing.B) {
	srv := benchInvoices(b, 100)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/index.php/invoices?limit=100", nil)
	req.Header.Set("ERPAPIKEY", srv.APIKey())
	srv.ServeHTTP(rec, req)
	body := rec.Body.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var items []*erp.Invoice
		if err := json.Unmarshal(body, &items); err != nil || len(items) != 100 {
			b.Fatal(err)
		}
	}
}

// BenchmarkAddAndDeleteInvoiceLine adds a line to a draft through the
// client and deletes it again (the delete answers the whole invoice).
func BenchmarkAddAndDeleteInvoiceLine(b *testing.B) {
	srv := benchInvoices(b, 0)
	c := srv.Client()
	ctx := context.Background()
	inv, err := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("3")}}})
	if err != nil {
		b.Fatal(err)
	}
	line := &erp.LineRequest{ProductID: 2, Qty: erp.MustDecimal("2"), Discount: erp.Ptr(erp.MustDecimal("5"))}
	b.ReportAllocs()
	for b.Loop() {
		id, err := c.AddInvoiceLine(ctx, inv.ID, line)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.DeleteInvoiceLine(ctx, inv.ID, id); err != nil {
			b.Fatal(err)
		}
	}
}
