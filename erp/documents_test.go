package erp_test

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/apitwin/apitwin/erp"
)

// TestBuildAndDownloadDocument: issue 37, the calls scripts use next. An
// invoice's and an order's PDF is built and downloaded as the ERP's
// Documents API answers them (base64, file name, type, size); the PDF is
// one a reader opens: its cross-reference offsets point at its objects,
// and (on the fake, whose streams are not compressed) its text holds the
// record's ref, lines and totals.
func TestBuildAndDownloadDocument(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	soc, widget := tg.customer(t), tg.product(t, "19.99", "20")
	inv, err := tg.c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: soc.ID, Lines: []erp.LineRequest{
		{ProductID: widget.ID, Qty: dec("3")}, {Description: "Shipping (express)", Qty: dec("1"), Subprice: erp.Ptr(dec("7.50")), VATRate: erp.Ptr(dec("20"))},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if inv, err = tg.c.ValidateInvoice(ctx, inv.ID, nil); err != nil {
		t.Fatal(err)
	}
	file := erp.DocumentPath(inv.Ref)
	built, err := tg.c.BuildDocument(ctx, &erp.BuildDocumentRequest{Module: erp.InvoiceDocuments, File: file})
	if err != nil {
		t.Fatal(err)
	}
	if built.Filename != inv.Ref+".pdf" || built.ContentType != "application/pdf" || int(built.Size) != len(built.Content) || built.Template == "" {
		t.Fatalf("built %s %s %d/%d %q", built.Filename, built.ContentType, built.Size, len(built.Content), built.Template)
	}
	checkPDF(t, built.Content)
	if tg.fake != nil {
		for _, text := range []string{"(Invoice " + inv.Ref + ")", "(Customer: " + soc.Name + ")", "Shipping \\(express\\)   1.00 x 7.50 = 7.50",
			"3.00 x 19.99 = 59.97", "(Total excl. tax: 67.47)", "(VAT: 13.49)", "(Total incl. tax: 80.96)"} {
			if !bytes.Contains(built.Content, []byte(text)) {
				t.Errorf("the PDF lacks %q", text)
			}
		}
	}
	got, err := tg.c.DownloadDocument(ctx, erp.InvoiceDocuments, file)
	if err != nil || !bytes.Equal(got.Content, built.Content) || got.Filename != built.Filename {
		t.Fatalf("download: %v", err)
	}

	order, err := tg.c.CreateOrder(ctx, &erp.CreateOrderRequest{SocID: soc.ID, Lines: []erp.LineRequest{{ProductID: widget.ID, Qty: dec("2")}}})
	if err != nil {
		t.Fatal(err)
	}
	od, err := tg.c.BuildDocument(ctx, &erp.BuildDocumentRequest{Module: erp.OrderDocuments, File: erp.DocumentPath(order.Ref), Lang: "en_US"})
	if err != nil || od.Lang != "en_US" {
		t.Fatalf("an order's document: %v", err)
	}
	checkPDF(t, od.Content)

	for name, tc := range map[string]struct {
		req  erp.BuildDocumentRequest
		want error
	}{
		"unknown invoice": {erp.BuildDocumentRequest{Module: erp.InvoiceDocuments, File: "FA0000-9999/FA0000-9999.pdf"}, erp.ErrNotFound},
		"no file":         {erp.BuildDocumentRequest{Module: erp.InvoiceDocuments}, erp.ErrBadRequest},
		"no module":       {erp.BuildDocumentRequest{File: file}, erp.ErrBadRequest},
		"unbuilt module":  {erp.BuildDocumentRequest{Module: "nowhere", File: file}, erp.ErrForbidden},
		"a path upwards":  {erp.BuildDocumentRequest{Module: erp.InvoiceDocuments, File: "../" + file}, erp.ErrUnauthorized},
	} {
		if _, err := tg.c.BuildDocument(ctx, &tc.req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if tg.fake != nil {
		if _, err := tg.c.DownloadDocument(ctx, erp.OrderDocuments, "CO0000-0001/CO0000-0001.pdf"); !errors.Is(err, erp.ErrNotFound) {
			t.Errorf("never built: %v", err)
		}
	}
}

var pdfObj = regexp.MustCompile(`^(\d+) 0 obj`)

// checkPDF parses a PDF's end as a reader does: startxref gives the
// cross-reference table, whose every entry in use gives the offset of its
// object, and the trailer names the catalog.
func checkPDF(t *testing.T, pdf []byte) {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.")) || !bytes.HasSuffix(bytes.TrimSpace(pdf), []byte("%%EOF")) {
		t.Fatalf("not a PDF: %.40q…%q", pdf, pdf[max(0, len(pdf)-20):])
	}
	i := bytes.LastIndex(pdf, []byte("startxref"))
	if i < 0 {
		t.Fatal("no startxref")
	}
	var xref int
	if _, err := fmt.Sscan(string(pdf[i+len("startxref"):]), &xref); err != nil || xref >= len(pdf) || !bytes.HasPrefix(pdf[xref:], []byte("xref")) {
		t.Fatalf("startxref %d does not point at the table (%v)", xref, err)
	}
	lines := bytes.Split(pdf[xref:], []byte("\n"))
	var first, count int
	if _, err := fmt.Sscan(string(lines[1]), &first, &count); err != nil || count < 2 {
		t.Fatalf("xref section header %q", lines[1])
	}
	for n := 0; n < count; n++ {
		entry := lines[2+n]
		if len(entry) != 19 { // 20 bytes with the \n
			t.Fatalf("xref entry %d is %q", n, entry)
		}
		if entry[17] != 'n' {
			continue
		}
		off, _ := strconv.Atoi(string(entry[:10]))
		m := pdfObj.FindSubmatch(pdf[off:min(len(pdf), off+20)])
		if m == nil || string(m[1]) != strconv.Itoa(first+n) {
			t.Fatalf("xref entry %d points at %q", first+n, pdf[off:min(len(pdf), off+20)])
		}
	}
	if !bytes.Contains(pdf[xref:], []byte("/Root ")) {
		t.Fatal("no catalog in the trailer")
	}
}

func ExampleClient_BuildDocument() {
	srv, c := seedShop()
	defer srv.Close()
	inv, _ := c.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.MustDecimal("2")}}})
	inv, _ = c.ValidateInvoice(ctx, inv.ID, nil)
	doc, err := c.BuildDocument(ctx, &erp.BuildDocumentRequest{Module: erp.InvoiceDocuments, File: erp.DocumentPath(inv.Ref)})
	if err != nil {
		panic(err)
	}
	fmt.Println(doc.Filename, doc.ContentType, bytes.HasPrefix(doc.Content, []byte("%PDF-1.4")))
	// Output: FA2611-0001.pdf application/pdf true
}
