package erp

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"
)

// ProductType says whether a product is goods or a service.
type ProductType int

// Product types.
const (
	TypeProduct ProductType = 0
	TypeService ProductType = 1
)

// String names the type.
func (t ProductType) String() string {
	switch t {
	case TypeProduct:
		return "product"
	case TypeService:
		return "service"
	}
	return fmt.Sprintf("ProductType(%d)", int(t))
}

// UnmarshalJSON reads the type as a number or a string.
func (t *ProductType) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: product type: %w", err)
	}
	*t = ProductType(n)
	return nil
}

// Product is a product or service the business sells or buys.
type Product struct {
	ID          ID          `json:"id"`
	Ref         string      `json:"ref"`
	Label       string      `json:"label"`
	Description string      `json:"description"`
	Type        ProductType `json:"type"`
	// Price is the selling price before tax; PriceTTC includes tax at
	// VATRate. PriceBaseType says which of the two was entered ("HT" or
	// "TTC").
	Price         Decimal `json:"price"`
	PriceTTC      Decimal `json:"price_ttc"`
	PriceMin      Decimal `json:"price_min"`
	PriceBaseType string  `json:"price_base_type"`
	VATRate       Decimal `json:"tva_tx"` // percent
	// OnSale ("status") and OnPurchase ("status_buy") say whether the
	// product may be sold and bought.
	OnSale           Bool    `json:"status"`
	OnPurchase       Bool    `json:"status_buy"`
	Barcode          string  `json:"barcode"`
	Stock            Decimal `json:"stock_reel"` // units in stock, across warehouses
	Weight           Decimal `json:"weight"`
	NotePublic       string  `json:"note_public"`
	NotePrivate      string  `json:"note_private"`
	Entity           ID      `json:"entity"`
	DateCreation     Time    `json:"date_creation"`
	DateModification Time    `json:"date_modification"`
	Extra            Extra   `json:"-"`
}

var productKeys = keysOf[Product]()

// UnmarshalJSON decodes a product, keeping unknown fields in Extra.
func (p *Product) UnmarshalJSON(b []byte) error {
	type plain Product
	return decodeRecord(b, (*plain)(p), productKeys, &p.Extra, nil)
}

// MarshalJSON encodes a product with its Extra fields.
func (p Product) MarshalJSON() ([]byte, error) {
	type plain Product
	return marshalRecord(plain(p), p.Extra)
}

func (p *Product) recordID() ID { return p.ID }

// Product list modes (ListProductsOptions.Mode).
const (
	ModeProductsOnly = 1
	ModeServicesOnly = 2
)

// ListProductsOptions pages and filters products (sort fields t.ref, the
// default, t.rowid, t.label, t.price, …; filter on the llx_product columns,
// t.tosell and t.tobuy for the sale flags, t.fk_product_type for the type).
type ListProductsOptions struct {
	ListOptions
	// Mode keeps products only (ModeProductsOnly) or services only
	// (ModeServicesOnly); 0 keeps both.
	Mode int
}

func (o *ListProductsOptions) split() (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	return &o.ListOptions, modeQuery(o.Mode)
}

// ListProducts returns one page of products.
//
// ERP API: GET /products
func (c *Client) ListProducts(ctx context.Context, opts *ListProductsOptions) (*Page[Product], error) {
	lo, q := opts.split()
	return list[Product](ctx, c, "/products", lo, q)
}

// AllProducts iterates the products a page at a time.
//
// ERP API: GET /products
func (c *Client) AllProducts(ctx context.Context, opts *ListProductsOptions) iter.Seq2[*Product, error] {
	lo, q := opts.split()
	return all[Product](ctx, c, "/products", lo, q)
}

// GetProduct returns a product by id.
//
// ERP API: GET /products/{id}
func (c *Client) GetProduct(ctx context.Context, id ID) (*Product, error) {
	return do[Product](ctx, c, http.MethodGet, "/products/"+id.String(), nil, nil)
}

// CreateProductRequest is the body of POST /products.
type CreateProductRequest struct {
	// Ref must be unique (ignoring case): a taken ref is refused with
	// ErrAlreadyExists.
	Ref         string      `json:"ref"`
	Label       string      `json:"label"`
	Price       Decimal     `json:"price"`
	Type        ProductType `json:"type"`
	Description string      `json:"description,omitempty"`
	VATRate     *Decimal    `json:"tva_tx,omitempty"`
	// PriceBaseType is "HT" (the default: Price is before tax) or "TTC".
	PriceBaseType string         `json:"price_base_type,omitempty"`
	OnSale        *Bool          `json:"status,omitempty"`
	OnPurchase    *Bool          `json:"status_buy,omitempty"`
	Barcode       string         `json:"barcode,omitempty"`
	NotePublic    string         `json:"note_public,omitempty"`
	NotePrivate   string         `json:"note_private,omitempty"`
	Extra         map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CreateProductRequest) MarshalJSON() ([]byte, error) {
	type plain CreateProductRequest
	return withExtra(plain(r), r.Extra)
}

// CreateProduct creates a product; ref and label are required.
//
// ERP API: POST /products, then GET /products/{id} when the
// ERP answers with the bare id
func (c *Client) CreateProduct(ctx context.Context, req *CreateProductRequest) (*Product, error) {
	if req == nil || strings.TrimSpace(req.Ref) == "" || strings.TrimSpace(req.Label) == "" {
		return nil, errors.New("erp: CreateProduct needs a ref and a label")
	}
	return create[Product](ctx, c, "/products", req)
}

// UpdateProductRequest is the body of PUT /products/{id}; nil fields are
// left as they are.
type UpdateProductRequest struct {
	Ref           *string        `json:"ref,omitempty"`
	Label         *string        `json:"label,omitempty"`
	Price         *Decimal       `json:"price,omitempty"`
	Type          *ProductType   `json:"type,omitempty"`
	Description   *string        `json:"description,omitempty"`
	VATRate       *Decimal       `json:"tva_tx,omitempty"`
	PriceBaseType *string        `json:"price_base_type,omitempty"`
	OnSale        *Bool          `json:"status,omitempty"`
	OnPurchase    *Bool          `json:"status_buy,omitempty"`
	Barcode       *string        `json:"barcode,omitempty"`
	NotePublic    *string        `json:"note_public,omitempty"`
	NotePrivate   *string        `json:"note_private,omitempty"`
	Extra         map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r UpdateProductRequest) MarshalJSON() ([]byte, error) {
	type plain UpdateProductRequest
	return withExtra(plain(r), r.Extra)
}

// UpdateProduct changes a product and returns it as it now is.
//
// ERP API: PUT /products/{id}
func (c *Client) UpdateProduct(ctx context.Context, id ID, req *UpdateProductRequest) (*Product, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateProduct needs a request")
	}
	return do[Product](ctx, c, http.MethodPut, "/products/"+id.String(), nil, req)
}

// DeleteProduct deletes a product. One that a line of an invoice or an
// order uses is refused with 409 ("Can't delete, that product is probably
// used").
//
// ERP API: DELETE /products/{id}
func (c *Client) DeleteProduct(ctx context.Context, id ID) error {
	return c.deleteRecord(ctx, "/products/"+id.String())
}
