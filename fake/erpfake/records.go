package erpfake

import (
	"net/http"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The fake keeps at most WithMaxRecords records of each kind (users, third
// parties, contacts, products, invoices, orders, proposals, document lines, payments
// of invoices). A create past the bound is refused as the ERP refuses an
// insert its database turns down, with the database's message ("The table
// 'llx_facture' is full", what MySQL says of a full table) in the API's
// error shape, and nothing is written.

// tables are the ERP's database tables of the kinds the fake bounds, for
// the refusal's message.
var tables = map[string]string{
	"user": "llx_user", "thirdparty": "llx_societe", "contact": "llx_socpeople", "product": "llx_product",
	"invoice": "llx_facture", "order": "llx_commande", "proposal": "llx_propal", "payment": "llx_paiement_facture",
}

// lineTables are the tables of a document's lines, by the document's kind.
var lineTables = map[string]string{"invoice": "llx_facturedet", "order": "llx_commandedet", "proposal": "llx_propaldet"}

// tableFull is the database's refusal of an insert into table.
func tableFull(table string) string { return "The table '" + table + "' is full" }

// stateRecords counts the lines and payments of one state (the kinds kept
// inside other records).
type stateRecords struct {
	st   *state
	recs *fakekit.Records
}

// records is the count of s.st's lines and payments, derived from it when
// first needed, and again for a state that replaced it (Reset, Restore).
// s.mu must be held.
func (s *Server) records() *fakekit.Records {
	if st := s.st; s.recs.st != st {
		s.recs = stateRecords{st, fakekit.NewRecords(s.maxRecords(), func(add func(string, int)) {
			st.eachEntity(func(r *entityRecords) {
				for _, inv := range r.invoices {
					add("line", len(inv.lines))
					add("payment", len(inv.payments))
				}
				for _, o := range r.orders {
					add("line", len(o.lines))
				}
				for _, p := range r.proposals {
					add("line", len(p.lines))
				}
			})
		})}
	}
	return s.recs.recs
}

// room reports whether n more records of kind fit.
func (c *call) room(kind string, n int) bool {
	max := c.s.maxRecords()
	switch kind {
	case "user":
		return len(c.st.users)+n <= max
	case "thirdparty":
		return c.st.count(func(r *entityRecords) int { return len(r.thirdparties) })+n <= max
	case "contact":
		return c.st.count(func(r *entityRecords) int { return len(r.contacts) })+n <= max
	case "product":
		return c.st.count(func(r *entityRecords) int { return len(r.products) })+n <= max
	case "invoice":
		return c.st.count(func(r *entityRecords) int { return len(r.invoices) })+n <= max
	case "order":
		return c.st.count(func(r *entityRecords) int { return len(r.orders) })+n <= max
	case "proposal":
		return c.st.count(func(r *entityRecords) int { return len(r.proposals) })+n <= max
	}
	return c.s.records().Room(kind, n)
}

// counted counts n records of kind added (n < 0: removed), for the kinds
// records keeps.
func (c *call) counted(kind string, n int) { c.s.records().Add(kind, n) }

// full is the refusal of a create of kind (with lines new lines in it)
// when there is no room for it, or nil: 500 with what (the ERP's "Error
// creating invoice") and the database's message.
func (c *call) full(kind string, lines int, what string) *fakekit.Answer {
	table := ""
	switch {
	case !c.room(kind, 1):
		table = tables[kind]
	case lines > 0 && !c.room("line", lines):
		table = lineTables[kind]
	default:
		return nil
	}
	a := apiError(http.StatusInternalServerError, what, tableFull(table))
	return &a
}

// maxRecords is the bound of each kind.
func (s *Server) maxRecords() int {
	if s.cfg.maxRecords > 0 {
		return s.cfg.maxRecords
	}
	return fakekit.DefaultMaxRecords
}
