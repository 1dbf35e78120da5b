package erp

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// InvoiceType is the kind of an invoice.
type InvoiceType int

// Invoice types.
const (
	InvoiceStandard    InvoiceType = 0
	InvoiceReplacement InvoiceType = 1
	InvoiceCreditNote  InvoiceType = 2
	InvoiceDeposit     InvoiceType = 3
)

// String names the type.
func (t InvoiceType) String() string {
	switch t {
	case InvoiceStandard:
		return "standard"
	case InvoiceReplacement:
		return "replacement"
	case InvoiceCreditNote:
		return "credit note"
	case InvoiceDeposit:
		return "deposit"
	}
	return fmt.Sprintf("InvoiceType(%d)", int(t))
}

// UnmarshalJSON reads the type as a number or a string.
func (t *InvoiceType) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: invoice type: %w", err)
	}
	*t = InvoiceType(n)
	return nil
}

// InvoiceStatus is where an invoice is in its life: a draft with a
// provisional ref "(PROVn)", validated with its final ref (and unpaid),
// paid, or abandoned.
type InvoiceStatus int

// Invoice statuses.
const (
	InvoiceDraft     InvoiceStatus = 0
	InvoiceValidated InvoiceStatus = 1
	InvoicePaid      InvoiceStatus = 2
	InvoiceAbandoned InvoiceStatus = 3
)

// String names the status.
func (s InvoiceStatus) String() string {
	switch s {
	case InvoiceDraft:
		return "draft"
	case InvoiceValidated:
		return "validated"
	case InvoicePaid:
		return "paid"
	case InvoiceAbandoned:
		return "abandoned"
	}
	return fmt.Sprintf("InvoiceStatus(%d)", int(s))
}

// UnmarshalJSON reads the status as a number or a string.
func (s *InvoiceStatus) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: invoice status: %w", err)
	}
	*s = InvoiceStatus(n)
	return nil
}

// Invoice is a customer invoice.
type Invoice struct {
	ID        ID            `json:"id"`
	Ref       string        `json:"ref"`        // "(PROV7)" while a draft, "FA2611-0001" once validated
	RefClient string        `json:"ref_client"` // the customer's reference
	SocID     ID            `json:"socid"`      // the third party invoiced
	Type      InvoiceType   `json:"type"`
	Status    InvoiceStatus `json:"status"` // "status", or "statut" in older versions
	Paid      Bool          `json:"paye"`
	// Date is the invoice date; DueDate the payment due date.
	Date           Time    `json:"date"`
	DueDate        Time    `json:"date_lim_reglement"`
	DateCreation   Time    `json:"date_creation"`
	DateValidation Time    `json:"date_validation"`
	TotalHT        Decimal `json:"total_ht"`  // before tax
	TotalTVA       Decimal `json:"total_tva"` // the tax
	TotalTTC       Decimal `json:"total_ttc"` // with tax
	NotePublic     string  `json:"note_public"`
	NotePrivate    string  `json:"note_private"`
	AuthorID       ID      `json:"fk_user_author"`
	Entity         ID      `json:"entity"`
	// TotalPaid is what payments have paid; RemainToPay what remains of
	// TotalTTC.
	TotalPaid   Decimal `json:"totalpaid"`
	RemainToPay Decimal `json:"remaintopay"`
	// CloseCode and CloseNote say why an invoice was classified paid that
	// its payments do not cover (see SetInvoicePaid).
	CloseCode string `json:"close_code"`
	CloseNote string `json:"close_note"`
	Lines     []Line `json:"lines"`
	Extra     Extra  `json:"-"`
}

var invoiceKeys = keysOf[Invoice]("statut")

// UnmarshalJSON decodes an invoice, keeping unknown fields in Extra.
func (inv *Invoice) UnmarshalJSON(b []byte) error {
	type plain Invoice
	var w struct {
		*plain
		Status *InvoiceStatus `json:"status"`
		Statut *InvoiceStatus `json:"statut"`
		Lines  []wireLine     `json:"lines"`
	}
	w.plain = (*plain)(inv)
	lines, err := decodeDocument(b, &w, invoiceKeys, &inv.Extra, &w.Lines)
	if err != nil {
		return err
	}
	inv.Lines, inv.Status = lines, firstOf(w.Status, w.Statut)
	return nil
}

// MarshalJSON encodes an invoice with its Extra fields.
func (inv Invoice) MarshalJSON() ([]byte, error) {
	type plain Invoice
	return marshalRecord(plain(inv), inv.Extra)
}

func (inv *Invoice) recordID() ID { return inv.ID }

// Invoice status filters (ListInvoicesOptions.Status).
const (
	InvoicesDraft     = "draft"
	InvoicesUnpaid    = "unpaid"
	InvoicesPaid      = "paid"
	InvoicesCancelled = "cancelled"
)

// ListInvoicesOptions pages and filters invoices (sort fields t.rowid, the
// default, t.ref, t.datef, t.total_ttc, …; filter on the llx_facture
// columns: t.ref, t.fk_soc, t.fk_statut, t.type, t.datef, t.total_ht,
// t.total_tva, t.total_ttc, t.paye).
type ListInvoicesOptions struct {
	ListOptions
	// Status keeps drafts, unpaid (validated), paid or cancelled invoices.
	Status string
	// ThirdpartyIDs keeps the invoices of these third parties.
	ThirdpartyIDs []ID
}

func (o *ListInvoicesOptions) split() (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	q := thirdpartyQuery(o.ThirdpartyIDs)
	if o.Status != "" {
		q.Set("status", o.Status)
	}
	return &o.ListOptions, q
}

func idList(ids []ID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.FormatInt(int64(id), 10)
	}
	return strings.Join(parts, ",")
}

// ListInvoices returns one page of invoices, with their lines.
//
// ERP API: GET /invoices
func (c *Client) ListInvoices(ctx context.Context, opts *ListInvoicesOptions) (*Page[Invoice], error) {
	lo, q := opts.split()
	return list[Invoice](ctx, c, "/invoices", lo, q)
}

// AllInvoices iterates the invoices a page at a time.
//
// ERP API: GET /invoices
func (c *Client) AllInvoices(ctx context.Context, opts *ListInvoicesOptions) iter.Seq2[*Invoice, error] {
	lo, q := opts.split()
	return all[Invoice](ctx, c, "/invoices", lo, q)
}

// GetInvoice returns an invoice by id.
//
// ERP API: GET /invoices/{id}
func (c *Client) GetInvoice(ctx context.Context, id ID) (*Invoice, error) {
	return do[Invoice](ctx, c, http.MethodGet, "/invoices/"+id.String(), nil, nil)
}

// CreateInvoiceRequest is the body of POST /invoices.
type CreateInvoiceRequest struct {
	// SocID names the third party invoiced; it must exist.
	SocID ID          `json:"socid"`
	Type  InvoiceType `json:"type"`
	// Lines' products must exist. Totals are computed by the server.
	Lines       []LineRequest  `json:"lines"`
	Date        *Time          `json:"date,omitempty"` // default: today
	DueDate     *Time          `json:"date_lim_reglement,omitempty"`
	RefClient   string         `json:"ref_client,omitempty"`
	NotePublic  string         `json:"note_public,omitempty"`
	NotePrivate string         `json:"note_private,omitempty"`
	Extra       map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CreateInvoiceRequest) MarshalJSON() ([]byte, error) {
	type plain CreateInvoiceRequest
	if r.Lines == nil {
		r.Lines = []LineRequest{}
	}
	return withExtra(plain(r), r.Extra)
}

// CreateInvoice creates a draft invoice, with a provisional ref, and returns
// it.
//
// ERP API: POST /invoices, then GET /invoices/{id} when the
// ERP answers with the bare id
func (c *Client) CreateInvoice(ctx context.Context, req *CreateInvoiceRequest) (*Invoice, error) {
	if req == nil || req.SocID <= 0 {
		return nil, errors.New("erp: CreateInvoice needs a socid")
	}
	return create[Invoice](ctx, c, "/invoices", req)
}

// ValidateOptions are the parameters of a validation.
type ValidateOptions struct {
	// WarehouseID is the warehouse whose stock moves, when the ERP is set to
	// move stock on validation.
	WarehouseID ID
	// NoTrigger skips the ERP's business triggers (notifications, …).
	NoTrigger bool
}

func (o *ValidateOptions) body() map[string]int64 {
	b := map[string]int64{"idwarehouse": 0, "notrigger": 0}
	if o != nil {
		b["idwarehouse"] = int64(o.WarehouseID)
		if o.NoTrigger {
			b["notrigger"] = 1
		}
	}
	return b
}

// ValidateInvoice validates a draft invoice: it gets its final ref (prefix,
// year and month, counter: "FA2611-0001") and can no longer be edited. An
// invoice that is not a draft is ErrNothingDone.
//
// ERP API: POST /invoices/{id}/validate
func (c *Client) ValidateInvoice(ctx context.Context, id ID, opts *ValidateOptions) (*Invoice, error) {
	return do[Invoice](ctx, c, http.MethodPost, "/invoices/"+id.String()+"/validate", nil, opts.body())
}

// UpdateInvoiceRequest is the body of PUT /invoices/{id}: the invoice's
// own fields (its lines have their own calls); nil fields are left as they
// are.
type UpdateInvoiceRequest struct {
	RefClient   *string        `json:"ref_client,omitempty"`
	Date        *Time          `json:"date,omitempty"`
	DueDate     *Time          `json:"date_lim_reglement,omitempty"`
	NotePublic  *string        `json:"note_public,omitempty"`
	NotePrivate *string        `json:"note_private,omitempty"`
	Extra       map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r UpdateInvoiceRequest) MarshalJSON() ([]byte, error) {
	type plain UpdateInvoiceRequest
	return withExtra(plain(r), r.Extra)
}

// UpdateInvoice changes an invoice's own fields and returns it as it now
// is.
//
// ERP API: PUT /invoices/{id}
func (c *Client) UpdateInvoice(ctx context.Context, id ID, req *UpdateInvoiceRequest) (*Invoice, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateInvoice needs a request")
	}
	return do[Invoice](ctx, c, http.MethodPut, "/invoices/"+id.String(), nil, req)
}

// DeleteInvoice deletes a draft invoice. An invoice with its final ref is
// not erasable: the ERP refuses it with 403 (ErrForbidden).
//
// ERP API: DELETE /invoices/{id}
func (c *Client) DeleteInvoice(ctx context.Context, id ID) error {
	return c.deleteRecord(ctx, "/invoices/"+id.String())
}

// CreateInvoiceFromOrder makes a draft invoice from an order: the order's
// third party, lines, customer ref and notes.
//
// ERP API: POST /invoices/createfromorder/{orderid}
func (c *Client) CreateInvoiceFromOrder(ctx context.Context, orderID ID) (*Invoice, error) {
	if orderID <= 0 {
		return nil, errors.New("erp: CreateInvoiceFromOrder needs an order id")
	}
	return do[Invoice](ctx, c, http.MethodPost, "/invoices/createfromorder/"+orderID.String(), nil, nil)
}
