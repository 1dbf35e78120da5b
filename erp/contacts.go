package erp

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strings"
)

// Contact is a person at a third party ("socpeople").
type Contact struct {
	ID           ID     `json:"id"`
	ThirdpartyID ID     `json:"socid"` // 0 for a contact of no third party
	Lastname     string `json:"lastname"`
	Firstname    string `json:"firstname"`
	Civility     string `json:"civility_code"` // MR, MME, …
	Email        string `json:"email"`
	PhonePro     string `json:"phone_pro"`
	PhoneMobile  string `json:"phone_mobile"`
	Job          string `json:"poste"` // the position
	Address      string `json:"address"`
	Zip          string `json:"zip"`
	Town         string `json:"town"`
	CountryCode  string `json:"country_code"`
	// Active is false for a contact no longer in use ("statut").
	Active           Bool   `json:"statut"`
	NotePublic       string `json:"note_public"`
	NotePrivate      string `json:"note_private"`
	Entity           ID     `json:"entity"`
	DateCreation     Time   `json:"date_creation"`
	DateModification Time   `json:"date_modification"`
	Extra            Extra  `json:"-"`
}

var contactKeys = keysOf[Contact]()

// UnmarshalJSON decodes a contact, keeping unknown fields in Extra.
func (ct *Contact) UnmarshalJSON(b []byte) error {
	type plain Contact
	return decodeRecord(b, (*plain)(ct), contactKeys, &ct.Extra, nil)
}

// MarshalJSON encodes a contact with its Extra fields.
func (ct Contact) MarshalJSON() ([]byte, error) {
	type plain Contact
	return marshalRecord(plain(ct), ct.Extra)
}

func (ct *Contact) recordID() ID { return ct.ID }

// ListContactsOptions pages and filters contacts (sort fields t.rowid, the
// default, t.lastname, …; filter on the llx_socpeople columns: t.lastname,
// t.firstname, t.email, t.fk_soc, t.statut).
type ListContactsOptions struct {
	ListOptions
	// ThirdpartyIDs keeps the contacts of these third parties: how to list
	// a third party's contacts.
	ThirdpartyIDs []ID
}

func (o *ListContactsOptions) split() (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	return &o.ListOptions, thirdpartyQuery(o.ThirdpartyIDs)
}

// ListContacts returns one page of contacts.
//
// ERP API: GET /contacts
func (c *Client) ListContacts(ctx context.Context, opts *ListContactsOptions) (*Page[Contact], error) {
	lo, q := opts.split()
	return list[Contact](ctx, c, "/contacts", lo, q)
}

// AllContacts iterates the contacts a page at a time.
//
// ERP API: GET /contacts
func (c *Client) AllContacts(ctx context.Context, opts *ListContactsOptions) iter.Seq2[*Contact, error] {
	lo, q := opts.split()
	return all[Contact](ctx, c, "/contacts", lo, q)
}

// GetContact returns a contact by id.
//
// ERP API: GET /contacts/{id}
func (c *Client) GetContact(ctx context.Context, id ID) (*Contact, error) {
	return do[Contact](ctx, c, http.MethodGet, "/contacts/"+id.String(), nil, nil)
}

// CreateContactRequest is the body of POST /contacts.
type CreateContactRequest struct {
	// ThirdpartyID is the third party the contact belongs to; it must
	// exist.
	ThirdpartyID ID     `json:"socid,omitempty"`
	Lastname     string `json:"lastname"` // required
	Firstname    string `json:"firstname,omitempty"`
	Civility     string `json:"civility_code,omitempty"`
	Email        string `json:"email,omitempty"`
	PhonePro     string `json:"phone_pro,omitempty"`
	PhoneMobile  string `json:"phone_mobile,omitempty"`
	Job          string `json:"poste,omitempty"`
	Address      string `json:"address,omitempty"`
	Zip          string `json:"zip,omitempty"`
	Town         string `json:"town,omitempty"`
	CountryCode  string `json:"country_code,omitempty"`
	NotePublic   string `json:"note_public,omitempty"`
	NotePrivate  string `json:"note_private,omitempty"`
	// Extra sets fields this type does not model; the typed fields win.
	Extra map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CreateContactRequest) MarshalJSON() ([]byte, error) {
	type plain CreateContactRequest
	return withExtra(plain(r), r.Extra)
}

// CreateContact creates a contact and returns it; the last name is
// required.
//
// ERP API: POST /contacts, then GET /contacts/{id} when the
// ERP answers with the bare id
func (c *Client) CreateContact(ctx context.Context, req *CreateContactRequest) (*Contact, error) {
	if req == nil || strings.TrimSpace(req.Lastname) == "" {
		return nil, errors.New("erp: CreateContact needs a last name")
	}
	return create[Contact](ctx, c, "/contacts", req)
}

// UpdateContactRequest is the body of PUT /contacts/{id}; nil fields are
// left as they are.
type UpdateContactRequest struct {
	ThirdpartyID *ID            `json:"socid,omitempty"`
	Lastname     *string        `json:"lastname,omitempty"`
	Firstname    *string        `json:"firstname,omitempty"`
	Civility     *string        `json:"civility_code,omitempty"`
	Email        *string        `json:"email,omitempty"`
	PhonePro     *string        `json:"phone_pro,omitempty"`
	PhoneMobile  *string        `json:"phone_mobile,omitempty"`
	Job          *string        `json:"poste,omitempty"`
	Address      *string        `json:"address,omitempty"`
	Zip          *string        `json:"zip,omitempty"`
	Town         *string        `json:"town,omitempty"`
	CountryCode  *string        `json:"country_code,omitempty"`
	Active       *Bool          `json:"statut,omitempty"`
	NotePublic   *string        `json:"note_public,omitempty"`
	NotePrivate  *string        `json:"note_private,omitempty"`
	Extra        map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r UpdateContactRequest) MarshalJSON() ([]byte, error) {
	type plain UpdateContactRequest
	return withExtra(plain(r), r.Extra)
}

// UpdateContact changes a contact and returns it as it now is.
//
// ERP API: PUT /contacts/{id}
func (c *Client) UpdateContact(ctx context.Context, id ID, req *UpdateContactRequest) (*Contact, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateContact needs a request")
	}
	return do[Contact](ctx, c, http.MethodPut, "/contacts/"+id.String(), nil, req)
}

// DeleteContact deletes a contact.
//
// ERP API: DELETE /contacts/{id}
func (c *Client) DeleteContact(ctx context.Context, id ID) error {
	return c.deleteRecord(ctx, "/contacts/"+id.String())
}
