package erp

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"

	"github.com/apitwin/apitwin/internal/rest"
)

// OrderStatus is where a customer order is in its life: draft → validated →
// (shipping) → closed, or canceled.
type OrderStatus int

// Order statuses.
const (
	OrderCanceled  OrderStatus = -1
	OrderDraft     OrderStatus = 0
	OrderValidated OrderStatus = 1
	OrderShipping  OrderStatus = 2 // shipment in progress
	OrderClosed    OrderStatus = 3 // delivered
)

// String names the status.
func (s OrderStatus) String() string {
	switch s {
	case OrderCanceled:
		return "canceled"
	case OrderDraft:
		return "draft"
	case OrderValidated:
		return "validated"
	case OrderShipping:
		return "shipping"
	case OrderClosed:
		return "closed"
	}
	return fmt.Sprintf("OrderStatus(%d)", int(s))
}

// UnmarshalJSON reads the status as a number or a string.
func (s *OrderStatus) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: order status: %w", err)
	}
	*s = OrderStatus(n)
	return nil
}

// Order is a customer order.
type Order struct {
	ID             ID          `json:"id"`
	Ref            string      `json:"ref"` // "(PROV3)" while a draft, "CO2611-0001" once validated
	RefClient      string      `json:"ref_client"`
	SocID          ID          `json:"socid"`
	Status         OrderStatus `json:"status"` // "status", or "statut" in older versions
	Billed         Bool        `json:"billed"`
	Date           Time        `json:"date"` // the order date
	DeliveryDate   Time        `json:"delivery_date"`
	DateCreation   Time        `json:"date_creation"`
	DateValidation Time        `json:"date_validation"`
	TotalHT        Decimal     `json:"total_ht"`
	TotalTVA       Decimal     `json:"total_tva"`
	TotalTTC       Decimal     `json:"total_ttc"`
	NotePublic     string      `json:"note_public"`
	NotePrivate    string      `json:"note_private"`
	AuthorID       ID          `json:"user_author_id"`
	Entity         ID          `json:"entity"`
	Lines          []Line      `json:"lines"`
	Extra          Extra       `json:"-"`
}

var orderKeys = keysOf[Order]("statut")

// UnmarshalJSON decodes an order, keeping unknown fields in Extra.
func (o *Order) UnmarshalJSON(b []byte) error {
	type plain Order
	var w struct {
		*plain
		Status *OrderStatus `json:"status"`
		Statut *OrderStatus `json:"statut"`
		Lines  []wireLine   `json:"lines"`
	}
	w.plain = (*plain)(o)
	lines, err := decodeDocument(b, &w, orderKeys, &o.Extra, &w.Lines)
	if err != nil {
		return err
	}
	o.Lines, o.Status = lines, firstOf(w.Status, w.Statut)
	return nil
}

// MarshalJSON encodes an order with its Extra fields.
func (o Order) MarshalJSON() ([]byte, error) {
	type plain Order
	return marshalRecord(plain(o), o.Extra)
}

func (o *Order) recordID() ID { return o.ID }

// ListOrdersOptions pages and filters orders (sort fields t.rowid, the
// default, t.ref, t.date_commande, …; filter on the llx_commande columns:
// t.ref, t.fk_soc, t.fk_statut, t.date_commande, t.total_ttc).
type ListOrdersOptions struct {
	ListOptions
	// ThirdpartyIDs keeps the orders of these third parties.
	ThirdpartyIDs []ID
}

func (o *ListOrdersOptions) split() (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	return &o.ListOptions, thirdpartyQuery(o.ThirdpartyIDs)
}

// ListOrders returns one page of orders, with their lines.
//
// ERP API: GET /orders
func (c *Client) ListOrders(ctx context.Context, opts *ListOrdersOptions) (*Page[Order], error) {
	lo, q := opts.split()
	return list[Order](ctx, c, "/orders", lo, q)
}

// AllOrders iterates the orders a page at a time.
//
// ERP API: GET /orders
func (c *Client) AllOrders(ctx context.Context, opts *ListOrdersOptions) iter.Seq2[*Order, error] {
	lo, q := opts.split()
	return all[Order](ctx, c, "/orders", lo, q)
}

// GetOrder returns an order by id.
//
// ERP API: GET /orders/{id}
func (c *Client) GetOrder(ctx context.Context, id ID) (*Order, error) {
	return do[Order](ctx, c, http.MethodGet, "/orders/"+id.String(), nil, nil)
}

// CreateOrderRequest is the body of POST /orders.
type CreateOrderRequest struct {
	SocID        ID             `json:"socid"`
	Lines        []LineRequest  `json:"lines"`
	Date         *Time          `json:"date,omitempty"` // default: today
	DeliveryDate *Time          `json:"delivery_date,omitempty"`
	RefClient    string         `json:"ref_client,omitempty"`
	NotePublic   string         `json:"note_public,omitempty"`
	NotePrivate  string         `json:"note_private,omitempty"`
	Extra        map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CreateOrderRequest) MarshalJSON() ([]byte, error) {
	type plain CreateOrderRequest
	if r.Lines == nil {
		r.Lines = []LineRequest{}
	}
	return withExtra(plain(r), r.Extra)
}

// CreateOrder creates a draft order and returns it.
//
// ERP API: POST /orders, then GET /orders/{id} when the
// ERP answers with the bare id
func (c *Client) CreateOrder(ctx context.Context, req *CreateOrderRequest) (*Order, error) {
	if req == nil || req.SocID <= 0 {
		return nil, errors.New("erp: CreateOrder needs a socid")
	}
	return create[Order](ctx, c, "/orders", req)
}

// ValidateOrder validates a draft order, giving it its final ref. An order
// that is not a draft is ErrNothingDone.
//
// ERP API: POST /orders/{id}/validate
func (c *Client) ValidateOrder(ctx context.Context, id ID, opts *ValidateOptions) (*Order, error) {
	return do[Order](ctx, c, http.MethodPost, "/orders/"+id.String()+"/validate", nil, opts.body())
}

// CloseOrderOptions are the parameters of closing an order.
type CloseOrderOptions struct {
	NoTrigger bool // skip the ERP's business triggers
}

// CloseOrder closes a validated order (delivered). A draft cannot be closed
// (ErrBadRequest); an order already closed is ErrNothingDone.
//
// ERP API: POST /orders/{id}/close
func (c *Client) CloseOrder(ctx context.Context, id ID, opts *CloseOrderOptions) (*Order, error) {
	body := map[string]int{"notrigger": 0}
	if opts != nil && opts.NoTrigger {
		body["notrigger"] = 1
	}
	return do[Order](ctx, c, http.MethodPost, "/orders/"+id.String()+"/close", nil, body)
}

// UpdateOrderRequest is the body of PUT /orders/{id}: the order's own
// fields (its lines have their own calls); nil fields are left as they
// are.
type UpdateOrderRequest struct {
	RefClient    *string        `json:"ref_client,omitempty"`
	Date         *Time          `json:"date,omitempty"`
	DeliveryDate *Time          `json:"delivery_date,omitempty"`
	NotePublic   *string        `json:"note_public,omitempty"`
	NotePrivate  *string        `json:"note_private,omitempty"`
	Extra        map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r UpdateOrderRequest) MarshalJSON() ([]byte, error) {
	type plain UpdateOrderRequest
	return withExtra(plain(r), r.Extra)
}

// UpdateOrder changes an order's own fields and returns it as it now is.
//
// ERP API: PUT /orders/{id}
func (c *Client) UpdateOrder(ctx context.Context, id ID, req *UpdateOrderRequest) (*Order, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateOrder needs a request")
	}
	return do[Order](ctx, c, http.MethodPut, "/orders/"+id.String(), nil, req)
}

// DeleteOrder deletes an order, in whatever state it is (the ERP lets
// whoever may delete orders do so); invoices made from it stay.
//
// ERP API: DELETE /orders/{id}
func (c *Client) DeleteOrder(ctx context.Context, id ID) error {
	return c.deleteRecord(ctx, "/orders/"+id.String())
}

// ReopenOrder reopens a closed order: it is validated again. An order that
// is not closed (or canceled) is ErrNothingDone. The ERP answers the call
// with 1; the order is then read back and returned.
//
// ERP API: POST /orders/{id}/reopen, then GET /orders/{id}
func (c *Client) ReopenOrder(ctx context.Context, id ID) (*Order, error) {
	if _, err := c.call(ctx, &rest.Request{Method: http.MethodPost, Path: "/orders/" + id.String() + "/reopen"}, nil); err != nil {
		return nil, err
	}
	return c.GetOrder(ctx, id)
}
