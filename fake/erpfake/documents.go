package erpfake

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// What invoices and orders share: lines, totals, refs, dates.

func (c *call) renderLines(lines []*line) []byte { return render(c, (*call).appendLines, lines) }

// authorID is the id of a document's author, 0 for none.
func authorID(u *user) int64 {
	if u == nil {
		return 0
	}
	return u.id
}

// documentInput is what a new invoice or order carries: socid, which must
// name a third party, the dates, the notes and the lines.
type documentInput struct {
	hasSoc                             bool
	socid                              int64
	refClient, notePublic, notePrivate string
	date                               opt[time.Time]
	lines                              []lineInput
}

// lineInput is a line as a request gives it: an existing product
// (fk_product) or free text; qty is required; subprice and tva_tx default
// to the product's; remise_percent is a discount in percent.
type lineInput struct {
	product                 int64 // 0 for free text
	qty                     *big.Rat
	subprice, vat, discount opt[*big.Rat]
	typ                     opt[int64]
	desc                    string
}

func readDocument(b *body) documentInput {
	var d documentInput
	if d.hasSoc = b.has("socid"); d.hasSoc {
		d.socid, _ = b.int("socid")
	}
	d.refClient, _ = b.str("ref_client")
	d.notePublic, _ = b.str("note_public")
	d.notePrivate, _ = b.str("note_private")
	d.date.v, d.date.set = b.unixTime("date")
	d.lines = readLines(b)
	return d
}

// readLines reads a document's lines; the first wrong one is the body's
// problem.
func readLines(b *body) []lineInput {
	raw, given := b.fields["lines"]
	if !given || string(raw) == "null" {
		return nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		b.fail("lines must be a list of objects")
		return nil
	}
	lines := make([]lineInput, 0, len(items))
	for i, item := range items {
		lb := &body{fields: item}
		l := lineInput{}
		if id, given := lb.int("fk_product"); given {
			l.product = id
		}
		if !lb.has("qty") {
			b.fail(fmt.Sprintf("lines[%d]: qty field missing", i))
			return nil
		}
		l.qty, _ = lb.dec("qty")
		l.subprice = lb.optDec("subprice")
		if !l.subprice.set && l.product == 0 {
			lb.fail("subprice field missing (a line without fk_product needs a price)")
		}
		l.vat, l.discount = lb.optDec("tva_tx"), lb.optDec("remise_percent")
		if v, given := lb.int("product_type"); given {
			l.typ = opt[int64]{v, true}
		}
		l.desc, _ = lb.str("desc")
		switch {
		case lb.problem() != "":
			b.fail(fmt.Sprintf("lines[%d]: %s", i, lb.problem()))
			return nil
		case l.discount.set && (l.discount.v.Sign() < 0 || l.discount.v.Cmp(hundred) > 0):
			b.fail(fmt.Sprintf("lines[%d]: remise_percent must be between 0 and 100", i))
			return nil
		case l.vat.set && l.vat.v.Sign() < 0:
			b.fail(fmt.Sprintf("lines[%d]: tva_tx must not be negative", i))
			return nil
		}
		lines = append(lines, l)
	}
	return lines
}

// build makes the document d describes, checking what needs the state: the
// products of its lines, its third party, and that its amounts fit the
// ERP's columns. It answers the first refusal, in the order the ERP finds
// them.
func (in *documentInput) build(c *call, b *body, d *document, kind string) *fakekit.Answer {
	refuse := func(msg string) *fakekit.Answer {
		a := badRequest(msg)
		return &a
	}
	if !in.hasSoc {
		return refuse("socid field missing")
	}
	if msg := b.problem(); msg != "" {
		return refuse(msg)
	}
	lines := make([]*line, len(in.lines))
	for i, li := range in.lines {
		l := &line{rank: int64(i + 1), qty: li.qty, discount: new(big.Rat), vat: new(big.Rat), desc: li.desc}
		if li.product != 0 {
			p, found := byID(c.st.products, li.product)
			if !found {
				return refuse(fmt.Sprintf("lines[%d]: fk_product %d does not name a product", i, li.product))
			}
			l.product, l.typ, l.subprice, l.vat = p, p.typ, p.price, p.vat
		} else if li.typ.set {
			l.typ = li.typ.v
		}
		li.subprice.to(&l.subprice)
		li.vat.to(&l.vat)
		li.discount.to(&l.discount)
		computeLine(l)
		if !fitsDecimal(l.ttc) || !fitsDecimal(l.ht) {
			return refuse(fmt.Sprintf("lines[%d]: the line's total %s has more digits than the ERP keeps: at most 16 before the point (DECIMAL(24,8))", i, trimDecimal(l.ttc)))
		}
		lines[i] = l
	}
	soc, found := byID(c.st.thirdparties, in.socid)
	if !found {
		return refuse(fmt.Sprintf("socid %d does not name a thirdparty; %s needs an existing one", in.socid, withArticle(kind)))
	}
	d.lines = lines
	d.computeTotals()
	if !fitsDecimal(d.ttc) || !fitsDecimal(d.ht) {
		return refuse(fmt.Sprintf("the %s's total %s has more digits than the ERP keeps: at most 16 before the point (DECIMAL(24,8))", kind, trimDecimal(d.ttc)))
	}
	now := c.st.now()
	date := now
	in.date.to(&date)
	d.refClient, d.notePublic, d.notePrivate = in.refClient, in.notePublic, in.notePrivate
	d.soc, d.date, d.datec, d.author = soc, dayOf(date), now, c.user
	return nil
}

// addDocument gives a new invoice or order (kind) its id, its provisional
// ref "(PROVn)", ids for its lines from the shared line sequence, and its
// totals.
func (c *call) addDocument(d *document, kind string) {
	st := c.st
	c.counted("line", len(d.lines))
	d.id = st.next(kind)
	d.ref = fmt.Sprintf("(PROV%d)", d.id)
	for _, l := range d.lines {
		l.id = st.next("line")
	}
}

// validate moves a draft to validated with its final ref; nothing done for
// a document that is not a draft. A document without lines is refused as
// the ERP refuses it, with 500 and its message.
func (c *call) validate(d *document, prefix, kind string) fakekit.Answer {
	if d.status != statusDraft {
		return nothingDone()
	}
	if len(d.lines) == 0 {
		return apiError(http.StatusInternalServerError, "Error when validating "+kind+": Object "+d.ref+" must have lines to be validated.")
	}
	d.status = statusValidated
	d.ref = c.st.finalRef(prefix, d.date)
	d.dateValidation = c.st.now()
	return fakekit.Answer{}
}

// documentFields are the filter and sort fields invoices and orders share,
// by the columns of their tables and by their JSON names.
func documentFields[T any](doc func(T) *document, dateColumn string) map[string]fieldDef[T] {
	return map[string]fieldDef[T]{
		"rowid":      idField(func(v T) int64 { return doc(v).id }),
		"id":         idField(func(v T) int64 { return doc(v).id }),
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

// docPatch is what an update of an invoice or an order may set: its
// customer's ref, notes and date (the lines have their own routes).
type docPatch struct {
	refClient, notePublic, notePrivate opt[string]
	date                               opt[time.Time]
}

func readDocPatch(b *body) docPatch {
	p := docPatch{refClient: b.optStr("ref_client"), notePublic: b.optStr("note_public"), notePrivate: b.optStr("note_private")}
	p.date.v, p.date.set = b.unixTime("date")
	return p
}

func (p *docPatch) apply(d *document) {
	p.refClient.to(&d.refClient)
	p.notePublic.to(&d.notePublic)
	p.notePrivate.to(&d.notePrivate)
	if p.date.set {
		d.date = dayOf(p.date.v)
	}
}

// deleted is the ERP's answer to a delete.
func deleted(msg string) fakekit.Answer {
	return ok(map[string]any{"success": map[string]any{"code": 200, "message": msg}})
}

// withArticle is kind with its indefinite article ("an invoice", "an
// order"), for messages that name a document kind.
func withArticle(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
