package erpfake

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// Commercial proposals (quotes) are documents as invoices and orders are:
// the same lines, totals and refs. A draft's lines change; validating it
// gives it its final ref "PR2611-0001"; the customer's answer closes it
// signed (2) or not signed (3); an order can be made from it.

// proposalValidity is how long a proposal stays valid from its date: the
// ERP's default (PROPALE_VALIDITY_DURATION, 15 days).
const proposalValidity = 15 * 24 * time.Hour

func (c *call) renderProposal(p *proposal) []byte { return render(c, (*call).appendProposal, p) }

var proposals = func() *collection[*proposal] {
	fields := documentFields(func(p *proposal) *document { return &p.document }, "datep")
	fields["fin_validite"] = timeField(func(p *proposal) time.Time { return p.endValidity })
	return &collection[*proposal]{noun: "proposal", defaultSort: "t.rowid", write: (*call).appendProposal, fields: fields}
}()

func findProposalDoc(c *call, id int64) (lineDoc, *fakekit.Answer) {
	p, fail := findByID(c.st.proposals, id, "Commercial Proposal")
	if fail != nil {
		return lineDoc{}, fail
	}
	return lineDoc{doc: &p.document, kind: "proposal"}, nil
}

func listProposals(in *input) step {
	return listOfThirdparties(in, proposals, func(st *state) []*proposal { return st.proposals }, func(p *proposal) *thirdparty { return p.soc })
}

func getProposal(c *call, id int64) fakekit.Answer {
	p, fail := findByID(c.st.proposals, id, "Commercial Proposal")
	if fail != nil {
		return *fail
	}
	return okJSON(c.renderProposal(p))
}

// createProposal makes a draft proposal with the provisional ref
// "(PROVn)", valid 15 days from its date.
func createProposal(in *input) step {
	b := in.body
	doc := readDocument(b)
	return func(c *call) fakekit.Answer {
		p := &proposal{}
		if fail := doc.build(c, b, &p.document, "proposal"); fail != nil {
			return *fail
		}
		// The ERP's message, which says order (its proposal API was made
		// from its order API).
		if fail := c.full("proposal", len(p.lines), "Error creating order"); fail != nil {
			return *fail
		}
		p.endValidity = p.date.Add(proposalValidity)
		c.addDocument(&p.document, "proposal")
		c.st.proposals = append(c.st.proposals, p)
		return c.created(p.id, c.renderProposal(p))
	}
}

func validateProposal(c *call, id int64) fakekit.Answer {
	p, fail := findByID(c.st.proposals, id, "Commercial Proposal")
	if fail != nil {
		return *fail
	}
	if a := c.validate(&p.document, "PR", "Commercial Proposal"); a.Status != 0 {
		return a
	}
	return okJSON(c.renderProposal(p))
}

// closeProposal is POST /proposals/{id}/close: status 2 (signed) or 3 (not
// signed), required; note_private is added at the end of the private
// note. A validated proposal closes; one closed already is nothing done;
// a draft or a billed one is refused.
func closeProposal(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	b := in.body
	if !b.has("status") {
		return fails(badRequest("`status` is required."))
	}
	status, _ := b.int("status")
	note, _ := b.str("note_private")
	b.int("notrigger")
	if msg := b.problem(); msg != "" {
		return fails(badRequest(msg))
	}
	if status != propalSigned && status != propalNotSigned {
		return fails(badRequest("Invalid value specified for `status`. Expecting integer value from 2 to 3"))
	}
	return func(c *call) fakekit.Answer {
		p, fail := findByID(c.st.proposals, id, "Commercial Proposal")
		if fail != nil {
			return *fail
		}
		switch p.status {
		case propalSigned, propalNotSigned:
			return nothingDone()
		case statusDraft:
			return badRequest("Error when closing Commercial Proposal: " + p.ref + " is a draft; validate it before closing it")
		case propalBilled:
			return badRequest("Error when closing Commercial Proposal: " + p.ref + " is billed")
		}
		p.status = status
		p.closedAt = c.st.now()
		if note != "" {
			// dol_concatdesc: the note, a line break, the new text.
			if p.notePrivate != "" {
				p.notePrivate += "\n"
			}
			p.notePrivate += note
		}
		return okJSON(c.renderProposal(p))
	}
}

// createOrderFromProposal is POST /orders/createfromproposal/{proposalid}:
// a draft order for the proposal's third party, with its lines, ref and
// notes, answered as GET /orders/{id} answers it. Like the ERP's API it
// takes a proposal in any status (its pages offer it for a signed one).
// The route sits aside of /orders/{id}/lines as createfromorder does.
func createOrderFromProposal(proposalID string) operation {
	return func(in *input) step {
		n, err := strconv.ParseInt(proposalID, 10, 64)
		if err != nil || n < minInt || n > maxInt {
			if isDigits(strings.TrimPrefix(proposalID, "-")) && proposalID != "" && proposalID != "-" {
				return fails(badRequest("Invalid value specified for `proposalid`. Expecting integer value from " + intRange))
			}
			n = -1
		}
		return func(c *call) fakekit.Answer {
			if n == 0 {
				return badRequest("Proposal ID is mandatory")
			}
			p, found := byID(c.st.proposals, n)
			if !found {
				return notFound("Proposal not found")
			}
			if !c.room("order", 1) || !c.room("line", len(p.lines)) {
				table := tables["order"]
				if c.room("order", 1) {
					table = lineTables["order"]
				}
				// The ERP answers a failed createFromProposal with 405 and the order's error.
				return apiError(http.StatusMethodNotAllowed, tableFull(table))
			}
			now := c.st.now()
			o := &order{}
			o.document = document{refClient: p.refClient, soc: p.soc, date: dayOf(now), datec: now, author: c.user,
				notePublic: p.notePublic, notePrivate: p.notePrivate}
			for _, l := range p.lines {
				cp := *l
				o.lines = append(o.lines, &cp)
			}
			o.computeTotals()
			c.addDocument(&o.document, "order")
			c.st.orders = append(c.st.orders, o)
			return okJSON(c.renderOrder(o))
		}
	}
}
