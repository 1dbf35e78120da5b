package erpfake

import (
	"cmp"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// SnapshotFormat and SnapshotVersion name the shape of the fake's
// snapshots; Restore reads this version only.
const (
	SnapshotFormat  = "erpfake"
	SnapshotVersion = 1
)

type snapshot struct {
	fakekit.SnapshotHeader
	APIEnabled   bool             `json:"api_enabled"`
	Admin        int64            `json:"admin"` // the user the fake was made with
	Sequences    map[string]int64 `json:"sequences"`
	Refs         map[string]int   `json:"refs"`
	Users        []snapUser       `json:"users"`
	Sessions     []snapSession    `json:"sessions"`
	Thirdparties []snapThirdparty `json:"thirdparties"`
	Contacts     []snapContact    `json:"contacts"`
	Products     []snapProduct    `json:"products"`
	Payments     []snapPayment    `json:"payments"`
	Invoices     []snapInvoice    `json:"invoices"`
	Orders       []snapOrder      `json:"orders"`
	Proposals    []snapProposal   `json:"proposals"` // absent from snapshots made before proposals
}

type snapTime = fakekit.SnapshotTime

type snapUser struct {
	ID        int64    `json:"id"`
	Login     string   `json:"login"`
	Password  string   `json:"password"`
	Lastname  string   `json:"lastname"`
	Firstname string   `json:"firstname"`
	Email     string   `json:"email"`
	Job       string   `json:"job"`
	Admin     bool     `json:"admin"`
	Employee  bool     `json:"employee"`
	Enabled   bool     `json:"enabled"`
	APIKey    string   `json:"api_key"`
	Datec     snapTime `json:"datec"`
	Datem     snapTime `json:"datem"`
	LastLogin snapTime `json:"last_login"`
}

type snapSession struct {
	ID       string   `json:"id"`
	User     int64    `json:"user"`
	LastSeen snapTime `json:"last_seen"`
}

type snapThirdparty struct {
	ID           int64    `json:"id"`
	Name         string   `json:"name"`
	Alias        string   `json:"alias"`
	Client       int64    `json:"client"`
	Supplier     bool     `json:"supplier"`
	CodeClient   string   `json:"code_client"`
	CodeSupplier string   `json:"code_supplier"`
	Email        string   `json:"email"`
	Phone        string   `json:"phone"`
	Address      string   `json:"address"`
	Zip          string   `json:"zip"`
	Town         string   `json:"town"`
	Country      string   `json:"country"`
	VAT          string   `json:"vat"`
	Active       bool     `json:"active"`
	NotePublic   string   `json:"note_public"`
	NotePrivate  string   `json:"note_private"`
	Datec        snapTime `json:"datec"`
	Datem        snapTime `json:"datem"`
}

type snapContact struct {
	ID          int64    `json:"id"`
	Thirdparty  int64    `json:"thirdparty"` // 0: none
	Lastname    string   `json:"lastname"`
	Firstname   string   `json:"firstname"`
	Email       string   `json:"email"`
	PhonePro    string   `json:"phone_pro"`
	PhoneMobile string   `json:"phone_mobile"`
	Poste       string   `json:"poste"`
	Address     string   `json:"address"`
	Zip         string   `json:"zip"`
	Town        string   `json:"town"`
	Country     string   `json:"country"`
	NotePublic  string   `json:"note_public"`
	NotePrivate string   `json:"note_private"`
	Active      bool     `json:"active"`
	Datec       snapTime `json:"datec"`
	Datem       snapTime `json:"datem"`
	Civility    string   `json:"civility"`
}

type snapProduct struct {
	ID          int64    `json:"id"`
	Ref         string   `json:"ref"`
	Label       string   `json:"label"`
	Description string   `json:"description"`
	Type        int64    `json:"type"`
	Price       string   `json:"price"`
	PriceTTC    string   `json:"price_ttc"`
	PriceMin    string   `json:"price_min"`
	BaseType    string   `json:"base_type"`
	VAT         string   `json:"vat"`
	OnSale      bool     `json:"on_sale"`
	OnPurchase  bool     `json:"on_purchase"`
	Barcode     string   `json:"barcode"`
	Stock       string   `json:"stock"`
	Weight      string   `json:"weight"`
	NotePublic  string   `json:"note_public"`
	NotePrivate string   `json:"note_private"`
	Datec       snapTime `json:"datec"`
	Datem       snapTime `json:"datem"`
}

type snapLine struct {
	ID       int64  `json:"id"`
	Product  int64  `json:"product"` // 0: a free-text line
	Type     int64  `json:"type"`
	Desc     string `json:"desc"`
	Qty      string `json:"qty"`
	Subprice string `json:"subprice"`
	Discount string `json:"discount"`
	VAT      string `json:"vat"`
	HT       string `json:"ht"`
	TVA      string `json:"tva"`
	TTC      string `json:"ttc"`
	Rank     int64  `json:"rank"`
}

type snapDocument struct {
	ID             int64      `json:"id"`
	Ref            string     `json:"ref"`
	RefClient      string     `json:"ref_client"`
	Thirdparty     int64      `json:"thirdparty"`
	Status         int64      `json:"status"`
	Date           snapTime   `json:"date"`
	Datec          snapTime   `json:"datec"`
	DateValidation snapTime   `json:"date_validation"`
	HT             string     `json:"ht"`
	TVA            string     `json:"tva"`
	TTC            string     `json:"ttc"`
	NotePublic     string     `json:"note_public"`
	NotePrivate    string     `json:"note_private"`
	Author         int64      `json:"author"` // 0: none
	Lines          []snapLine `json:"lines"`
	// PDF is the document built last (builddoc); encoding/json writes it
	// in base64.
	PDF []byte `json:"pdf,omitempty"`
}

type snapPayment struct {
	ID      int64    `json:"id"`
	Ref     string   `json:"ref"`
	Date    snapTime `json:"date"`
	Code    string   `json:"code"`
	Num     string   `json:"num"`
	Comment string   `json:"comment"`
}

type snapPaymentPart struct {
	Payment int64  `json:"payment"`
	Amount  string `json:"amount"`
}

type snapInvoice struct {
	snapDocument
	Type      int64             `json:"type"`
	Paid      bool              `json:"paid"`
	Due       snapTime          `json:"due"`
	Payments  []snapPaymentPart `json:"payments"`
	Order     int64             `json:"order"` // 0: none
	CloseCode string            `json:"close_code"`
	CloseNote string            `json:"close_note"`
}

type snapOrder struct {
	snapDocument
	Billed   bool     `json:"billed"`
	Delivery snapTime `json:"delivery"`
	ClosedAt snapTime `json:"closed_at"`
}

type snapProposal struct {
	snapDocument
	EndValidity snapTime `json:"end_validity"`
	ClosedAt    snapTime `json:"closed_at"`
}

// Snapshot returns the fake's whole state as versioned JSON, which
// Restore reads back into this fake or another, for a program that keeps its data across restarts (apitwin-fake -state-dir):
// every record with its id, the id and ref counters (so numbering goes on
// where it stopped), the web sessions, whether the REST API module is on.
// Faults and the request log are not state and are not kept. Records name
// one another by id; amounts are written exactly, as decimals ("12.5"),
// or as a fraction ("1/3") for one that is not a decimal. A snapshot holds
// every user's password and API key: keep it private.
//
// A snapshot holds the default entity's records only: while another
// entity (erp.EntityHeader) holds records, Snapshot fails rather than
// leave them out.
func (s *Server) Snapshot() ([]byte, error) {
	s.mu.Lock()
	if n := len(s.st.entities); n > 0 {
		s.mu.Unlock()
		return nil, fmt.Errorf("erpfake: snapshot: %d entities besides entity 1 hold records, which snapshots do not keep", n)
	}
	snap := s.snapshotLocked()
	s.mu.Unlock()
	return fakekit.EncodeSnapshot(snap)
}

func (s *Server) snapshotLocked() *snapshot {
	st := s.st
	snap := &snapshot{
		SnapshotHeader: fakekit.SnapshotHeader{Format: SnapshotFormat, Version: SnapshotVersion},
		APIEnabled:     s.apiEnabled.Load(),
		Admin:          s.admin.id,
		Sequences:      maps.Clone(st.seq),
		Refs:           maps.Clone(st.refs),
		Users:          []snapUser{}, Sessions: []snapSession{}, Thirdparties: []snapThirdparty{}, Contacts: []snapContact{},
		Products: []snapProduct{}, Payments: []snapPayment{}, Invoices: []snapInvoice{}, Orders: []snapOrder{},
		Proposals: []snapProposal{},
	}
	for _, u := range st.users {
		snap.Users = append(snap.Users, snapUser{ID: u.id, Login: u.login, Password: u.password, Lastname: u.lastname,
			Firstname: u.firstname, Email: u.email, Job: u.job, Admin: u.admin, Employee: u.employee, Enabled: u.enabled,
			APIKey: u.apiKey, Datec: snapTime(u.datec), Datem: snapTime(u.datem), LastLogin: snapTime(u.lastLogin)})
	}
	for id, se := range st.sessions {
		if st.sessionAlive(se, s.cfg.sessionTimeout) {
			snap.Sessions = append(snap.Sessions, snapSession{ID: id, User: se.user.id, LastSeen: snapTime(se.lastSeen)})
		}
	}
	// Map order is random: sorted, two snapshots of one state are equal.
	sortBy(snap.Sessions, func(se snapSession) string { return se.ID })
	for _, t := range st.thirdparties {
		snap.Thirdparties = append(snap.Thirdparties, snapThirdparty{ID: t.id, Name: t.name, Alias: t.alias, Client: t.client,
			Supplier: t.supplier, CodeClient: t.codeClient, CodeSupplier: t.codeSupplier, Email: t.email, Phone: t.phone,
			Address: t.address, Zip: t.zip, Town: t.town, Country: t.country, VAT: t.vat, Active: t.active,
			NotePublic: t.notePublic, NotePrivate: t.notePrivate, Datec: snapTime(t.datec), Datem: snapTime(t.datem)})
	}
	for _, ct := range st.contacts {
		sc := snapContact{ID: ct.id, Lastname: ct.lastname, Firstname: ct.firstname, Email: ct.email, PhonePro: ct.phonePro,
			PhoneMobile: ct.phoneMobile, Poste: ct.poste, Address: ct.address, Zip: ct.zip, Town: ct.town, Country: ct.country,
			NotePublic: ct.notePublic, NotePrivate: ct.notePrivate, Active: ct.active, Datec: snapTime(ct.datec),
			Datem: snapTime(ct.datem), Civility: ct.civility}
		if ct.soc != nil {
			sc.Thirdparty = ct.soc.id
		}
		snap.Contacts = append(snap.Contacts, sc)
	}
	for _, p := range st.products {
		snap.Products = append(snap.Products, snapProduct{ID: p.id, Ref: p.ref, Label: p.label, Description: p.description,
			Type: p.typ, Price: ratText(p.price), PriceTTC: ratText(p.priceTTC), PriceMin: ratText(p.priceMin),
			BaseType: p.baseType, VAT: ratText(p.vat), OnSale: p.onSale, OnPurchase: p.onPurchase, Barcode: p.barcode,
			Stock: ratText(p.stock), Weight: ratText(p.weight), NotePublic: p.notePublic, NotePrivate: p.notePrivate,
			Datec: snapTime(p.datec), Datem: snapTime(p.datem)})
	}
	// Payments live in the invoices they pay, one payment in several
	// invoices for a distributed one: kept once each, by id.
	payments := map[int64]*payment{}
	for _, inv := range st.invoices {
		si := snapInvoice{snapDocument: snapDoc(&inv.document), Type: inv.typ, Paid: inv.paid, Due: snapTime(inv.due),
			Payments: []snapPaymentPart{}, CloseCode: inv.closeCode, CloseNote: inv.closeNote}
		for _, part := range inv.payments {
			payments[part.pay.id] = part.pay
			si.Payments = append(si.Payments, snapPaymentPart{Payment: part.pay.id, Amount: ratText(part.amount)})
		}
		if inv.order != nil {
			si.Order = inv.order.id
		}
		snap.Invoices = append(snap.Invoices, si)
	}
	for _, pm := range payments {
		snap.Payments = append(snap.Payments, snapPayment{ID: pm.id, Ref: pm.ref, Date: snapTime(pm.date), Code: pm.code, Num: pm.num, Comment: pm.comment})
	}
	sortBy(snap.Payments, func(p snapPayment) int64 { return p.ID })
	for _, o := range st.orders {
		snap.Orders = append(snap.Orders, snapOrder{snapDocument: snapDoc(&o.document), Billed: o.billed,
			Delivery: snapTime(o.delivery), ClosedAt: snapTime(o.closedAt)})
	}
	for _, p := range st.proposals {
		snap.Proposals = append(snap.Proposals, snapProposal{snapDocument: snapDoc(&p.document),
			EndValidity: snapTime(p.endValidity), ClosedAt: snapTime(p.closedAt)})
	}
	return snap
}

func snapDoc(d *document) snapDocument {
	sd := snapDocument{ID: d.id, Ref: d.ref, RefClient: d.refClient, Status: d.status, Date: snapTime(d.date),
		Datec: snapTime(d.datec), DateValidation: snapTime(d.dateValidation), HT: ratText(d.ht), TVA: ratText(d.tva),
		TTC: ratText(d.ttc), NotePublic: d.notePublic, NotePrivate: d.notePrivate, Lines: []snapLine{}, PDF: d.pdf}
	if d.soc != nil {
		sd.Thirdparty = d.soc.id
	}
	if d.author != nil {
		sd.Author = d.author.id
	}
	for _, l := range d.lines {
		sl := snapLine{ID: l.id, Type: l.typ, Desc: l.desc, Qty: ratText(l.qty), Subprice: ratText(l.subprice),
			Discount: ratText(l.discount), VAT: ratText(l.vat), HT: ratText(l.ht), TVA: ratText(l.tva), TTC: ratText(l.ttc), Rank: l.rank}
		if l.product != nil {
			sl.Product = l.product.id
		}
		sd.Lines = append(sd.Lines, sl)
	}
	return sd
}

// ratText writes an exact number: a decimal when it is one (every amount
// the fake keeps is), a fraction otherwise; "" for none.
func ratText(r *big.Rat) string {
	if r == nil {
		return ""
	}
	if s, exact := r.FloatPrec(); exact {
		return r.FloatString(s)
	}
	return r.RatString()
}

// Restore replaces the fake's state with a snapshot's (see Snapshot). The
// admin user the fake was made with keeps the password and API key of
// this fake (AdminPassword, APIKey), whatever the snapshot says, so that
// the credentials a program prints are the ones that work. A snapshot of
// another format or version, or one that does not hold together (an id
// named but missing, a number that is not one, a login or key twice), is
// refused with an error and changes nothing. Faults and the request log
// stay as they are.
func (s *Server) Restore(data []byte) error {
	var snap snapshot
	if err := fakekit.DecodeSnapshot(data, SnapshotFormat, SnapshotVersion, &snap); err != nil {
		return fmt.Errorf("erpfake: %w", err)
	}
	st, admin, err := s.restoredState(&snap)
	if err != nil {
		return fmt.Errorf("erpfake: snapshot: %w", err)
	}
	s.mu.Lock()
	s.st, s.admin = st, admin
	s.apiEnabled.Store(snap.APIEnabled)
	s.mu.Unlock()
	return nil
}

// restoredState builds the state a snapshot describes, checking that it
// holds together.
func (s *Server) restoredState(snap *snapshot) (*state, *user, error) {
	st := newState(s.cfg.clock)
	for k, v := range snap.Sequences {
		if v < 0 {
			return nil, nil, fmt.Errorf("sequence %q is negative", k)
		}
		st.seq[k] = v
	}
	for k, v := range snap.Refs {
		if v < 0 {
			return nil, nil, fmt.Errorf("ref counter %q is negative", k)
		}
		st.refs[k] = v
	}
	var rats ratReader

	users := map[int64]*user{}
	logins := map[string]bool{}
	for i, su := range snap.Users {
		if err := inOrder("users", i, su.ID, snap.Users, func(u snapUser) int64 { return u.ID }); err != nil {
			return nil, nil, err
		}
		login := strings.ToLower(su.Login)
		if strings.TrimSpace(su.Login) == "" || logins[login] {
			return nil, nil, fmt.Errorf("users[%d]: login %q is empty or another user's", i, su.Login)
		}
		logins[login] = true
		u := &user{id: su.ID, login: su.Login, password: su.Password, lastname: su.Lastname, firstname: su.Firstname,
			email: su.Email, job: su.Job, admin: su.Admin, employee: su.Employee, enabled: su.Enabled,
			datec: su.Datec.Time(), datem: su.Datem.Time(), lastLogin: su.LastLogin.Time()}
		st.users = append(st.users, u)
		users[u.id] = u
		if su.APIKey != "" {
			if st.keys[su.APIKey] != nil {
				return nil, nil, fmt.Errorf("users[%d]: its API key is another user's", i)
			}
			st.setKey(u, su.APIKey)
		}
	}
	// The admin the fake was made with: its credentials are this fake's.
	admin := users[snap.Admin]
	if admin == nil {
		// Deleted by another administrator: kept apart, as the fake keeps
		// it, for the calls of seeding.
		admin = &user{id: snap.Admin, login: AdminLogin, lastname: "SuperAdmin", admin: true, employee: true, enabled: true}
	}
	admin.password = s.cfg.adminPassword
	if admin.apiKey != s.cfg.adminKey {
		if other := st.keys[s.cfg.adminKey]; other != nil && other != admin {
			st.setKey(other, "") // the key is admin's in this fake
		}
		if users[admin.id] == admin {
			st.setKey(admin, s.cfg.adminKey)
		} else {
			admin.apiKey = s.cfg.adminKey
		}
	}

	for i, ss := range snap.Sessions {
		u := users[ss.User]
		if u == nil || ss.ID == "" || st.sessions[ss.ID] != nil {
			return nil, nil, fmt.Errorf("sessions[%d]: no user %d, or an empty or repeated id", i, ss.User)
		}
		st.sessions[ss.ID] = &session{user: u, lastSeen: ss.LastSeen.Time()}
	}

	socs := map[int64]*thirdparty{}
	for i, t := range snap.Thirdparties {
		if err := inOrder("thirdparties", i, t.ID, snap.Thirdparties, func(t snapThirdparty) int64 { return t.ID }); err != nil {
			return nil, nil, err
		}
		tp := &thirdparty{id: t.ID, name: t.Name, alias: t.Alias, client: t.Client, supplier: t.Supplier, codeClient: t.CodeClient,
			codeSupplier: t.CodeSupplier, email: t.Email, phone: t.Phone, address: t.Address, zip: t.Zip, town: t.Town,
			country: t.Country, vat: t.VAT, active: t.Active, notePublic: t.NotePublic, notePrivate: t.NotePrivate,
			datec: t.Datec.Time(), datem: t.Datem.Time()}
		st.thirdparties = append(st.thirdparties, tp)
		socs[tp.id] = tp
	}
	soc := func(where string, id int64, optional bool) (*thirdparty, error) {
		if id == 0 && optional {
			return nil, nil
		}
		if t := socs[id]; t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("%s: no thirdparty %d", where, id)
	}
	for i, c := range snap.Contacts {
		where := fmt.Sprintf("contacts[%d]", i)
		if err := inOrder("contacts", i, c.ID, snap.Contacts, func(c snapContact) int64 { return c.ID }); err != nil {
			return nil, nil, err
		}
		t, err := soc(where, c.Thirdparty, true)
		if err != nil {
			return nil, nil, err
		}
		st.contacts = append(st.contacts, &contact{id: c.ID, soc: t, lastname: c.Lastname, firstname: c.Firstname, email: c.Email,
			phonePro: c.PhonePro, phoneMobile: c.PhoneMobile, poste: c.Poste, address: c.Address, zip: c.Zip, town: c.Town,
			country: c.Country, notePublic: c.NotePublic, notePrivate: c.NotePrivate, active: c.Active,
			datec: c.Datec.Time(), datem: c.Datem.Time(), civility: c.Civility})
	}

	products := map[int64]*product{}
	refs := map[string]bool{}
	for i, p := range snap.Products {
		where := fmt.Sprintf("products[%d]", i)
		if err := inOrder("products", i, p.ID, snap.Products, func(p snapProduct) int64 { return p.ID }); err != nil {
			return nil, nil, err
		}
		if refs[strings.ToLower(p.Ref)] {
			return nil, nil, fmt.Errorf("%s: ref %q is another product's", where, p.Ref)
		}
		refs[strings.ToLower(p.Ref)] = true
		pr := &product{id: p.ID, ref: p.Ref, label: p.Label, description: p.Description, typ: p.Type,
			price: rats.read(where+".price", p.Price), priceTTC: rats.read(where+".price_ttc", p.PriceTTC),
			priceMin: rats.read(where+".price_min", p.PriceMin), baseType: p.BaseType, vat: rats.read(where+".vat", p.VAT),
			onSale: p.OnSale, onPurchase: p.OnPurchase, barcode: p.Barcode, stock: rats.read(where+".stock", p.Stock),
			weight: rats.read(where+".weight", p.Weight), notePublic: p.NotePublic, notePrivate: p.NotePrivate,
			datec: p.Datec.Time(), datem: p.Datem.Time()}
		st.products = append(st.products, pr)
		products[pr.id] = pr
	}

	payments := map[int64]*payment{}
	for i, p := range snap.Payments {
		if payments[p.ID] != nil {
			return nil, nil, fmt.Errorf("payments[%d]: id %d twice", i, p.ID)
		}
		payments[p.ID] = &payment{id: p.ID, ref: p.Ref, date: p.Date.Time(), code: p.Code, num: p.Num, comment: p.Comment}
	}
	doc := func(where string, sd *snapDocument) (document, error) {
		t, err := soc(where, sd.Thirdparty, false)
		if err != nil {
			return document{}, err
		}
		d := document{id: sd.ID, ref: sd.Ref, refClient: sd.RefClient, soc: t, status: sd.Status, date: sd.Date.Time(),
			datec: sd.Datec.Time(), dateValidation: sd.DateValidation.Time(), ht: rats.read(where+".ht", sd.HT),
			tva: rats.read(where+".tva", sd.TVA), ttc: rats.read(where+".ttc", sd.TTC), notePublic: sd.NotePublic, notePrivate: sd.NotePrivate,
			pdf: sd.PDF}
		if sd.Author != 0 {
			if d.author = users[sd.Author]; d.author == nil {
				// A deleted user: the document still names it, by id.
				d.author = &user{id: sd.Author}
			}
		}
		for j, sl := range sd.Lines {
			lw := fmt.Sprintf("%s.lines[%d]", where, j)
			l := &line{id: sl.ID, typ: sl.Type, desc: sl.Desc, qty: rats.read(lw+".qty", sl.Qty),
				subprice: rats.read(lw+".subprice", sl.Subprice), discount: rats.read(lw+".discount", sl.Discount),
				vat: rats.read(lw+".vat", sl.VAT), ht: rats.read(lw+".ht", sl.HT), tva: rats.read(lw+".tva", sl.TVA),
				ttc: rats.read(lw+".ttc", sl.TTC), rank: sl.Rank}
			if sl.Product != 0 {
				if l.product = products[sl.Product]; l.product == nil {
					return document{}, fmt.Errorf("%s: no product %d", lw, sl.Product)
				}
			}
			d.lines = append(d.lines, l)
		}
		return d, nil
	}
	orders := map[int64]*order{}
	for i := range snap.Orders {
		so := &snap.Orders[i]
		where := fmt.Sprintf("orders[%d]", i)
		if err := inOrder("orders", i, so.ID, snap.Orders, func(o snapOrder) int64 { return o.ID }); err != nil {
			return nil, nil, err
		}
		d, err := doc(where, &so.snapDocument)
		if err != nil {
			return nil, nil, err
		}
		o := &order{document: d, billed: so.Billed, delivery: so.Delivery.Time(), closedAt: so.ClosedAt.Time()}
		st.orders = append(st.orders, o)
		orders[o.id] = o
	}
	for i := range snap.Proposals {
		sp := &snap.Proposals[i]
		where := fmt.Sprintf("proposals[%d]", i)
		if err := inOrder("proposals", i, sp.ID, snap.Proposals, func(p snapProposal) int64 { return p.ID }); err != nil {
			return nil, nil, err
		}
		d, err := doc(where, &sp.snapDocument)
		if err != nil {
			return nil, nil, err
		}
		st.proposals = append(st.proposals, &proposal{document: d, endValidity: sp.EndValidity.Time(), closedAt: sp.ClosedAt.Time()})
	}
	for i := range snap.Invoices {
		si := &snap.Invoices[i]
		where := fmt.Sprintf("invoices[%d]", i)
		if err := inOrder("invoices", i, si.ID, snap.Invoices, func(inv snapInvoice) int64 { return inv.ID }); err != nil {
			return nil, nil, err
		}
		d, err := doc(where, &si.snapDocument)
		if err != nil {
			return nil, nil, err
		}
		inv := &invoice{document: d, typ: si.Type, paid: si.Paid, due: si.Due.Time(), closeCode: si.CloseCode, closeNote: si.CloseNote}
		for j, part := range si.Payments {
			pm := payments[part.Payment]
			if pm == nil {
				return nil, nil, fmt.Errorf("%s.payments[%d]: no payment %d", where, j, part.Payment)
			}
			inv.payments = append(inv.payments, paymentPart{pay: pm, amount: rats.read(fmt.Sprintf("%s.payments[%d].amount", where, j), part.Amount)})
		}
		if si.Order != 0 {
			if inv.order = orders[si.Order]; inv.order == nil {
				return nil, nil, fmt.Errorf("%s: no order %d", where, si.Order)
			}
		}
		st.invoices = append(st.invoices, inv)
	}
	if rats.err != nil {
		return nil, nil, rats.err
	}
	return st, admin, nil
}

// inOrder checks that list[i]'s id is positive and above the one before:
// the fake finds records by a binary search on their ids.
func inOrder[T any](name string, i int, id int64, list []T, idOf func(T) int64) error {
	if id <= 0 || (i > 0 && idOf(list[i-1]) >= id) {
		return fmt.Errorf("%s[%d]: id %d is not positive or not above the one before", name, i, id)
	}
	return nil
}

// ratReader reads the numbers of a snapshot, keeping the first error.
type ratReader struct{ err error }

// read reads an exact number, "" being none.
func (rr *ratReader) read(where, text string) *big.Rat {
	if text == "" {
		return nil
	}
	// Bounded as the API bounds numbers: a snapshot is outside input too.
	if len(text) > maxNumberText {
		rr.fail(fmt.Errorf("%s: a number of %d characters", where, len(text)))
		return nil
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		rr.fail(fmt.Errorf("%s: %q is not a number", where, text))
		return nil
	}
	return r
}

func (rr *ratReader) fail(err error) {
	if rr.err == nil {
		rr.err = err
	}
}

// maxNumberText bounds a number of a snapshot: the ERP keeps DECIMAL(24,8),
// and a fraction of two such numbers is far shorter than this.
const maxNumberText = 200

// sortBy sorts list by key.
func sortBy[T any, K cmp.Ordered](list []T, key func(T) K) {
	slices.SortFunc(list, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
}
