package erpfake

import (
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The lines of a draft invoice or order can be added, changed and deleted;
// once the document is validated they cannot, and each refusal is worded
// as the ERP words it for that document and operation.

// lineDoc is what a line operation needs of its document: the document,
// its noun, and the ERP's refusals when it is not a draft.
type lineDoc struct {
	doc  *document
	kind string // "invoice", "order" or "proposal"
}

// lineFinder finds the document a line operation's {id} names, under the
// lock.
type lineFinder func(c *call, id int64) (lineDoc, *fakekit.Answer)

func findInvoiceDoc(c *call, id int64) (lineDoc, *fakekit.Answer) {
	inv, fail := findByID(c.st.invoices, id, "Invoice")
	if fail != nil {
		return lineDoc{}, fail
	}
	return lineDoc{doc: &inv.document, kind: "invoice"}, nil
}

func findOrderDoc(c *call, id int64) (lineDoc, *fakekit.Answer) {
	o, fail := findByID(c.st.orders, id, "Order")
	if fail != nil {
		return lineDoc{}, fail
	}
	return lineDoc{doc: &o.document, kind: "order"}, nil
}

// readOneLine reads a line's fields from a request body, as a document's
// lines are read.
func readOneLine(b *body) lineInput {
	var l lineInput
	if id, given := b.int("fk_product"); given {
		l.product = id
	}
	if !b.has("qty") {
		b.fail("qty field missing")
		return l
	}
	l.qty, _ = b.dec("qty")
	l.subprice = b.optDec("subprice")
	if !l.subprice.set && l.product == 0 {
		b.fail("subprice field missing (a line without fk_product needs a price)")
	}
	l.vat, l.discount = b.optDec("tva_tx"), b.optDec("remise_percent")
	if v, given := b.int("product_type"); given {
		l.typ = opt[int64]{v, true}
	}
	l.desc, _ = b.str("desc")
	checkLineBounds(b, l)
	return l
}

// checkLineBounds records the first value of a line out of the ERP's
// bounds.
func checkLineBounds(b *body, l lineInput) {
	switch {
	case l.discount.set && l.discount.v != nil && (l.discount.v.Sign() < 0 || l.discount.v.Cmp(hundred) > 0):
		b.fail("remise_percent must be between 0 and 100")
	case l.vat.set && l.vat.v != nil && l.vat.v.Sign() < 0:
		b.fail("tva_tx must not be negative")
	}
}

// newLine makes a line from what a request gave, taking the product's
// price and rate where the line gives none.
func (c *call) newLine(li lineInput) (*line, string) {
	l := &line{qty: li.qty, discount: new(big.Rat), vat: new(big.Rat), desc: li.desc}
	if li.product != 0 {
		p, found := byID(c.st.products, li.product)
		if !found {
			return nil, fmt.Sprintf("fk_product %d does not name a product", li.product)
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
		return nil, fmt.Sprintf("the line's total %s has more digits than the ERP keeps: at most 16 before the point (DECIMAL(24,8))", trimDecimal(l.ttc))
	}
	return l, ""
}

// lineID reads the {lineid} of a route as pathID reads {id}.
func (in *input) lineID() (int64, *fakekit.Answer) {
	v := in.r.PathValue("lineid")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && !isDigits(strings.TrimPrefix(v, "-")) {
		return -1, nil
	}
	if err != nil || n < minInt || n > maxInt {
		a := badRequest("Invalid value specified for `lineid`. Expecting integer value from " + intRange)
		return 0, &a
	}
	return n, nil
}

// findLine finds a line of d by id, or answers 404 "Line not found".
func findLine(d *document, id int64) (int, *fakekit.Answer) {
	for i, l := range d.lines {
		if l.id == id {
			return i, nil
		}
	}
	a := notFound("Line not found")
	return -1, &a
}

// addLine is POST /{invoices,orders}/{id}/lines: it adds a line to a draft
// and answers the new line's id, as the ERP does.
func addLine(find lineFinder) operation {
	return func(in *input) step {
		id, fail := in.pathID()
		if fail != nil {
			return fails(*fail)
		}
		li := readOneLine(in.body)
		return func(c *call) fakekit.Answer {
			ld, fail := find(c, id)
			if fail != nil {
				return *fail
			}
			d := ld.doc
			if d.status != statusDraft {
				switch ld.kind {
				case "invoice":
					return badRequest("Unable to insert the new line. Check your inputs. Invoice status makes operation forbidden")
				case "proposal":
					// The proposal's addline sets no message: the ERP
					// answers 400 with the bare status text.
					return apiError(http.StatusBadRequest, "")
				}
				return badRequest("Order status makes operation forbidden")
			}
			if msg := in.body.problem(); msg != "" {
				return badRequest(msg)
			}
			l, msg := c.newLine(li)
			if msg != "" {
				return badRequest(msg)
			}
			if !c.room("line", 1) {
				full := tableFull(lineTables[ld.kind])
				if ld.kind == "invoice" {
					return badRequest("Unable to insert the new line. Check your inputs. " + full)
				}
				return badRequest(full)
			}
			l.id = c.st.next("line")
			l.rank = int64(len(d.lines) + 1)
			d.lines = append(d.lines, l)
			if a := c.retotal(d, ld.kind); a != nil {
				d.lines = d.lines[:len(d.lines)-1]
				c.retotal(d, ld.kind)
				return *a
			}
			c.counted("line", 1)
			return ok(c.num.id(l.id))
		}
	}
}

// retotal sums d's lines again; it answers a refusal when the total no
// longer fits the ERP's columns.
func (c *call) retotal(d *document, kind string) *fakekit.Answer {
	d.computeTotals()
	if !fitsDecimal(d.ttc) || !fitsDecimal(d.ht) {
		a := badRequest(fmt.Sprintf("the %s's total %s has more digits than the ERP keeps: at most 16 before the point (DECIMAL(24,8))", kind, trimDecimal(d.ttc)))
		return &a
	}
	return nil
}

// updateLine is PUT /{invoices,orders}/{id}/lines/{lineid}. Like the ERP's
// updateline, it sets every value of the line from the request (a value
// left out is zero or empty; the product stays) and answers the document.
func updateLine(find lineFinder, render func(c *call, id int64) fakekit.Answer) operation {
	return func(in *input) step {
		id, fail := in.pathID()
		if fail == nil {
			var lineID int64
			if lineID, fail = in.lineID(); fail == nil {
				b := in.body
				var li lineInput
				li.qty, _ = b.dec("qty")
				li.subprice, li.vat, li.discount = b.optDec("subprice"), b.optDec("tva_tx"), b.optDec("remise_percent")
				li.desc, _ = b.str("desc")
				checkLineBounds(b, li)
				return func(c *call) fakekit.Answer {
					ld, fail := find(c, id)
					if fail != nil {
						return *fail
					}
					d := ld.doc
					if d.status != statusDraft {
						if ld.kind != "order" {
							// The ERP answers an invoice's with 304 and its
							// message, which a 304 cannot carry, and a
							// proposal's with 200 false: both nothing done.
							return nothingDone()
						}
						return badRequest("Order status makes operation forbidden")
					}
					i, fail := findLine(d, lineID)
					if fail != nil {
						return *fail
					}
					if msg := b.problem(); msg != "" {
						return badRequest(msg)
					}
					old := d.lines[i]
					l := *old
					l.qty, l.desc = zeroIfNil(li.qty), li.desc
					l.subprice, l.vat, l.discount = zeroIfNil(li.subprice.v), zeroIfNil(li.vat.v), zeroIfNil(li.discount.v)
					computeLine(&l)
					if !fitsDecimal(l.ttc) || !fitsDecimal(l.ht) {
						return badRequest(fmt.Sprintf("the line's total %s has more digits than the ERP keeps: at most 16 before the point (DECIMAL(24,8))", trimDecimal(l.ttc)))
					}
					d.lines[i] = &l
					if a := c.retotal(d, ld.kind); a != nil {
						d.lines[i] = old
						c.retotal(d, ld.kind)
						return *a
					}
					return render(c, id)
				}
			}
		}
		return fails(*fail)
	}
}

func zeroIfNil(r *big.Rat) *big.Rat {
	if r == nil {
		return new(big.Rat)
	}
	return r
}

// deleteLine is DELETE /{invoices,orders}/{id}/lines/{lineid}: a draft's
// line goes; a validated document's cannot (405, the ERP's code).
func deleteLine(find lineFinder, render func(c *call, id int64) fakekit.Answer) operation {
	return func(in *input) step {
		id, fail := in.pathID()
		if fail == nil {
			var lineID int64
			if lineID, fail = in.lineID(); fail == nil {
				return func(c *call) fakekit.Answer {
					ld, fail := find(c, id)
					if fail != nil {
						return *fail
					}
					d := ld.doc
					if d.status != statusDraft {
						return apiError(http.StatusMethodNotAllowed, "ErrorDeleteLineNotAllowedByObjectStatus")
					}
					i, fail := findLine(d, lineID)
					if fail != nil {
						return *fail
					}
					d.lines = append(d.lines[:i:i], d.lines[i+1:]...)
					c.counted("line", -1)
					for j, l := range d.lines {
						l.rank = int64(j + 1)
					}
					c.retotal(d, ld.kind)
					return render(c, id)
				}
			}
		}
		return fails(*fail)
	}
}

// listLines is GET /{invoices,orders}/{id}/lines.
func listLines(find lineFinder) operation {
	return byPath(func(c *call, id int64) fakekit.Answer {
		ld, fail := find(c, id)
		if fail != nil {
			return *fail
		}
		return okJSON(c.renderLines(ld.doc.lines))
	})
}
