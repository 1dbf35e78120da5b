package erpfake

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

func (c *call) renderInvoice(inv *invoice) []byte { return render(c, (*call).appendInvoice, inv) }

var invoices = func() *collection[*invoice] {
	fields := documentFields(func(inv *invoice) *document { return &inv.document }, "datef")
	fields["type"] = intField(false, func(inv *invoice) int64 { return inv.typ })
	fields["paye"] = boolField(func(inv *invoice) bool { return inv.paid })
	fields["date_lim_reglement"] = timeField(func(inv *invoice) time.Time { return inv.due })
	return &collection[*invoice]{noun: "invoice", defaultSort: "t.rowid", write: (*call).appendInvoice, fields: fields}
}()

func listInvoices(in *input) step {
	q := query(in.r)
	lq, fail := parseList(q, invoices)
	if fail != nil {
		return fails(*fail)
	}
	socs, fail := idsParam(q.Get("thirdparty_ids"), "thirdparty_ids")
	if fail != nil {
		return fails(*fail)
	}
	status := q.Get("status")
	switch status {
	case "", "draft", "unpaid", "paid", "cancelled":
	default:
		return fails(badRequest("Error when validating parameter status -> it is one of draft, unpaid, paid, cancelled"))
	}
	return func(c *call) fakekit.Answer {
		return lq.answer(c, c.st.invoices, func(inv *invoice) bool { return keepInvoice(inv, socs, status) })
	}
}

// keepInvoice applies the invoice list's own parameters: thirdparty_ids
// (nil: any) and status.
func keepInvoice(inv *invoice, socs map[int64]bool, status string) bool {
	if socs != nil && !socs[inv.soc.id] {
		return false
	}
	switch status {
	case "draft":
		return inv.status == statusDraft
	case "unpaid":
		return inv.status == statusValidated && !inv.paid
	case "paid":
		return inv.status == invoicePaid
	case "cancelled":
		return inv.status == invoiceCanceled
	}
	return true
}

func getInvoice(c *call, id int64) fakekit.Answer {
	inv, fail := findByID(c.st.invoices, id, "Invoice")
	if fail != nil {
		return *fail
	}
	return okJSON(c.renderInvoice(inv))
}

// createInvoice makes a draft invoice with the provisional ref "(PROVn)".
func createInvoice(in *input) step {
	b := in.body
	doc := readDocument(b)
	typ, _ := b.int("type")
	if typ < 0 || typ > 3 {
		b.fail("type must be 0 (standard), 1 (replacement), 2 (credit note) or 3 (deposit)")
	}
	due, hasDue := b.unixTime("date_lim_reglement")
	return func(c *call) fakekit.Answer {
		inv := &invoice{typ: typ}
		if fail := doc.build(c, b, &inv.document, "invoice"); fail != nil {
			return *fail
		}
		if fail := c.full("invoice", len(inv.lines), "Error creating invoice"); fail != nil {
			return *fail
		}
		inv.due = inv.date
		if hasDue {
			inv.due = dayOf(due)
		}
		c.addDocument(&inv.document, "invoice")
		c.st.invoices = append(c.st.invoices, inv)
		return c.created(inv.id, c.renderInvoice(inv))
	}
}

// invoicePrefix is the prefix of final refs by invoice type, as in the
// ERP's default numbering: FA for invoices, AV for credit notes, AC for
// deposits.
func invoicePrefix(typ int64) string {
	switch typ {
	case 2:
		return "AV"
	case 3:
		return "AC"
	}
	return "FA"
}

func validateInvoice(c *call, id int64) fakekit.Answer {
	inv, fail := findByID(c.st.invoices, id, "Invoice")
	if fail != nil {
		return *fail
	}
	if a := c.validate(&inv.document, invoicePrefix(inv.typ), "Invoice"); a.Status != 0 {
		return a
	}
	return okJSON(c.renderInvoice(inv))
}

// updateInvoice is PUT /invoices/{id}: the customer's ref, notes, dates.
func updateInvoice(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	p := readDocPatch(in.body)
	due, hasDue := in.body.unixTime("date_lim_reglement")
	return func(c *call) fakekit.Answer {
		inv, fail := findByID(c.st.invoices, id, "Invoice")
		if fail != nil {
			return *fail
		}
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		p.apply(&inv.document)
		if hasDue {
			inv.due = dayOf(due)
		}
		return okJSON(c.renderInvoice(inv))
	}
}

// deleteInvoice is DELETE /invoices/{id}: a draft can be deleted; an
// invoice with a final ref cannot ("Invoice not erasable").
func deleteInvoice(c *call, id int64) fakekit.Answer {
	inv, fail := findByID(c.st.invoices, id, "Invoice")
	if fail != nil {
		return *fail
	}
	if inv.status != statusDraft {
		return apiError(http.StatusForbidden, "Invoice not erasable")
	}
	c.st.invoices = remove(c.st.invoices, inv)
	c.counted("line", -len(inv.lines))
	return deleted("Invoice deleted")
}

// createInvoiceFromOrder is POST /invoices/createfromorder/{orderid}: a
// draft invoice for the order's third party, with its lines, refs and
// notes. The route cannot sit in the route table beside
// /invoices/{id}/lines (http.ServeMux would find them ambiguous), so the
// table's fallback sends it here.
func createInvoiceFromOrder(orderID string) operation {
	return func(in *input) step {
		n, err := strconv.ParseInt(orderID, 10, 64)
		if err != nil || n < minInt || n > maxInt {
			if isDigits(strings.TrimPrefix(orderID, "-")) && orderID != "" && orderID != "-" {
				return fails(badRequest("Invalid value specified for `orderid`. Expecting integer value from " + intRange))
			}
			n = -1
		}
		return func(c *call) fakekit.Answer {
			if n == 0 {
				return badRequest("Order ID is mandatory")
			}
			o, found := byID(c.st.orders, n)
			if !found {
				return notFound("Order not found")
			}
			if !c.room("invoice", 1) || !c.room("line", len(o.lines)) {
				table := tables["invoice"]
				if c.room("invoice", 1) {
					table = lineTables["invoice"]
				}
				// The ERP answers a failed createFromOrder with 405 and the invoice's error.
				return apiError(http.StatusMethodNotAllowed, tableFull(table))
			}
			now := c.st.now()
			inv := &invoice{order: o}
			inv.document = document{refClient: o.refClient, soc: o.soc, date: dayOf(now), datec: now, author: c.user,
				notePublic: o.notePublic, notePrivate: o.notePrivate}
			inv.due = inv.date
			for _, l := range o.lines {
				cp := *l
				inv.lines = append(inv.lines, &cp)
			}
			inv.computeTotals()
			c.addDocument(&inv.document, "invoice")
			c.st.invoices = append(c.st.invoices, inv)
			return okJSON(c.renderInvoice(inv))
		}
	}
}
