package erp

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/apitwin/apitwin/internal/rest"
)

// Line is a line of an invoice or an order.
type Line struct {
	ID           ID          `json:"id"`
	ProductID    ID          `json:"fk_product"` // 0 for a free-text line
	ProductRef   string      `json:"product_ref"`
	ProductLabel string      `json:"product_label"`
	ProductType  ProductType `json:"product_type"`
	Description  string      `json:"desc"`
	Qty          Decimal     `json:"qty"`
	Subprice     Decimal     `json:"subprice"`       // unit price before tax and discount
	Discount     Decimal     `json:"remise_percent"` // percent
	VATRate      Decimal     `json:"tva_tx"`         // percent
	TotalHT      Decimal     `json:"total_ht"`       // before tax
	TotalTVA     Decimal     `json:"total_tva"`      // the tax
	TotalTTC     Decimal     `json:"total_ttc"`      // with tax
	Rank         int         `json:"rang"`           // position in the document
	Extra        Extra       `json:"-"`
}

var lineKeys = keysOf[Line]("rowid")

// UnmarshalJSON decodes a line, keeping unknown fields in Extra. Its id
// comes from "id" or, in versions that send only that, "rowid".
func (l *Line) UnmarshalJSON(b []byte) error {
	var w wireLine
	if err := decodeRecord(b, &w, lineKeys, &l.Extra, nil); err != nil {
		return err
	}
	extra := l.Extra
	*l = w.line()
	l.Extra = extra
	return nil
}

// linePlain is Line without its methods, for decoding its fields.
type linePlain Line

// wireLine is a line as the ERP sends it: rang may be a string, and the id
// may come as rowid only.
type wireLine struct {
	linePlain
	Rank  *ID `json:"rang"`
	RowID *ID `json:"rowid"`
}

func (w *wireLine) line() Line {
	l := Line(w.linePlain)
	if l.ID == 0 && w.RowID != nil {
		l.ID = *w.RowID
	}
	if w.Rank != nil {
		l.Rank = int(*w.Rank)
	}
	return l
}

// decodeDocument decodes an invoice or an order into w, the document's
// method-less twin wrapped with its lines as wireLines (*wire, a field of
// w), so that the lines are read in the document's own pass; it returns
// the finished lines. Unknown fields go to *extra as decodeRecord says.
func decodeDocument(b []byte, w any, known keySet, extra *Extra, wire *[]wireLine) ([]Line, error) {
	var rawLines []byte
	onKnown := func(key, value []byte) {
		if string(key) == "lines" {
			rawLines = value
		}
	}
	if err := decodeRecord(b, w, known, extra, onKnown); err != nil {
		return nil, err
	}
	return linesFrom(*wire, rawLines), nil
}

// linesFrom finishes the lines of a document decoded as wireLines in the
// document's own pass (one pass over the bytes instead of one per line):
// it converts them and collects each line's extra fields from raw, the
// "lines" array.
func linesFrom(wire []wireLine, raw []byte) []Line {
	if wire == nil {
		return nil
	}
	lines := make([]Line, len(wire))
	for i := range wire {
		lines[i] = wire[i].line()
	}
	forEachElement(raw, func(i int, elem []byte) {
		if i >= len(lines) {
			return
		}
		forEachMember(elem, func(key, value []byte) {
			if lineKeys[string(key)] {
				return
			}
			if lines[i].Extra == nil {
				lines[i].Extra = Extra{}
			}
			lines[i].Extra[string(key)] = slices.Clone(value)
		})
	})
	return lines
}

// MarshalJSON encodes a line with its Extra fields.
func (l Line) MarshalJSON() ([]byte, error) {
	type plain Line
	return marshalRecord(plain(l), l.Extra)
}

// LineRequest is a line of a new invoice or order. A line names a product
// (ProductID) or is free text (Description). Qty is required; a nil
// Subprice or VATRate takes the product's price or VAT rate, and a
// free-text line needs a Subprice.
type LineRequest struct {
	ProductID   ID           `json:"fk_product,omitempty"`
	Qty         Decimal      `json:"qty"`
	Subprice    *Decimal     `json:"subprice,omitempty"`
	VATRate     *Decimal     `json:"tva_tx,omitempty"`
	Discount    *Decimal     `json:"remise_percent,omitempty"`
	Description string       `json:"desc,omitempty"`
	ProductType *ProductType `json:"product_type,omitempty"`
}

// UpdateLineRequest is the body of PUT /{invoices,orders}/{id}/lines/{lineid}.
// The ERP sets every value of the line from it, so all are sent: a zero
// Subprice is a free line, a zero VATRate no tax. The line's product stays.
type UpdateLineRequest struct {
	Qty         Decimal `json:"qty"`
	Subprice    Decimal `json:"subprice"`
	VATRate     Decimal `json:"tva_tx"`
	Discount    Decimal `json:"remise_percent"`
	Description string  `json:"desc"`
}

// lineRequestOf is the update that keeps a line as it is: a start for
// changing one value.
func lineRequestOf(l *Line) *UpdateLineRequest {
	return &UpdateLineRequest{Qty: l.Qty, Subprice: l.Subprice, VATRate: l.VATRate, Discount: l.Discount, Description: l.Description}
}

// Update returns the request that sets the line to what it is now, to
// change one value of it:
//
//	u := inv.Lines[0].Update()
//	u.Qty = erp.MustDecimal("5")
//	inv, err = c.UpdateInvoiceLine(ctx, inv.ID, inv.Lines[0].ID, u)
func (l Line) Update() *UpdateLineRequest { return lineRequestOf(&l) }

// addLine posts a line to a document and returns the new line's id, which
// the ERP answers.
func (c *Client) addLine(ctx context.Context, doc string, id ID, req *LineRequest) (ID, error) {
	if req == nil {
		return 0, errors.New("erp: adding a line needs a request")
	}
	var out ID
	if _, err := c.call(ctx, &rest.Request{Method: http.MethodPost, Path: doc + id.String() + "/lines", JSON: req}, &out); err != nil {
		return 0, err
	}
	return out, nil
}

// AddInvoiceLine adds a line to a draft invoice and returns the new line's
// id. A validated invoice's lines cannot change: the ERP refuses with 400
// ErrBadRequest.
//
// ERP API: POST /invoices/{id}/lines
func (c *Client) AddInvoiceLine(ctx context.Context, invoiceID ID, req *LineRequest) (ID, error) {
	return c.addLine(ctx, "/invoices/", invoiceID, req)
}

// UpdateInvoiceLine sets a line of a draft invoice and returns the invoice.
// The ERP answers a validated invoice's line with 304, ErrNothingDone.
//
// ERP API: PUT /invoices/{id}/lines/{lineid}
func (c *Client) UpdateInvoiceLine(ctx context.Context, invoiceID, lineID ID, req *UpdateLineRequest) (*Invoice, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateInvoiceLine needs a request")
	}
	return do[Invoice](ctx, c, http.MethodPut, "/invoices/"+invoiceID.String()+"/lines/"+lineID.String(), nil, req)
}

// DeleteInvoiceLine deletes a line of a draft invoice and returns the
// invoice. A validated invoice's line is refused with 405.
//
// ERP API: DELETE /invoices/{id}/lines/{lineid}
func (c *Client) DeleteInvoiceLine(ctx context.Context, invoiceID, lineID ID) (*Invoice, error) {
	return do[Invoice](ctx, c, http.MethodDelete, "/invoices/"+invoiceID.String()+"/lines/"+lineID.String(), nil, nil)
}

// AddOrderLine adds a line to a draft order and returns the new line's id.
// A validated order's lines cannot change (ErrBadRequest).
//
// ERP API: POST /orders/{id}/lines
func (c *Client) AddOrderLine(ctx context.Context, orderID ID, req *LineRequest) (ID, error) {
	return c.addLine(ctx, "/orders/", orderID, req)
}

// UpdateOrderLine sets a line of a draft order and returns the order.
//
// ERP API: PUT /orders/{id}/lines/{lineid}
func (c *Client) UpdateOrderLine(ctx context.Context, orderID, lineID ID, req *UpdateLineRequest) (*Order, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateOrderLine needs a request")
	}
	return do[Order](ctx, c, http.MethodPut, "/orders/"+orderID.String()+"/lines/"+lineID.String(), nil, req)
}

// DeleteOrderLine deletes a line of a draft order and returns the order. A
// validated order's line is refused with 405.
//
// ERP API: DELETE /orders/{id}/lines/{lineid}
func (c *Client) DeleteOrderLine(ctx context.Context, orderID, lineID ID) (*Order, error) {
	return do[Order](ctx, c, http.MethodDelete, "/orders/"+orderID.String()+"/lines/"+lineID.String(), nil, nil)
}

// lines reads GET {doc}{id}/lines.
func (c *Client) lines(ctx context.Context, doc string, id ID) ([]Line, error) {
	var out []Line
	if _, err := c.call(ctx, &rest.Request{Method: http.MethodGet, Path: doc + id.String() + "/lines"}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ListInvoiceLines returns the lines of an invoice, without the rest of
// the invoice.
//
// ERP API: GET /invoices/{id}/lines
func (c *Client) ListInvoiceLines(ctx context.Context, invoiceID ID) ([]Line, error) {
	return c.lines(ctx, "/invoices/", invoiceID)
}

// ListOrderLines returns the lines of an order.
//
// ERP API: GET /orders/{id}/lines
func (c *Client) ListOrderLines(ctx context.Context, orderID ID) ([]Line, error) {
	return c.lines(ctx, "/orders/", orderID)
}
