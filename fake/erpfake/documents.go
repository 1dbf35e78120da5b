package erpfake

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"time"
)

// What invoices and orders share: lines, totals, refs, dates.

type lineJSON struct {
	ID            json.RawMessage `json:"id"`
	Rowid         json.RawMessage `json:"rowid"`
	FkProduct     json.RawMessage `json:"fk_product"`
	ProductRef    string          `json:"product_ref"`
	ProductLabel  string          `json:"product_label"`
	ProductType   json.RawMessage `json:"product_type"`
	Desc          string          `json:"desc"`
	Qty           json.RawMessage `json:"qty"`
	Subprice      json.RawMessage `json:"subprice"`
	RemisePercent json.RawMessage `json:"remise_percent"`
	TvaTx         json.RawMessage `json:"tva_tx"`
	TotalHT       json.RawMessage `json:"total_ht"`
	TotalTVA      json.RawMessage `json:"total_tva"`
	TotalTTC      json.RawMessage `json:"total_ttc"`
	Rang          json.RawMessage `json:"rang"`
	SpecialCode   json.RawMessage `json:"special_code"`
	ArrayOptions  map[string]any  `json:"array_options"`
}

func (c *call) renderLines(lines []*line) []*lineJSON {
	n := c.num
	out := make([]*lineJSON, len(lines))
	for i, l := range lines {
		j := &lineJSON{
			ID: n.id(l.id), Rowid: n.id(l.id), FkProduct: json.RawMessage("null"), ProductType: n.int(l.typ), Desc: l.desc,
			Qty: n.dec(l.qty), Subprice: n.dec(l.subprice), RemisePercent: n.dec(l.discount), TvaTx: n.dec(l.vat),
			TotalHT: n.dec(l.ht), TotalTVA: n.dec(l.tva), TotalTTC: n.dec(l.ttc), Rang: n.int(l.rank), SpecialCode: n.int(0),
			ArrayOptions: map[string]any{},
		}
		if l.product != nil {
			j.FkProduct, j.ProductRef, j.ProductLabel = n.id(l.product.id), l.product.ref, l.product.label
		}
		out[i] = j
	}
	return out
}

// readDocument reads what a new invoice or order carries: socid, which must
// name a third party, the dates, the notes and the lines.
func (c *call) readDocument(d *document, kind string) *answer {
	b := c.body
	if !b.has("socid") {
		a := badRequest("socid field missing")
		return &a
	}
	socid, _ := b.int("socid")
	b.strings(strField{"ref_client", &d.refClient}, strField{"note_public", &d.notePublic}, strField{"note_private", &d.notePrivate})
	date, hasDate := b.unixTime("date")
	lines := c.readLines()
	if msg := b.problem(); msg != "" {
		a := badRequest(msg)
		return &a
	}
	soc, found := byID(c.st.thirdparties, socid)
	if !found {
		a := badRequest(fmt.Sprintf("socid %d does not name a thirdparty; a %s needs an existing one", socid, kind))
		return &a
	}
	now := c.st.now()
	if !hasDate {
		date = now
	}
	d.soc, d.date, d.datec, d.author, d.lines = soc, dayOf(date), now, c.user, lines
	return nil
}

// readLines reads a document's lines. A line names an existing product
// (fk_product) or is free text; qty is required; subprice and tva_tx
// default to the product's; remise_percent is a discount in percent.
func (c *call) readLines() []*line {
	b := c.body
	raw, given := b.fields["lines"]
	if !given || string(raw) == "null" {
		return nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		b.fail("lines must be a list of objects")
		return nil
	}
	var lines []*line
	for i, item := range items {
		lb := &body{fields: item}
		where := fmt.Sprintf("lines[%d]: ", i)
		l := &line{rank: int64(i + 1), discount: new(big.Rat), vat: new(big.Rat)}
		if id, given := lb.int("fk_product"); given && id != 0 {
			p, found := byID(c.st.products, id)
			if !found {
				b.fail(fmt.Sprintf("%sfk_product %d does not name a product", where, id))
				return nil
			}
			l.product, l.typ, l.subprice, l.vat = p, p.typ, p.price, p.vat
		}
		if !lb.has("qty") {
			b.fail(where + "qty field missing")
			return nil
		}
		l.qty, _ = lb.dec("qty")
		if v, given := lb.dec("subprice"); given {
			l.subprice = v
		} else if l.product == nil {
			lb.fail("subprice field missing (a line without fk_product needs a price)")
		}
		if v, given := lb.dec("tva_tx"); given {
			l.vat = v
		}
		if v, given := lb.dec("remise_percent"); given {
			l.discount = v
		}
		if v, given := lb.int("product_type"); given && l.product == nil {
			l.typ = v
		}
		lb.strings(strField{"desc", &l.desc})
		switch {
		case lb.problem() != "":
			b.fail(where + lb.problem())
			return nil
		case l.discount.Sign() < 0 || l.discount.Cmp(hundred) > 0:
			b.fail(where + "remise_percent must be between 0 and 100")
			return nil
		case l.vat.Sign() < 0:
			b.fail(where + "tva_tx must not be negative")
			return nil
		}
		computeLine(l)
		lines = append(lines, l)
	}
	return lines
}

// addDocument gives a new invoice or order (kind) its id, its provisional
// ref "(PROVn)", ids for its lines from the shared line sequence, and its
// totals.
func (st *state) addDocument(d *document, kind string) {
	d.id = st.next(kind)
	d.ref = fmt.Sprintf("(PROV%d)", d.id)
	for _, l := range d.lines {
		l.id = st.next("line")
	}
	d.computeTotals()
}

// validate moves a draft to validated with its final ref; nothing done for
// a document that is not a draft. A document without lines is refused as
// the ERP refuses it, with 500 and its message.
func (c *call) validate(d *document, prefix, kind string) answer {
	if d.status != statusDraft {
		return nothingDone()
	}
	if len(d.lines) == 0 {
		return apiError(http.StatusInternalServerError, "Error when validating "+kind+": Object "+d.ref+" must have lines to be validated.")
	}
	d.status = statusValidated
	d.ref = c.st.finalRef(prefix, d.date)
	d.dateValidation = c.st.now()
	return answer{}
}

// documentFields are the filter and sort fields invoices and orders share,
// by the columns of their tables and by their JSON names.
func documentFields[T any](doc func(T) *document, dateColumn string) map[string]fieldDef[T] {
	return map[string]fieldDef[T]{
		"rowid":      intField(false, func(v T) int64 { return doc(v).id }),
		"id":         intField(false, func(v T) int64 { return doc(v).id }),
		"ref":        textField(func(v T) string { return doc(v).ref }),
		"ref_client": textField(func(v T) string { return doc(v).refClient }),
		"fk_soc":     intField(true, func(v T) int64 { return doc(v).soc.id }),
		"socid":      intField(true, func(v T) int64 { return doc(v).soc.id }),
		"fk_statut":  intField(false, func(v T) int64 { return doc(v).status }),
		"status":     intField(false, func(v T) int64 { return doc(v).status }),
		dateColumn:   timeField(func(v T) time.Time { return doc(v).date }),
		"date":       timeField(func(v T) time.Time { return doc(v).date }),
		"datec":      timeField(func(v T) time.Time { return doc(v).datec }),
		"date_valid": timeField(func(v T) time.Time { return doc(v).dateValidation }),
		"total_ht":   numField(false, func(v T) *big.Rat { return doc(v).ht }),
		"total_tva":  numField(false, func(v T) *big.Rat { return doc(v).tva }),
		"total_ttc":  numField(false, func(v T) *big.Rat { return doc(v).ttc }),
	}
}
