package erp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/apitwin/apitwin/internal/rest"
)

// PaymentMode is a payment mode's id in the ERP's dictionary
// (llx_c_paiement).
type PaymentMode int

// The standard payment modes.
const (
	PaymentTransfer PaymentMode = 2 // VIR
	PaymentDebit    PaymentMode = 3 // PRE, direct debit
	PaymentCash     PaymentMode = 4 // LIQ
	PaymentCard     PaymentMode = 6 // CB
	PaymentCheque   PaymentMode = 7 // CHQ
)

// Payment is one payment's part of an invoice, as GET
// /invoices/{id}/payments lists it.
type Payment struct {
	Ref    string  `json:"ref"` // the payment's ref: PAY2611-0001
	Amount Decimal `json:"amount"`
	// Type is the payment mode's code: VIR, CHQ, CB, LIQ, …
	Type string `json:"type"`
	Date Time   `json:"date"`
	// Num is the payment's number (a cheque's, a transfer's reference).
	Num      string `json:"num"`
	RefExt   string `json:"ref_ext"`
	BankLine ID     `json:"fk_bank_line"`
	Extra    Extra  `json:"-"`
}

var paymentKeys = keysOf[Payment]()

// UnmarshalJSON decodes a payment, keeping unknown fields in Extra.
func (p *Payment) UnmarshalJSON(b []byte) error {
	type plain Payment
	return decodeRecord(b, (*plain)(p), paymentKeys, &p.Extra, nil)
}

// PaymentRequest is what a payment carries besides its amounts.
type PaymentRequest struct {
	// Mode is the payment mode (required).
	Mode PaymentMode
	// Date is the payment's date; zero: now.
	Date Time
	// ClosePaid moves every invoice the payment pays in full to paid, as
	// the ERP's closepaidinvoices "yes" does. Without it an invoice stays
	// unpaid (validated) whatever it received.
	ClosePaid bool
	// AccountID is the bank account credited; required when the ERP's
	// bank module is on.
	AccountID ID
	// Num is the payment's number (a cheque's, a transfer's reference);
	// Comment a private note.
	Num, Comment string
	// ChequeIssuer and ChequeBank are a cheque's issuer (required for
	// CHQ with the bank module on) and bank.
	ChequeIssuer, ChequeBank string
}

func (r *PaymentRequest) body() (map[string]any, error) {
	if r == nil || r.Mode <= 0 {
		return nil, errors.New("erp: a payment needs a payment mode")
	}
	b := map[string]any{"paymentid": int(r.Mode), "closepaidinvoices": "no"}
	if r.ClosePaid {
		b["closepaidinvoices"] = "yes"
	}
	if !r.Date.IsZero() {
		b["datepaye"] = r.Date.Unix()
	}
	if r.AccountID > 0 {
		b["accountid"] = int64(r.AccountID)
	}
	for k, v := range map[string]string{"num_payment": r.Num, "comment": r.Comment, "chqemetteur": r.ChequeIssuer, "chqbank": r.ChequeBank} {
		if v != "" {
			b[k] = v
		}
	}
	return b, nil
}

// AddInvoicePayment records a payment of what remains to pay on a
// validated invoice and returns the payment's id. With ClosePaid the
// invoice is then paid. A draft, or an invoice with nothing left to pay,
// is refused with 400.
//
// ERP API: POST /invoices/{id}/payments
func (c *Client) AddInvoicePayment(ctx context.Context, invoiceID ID, req *PaymentRequest) (ID, error) {
	b, err := req.body()
	if err != nil {
		return 0, err
	}
	var id ID
	_, err = c.call(ctx, &rest.Request{Method: http.MethodPost, Path: "/invoices/" + invoiceID.String() + "/payments", JSON: b}, &id)
	return id, err
}

// PayInvoices records one payment over several invoices, of the amount
// given for each, and returns its id: how to pay part of an invoice. A nil
// amount pays what remains; an amount over what remains is refused with
// 400.
//
// ERP API: POST /invoices/paymentsdistributed
func (c *Client) PayInvoices(ctx context.Context, amounts map[ID]*Decimal, req *PaymentRequest) (ID, error) {
	b, err := req.body()
	if err != nil {
		return 0, err
	}
	if len(amounts) == 0 {
		return 0, errors.New("erp: PayInvoices needs at least one invoice")
	}
	ids := make([]ID, 0, len(amounts))
	for id := range amounts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	arr := map[string]any{}
	for _, id := range ids {
		if id <= 0 {
			return 0, fmt.Errorf("erp: PayInvoices: invoice id %d", id)
		}
		amount := "remain"
		if a := amounts[id]; a != nil {
			amount = a.String()
		}
		arr[id.String()] = map[string]string{"amount": amount, "multicurrency_amount": ""}
	}
	b["arrayofamounts"] = arr
	var id ID
	_, err = c.call(ctx, &rest.Request{Method: http.MethodPost, Path: "/invoices/paymentsdistributed", JSON: b}, &id)
	return id, err
}

// ListInvoicePayments returns the payments of an invoice, oldest first,
// each with the amount it paid on this invoice.
//
// ERP API: GET /invoices/{id}/payments
func (c *Client) ListInvoicePayments(ctx context.Context, invoiceID ID) ([]*Payment, error) {
	out, err := do[[]*Payment](ctx, c, http.MethodGet, "/invoices/"+invoiceID.String()+"/payments", nil, nil)
	if err != nil {
		return nil, err
	}
	return *out, nil
}

// Reasons for classifying an invoice paid that its payments do not cover
// (SetPaidOptions.CloseCode).
const (
	CloseDiscountVAT = "discount_vat" // an early-payment discount
	CloseBadCustomer = "badcustomer"  // the customer will not pay
	CloseBankCharge  = "bankcharge"   // bank charges took the rest
	CloseWithholding = "withdraw"     // a withholding
	CloseOtherReason = "other"
)

// SetPaidOptions say why an invoice is classified paid when its payments
// do not cover it.
type SetPaidOptions struct {
	CloseCode string // one of the Close… constants
	CloseNote string
}

// SetInvoicePaid classifies a validated invoice paid, whatever remains to
// pay, and returns it. One paid already is ErrNothingDone.
//
// ERP API: POST /invoices/{id}/settopaid
func (c *Client) SetInvoicePaid(ctx context.Context, invoiceID ID, opts *SetPaidOptions) (*Invoice, error) {
	body := map[string]string{}
	if opts != nil {
		if opts.CloseCode != "" {
			body["close_code"] = opts.CloseCode
		}
		if opts.CloseNote != "" {
			body["close_note"] = opts.CloseNote
		}
	}
	return do[Invoice](ctx, c, http.MethodPost, "/invoices/"+invoiceID.String()+"/settopaid", nil, body)
}

// SetInvoiceUnpaid classifies a paid invoice unpaid (validated) again and
// returns it; its payments stay. An invoice that is not paid is
// ErrNothingDone.
//
// ERP API: POST /invoices/{id}/settounpaid
func (c *Client) SetInvoiceUnpaid(ctx context.Context, invoiceID ID) (*Invoice, error) {
	return do[Invoice](ctx, c, http.MethodPost, "/invoices/"+invoiceID.String()+"/settounpaid", nil, nil)
}
