package erp

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
)

// ProposalStatus is where a commercial proposal (a quote) is in its life:
// draft → validated → signed or not signed by the customer → billed.
type ProposalStatus int

// Proposal statuses.
const (
	ProposalDraft     ProposalStatus = 0
	ProposalValidated ProposalStatus = 1 // sent to the customer, open
	ProposalSigned    ProposalStatus = 2 // accepted
	ProposalNotSigned ProposalStatus = 3 // refused
	ProposalBilled    ProposalStatus = 4
)

// String names the status.
func (s ProposalStatus) String() string {
	switch s {
	case ProposalDraft:
		return "draft"
	case ProposalValidated:
		return "validated"
	case ProposalSigned:
		return "signed"
	case ProposalNotSigned:
		return "not signed"
	case ProposalBilled:
		return "billed"
	}
	return fmt.Sprintf("ProposalStatus(%d)", int(s))
}

// UnmarshalJSON reads the status as a number or a string.
func (s *ProposalStatus) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: proposal status: %w", err)
	}
	*s = ProposalStatus(n)
	return nil
}

// Proposal is a commercial proposal (a quote) to a customer.
type Proposal struct {
	ID             ID             `json:"id"`
	Ref            string         `json:"ref"` // "(PROV3)" while a draft, "PR2611-0001" once validated
	RefClient      string         `json:"ref_client"`
	SocID          ID             `json:"socid"`
	Status         ProposalStatus `json:"status"` // "status", or "statut" in older versions
	Date           Time           `json:"date"`
	EndValidity    Time           `json:"fin_validite"` // the last day it may be signed
	DateCreation   Time           `json:"date_creation"`
	DateValidation Time           `json:"date_validation"`
	DateSignature  Time           `json:"date_signature"` // when it was signed
	DateClosing    Time           `json:"date_cloture"`   // when it was closed, signed or not
	TotalHT        Decimal        `json:"total_ht"`
	TotalTVA       Decimal        `json:"total_tva"`
	TotalTTC       Decimal        `json:"total_ttc"`
	NotePublic     string         `json:"note_public"`
	NotePrivate    string         `json:"note_private"`
	AuthorID       ID             `json:"user_author_id"`
	Entity         ID             `json:"entity"`
	Lines          []Line         `json:"lines"`
	Extra          Extra          `json:"-"`
}

var proposalKeys = keysOf[Proposal]("statut")

// UnmarshalJSON decodes a proposal, keeping unknown fields in Extra.
func (p *Proposal) UnmarshalJSON(b []byte) error {
	type plain Proposal
	var w struct {
		*plain
		Status *ProposalStatus `json:"status"`
		Statut *ProposalStatus `json:"statut"`
		Lines  []wireLine      `json:"lines"`
	}
	w.plain = (*plain)(p)
	lines, err := decodeDocument(b, &w, proposalKeys, &p.Extra, &w.Lines)
	if err != nil {
		return err
	}
	p.Lines, p.Status = lines, firstOf(w.Status, w.Statut)
	return nil
}

// MarshalJSON encodes a proposal with its Extra fields.
func (p Proposal) MarshalJSON() ([]byte, error) {
	type plain Proposal
	return marshalRecord(plain(p), p.Extra)
}

func (p *Proposal) recordID() ID { return p.ID }

// ListProposalsOptions pages and filters proposals (sort fields t.rowid,
// the default, t.ref, t.datep, …; filter on the llx_propal columns: t.ref,
// t.fk_soc, t.fk_statut, t.datep, t.total_ttc).
type ListProposalsOptions struct {
	ListOptions
	// ThirdpartyIDs keeps the proposals to these third parties.
	ThirdpartyIDs []ID
}

func (o *ListProposalsOptions) split() (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	return &o.ListOptions, thirdpartyQuery(o.ThirdpartyIDs)
}

// ListProposals returns one page of proposals, with their lines.
//
// ERP API: GET /proposals
func (c *Client) ListProposals(ctx context.Context, opts *ListProposalsOptions) (*Page[Proposal], error) {
	lo, q := opts.split()
	return list[Proposal](ctx, c, "/proposals", lo, q)
}

// AllProposals iterates the proposals a page at a time.
//
// ERP API: GET /proposals
func (c *Client) AllProposals(ctx context.Context, opts *ListProposalsOptions) iter.Seq2[*Proposal, error] {
	lo, q := opts.split()
	return all[Proposal](ctx, c, "/proposals", lo, q)
}

// GetProposal returns a proposal by id.
//
// ERP API: GET /proposals/{id}
func (c *Client) GetProposal(ctx context.Context, id ID) (*Proposal, error) {
	return do[Proposal](ctx, c, http.MethodGet, "/proposals/"+id.String(), nil, nil)
}

// CreateProposalRequest is the body of POST /proposals.
type CreateProposalRequest struct {
	SocID       ID             `json:"socid"`
	Lines       []LineRequest  `json:"lines"`
	Date        *Time          `json:"date,omitempty"` // default: today
	RefClient   string         `json:"ref_client,omitempty"`
	NotePublic  string         `json:"note_public,omitempty"`
	NotePrivate string         `json:"note_private,omitempty"`
	Extra       map[string]any `json:"-"`
}

// MarshalJSON writes the request with its Extra fields.
func (r CreateProposalRequest) MarshalJSON() ([]byte, error) {
	type plain CreateProposalRequest
	if r.Lines == nil {
		r.Lines = []LineRequest{}
	}
	return withExtra(plain(r), r.Extra)
}

// CreateProposal creates a draft proposal and returns it.
//
// ERP API: POST /proposals, then GET /proposals/{id} when the
// ERP answers with the bare id
func (c *Client) CreateProposal(ctx context.Context, req *CreateProposalRequest) (*Proposal, error) {
	if req == nil || req.SocID <= 0 {
		return nil, errors.New("erp: CreateProposal needs a socid")
	}
	return create[Proposal](ctx, c, "/proposals", req)
}

// ValidateProposal validates a draft proposal, giving it its final ref. A
// proposal that is not a draft is ErrNothingDone.
//
// ERP API: POST /proposals/{id}/validate
func (c *Client) ValidateProposal(ctx context.Context, id ID, opts *ValidateOptions) (*Proposal, error) {
	return do[Proposal](ctx, c, http.MethodPost, "/proposals/"+id.String()+"/validate", nil, opts.body())
}

// CloseProposalRequest is the customer's answer to a proposal, the body of
// POST /proposals/{id}/close.
type CloseProposalRequest struct {
	// Status is ProposalSigned or ProposalNotSigned.
	Status ProposalStatus
	// NotePrivate is added at the end of the proposal's private note.
	NotePrivate string
	NoTrigger   bool // skip the ERP's business triggers
}

// CloseProposal closes a validated proposal signed or not signed. A
// proposal closed already is ErrNothingDone; a status other than signed
// or not signed is refused before any call.
//
// ERP API: POST /proposals/{id}/close
func (c *Client) CloseProposal(ctx context.Context, id ID, req *CloseProposalRequest) (*Proposal, error) {
	if req == nil || (req.Status != ProposalSigned && req.Status != ProposalNotSigned) {
		return nil, errors.New("erp: CloseProposal needs the status ProposalSigned or ProposalNotSigned")
	}
	body := struct {
		Status      int    `json:"status"`
		NotePrivate string `json:"note_private,omitempty"`
		NoTrigger   int    `json:"notrigger"`
	}{Status: int(req.Status), NotePrivate: req.NotePrivate}
	if req.NoTrigger {
		body.NoTrigger = 1
	}
	return do[Proposal](ctx, c, http.MethodPost, "/proposals/"+id.String()+"/close", nil, body)
}

// AddProposalLine adds a line to a draft proposal and returns the new
// line's id. A validated proposal's lines cannot change (ErrBadRequest).
//
// ERP API: POST /proposals/{id}/lines
func (c *Client) AddProposalLine(ctx context.Context, proposalID ID, req *LineRequest) (ID, error) {
	return c.addLine(ctx, "/proposals/", proposalID, req)
}

// UpdateProposalLine sets a line of a draft proposal and returns the
// proposal. A validated proposal's line is ErrNothingDone.
//
// ERP API: PUT /proposals/{id}/lines/{lineid}
func (c *Client) UpdateProposalLine(ctx context.Context, proposalID, lineID ID, req *UpdateLineRequest) (*Proposal, error) {
	if req == nil {
		return nil, errors.New("erp: UpdateProposalLine needs a request")
	}
	return do[Proposal](ctx, c, http.MethodPut, "/proposals/"+proposalID.String()+"/lines/"+lineID.String(), nil, req)
}

// DeleteProposalLine deletes a line of a draft proposal and returns the
// proposal. A validated proposal's line is refused with 405.
//
// ERP API: DELETE /proposals/{id}/lines/{lineid}
func (c *Client) DeleteProposalLine(ctx context.Context, proposalID, lineID ID) (*Proposal, error) {
	return do[Proposal](ctx, c, http.MethodDelete, "/proposals/"+proposalID.String()+"/lines/"+lineID.String(), nil, nil)
}

// ListProposalLines returns the lines of a proposal.
//
// ERP API: GET /proposals/{id}/lines
func (c *Client) ListProposalLines(ctx context.Context, proposalID ID) ([]Line, error) {
	return c.lines(ctx, "/proposals/", proposalID)
}

// CreateOrderFromProposal makes a draft order from a proposal, with its
// third party, lines, customer ref and notes, and returns it. The ERP's
// API takes a proposal in any status; its pages offer it once the
// proposal is signed.
//
// ERP API: POST /orders/createfromproposal/{proposalid}
func (c *Client) CreateOrderFromProposal(ctx context.Context, proposalID ID) (*Order, error) {
	return do[Order](ctx, c, http.MethodPost, "/orders/createfromproposal/"+proposalID.String(), nil, nil)
}
