package erpfake

import (
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

func (c *call) renderOrder(o *order) []byte { return render(c, (*call).appendOrder, o) }

var orders = func() *collection[*order] {
	fields := documentFields(func(o *order) *document { return &o.document }, "date_commande")
	fields["facture"] = boolField(func(o *order) bool { return o.billed })
	fields["date_livraison"] = timeField(func(o *order) time.Time { return o.delivery })
	return &collection[*order]{noun: "order", defaultSort: "t.rowid", write: (*call).appendOrder, fields: fields}
}()

func listOrders(in *input) step {
	return listOfThirdparties(in, orders, func(st *state) []*order { return st.orders }, func(o *order) *thirdparty { return o.soc })
}

func getOrder(c *call, id int64) fakekit.Answer {
	o, fail := findByID(c.st.orders, id, "Order")
	if fail != nil {
		return *fail
	}
	return okJSON(c.renderOrder(o))
}

// createOrder makes a draft order with the provisional ref "(PROVn)".
func createOrder(in *input) step {
	b := in.body
	doc := readDocument(b)
	delivery, hasDelivery := b.unixTime("delivery_date")
	return func(c *call) fakekit.Answer {
		o := &order{}
		if fail := doc.build(c, b, &o.document, "order"); fail != nil {
			return *fail
		}
		if fail := c.full("order", len(o.lines), "Error creating order"); fail != nil {
			return *fail
		}
		if hasDelivery {
			o.delivery = dayOf(delivery)
		}
		c.addDocument(&o.document, "order")
		c.st.orders = append(c.st.orders, o)
		return c.created(o.id, c.renderOrder(o))
	}
}

func validateOrder(c *call, id int64) fakekit.Answer {
	o, fail := findByID(c.st.orders, id, "Order")
	if fail != nil {
		return *fail
	}
	if a := c.validate(&o.document, "CO", "Order"); a.Status != 0 {
		return a
	}
	return okJSON(c.renderOrder(o))
}

// closeOrder closes a validated (or shipping) order. A draft cannot be
// closed: it must be validated first. A closed order is nothing done.
func closeOrder(c *call, id int64) fakekit.Answer {
	o, fail := findByID(c.st.orders, id, "Order")
	if fail != nil {
		return *fail
	}
	switch o.status {
	case orderClosed:
		return nothingDone()
	case statusDraft:
		return badRequest("Error when closing Order: " + o.ref + " is a draft; validate it before closing it")
	case orderCanceled:
		return badRequest("Error when closing Order: " + o.ref + " is canceled")
	}
	o.status = orderClosed
	o.closedAt = c.st.now()
	return okJSON(c.renderOrder(o))
}

// updateOrder is PUT /orders/{id}: the customer's ref, notes, dates.
func updateOrder(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	p := readDocPatch(in.body)
	delivery, hasDelivery := in.body.unixTime("delivery_date")
	return func(c *call) fakekit.Answer {
		o, fail := findByID(c.st.orders, id, "Order")
		if fail != nil {
			return *fail
		}
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		p.apply(&o.document)
		if hasDelivery {
			o.delivery = dayOf(delivery)
		}
		return okJSON(c.renderOrder(o))
	}
}

// deleteOrder is DELETE /orders/{id}. The ERP lets whoever may delete
// orders delete one in any state; the invoices made from it stay.
func deleteOrder(c *call, id int64) fakekit.Answer {
	o, fail := findByID(c.st.orders, id, "Order")
	if fail != nil {
		return *fail
	}
	for _, inv := range c.st.invoices {
		if inv.order == o {
			inv.order = nil
		}
	}
	c.st.orders = remove(c.st.orders, o)
	c.counted("line", -len(o.lines))
	return deleted("Order deleted")
}

// reopenOrder is POST /orders/{id}/reopen: a closed (or canceled) order is
// validated again; any other is nothing done. The ERP answers 1.
func reopenOrder(c *call, id int64) fakekit.Answer {
	o, fail := findByID(c.st.orders, id, "Order")
	if fail != nil {
		return *fail
	}
	if o.status != orderClosed && o.status != orderCanceled {
		return nothingDone()
	}
	o.status = statusValidated
	o.closedAt = time.Time{}
	o.billed = false // as the ERP's set_reopen does
	return ok(c.num.int(1))
}
