package erpfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apitwin/apitwin/erp"
)

// Seeding puts data in directly, as an administrator would in the web
// interface, without faults or the request log. The same rules hold as
// through the API (unique logins and product refs, existing third parties
// and products).

// UserSeed describes a user to add.
type UserSeed struct {
	Login     string // required, unique (ignoring case)
	Password  string // for the login form; empty: the user cannot log in
	Lastname  string
	Firstname string
	Email     string
	Admin     bool
	Disabled  bool
}

// AddUser adds a user and returns its id.
func (s *Server) AddUser(seed UserSeed) (int64, error) {
	if strings.TrimSpace(seed.Login) == "" {
		return 0, errors.New("erpfake: a user needs a login")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.userByLogin(seed.Login) != nil {
		return 0, fmt.Errorf("erpfake: login %q is taken", seed.Login)
	}
	u := s.st.addUser(userFields{login: seed.Login, password: seed.Password, lastname: seed.Lastname,
		firstname: seed.Firstname, email: seed.Email, admin: seed.Admin, employee: true})
	u.enabled = !seed.Disabled
	return u.id, nil
}

// NewAPIKey generates a new API key for a user, replacing the old one, and
// returns it: what "generate" on the user's card does.
func (s *Server) NewAPIKey(login string) (string, error) {
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

// ThirdpartySeed describes a third party to add.
type ThirdpartySeed struct {
	Name        string // required
	Client      int    // 0 none, 1 customer, 2 prospect, 3 both
	Supplier    bool
	Email       string
	Town        string
	CountryCode string
}

// AddThirdparty adds a third party (customers and suppliers get their codes)
// and returns its id.
func (s *Server) AddThirdparty(seed ThirdpartySeed) (int64, error) {
	if strings.TrimSpace(seed.Name) == "" {
		return 0, errors.New("erpfake: a third party needs a name")
	}
	if seed.Client < 0 || seed.Client > 3 {
		return 0, fmt.Errorf("erpfake: invalid client kind %d", seed.Client)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := &thirdparty{name: seed.Name, client: int64(seed.Client), supplier: seed.Supplier, email: seed.Email,
		town: seed.Town, country: seed.CountryCode, active: true}
	s.st.addThirdparty(t)
	return t.id, nil
}

// ProductSeed describes a product to add.
type ProductSeed struct {
	Ref     string // required, unique (ignoring case)
	Label   string // required
	Price   string // before tax, a decimal ("12.50"); empty is 0
	VATRate string // percent; empty is 0
	Service bool
}

// AddProduct adds a product and returns its id.
func (s *Server) AddProduct(seed ProductSeed) (int64, error) {
	fields := map[string]any{"ref": seed.Ref, "label": seed.Label, "price": seed.Price, "tva_tx": seed.VATRate}
	if seed.Service {
		fields["type"] = 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.seedCall(fields)
	if err != nil {
		return 0, err
	}
	a := c.createProduct()
	return c.seedResult(a, func() int64 { return s.st.seq["product"] })
}

// LineSeed is a line of a seeded invoice or order.
type LineSeed struct {
	ProductID   int64  // an existing product, or 0 for free text
	Qty         string // required, a decimal
	Subprice    string // unit price before tax; empty takes the product's
	VATRate     string // percent; empty takes the product's (0 for free text)
	Discount    string // percent
	Description string
}

// InvoiceSeed describes an invoice to add.
type InvoiceSeed struct {
	SocID     int64 // an existing third party
	Type      int   // 0 standard, 1 replacement, 2 credit note, 3 deposit
	Date      time.Time
	Lines     []LineSeed
	Validated bool // validate it (final ref), else a draft
	Paid      bool // validated and paid
}

// AddInvoice adds an invoice, computing its totals, and returns its id.
func (s *Server) AddInvoice(seed InvoiceSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.seedCall(documentFieldsOf(seed.SocID, seed.Date, seed.Lines, map[string]any{"type": seed.Type}))
	if err != nil {
		return 0, err
	}
	id, err := c.seedResult(c.createInvoice(), func() int64 { return s.st.seq["invoice"] })
	if err != nil {
		return 0, err
	}
	inv, _ := byID(s.st.invoices, id)
	if seed.Validated || seed.Paid {
		if a := c.validate(&inv.document, invoicePrefix(inv.typ), "Invoice"); a.status != 0 {
			return id, fmt.Errorf("erpfake: invoice %d added as a draft; validating it failed: %s", id, errorText(a))
		}
	}
	if seed.Paid {
		inv.status, inv.paid = invoicePaid, true
	}
	return id, nil
}

// OrderSeed describes an order to add.
type OrderSeed struct {
	SocID     int64 // an existing third party
	Date      time.Time
	Lines     []LineSeed
	Validated bool // validate it (final ref), else a draft
	Closed    bool // validated and closed
}

// AddOrder adds an order, computing its totals, and returns its id.
func (s *Server) AddOrder(seed OrderSeed) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.seedCall(documentFieldsOf(seed.SocID, seed.Date, seed.Lines, nil))
	if err != nil {
		return 0, err
	}
	id, err := c.seedResult(c.createOrder(), func() int64 { return s.st.seq["order"] })
	if err != nil {
		return 0, err
	}
	o, _ := byID(s.st.orders, id)
	if seed.Validated || seed.Closed {
		if a := c.validate(&o.document, "CO", "Order"); a.status != 0 {
			return id, fmt.Errorf("erpfake: order %d added as a draft; validating it failed: %s", id, errorText(a))
		}
	}
	if seed.Closed {
		o.status, o.closedAt = orderClosed, s.st.now()
	}
	return id, nil
}

func documentFieldsOf(socid int64, date time.Time, lines []LineSeed, extra map[string]any) map[string]any {
	f := map[string]any{"socid": socid}
	if !date.IsZero() {
		f["date"] = date.Unix()
	}
	items := make([]map[string]any, len(lines))
	for i, l := range lines {
		item := map[string]any{"qty": l.Qty, "desc": l.Description}
		if l.ProductID != 0 {
			item["fk_product"] = l.ProductID
		}
		for k, v := range map[string]string{"subprice": l.Subprice, "tva_tx": l.VATRate, "remise_percent": l.Discount} {
			if v != "" {
				item[k] = v
			}
		}
		items[i] = item
	}
	f["lines"] = items
	for k, v := range extra {
		f[k] = v
	}
	return f
}

// seedCall is a call made by the fake itself, as admin, with fields for a
// body. s.mu must be held.
func (s *Server) seedCall(fields map[string]any) (*call, error) {
	b := &body{fields: map[string]json.RawMessage{}}
	for k, v := range fields {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("erpfake: %s: %w", k, err)
		}
		b.fields[k] = raw
	}
	return &call{s: s, st: s.st, user: s.admin, body: b, num: numbers{native: true}}, nil
}

// seedResult turns a handler's answer into an id or an error.
func (c *call) seedResult(a answer, lastID func() int64) (int64, error) {
	if a.status != 200 {
		return 0, fmt.Errorf("erpfake: %s", errorText(a))
	}
	return lastID(), nil
}

func errorText(a answer) string {
	b, _ := json.Marshal(a.body)
	return fmt.Sprintf("%d %s", a.status, b)
}

// Reading state back: each returns what the API would show admin, in the
// client's types, or nil.

// User returns a user.
func (s *Server) User(id int64) *erp.User {
	return readOne[erp.User](s, func(st *state) (*user, bool) { return byID(st.users, id) }, (*call).renderUser)
}

// Users returns every user in id order.
func (s *Server) Users() []*erp.User {
	return readAll[erp.User](s, func(st *state) []*user { return st.users }, (*call).renderUser)
}

// Thirdparty returns a third party.
func (s *Server) Thirdparty(id int64) *erp.Thirdparty {
	return readOne[erp.Thirdparty](s, func(st *state) (*thirdparty, bool) { return byID(st.thirdparties, id) }, (*call).renderThirdparty)
}

// Thirdparties returns every third party in id order.
func (s *Server) Thirdparties() []*erp.Thirdparty {
	return readAll[erp.Thirdparty](s, func(st *state) []*thirdparty { return st.thirdparties }, (*call).renderThirdparty)
}

// Product returns a product.
func (s *Server) Product(id int64) *erp.Product {
	return readOne[erp.Product](s, func(st *state) (*product, bool) { return byID(st.products, id) }, (*call).renderProduct)
}

// Products returns every product in id order.
func (s *Server) Products() []*erp.Product {
	return readAll[erp.Product](s, func(st *state) []*product { return st.products }, (*call).renderProduct)
}

// Invoice returns an invoice.
func (s *Server) Invoice(id int64) *erp.Invoice {
	return readOne[erp.Invoice](s, func(st *state) (*invoice, bool) { return byID(st.invoices, id) }, (*call).renderInvoice)
}

// Invoices returns every invoice in id order.
func (s *Server) Invoices() []*erp.Invoice {
	return readAll[erp.Invoice](s, func(st *state) []*invoice { return st.invoices }, (*call).renderInvoice)
}

// Order returns an order.
func (s *Server) Order(id int64) *erp.Order {
	return readOne[erp.Order](s, func(st *state) (*order, bool) { return byID(st.orders, id) }, (*call).renderOrder)
}

// Orders returns every order in id order.
func (s *Server) Orders() []*erp.Order {
	return readAll[erp.Order](s, func(st *state) []*order { return st.orders }, (*call).renderOrder)
}

// readOne renders a record under the lock and decodes it into the client's
// type, so what a test reads back is exactly what the API would answer.
func readOne[T any, R any](s *Server, find func(*state) (R, bool), render func(*call, R) any) *T {
	s.mu.Lock()
	rec, found := find(s.st)
	var b []byte
	var err error
	if found {
		b, err = json.Marshal(render(s.readCall(), rec))
	}
	s.mu.Unlock()
	if !found || err != nil {
		return nil
	}
	out := new(T)
	if json.Unmarshal(b, out) != nil {
		return nil
	}
	return out
}

func readAll[T any, R any](s *Server, list func(*state) []R, render func(*call, R) any) []*T {
	s.mu.Lock()
	c := s.readCall()
	recs := list(s.st)
	rendered := make([]any, len(recs))
	for i, r := range recs {
		rendered[i] = render(c, r)
	}
	b, err := json.Marshal(rendered)
	s.mu.Unlock()
	var out []*T
	if err != nil || json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func (s *Server) readCall() *call {
	return &call{s: s, st: s.st, user: s.admin, num: numbers{native: s.cfg.nativeNumbers}}
}
