package erpfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/internal/credential"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/jsonw"
)

// Seeding puts data in directly, as an administrator would in the web
// interface, without faults or the request log. The same rules hold as
// through the API (unique logins and product refs, existing third parties
// and products, the bounds of every number), since a seed goes through the
// same code as a request.

// Seed is data to load into the fake ([Server.Load]): every kind of record
// it keeps. It is loaded in the order of its fields, so that invoices and
// orders can name the third parties and products before them. Field names
// are the same in JSON and YAML (snake_case).
//
//	users:        [{login: jdoe, password: s3cret, api_key: jdoe-key}]
//	thirdparties: [{name: Acme Corp, customer: true, town: Lyon}]
//	contacts:     [{thirdparty: Acme Corp, lastname: Doe, firstname: Jane}]
//	products:     [{ref: WIDGET-1, label: Widget, price: "12.50", vat_rate: "20"}]
//	invoices:     [{thirdparty: Acme Corp, validated: true, lines: [{product: WIDGET-1, qty: "4"}]}]
//	orders:       [{thirdparty: Acme Corp, lines: [{description: Setup, qty: "1", subprice: "90"}]}]
//	proposals:    [{thirdparty: Acme Corp, signed: true, lines: [{product: WIDGET-1, qty: "10"}]}]
type Seed struct {
	Users        []UserSeed       `json:"users,omitempty" yaml:"users,omitempty"`
	Thirdparties []ThirdpartySeed `json:"thirdparties,omitempty" yaml:"thirdparties,omitempty"`
	Contacts     []ContactSeed    `json:"contacts,omitempty" yaml:"contacts,omitempty"`
	Products     []ProductSeed    `json:"products,omitempty" yaml:"products,omitempty"`
	Invoices     []InvoiceSeed    `json:"invoices,omitempty" yaml:"invoices,omitempty"`
	Orders       []OrderSeed      `json:"orders,omitempty" yaml:"orders,omitempty"`
	Proposals    []ProposalSeed   `json:"proposals,omitempty" yaml:"proposals,omitempty"`
}

// Load adds what seed holds, in order. The first refusal stops it (what
// came before it stays); its error names the entry: `products[1]: ref
// "X" already exists`.
func (s *Server) Load(seed Seed) error {
	for i, u := range seed.Users {
		if _, err := s.addUser(u); err != nil {
			return fmt.Errorf("users[%d]: %w", i, err)
		}
	}
	for i, t := range seed.Thirdparties {
		if _, err := s.addThirdparty(t); err != nil {
			return fmt.Errorf("thirdparties[%d]: %w", i, err)
		}
	}
	for i, ct := range seed.Contacts {
		if _, err := s.addContact(ct); err != nil {
			return fmt.Errorf("contacts[%d]: %w", i, err)
		}
	}
	for i, p := range seed.Products {
		if _, err := s.addProduct(p); err != nil {
			return fmt.Errorf("products[%d]: %w", i, err)
		}
	}
	for i, inv := range seed.Invoices {
		if _, err := s.addInvoice(inv); err != nil {
			return fmt.Errorf("invoices[%d]: %w", i, err)
		}
	}
	for i, o := range seed.Orders {
		if _, err := s.addOrder(o); err != nil {
			return fmt.Errorf("orders[%d]: %w", i, err)
		}
	}
	for i, p := range seed.Proposals {
		if _, err := s.addProposal(p); err != nil {
			return fmt.Errorf("proposals[%d]: %w", i, err)
		}
	}
	return nil
}

// seedErr marks the errors of the Add methods as the fake's.
func seedErr(id int64, err error) (int64, error) {
	if err != nil {
		return 0, fmt.Errorf("erpfake: %w", err)
	}
	return id, nil
}

// UserSeed describes a user to add.
type UserSeed struct {
	// Login is required and unique, ignoring case.
	Login string `json:"login" yaml:"login"`
	// Password is for the login form; empty: the user cannot log in.
	Password  string `json:"password,omitempty" yaml:"password,omitempty"`
	Lastname  string `json:"lastname,omitempty" yaml:"lastname,omitempty"`
	Firstname string `json:"firstname,omitempty" yaml:"firstname,omitempty"`
	Email     string `json:"email,omitempty" yaml:"email,omitempty"`
	Admin     bool   `json:"admin,omitempty" yaml:"admin,omitempty"`
	Disabled  bool   `json:"disabled,omitempty" yaml:"disabled,omitempty"`
	// APIKey is the user's API key, unique; empty: none yet (IssueAPIKey
	// makes one).
	APIKey string `json:"api_key,omitempty" yaml:"api_key,omitempty"`
}

// String describes the seed without its password and API key.
func (u UserSeed) String() string {
	type plain UserSeed
	p := plain(u)
	for _, f := range []*string{&p.Password, &p.APIKey} {
		if *f != "" {
			*f = redacted
		}
	}
	return fmt.Sprintf("erpfake.UserSeed%+v", p)
}

// GoString is String, for %#v.
func (u UserSeed) GoString() string { return u.String() }

// LogValue logs the seed without its password and API key.
func (u UserSeed) LogValue() slog.Value { return slog.StringValue(u.String()) }

// redacted stands where a secret was.
const redacted = credential.Redacted

// LogValue logs how many records of each kind the seed holds: its users'
// passwords and API keys stay out of logs, whichever handler writes them.
func (s Seed) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("users", len(s.Users)), slog.Int("thirdparties", len(s.Thirdparties)),
		slog.Int("products", len(s.Products)), slog.Int("invoices", len(s.Invoices)), slog.Int("orders", len(s.Orders)),
		slog.Int("proposals", len(s.Proposals)))
}

// AddUser adds a user and returns its id.
func (s *Server) AddUser(seed UserSeed) (int64, error) { return seedErr(s.addUser(seed)) }

func (s *Server) addUser(seed UserSeed) (int64, error) {
	login := strings.TrimSpace(seed.Login)
	if login == "" {
		return 0, errors.New("a user needs a login")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.userByLogin(login) != nil {
		return 0, fmt.Errorf("login %q already exists", login)
	}
	if seed.APIKey != "" && s.st.keys[seed.APIKey] != nil {
		return 0, errors.New("api_key is another user's already")
	}
	if fail := s.seedCall().full("user", 0, "Error creating"); fail != nil {
		return 0, answerError(*fail)
	}
	u := s.st.addUser(userFields{login: login, password: seed.Password, lastname: seed.Lastname,
		firstname: seed.Firstname, email: seed.Email, admin: seed.Admin, employee: true})
	u.enabled = !seed.Disabled
	s.st.setKey(u, seed.APIKey)
	return u.id, nil
}

// IssueAPIKey generates a new API key for a user, replacing the old one, and
// returns it: what "generate" on the user's card does.
func (s *Server) IssueAPIKey(login string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.userByLogin(login)
	if u == nil {
		return "", fmt.Errorf("erpfake: no user %q", login)
	}
	key := randomHex(16)
	s.st.setKey(u, key)
	return key, nil
}

// RevokeAPIKey takes a user's API key away, as clearing it on the user's
// card does: calls with it are refused (401) from then on.
func (s *Server) RevokeAPIKey(login string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.userByLogin(login)
	if u == nil {
		return fmt.Errorf("erpfake: no user %q", login)
	}
	if u.apiKey == "" {
		return fmt.Errorf("erpfake: user %q has no API key", login)
	}
	s.st.setKey(u, "")
	return nil
}

// SetUserEnabled enables or disables a user; a disabled user's key and
// sessions stop working.
func (s *Server) SetUserEnabled(login string, on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.st.userByLogin(login)
	if u == nil {
		return fmt.Errorf("erpfake: no user %q", login)
	}
	u.enabled = on
	return nil
}

// ThirdpartySeed describes a third party to add. Invoices and orders of a
// seed name it by its name.
type ThirdpartySeed struct {
	Name string `json:"name" yaml:"name"` // required
	// Client is the ERP's kind: 0 none, 1 customer, 2 prospect, 3 both.
	Client int `json:"client,omitempty" yaml:"client,omitempty"`
	// Customer makes it a customer (Client 1, or 3 with Client 2).
	Customer    bool   `json:"customer,omitempty" yaml:"customer,omitempty"`
	Supplier    bool   `json:"supplier,omitempty" yaml:"supplier,omitempty"`
	Email       string `json:"email,omitempty" yaml:"email,omitempty"`
	Town        string `json:"town,omitempty" yaml:"town,omitempty"`
	CountryCode string `json:"country,omitempty" yaml:"country,omitempty"` // "FR"
}

// AddThirdparty adds a third party (customers and suppliers get their codes)
// and returns its id.
func (s *Server) AddThirdparty(seed ThirdpartySeed) (int64, error) {
	return seedErr(s.addThirdparty(seed))
}

func (s *Server) addThirdparty(seed ThirdpartySeed) (int64, error) {
	if strings.TrimSpace(seed.Name) == "" {
		return 0, errors.New("a third party needs a name")
	}
	client := seed.Client
	if seed.Customer && (client == 0 || client == 2) {
		client++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seedLocked(createThirdparty, "thirdparty", map[string]any{"name": seed.Name, "client": client,
		"fournisseur": seed.Supplier, "email": seed.Email, "town": seed.Town, "country_code": seed.CountryCode})
}

// ContactSeed describes a contact to add.
type ContactSeed struct {
	// Thirdparty is an existing third party's name; SocID its id;
	// neither: a contact of no third party.
	Thirdparty string `json:"thirdparty,omitempty" yaml:"thirdparty,omitempty"`
	SocID      int64  `json:"socid,omitempty" yaml:"socid,omitempty"`
	Lastname   string `json:"lastname" yaml:"lastname"` // required
	Firstname  string `json:"firstname,omitempty" yaml:"firstname,omitempty"`
	Email      string `json:"email,omitempty" yaml:"email,omitempty"`
	Phone      string `json:"phone,omitempty" yaml:"phone,omitempty"`
	Job        string `json:"job,omitempty" yaml:"job,omitempty"`
}

// AddContact adds a contact and returns its id.
func (s *Server) AddContact(seed ContactSeed) (int64, error) { return seedErr(s.addContact(seed)) }

func (s *Server) addContact(seed ContactSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fields := map[string]any{"lastname": seed.Lastname, "firstname": seed.Firstname, "email": seed.Email,
		"phone_pro": seed.Phone, "poste": seed.Job}
	if seed.Thirdparty != "" || seed.SocID != 0 {
		socid, err := s.st.thirdpartyRef(seed.Thirdparty, seed.SocID)
		if err != nil {
			return 0, err
		}
		fields["socid"] = socid
	}
	return s.seedLocked(createContact, "contact", fields)
}

// ProductSeed describes a product to add. Lines of a seed name it by its
// ref.
type ProductSeed struct {
	// Ref is required and unique, ignoring case.
	Ref   string `json:"ref" yaml:"ref"`
	Label string `json:"label" yaml:"label"` // required
	// Price is before tax, a decimal ("12.50"); empty is 0.
	Price string `json:"price,omitempty" yaml:"price,omitempty"`
	// VATRate is in percent ("20"); empty is 0.
	VATRate string `json:"vat_rate,omitempty" yaml:"vat_rate,omitempty"`
	Service bool   `json:"service,omitempty" yaml:"service,omitempty"`
}

// AddProduct adds a product and returns its id.
func (s *Server) AddProduct(seed ProductSeed) (int64, error) { return seedErr(s.addProduct(seed)) }

func (s *Server) addProduct(seed ProductSeed) (int64, error) {
	fields := map[string]any{"ref": seed.Ref, "label": seed.Label, "price": seed.Price, "tva_tx": seed.VATRate}
	if seed.Service {
		fields["type"] = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.productByRef(strings.TrimSpace(seed.Ref)) != nil {
		return 0, fmt.Errorf("ref %q already exists", seed.Ref)
	}
	return s.seedLocked(createProduct, "product", fields)
}

// LineSeed is a line of a seeded invoice or order: a product, by its ref
// (or id), or free text with a price.
type LineSeed struct {
	// Product is an existing product's ref; ProductID its id. Neither: a
	// free-text line, which needs a Subprice.
	Product   string `json:"product,omitempty" yaml:"product,omitempty"`
	ProductID int64  `json:"product_id,omitempty" yaml:"product_id,omitempty"`
	// Qty is required, a decimal.
	Qty string `json:"qty" yaml:"qty"`
	// Subprice is the unit price before tax; empty takes the product's.
	Subprice string `json:"subprice,omitempty" yaml:"subprice,omitempty"`
	// VATRate is in percent; empty takes the product's (0 for free text).
	VATRate string `json:"vat_rate,omitempty" yaml:"vat_rate,omitempty"`
	// Discount is in percent.
	Discount    string `json:"discount,omitempty" yaml:"discount,omitempty"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
}

// InvoiceSeed describes an invoice to add: a draft, or validated (with
// its final ref), or paid.
type InvoiceSeed struct {
	// Thirdparty is an existing third party's name; SocID its id. One of
	// them is required.
	Thirdparty string `json:"thirdparty,omitempty" yaml:"thirdparty,omitempty"`
	SocID      int64  `json:"socid,omitempty" yaml:"socid,omitempty"`
	// Type is 0 standard, 1 replacement, 2 credit note, 3 deposit.
	Type      int    `json:"type,omitempty" yaml:"type,omitempty"`
	RefClient string `json:"ref_client,omitempty" yaml:"ref_client,omitempty"`
	// Date is the invoice's date (a day); zero: today on the fake's clock.
	Date  time.Time  `json:"date,omitzero" yaml:"date,omitempty"`
	Lines []LineSeed `json:"lines,omitempty" yaml:"lines,omitempty"`
	// Validated validates it (it gets its final ref); else it is a draft.
	// A validated invoice needs lines.
	Validated bool `json:"validated,omitempty" yaml:"validated,omitempty"`
	// Paid makes it validated and paid, by one transfer of its total on
	// its date.
	Paid bool `json:"paid,omitempty" yaml:"paid,omitempty"`
}

// AddInvoice adds an invoice, computing its totals, and returns its id.
func (s *Server) AddInvoice(seed InvoiceSeed) (int64, error) { return seedErr(s.addInvoice(seed)) }

func (s *Server) addInvoice(seed InvoiceSeed) (int64, error) {
	if (seed.Validated || seed.Paid) && len(seed.Lines) == 0 {
		return 0, errors.New("a validated invoice needs lines")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fields, err := s.st.documentFields(seed.Thirdparty, seed.SocID, seed.Date, seed.Lines)
	if err != nil {
		return 0, err
	}
	fields["type"], fields["ref_client"] = seed.Type, seed.RefClient
	if seed.Paid && !s.seedCall().room("payment", 1) { // checked first: a refused payment would leave the invoice made
		return 0, errors.New("Payment error : " + tableFull(tables["payment"]))
	}
	id, err := s.seedLocked(createInvoice, "invoice", fields)
	if err != nil {
		return 0, err
	}
	inv, _ := byID(s.st.invoices, id)
	if seed.Validated || seed.Paid {
		s.seedCall().validate(&inv.document, invoicePrefix(inv.typ), "Invoice")
	}
	if seed.Paid {
		// Paid by one transfer of the whole, on the invoice's date.
		s.seedCall().pay(paymentInput{mode: 2, closePaid: true, date: inv.date, hasDate: true}, []*invoice{inv}, []*big.Rat{inv.remain()})
	}
	return id, nil
}

// OrderSeed describes an order to add: a draft, validated (with its final
// ref), or closed.
type OrderSeed struct {
	// Thirdparty is an existing third party's name; SocID its id. One of
	// them is required.
	Thirdparty string `json:"thirdparty,omitempty" yaml:"thirdparty,omitempty"`
	SocID      int64  `json:"socid,omitempty" yaml:"socid,omitempty"`
	RefClient  string `json:"ref_client,omitempty" yaml:"ref_client,omitempty"`
	// Date is the order's date (a day); zero: today on the fake's clock.
	Date  time.Time  `json:"date,omitzero" yaml:"date,omitempty"`
	Lines []LineSeed `json:"lines,omitempty" yaml:"lines,omitempty"`
	// Validated validates it (it gets its final ref); else it is a draft.
	// A validated order needs lines.
	Validated bool `json:"validated,omitempty" yaml:"validated,omitempty"`
	// Closed makes it validated and closed.
	Closed bool `json:"closed,omitempty" yaml:"closed,omitempty"`
}

// AddOrder adds an order, computing its totals, and returns its id.
func (s *Server) AddOrder(seed OrderSeed) (int64, error) { return seedErr(s.addOrder(seed)) }

func (s *Server) addOrder(seed OrderSeed) (int64, error) {
	if (seed.Validated || seed.Closed) && len(seed.Lines) == 0 {
		return 0, errors.New("a validated order needs lines")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fields, err := s.st.documentFields(seed.Thirdparty, seed.SocID, seed.Date, seed.Lines)
	if err != nil {
		return 0, err
	}
	fields["ref_client"] = seed.RefClient
	id, err := s.seedLocked(createOrder, "order", fields)
	if err != nil {
		return 0, err
	}
	o, _ := byID(s.st.orders, id)
	if seed.Validated || seed.Closed {
		s.seedCall().validate(&o.document, "CO", "Order")
	}
	if seed.Closed {
		o.status, o.closedAt = orderClosed, s.st.now()
	}
	return id, nil
}

// ProposalSeed describes a commercial proposal to add: a draft, validated
// (with its final ref), or closed signed or not signed.
type ProposalSeed struct {
	// Thirdparty is an existing third party's name; SocID its id. One of
	// them is required.
	Thirdparty string `json:"thirdparty,omitempty" yaml:"thirdparty,omitempty"`
	SocID      int64  `json:"socid,omitempty" yaml:"socid,omitempty"`
	RefClient  string `json:"ref_client,omitempty" yaml:"ref_client,omitempty"`
	// Date is the proposal's date (a day); zero: today on the fake's clock.
	// It is valid 15 days from it.
	Date  time.Time  `json:"date,omitzero" yaml:"date,omitempty"`
	Lines []LineSeed `json:"lines,omitempty" yaml:"lines,omitempty"`
	// Validated validates it (it gets its final ref); else it is a draft.
	// A validated proposal needs lines.
	Validated bool `json:"validated,omitempty" yaml:"validated,omitempty"`
	// Signed makes it validated and closed signed; NotSigned validated and
	// closed not signed. At most one of them.
	Signed    bool `json:"signed,omitempty" yaml:"signed,omitempty"`
	NotSigned bool `json:"not_signed,omitempty" yaml:"not_signed,omitempty"`
}

// AddProposal adds a commercial proposal, computing its totals, and
// returns its id.
func (s *Server) AddProposal(seed ProposalSeed) (int64, error) { return seedErr(s.addProposal(seed)) }

func (s *Server) addProposal(seed ProposalSeed) (int64, error) {
	switch {
	case seed.Signed && seed.NotSigned:
		return 0, errors.New("a proposal is signed or not signed, not both")
	case (seed.Validated || seed.Signed || seed.NotSigned) && len(seed.Lines) == 0:
		return 0, errors.New("a validated proposal needs lines")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fields, err := s.st.documentFields(seed.Thirdparty, seed.SocID, seed.Date, seed.Lines)
	if err != nil {
		return 0, err
	}
	fields["ref_client"] = seed.RefClient
	id, err := s.seedLocked(createProposal, "proposal", fields)
	if err != nil {
		return 0, err
	}
	p, _ := byID(s.st.proposals, id)
	if seed.Validated || seed.Signed || seed.NotSigned {
		s.seedCall().validate(&p.document, "PR", "Commercial Proposal")
	}
	switch {
	case seed.Signed:
		p.status, p.closedAt = propalSigned, s.st.now()
	case seed.NotSigned:
		p.status, p.closedAt = propalNotSigned, s.st.now()
	}
	return id, nil
}

// documentFields is the body of a seeded invoice or order, its third party
// and products found by name and ref.
func (st *state) documentFields(name string, socid int64, date time.Time, lines []LineSeed) (map[string]any, error) {
	socid, err := st.thirdpartyRef(name, socid)
	if err != nil {
		return nil, err
	}
	f := map[string]any{"socid": socid}
	if !date.IsZero() {
		f["date"] = date.Unix()
	}
	items := make([]map[string]any, len(lines))
	for i, l := range lines {
		item := map[string]any{"qty": l.Qty, "desc": l.Description}
		id, err := st.productRef(l.Product, l.ProductID)
		if err != nil {
			return nil, fmt.Errorf("lines[%d]: %w", i, err)
		}
		if id != 0 {
			item["fk_product"] = id
		}
		for k, v := range map[string]string{"subprice": l.Subprice, "tva_tx": l.VATRate, "remise_percent": l.Discount} {
			if v != "" {
				item[k] = v
			}
		}
		items[i] = item
	}
	f["lines"] = items
	return f, nil
}

// thirdpartyRef finds the third party a seed names, by name or id (both:
// they must agree). Names need not be unique in the ERP: an ambiguous one
// is refused.
func (st *state) thirdpartyRef(name string, id int64) (int64, error) {
	if name == "" {
		if id == 0 {
			return 0, errors.New("needs a third party: thirdparty (its name) or socid")
		}
		return id, nil // the API's own check names a missing one
	}
	var found []*thirdparty
	for _, t := range st.thirdparties {
		if strings.EqualFold(t.name, name) {
			found = append(found, t)
		}
	}
	switch {
	case len(found) == 0:
		return 0, fmt.Errorf("thirdparty %q does not exist", name)
	case len(found) > 1:
		return 0, fmt.Errorf("thirdparty %q names %d third parties; give socid", name, len(found))
	case id != 0 && id != found[0].id:
		return 0, fmt.Errorf("thirdparty %q is id %d, not socid %d", name, found[0].id, id)
	}
	return found[0].id, nil
}

// productRef finds the product a line names, by ref or id (both: they must
// agree); 0 for a free-text line.
func (st *state) productRef(ref string, id int64) (int64, error) {
	if ref == "" {
		return id, nil
	}
	p := st.productByRef(ref)
	switch {
	case p == nil:
		return 0, fmt.Errorf("product %q does not exist", ref)
	case id != 0 && id != p.id:
		return 0, fmt.Errorf("product %q is id %d, not product_id %d", ref, p.id, id)
	}
	return p.id, nil
}

// seedRequest stands for the request of a seed, which has none.
var seedRequest = &http.Request{Method: http.MethodPost, URL: &url.URL{Path: apiRoot}, Header: http.Header{}}

// seedLocked runs an API create as admin, with fields for its body, and
// returns the new record's id (of kind) or why it was refused. s.mu must be
// held.
func (s *Server) seedLocked(op operation, kind string, fields map[string]any) (int64, error) {
	b := &body{fields: map[string]json.RawMessage{}}
	for k, v := range fields {
		raw, err := json.Marshal(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", k, err)
		}
		b.fields[k] = raw
	}
	if a := op(&input{r: seedRequest, body: b})(s.seedCall()); a.Status != http.StatusOK {
		return 0, answerError(a)
	}
	return s.st.seq[kind], nil
}

// seedCall is a call made by the fake itself, as admin. s.mu must be held.
func (s *Server) seedCall() *call {
	return &call{s: s, st: s.st, r: seedRequest, user: s.admin, num: numbers{native: true}}
}

// answerError is an error answer's message as an error, without the
// status's own words: "lines[0]: qty field missing".
func answerError(a fakekit.Answer) error {
	var msg, detail string
	if m, ok := a.Body.(map[string]any); ok {
		if obj, ok := m["error"].(map[string]any); ok {
			msg, _ = obj["message"].(string)
			detail, _ = obj["0"].(string)
		}
	}
	msg = strings.TrimPrefix(strings.TrimPrefix(msg, http.StatusText(a.Status)), ": ")
	switch {
	case msg == "":
		return fmt.Errorf("refused with status %d", a.Status)
	case detail != "":
		return fmt.Errorf("%s (%s)", msg, detail)
	}
	return errors.New(msg)
}

// Reading state back: each returns what the API would show admin, in the
// client's types, or nil.

// User returns a user.
func (s *Server) User(id int64) *erp.User {
	return readOne[erp.User](s, func(st *state) (*user, bool) { return byID(st.users, id) }, (*call).appendUser)
}

// Users returns every user in id order.
func (s *Server) Users() []*erp.User {
	return readAll[erp.User](s, func(st *state) []*user { return st.users }, (*call).appendUser)
}

// Thirdparty returns a third party.
func (s *Server) Thirdparty(id int64) *erp.Thirdparty {
	return readOne[erp.Thirdparty](s, func(st *state) (*thirdparty, bool) { return byID(st.thirdparties, id) }, (*call).appendThirdparty)
}

// Thirdparties returns every third party in id order.
func (s *Server) Thirdparties() []*erp.Thirdparty {
	return readAll[erp.Thirdparty](s, func(st *state) []*thirdparty { return st.thirdparties }, (*call).appendThirdparty)
}

// Product returns a product.
func (s *Server) Product(id int64) *erp.Product {
	return readOne[erp.Product](s, func(st *state) (*product, bool) { return byID(st.products, id) }, (*call).appendProduct)
}

// Products returns every product in id order.
func (s *Server) Products() []*erp.Product {
	return readAll[erp.Product](s, func(st *state) []*product { return st.products }, (*call).appendProduct)
}

// Invoice returns an invoice.
func (s *Server) Invoice(id int64) *erp.Invoice {
	return readOne[erp.Invoice](s, func(st *state) (*invoice, bool) { return byID(st.invoices, id) }, (*call).appendInvoice)
}

// Invoices returns every invoice in id order.
func (s *Server) Invoices() []*erp.Invoice {
	return readAll[erp.Invoice](s, func(st *state) []*invoice { return st.invoices }, (*call).appendInvoice)
}

// Order returns an order.
func (s *Server) Order(id int64) *erp.Order {
	return readOne[erp.Order](s, func(st *state) (*order, bool) { return byID(st.orders, id) }, (*call).appendOrder)
}

// Orders returns every order in id order.
func (s *Server) Orders() []*erp.Order {
	return readAll[erp.Order](s, func(st *state) []*order { return st.orders }, (*call).appendOrder)
}

// Proposal returns a commercial proposal.
func (s *Server) Proposal(id int64) *erp.Proposal {
	return readOne[erp.Proposal](s, func(st *state) (*proposal, bool) { return byID(st.proposals, id) }, (*call).appendProposal)
}

// Proposals returns every commercial proposal in id order.
func (s *Server) Proposals() []*erp.Proposal {
	return readAll[erp.Proposal](s, func(st *state) []*proposal { return st.proposals }, (*call).appendProposal)
}

// Contact returns a contact.
func (s *Server) Contact(id int64) *erp.Contact {
	return readOne[erp.Contact](s, func(st *state) (*contact, bool) { return byID(st.contacts, id) }, (*call).appendContact)
}

// Contacts returns every contact in id order.
func (s *Server) Contacts() []*erp.Contact {
	return readAll[erp.Contact](s, func(st *state) []*contact { return st.contacts }, (*call).appendContact)
}

// readOne writes a record under the lock and decodes it into the client's
// type, so what a test reads back is exactly what the API would answer.
func readOne[T any, R any](s *Server, find func(*state) (R, bool), write func(*call, []byte, R) []byte) *T {
	rendered, found := func() ([]byte, bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		rec, found := find(s.st)
		if !found {
			return nil, false
		}
		return render(s.readCall(), write, rec), true
	}()
	if !found {
		return nil
	}
	out := new(T)
	if json.Unmarshal(rendered, out) != nil {
		return nil
	}
	return out
}

func readAll[T any, R any](s *Server, list func(*state) []R, write func(*call, []byte, R) []byte) []*T {
	rendered := func() []byte {
		s.mu.Lock()
		defer s.mu.Unlock()
		c := s.readCall()
		return jsonw.AppendArray(nil, list(s.st), func(b []byte, r R) []byte { return write(c, b, r) })
	}()
	var out []*T
	if json.Unmarshal(rendered, &out) != nil {
		return nil
	}
	return out
}

func (s *Server) readCall() *call {
	return &call{s: s, st: s.st, user: s.admin, num: numbers{native: s.nativeNumbers.Load()}}
}
