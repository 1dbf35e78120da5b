package erpfake

import (
	"encoding/base64"
	"math/big"
	"net/http"
	"path"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// Documents: PUT /documents/builddoc builds an invoice's or an order's PDF
// (a real one: its lines and totals, in Helvetica), GET /documents/download
// answers the one built last, as the ERP's Documents API does: the file
// base64-encoded in JSON, with its name, type and size.

// docTemplates are the templates the fake names when none is asked, the
// ERP's defaults.
var docTemplates = map[string]string{"invoice": "sponge", "order": "einstein"}

// docModule is the canonical name of a modulepart the fake builds
// documents for ("facture" is the ERP's older name of "invoice"), "" for
// another.
func docModule(modulepart string) string {
	switch modulepart {
	case "invoice", "facture":
		return "invoice"
	case "order", "commande":
		return "order"
	}
	return ""
}

// docFile checks a modulepart and an original_file as the ERP does and
// returns the module and the ref the file names (its base name without
// extension).
func docFile(modulepart, file string) (module, ref string, fail *fakekit.Answer) {
	switch {
	case modulepart == "":
		a := badRequest("bad value for parameter modulepart")
		return "", "", &a
	case file == "":
		a := badRequest("bad value for parameter original_file")
		return "", "", &a
	case strings.Contains(file, "..") || strings.ContainsAny(file, "<>|"):
		a := apiError(http.StatusUnauthorized, "")
		return "", "", &a
	}
	module = docModule(modulepart)
	base := path.Base(file)
	return module, strings.TrimSuffix(base, path.Ext(base)), nil
}

// findDocByRef is the invoice's or order's document of that ref.
func (c *call) findDocByRef(module, ref string) *document {
	if module == "invoice" {
		for _, inv := range c.st.invoices {
			if inv.ref == ref {
				return &inv.document
			}
		}
		return nil
	}
	for _, o := range c.st.orders {
		if o.ref == ref {
			return &o.document
		}
	}
	return nil
}

func buildDoc(in *input) step {
	modulepart, _ := in.body.str("modulepart")
	file, _ := in.body.str("original_file")
	template, _ := in.body.str("doctemplate")
	lang, _ := in.body.str("langcode")
	return func(c *call) fakekit.Answer {
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		module, ref, fail := docFile(modulepart, file)
		if fail != nil {
			return *fail
		}
		if module == "" {
			return apiError(http.StatusForbidden, "Generation not available for this modulepart")
		}
		d := c.findDocByRef(module, ref)
		if d == nil {
			return notFound(map[string]string{"invoice": "Invoice", "order": "Order"}[module] + " not found")
		}
		if template == "" {
			template = docTemplates[module]
		}
		if lang == "" {
			lang = "en_US"
		}
		d.pdf = documentPDF(module, d)
		b := c.appendFile(c.buffer(), path.Base(file), d.pdf)
		b = append(b[:len(b)-1], `,"langcode":`...)
		b = jsonw.AppendString(b, lang)
		b = append(b, `,"template":`...)
		b = jsonw.AppendString(b, template)
		return c.written(append(b, '}'))
	}
}

func downloadDoc(in *input) step {
	q := query(in.r)
	modulepart, file := q.Get("modulepart"), q.Get("original_file")
	return func(c *call) fakekit.Answer {
		module, ref, fail := docFile(modulepart, file)
		if fail != nil {
			return *fail
		}
		var d *document
		if module != "" {
			d = c.findDocByRef(module, ref)
		}
		if d == nil || d.pdf == nil {
			return notFound("File not found")
		}
		return c.written(c.appendFile(c.buffer(), path.Base(file), d.pdf))
	}
}

// appendFile writes a file as the Documents API answers it:
// {"filename","content-type","filesize","content","encoding":"base64"}.
func (c *call) appendFile(b []byte, name string, content []byte) []byte {
	b = append(b, `{"filename":`...)
	b = jsonw.AppendString(b, name)
	b = append(b, `,"content-type":"application/pdf","filesize":`...)
	size := c.num.int(int64(len(content)))
	b = size.appendJSON(b)
	b = append(b, `,"content":"`...)
	b = base64.StdEncoding.AppendEncode(b, content)
	return append(b, `","encoding":"base64"}`...)
}

// documentPDF is an invoice's or an order's PDF: its ref, date and third
// party, a line per line (label, quantity, unit price, total without tax)
// and the totals.
func documentPDF(module string, d *document) []byte {
	title := map[string]string{"invoice": "Invoice", "order": "Order"}[module] + " " + d.ref
	lines := []string{title, "Date: " + d.date.UTC().Format("2006-01-02")}
	if d.soc != nil {
		lines = append(lines, "Customer: "+d.soc.name)
	}
	lines = append(lines, "", "Description / Qty x Unit price = Total excl. tax")
	for _, l := range d.lines {
		label := l.desc
		if l.product != nil {
			label = strings.TrimSpace(l.product.ref + " " + l.product.label + " " + l.desc)
		}
		lines = append(lines, label+"   "+money(l.qty)+" x "+money(l.subprice)+" = "+money(l.ht))
	}
	return writePDF(title, append(lines, "",
		"Total excl. tax: "+money(d.ht),
		"VAT: "+money(d.tva),
		"Total incl. tax: "+money(d.ttc)))
}

// money is an amount with two decimals, "0.00" for none.
func money(r *big.Rat) string {
	if r == nil {
		return "0.00"
	}
	return r.FloatString(2)
}
