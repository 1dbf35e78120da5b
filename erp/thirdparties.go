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

// ClientKind says whether a third party is a customer, a prospect, both or
// neither (the "client" field).
type ClientKind int

// Client kinds.
const (
	NotClient        ClientKind = 0
	Customer         ClientKind = 1
	Prospect         ClientKind = 2
	CustomerProspect ClientKind = 3
)

// String names the kind.
func (k ClientKind) String() string {
	switch k {
	case NotClient:
		return "none"
	case Customer:
		return "customer"
	case Prospect:
		return "prospect"
	case CustomerProspect:
		return "customer and prospect"
	}
	return fmt.Sprintf("ClientKind(%d)", int(k))
}

// UnmarshalJSON reads the kind as a number or a string.
func (k *ClientKind) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: client: %w", err)
	}
	*k = ClientKind(n)
	return nil
}

// IsCustomer reports whether the kind includes customer.
func (k ClientKind) IsCustomer() bool { return k == Customer || k == CustomerProspect }

// Thirdparty is a company or person the business deals with: a customer,
// a prospect, a supplier.
type Thirdparty struct {
	ID        ID     `json:"id"`
	Name      string `json:"name"`
	NameAlias string `json:"name_alias"`
	// Client is the customer/prospect kind; Supplier marks a supplier
	// ("fournisseur").
	Client       ClientKind `json:"client"`
	Supplier     Bool       `json:"fournisseur"`
	CustomerCode string     `json:"code_client"`
	SupplierCode string     `json:"code_fournisseur"`
	Email        string     `json:"email"`
	Phone        string     `json:"phone"`
	Address      string     `json:"address"`
	Zip          string     `json:"zip"`
	Town         string     `json:"town"`
	CountryCode  string     `json:"country_code"`
	VATNumber    string     `json:"tva_intra"`
	// Active is false for a closed third party ("status").
	Active           Bool   `json:"status"`
	NotePublic       string `json:"note_public"`
	NotePrivate      string `json:"note_private"`
	Entity           ID     `json:"entity"`
	DateCreation     Time   `json:"date_creation"`
	DateModification Time   `json:"date_modification"`
	Extra            Extra  `json:"-"`
}

var thirdpartyKeys = keysOf[Thirdparty]()

// UnmarshalJSON decodes a third party, keeping unknown fields in Extra.
func (t *Thirdparty) UnmarshalJSON(b []byte) error {
	type plain Thirdparty
	return decodeRecord(b, (*plain)(t), thirdpartyKeys, &t.Extra, nil)
}

// MarshalJSON encodes a third party with its Extra fields.
func (t Thirdparty) MarshalJSON() ([]byte, error) {
	type plain Thirdparty
	return marshalRecord(plain(t), t.Extra)
}

func (t *Thirdparty) recordID() ID { return t.ID }

// Third-party list modes (ListThirdpartiesOptions.Mode).
const (
	ModeCustomers = 1
	ModeProspects = 2
	ModeNeither   = 3
	ModeSuppliers = 4
)

// ListThirdpartiesOptions pages and filters third parties (sort fields
// t.rowid, t.nom, t.datec, …; filter on the llx_societe columns, t.nom for
// the name, t.client, t.fournisseur).
type ListThirdpartiesOptions struct {
	ListOptions
	// Mode keeps customers (ModeCustomers), prospects, neither, or
	// suppliers; 0 keeps all.
	Mode int
}

func (o *ListThirdpartiesOptions) split() (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	return &o.ListOptions, modeQuery(o.Mode)
}

// ListThirdparties returns one page of third parties.
//
// ERP API: [GET /thirdparties]
//
// [GET /thirdparties]: https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/societe/class/api_thirdparties.class.php
func (c *Client) ListThirdparties(ctx context.Context, opts *ListThirdpartiesOptions) (*Page[Thirdparty], error) {
	lo, q := opts.split()
	return list[Thirdparty](ctx, c, "/thirdparties", lo, q)
}

// AllThirdparties iterates the third parties a page at a time.
//
// ERP API: [GET /thirdparties]
//
// [GET /thirdparties]: https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/societe/class/api_thirdparties.class.php
func (c *Client) AllThirdparties(ctx context.Context, opts *ListThirdpartiesOptions) iter.Seq2[*Thirdparty, error] {
	lo, q := opts.split()
	return all[Thirdparty](ctx, c, "/thirdparties", lo, q)
}

// GetThirdparty returns a third party by id.
//
// ERP API: [GET /thirdparties/{id}]
//
// [GET /thirdparties/{id}]: https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/societe/class/api_thirdparties.class.php
func (c *Client) GetThirdparty(ctx context.Context, id ID) (*Thirdparty, error) {
	return do[Thirdparty](ctx, c, http.MethodGet, "/thirdparties/"+id.String(), nil, nil)
}

// CreateThirdpartyRequest is the body of POST /thirdparties.
type CreateThirdpartyRequest struct {
	Name        string     `json:"name"`
	Client      ClientKind `json:"client"`
	Supplier    Bool       `json:"fournisseur,omitempty"`
	NameAlias   string     `json:"name_alias,omitempty"`
	Email       string     `json:"email,omitempty"`
	Phone       string     `json:"phone,omitempty"`
	Address     string     `json:"address,omitempty"`
	Zip         string     `json:"zip,omitempty"`
	Town        string     `json:"town,omitempty"`
	CountryCode string     `json:"country_code,omitempty"`
	VATNumber   string     `json:"tva_intra,omitempty"`
	// CustomerCode and SupplierCode are generated by the server when left
	// empty (with the usual numbering setup).
	CustomerCode string         `json:"code_client,omitempty"`
	SupplierCode string         `json:"code_fournisseur,omitempty"`
	NotePublic   string         `json:"note_public,omitempty"`
	NotePrivate  string         `json:"note_private,omitempty"`
	Extra        map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CreateThirdpartyRequest) MarshalJSON() ([]byte, error) {
	type plain CreateThirdpartyRequest
	return withExtra(plain(r), r.Extra)
}

// CreateThirdparty creates a third party; the name is required.
//
// ERP API: [POST /thirdparties], then [GET /thirdparties/{id}] when the
// ERP answers with the bare id
//
// [GET /thirdparties/{id}]: https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/societe/class/api_thirdparties.class.php
// [POST /thirdparties]: https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/societe/class/api_thirdparties.class.php
func (c *Client) CreateThirdparty(ctx context.Context, req *CreateThirdpartyRequest) (*Thirdparty, error) {
	if req == nil || strings.TrimSpace(req.Name) == "" {
		return nil, errors.New("erp: CreateThirdparty needs a name")
	}
	return create[Thirdparty](ctx, c, "/thirdparties", req)
}

// UpdateThirdpartyRequest is the body of PUT /thirdparties/{id}; nil fields
// are left as they are.
type UpdateThirdpartyRequest struct {
	Name        *string        `json:"name,omitempty"`
	Client      *ClientKind    `json:"client,omitempty"`
	Supplier    *Bool          `json:"fournisseur,omitempty"`
	NameAlias   *string        `json:"name_alias,omitempty"`
	Email       *string        `json:"email,omitempty"`
	Phone       *string        `json:"phone,omitempty"`
	Address     *string        `json:"address,omitempty"`
	Zip         *string        `json:"zip,omitempty"`
	Town        *string        `json:"town,omitempty"`
	CountryCode *string        `json:"country_code,omitempty"`
	VATNumber   *string        `json:"tva_intra,omitempty"`
	Active      *Bool          `json:"status,omitempty"`
	NotePublic  *string        `json:"note_public,omitempty"`
	NotePrivate *string        `json:"note_private,omitempty"`
	Extra       map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r UpdateThirdpartyRequest) MarshalJSON() ([]byte, error) {
	type plain UpdateThirdpartyRequest
	return withExtra(plain(r), r.Extra)
}

// UpdateThirdparty changes a third party and returns it as it now is.
//
// ERP API: [PUT /thirdparties/{id}]
//
// [PUT /thirdparties/{id}]: https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/societe/class/api_thirdparties.class.php
func (c *Client) UpdateThirdparty(ctx context.Context, id ID, req *UpdateThirdpartyRequest) (*Thirdparty, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateThirdparty needs a request")
	}
	return do[Thirdparty](ctx, c, http.MethodPut, "/thirdparties/"+id.String(), nil, req)
}

// DeleteThirdparty deletes a third party and its contacts. One that
// invoices or orders name is in use: the ERP refuses it with 409 ("Can't
// delete, that product is probably used", its words for every object).
//
// ERP API: [DELETE /thirdparties/{id}]
//
// [DELETE /thirdparties/{id}]: https://github.com/Dolibarr/dolibarr/blob/develop/htdocs/societe/class/api_thirdparties.class.php
func (c *Client) DeleteThirdparty(ctx context.Context, id ID) error {
	return c.deleteRecord(ctx, "/thirdparties/"+id.String())
}
