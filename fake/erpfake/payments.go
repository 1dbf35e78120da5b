package erpfake

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// A payment pays one invoice or several; each invoice keeps its part. An
// invoice whose parts reach its total is paid once a payment asks to close
// paid invoices (closepaidinvoices "yes"), as the ERP does.

type payment struct {
	id      int64
	ref     string // PAY2611-0001
	date    time.Time
	code    string // the payment mode: VIR, CHQ, CB, LIQ, …
	num     string
	comment string
}

// paymentPart is the amount of a payment that went to one invoice.
type paymentPart struct {
	pay    *payment
	amount *big.Rat
}

// paymentModes are the ERP's standard payment modes (llx_c_paiement), by
// id.
var paymentModes = map[int64]string{1: "TIP", 2: "VIR", 3: "PRE", 4: "LIQ", 6: "CB", 7: "CHQ", 50: "VAD", 51: "TRA", 52: "LCR", 53: "FAC"}

// paid is what the invoice's payments sum to.
func (inv *invoice) paidSum() *big.Rat {
	sum := new(big.Rat)
	for _, p := range inv.payments {
		sum.Add(sum, p.amount)
	}
	return sum
}

// remain is what remains to pay, rounded to the cent as the ERP's
// price2num(…, 'MT') does.
func (inv *invoice) remain() *big.Rat { return inv.remainAfter(inv.paidSum()) }

// paidAndRemain8 are paidSum and remain in counts of 1e-8 (see fixed8),
// computed without big.Rat, when the total and every payment are whole
// numbers of 1e-8 and far enough from the int64 limits; ok is false
// otherwise.
func (inv *invoice) paidAndRemain8() (paid, remain int64, ok bool) {
	const limit = 1 << 60 // sums of two such stay within int64
	ttc, ok := fixed8(inv.ttc)
	if !ok || ttc > limit || ttc < -limit {
		return 0, 0, false
	}
	for _, p := range inv.payments {
		a, ok := fixed8(p.amount)
		if !ok || a > limit || a < -limit {
			return 0, 0, false
		}
		if paid += a; paid > limit || paid < -limit {
			return 0, 0, false
		}
	}
	// round(ttc - paid, 2): to the cent, halves away from zero.
	const cent = scale8 / 100
	x := ttc - paid
	q, r := x/cent, x%cent
	if 2*max(r, -r) >= cent {
		if x < 0 {
			q--
		} else {
			q++
		}
	}
	return paid, q * cent, true
}

// remainAfter is remain, given what the payments sum to.
func (inv *invoice) remainAfter(paid *big.Rat) *big.Rat {
	return round(new(big.Rat).Sub(inv.ttc, paid), 2)
}

// listPayments is GET /invoices/{id}/payments: each payment's part of the
// invoice, oldest first.
func listPayments(c *call, id int64) fakekit.Answer {
	inv, fail := findByID(c.st.invoices, id, "Invoice")
	if fail != nil {
		return *fail
	}
	b := jsonw.AppendArray(make([]byte, 0, 2+len(inv.payments)*160), inv.payments, c.appendPayment)
	return fakekit.Answer{Status: http.StatusOK, Raw: b, ContentType: "application/json"}
}

// paymentInput is the body of a payment: its date, mode, whether to close
// the invoices it pays in full, and the optional texts.
type paymentInput struct {
	date          time.Time
	hasDate       bool
	mode          int64
	closePaid     bool
	num, comment  string
	closeGiven    string
	modeGiven     bool
	accountGiven  bool
	accountID     int64
	badCloseValue bool
}

func readPaymentInput(b *body) paymentInput {
	var p paymentInput
	p.date, p.hasDate = b.unixTime("datepaye")
	p.mode, p.modeGiven = b.int("paymentid")
	p.closeGiven, _ = b.str("closepaidinvoices")
	switch p.closeGiven {
	case "yes":
		p.closePaid = true
	case "no", "":
	default:
		p.badCloseValue = true
	}
	p.accountID, p.accountGiven = b.int("accountid")
	p.num, _ = b.str("num_payment")
	p.comment, _ = b.str("comment")
	return p
}

// check answers the refusals of a payment's own fields, in the ERP's words.
func (p *paymentInput) check(b *body) *fakekit.Answer {
	refuse := func(msg string) *fakekit.Answer { a := badRequest(msg); return &a }
	switch {
	case b.problem() != "":
		return refuse(b.problem())
	case p.badCloseValue:
		return refuse("Invalid value specified for `closepaidinvoices`. Expecting one of yes, no")
	case !p.modeGiven || p.mode == 0:
		return refuse("Payment ID or Payment Code is mandatory")
	case paymentModes[p.mode] == "":
		return refuse("Payment error : ErrorBadValueForParameter paymentid " + strconv.FormatInt(p.mode, 10) + " is no payment mode")
	case p.accountGiven && p.accountID < 1:
		return refuse("Invalid value specified for `accountid`. Expecting integer value from 1")
	}
	return nil
}

// pay records a payment of amounts (by invoice, in the order given) and
// closes the invoices it pays in full when asked to. It answers the
// payment's id.
func (c *call) pay(p paymentInput, invs []*invoice, amounts []*big.Rat) fakekit.Answer {
	if !c.room("payment", len(invs)) {
		return badRequest("Payment error : " + tableFull(tables["payment"]))
	}
	c.counted("payment", len(invs))
	date := c.st.now()
	if p.hasDate {
		date = p.date
	}
	id := c.st.next("payment")
	c.st.refs["PAY"]++
	pm := &payment{id: id, ref: fmt.Sprintf("PAY%s-%04d", date.UTC().Format("0601"), c.st.refs["PAY"]), date: date.UTC(),
		code: paymentModes[p.mode], num: p.num, comment: p.comment}
	for i, inv := range invs {
		inv.payments = append(inv.payments, paymentPart{pay: pm, amount: amounts[i]})
		if p.closePaid && inv.remain().Sign() <= 0 {
			inv.status, inv.paid = invoicePaid, true
		}
	}
	return ok(c.num.id(id))
}

// payable answers why inv cannot be paid now, or nil.
func payable(inv *invoice, what string) *fakekit.Answer {
	refuse := func(msg string) *fakekit.Answer { a := badRequest(msg); return &a }
	switch {
	case inv.status == statusDraft:
		return refuse("Payment error : " + what + " " + inv.ref + " is a draft; validate it before paying it")
	case inv.status == invoiceCanceled:
		return refuse("Payment error : " + what + " " + inv.ref + " is abandoned")
	case inv.paid || inv.remain().Sign() <= 0:
		return refuse("Payment error : " + what + " " + inv.ref + " has nothing left to pay")
	}
	return nil
}

// addPayment is POST /invoices/{id}/payments: a payment of what remains to
// pay on the invoice.
func addPayment(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	p := readPaymentInput(in.body)
	return func(c *call) fakekit.Answer {
		if fail := p.check(in.body); fail != nil {
			return *fail
		}
		inv, fail := findByID(c.st.invoices, id, "Invoice")
		if fail != nil {
			return *fail
		}
		if fail := payable(inv, "invoice"); fail != nil {
			return *fail
		}
		return c.pay(p, []*invoice{inv}, []*big.Rat{inv.remain()})
	}
}

// addDistributedPayment is POST /invoices/paymentsdistributed: one payment
// of given amounts ("remain" for what remains) over several invoices.
func addDistributedPayment(in *input) step {
	b := in.body
	p := readPaymentInput(b)
	type part struct {
		id     int64
		amount *big.Rat // nil: what remains
	}
	var parts []part
	raw, given := b.fields["arrayofamounts"]
	var amounts map[string]map[string]json.RawMessage
	switch {
	case !given || json.Unmarshal(raw, &amounts) != nil || len(amounts) == 0:
		b.fail(`arrayofamounts must be an object of invoice ids to {"amount": "…"}, for example {"1": {"amount": "99.99"}}`)
	default:
		seen := map[int64]bool{}
		for key, a := range amounts {
			id, err := strconv.ParseInt(key, 10, 64)
			if err != nil || id <= 0 || id > maxInt {
				b.fail(`Invoice ID is mandatory. Fill the invoice id and amount into arrayofamounts parameter. For example: {"1": "99.99", "2": "10"}`)
				break
			}
			if seen[id] { // "1" and "01": PHP's array would keep one
				b.fail(fmt.Sprintf("arrayofamounts names invoice %d twice", id))
				break
			}
			seen[id] = true
			ab := &body{fields: a}
			pt := part{id: id}
			if s, _ := ab.str("amount"); s != "remain" {
				v, ok := ab.dec("amount")
				switch {
				case ab.problem() != "":
					b.fail(fmt.Sprintf("arrayofamounts[%d]: %s", id, ab.problem()))
				case !ok || v.Sign() <= 0:
					b.fail(fmt.Sprintf("arrayofamounts[%d]: amount must be more than 0, or \"remain\"", id))
				}
				pt.amount = v
			}
			parts = append(parts, pt)
		}
	}
	// In invoice id order, so the answer does not hang on map order.
	for i := 1; i < len(parts); i++ {
		for j := i; j > 0 && parts[j].id < parts[j-1].id; j-- {
			parts[j], parts[j-1] = parts[j-1], parts[j]
		}
	}
	return func(c *call) fakekit.Answer {
		if fail := p.check(b); fail != nil {
			return *fail
		}
		invs := make([]*invoice, len(parts))
		amts := make([]*big.Rat, len(parts))
		for i, pt := range parts {
			inv, found := byID(c.st.invoices, pt.id)
			if !found {
				return notFound(fmt.Sprintf("Invoice ID %d not found", pt.id))
			}
			if fail := payable(inv, "invoice"); fail != nil {
				return *fail
			}
			remain := inv.remain()
			amt := pt.amount
			if amt == nil {
				amt = remain
			}
			if amt.Cmp(remain) > 0 {
				return badRequest(fmt.Sprintf("Payment amount on invoice ID %d (%s) is higher than remain to pay (%s)", pt.id, trimDecimal(amt), trimDecimal(remain)))
			}
			invs[i], amts[i] = inv, amt
		}
		return c.pay(p, invs, amts)
	}
}

// closeCodes are the reasons the ERP takes for classifying an invoice paid
// when payments do not cover it (close_code).
var closeCodes = map[string]bool{"": true, "discount_vat": true, "badcustomer": true, "bankcharge": true, "withdraw": true, "other": true}

// setPaid is POST /invoices/{id}/settopaid: a validated invoice is
// classified paid, whatever remains (with close_code and close_note saying
// why); one paid already is nothing done.
func setPaid(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	code, _ := in.body.str("close_code")
	note, _ := in.body.str("close_note")
	return func(c *call) fakekit.Answer {
		inv, fail := findByID(c.st.invoices, id, "Invoice")
		if fail != nil {
			return *fail
		}
		switch {
		case in.body.problem() != "":
			return badRequest(in.body.problem())
		case !closeCodes[code]:
			return badRequest("Invalid value specified for `close_code`. Expecting one of discount_vat, badcustomer, bankcharge, withdraw, other")
		case inv.paid:
			return nothingDone()
		case inv.status != statusValidated:
			return apiError(http.StatusInternalServerError, "Error : "+inv.ref+" is not validated; only a validated invoice can be classified paid")
		}
		inv.status, inv.paid, inv.closeCode, inv.closeNote = invoicePaid, true, code, note
		return okJSON(c.renderInvoice(inv))
	}
}

// setUnpaid is POST /invoices/{id}/settounpaid: a paid invoice is unpaid
// (validated) again; any other is nothing done.
func setUnpaid(c *call, id int64) fakekit.Answer {
	inv, fail := findByID(c.st.invoices, id, "Invoice")
	if fail != nil {
		return *fail
	}
	if !inv.paid {
		return nothingDone()
	}
	inv.status, inv.paid, inv.closeCode, inv.closeNote = statusValidated, false, "", ""
	return okJSON(c.renderInvoice(inv))
}
