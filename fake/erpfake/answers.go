package erpfake

import (
	"encoding/json"

	"github.com/apitwin/apitwin/internal/jsonw"
)

//go:generate go run ../../internal/cmd/jsongen -type userJSON,thirdpartyJSON,contactJSON,productJSON,invoiceJSON,orderJSON,proposalJSON,lineJSON,paymentJSON,pageJSON

// The JSON shapes the fake answers with. They are the fake's own, written
// from the ERP's, not the client's types, so that the client's tests
// against the fake check the client's field names (and the records carry
// the fields the client does not model, as the ERP's do). Each is declared
// once, here, as a tagged struct; internal/cmd/jsongen generates their
// appendJSON methods (json_gen.go, by go generate; CI fails when it is out
// of date), which write what encoding/json would without its reflection:
// the list benchmarks (BenchmarkListVersusPlainHandler) hold them to a
// plain handler's time. Numbers are the scalars of numbers.go, in the
// deployment's style.
//
// A record's view is made from the state under the lock and written out
// at once (appendUser and the like), so a page of 100 costs one growing
// buffer, not a struct per record kept until the end.

// options is the ERP's array_options (extra fields) and a product's
// multilangs: always empty here.
type options struct{}

type userJSON struct {
	ID            num      `json:"id"`
	Entity        num      `json:"entity"`
	Login         string   `json:"login"`
	Lastname      string   `json:"lastname"`
	Firstname     string   `json:"firstname"`
	Email         string   `json:"email"`
	Job           string   `json:"job"`
	Admin         flag     `json:"admin"`
	Employee      flag     `json:"employee"`
	Statut        flag     `json:"statut"`
	Status        flag     `json:"status"`
	OfficePhone   string   `json:"office_phone"`
	UserMobile    string   `json:"user_mobile"`
	FkUser        num      `json:"fk_user"`
	Socid         num      `json:"socid"`
	Datec         unixTime `json:"datec"`
	Datem         unixTime `json:"datem"`
	DateLastLogin unixTime `json:"datelastlogin"`
	Gender        string   `json:"gender"`
	ArrayOptions  options  `json:"array_options"`
}

// appendUser appends u as the API shows it.
func (c *call) appendUser(b []byte, u *user) []byte {
	n := c.num
	v := userJSON{ID: n.id(u.id), Entity: n.id(1), Login: u.login, Lastname: u.lastname, Firstname: u.firstname,
		Email: u.email, Job: u.job, Admin: n.flag(u.admin), Employee: n.flag(u.employee), Statut: n.flag(u.enabled),
		Status: n.flag(u.enabled), FkUser: n.null(), Socid: n.null(), Datec: n.time(u.datec), Datem: n.time(u.datem),
		DateLastLogin: n.time(u.lastLogin)}
	return v.appendJSON(b)
}

type thirdpartyJSON struct {
	ID               num      `json:"id"`
	Entity           num      `json:"entity"`
	Name             string   `json:"name"`
	NameAlias        string   `json:"name_alias"`
	Client           num      `json:"client"`
	Prospect         flag     `json:"prospect"`
	Fournisseur      flag     `json:"fournisseur"`
	CodeClient       string   `json:"code_client"`
	CodeFournisseur  string   `json:"code_fournisseur"`
	Email            string   `json:"email"`
	Phone            string   `json:"phone"`
	Address          string   `json:"address"`
	Zip              string   `json:"zip"`
	Town             string   `json:"town"`
	CountryCode      string   `json:"country_code"`
	TvaIntra         string   `json:"tva_intra"`
	Status           flag     `json:"status"`
	NotePublic       string   `json:"note_public"`
	NotePrivate      string   `json:"note_private"`
	DateCreation     unixTime `json:"date_creation"`
	DateModification unixTime `json:"date_modification"`
	ArrayOptions     options  `json:"array_options"`
}

// appendThirdparty appends t as the API shows it.
func (c *call) appendThirdparty(b []byte, t *thirdparty) []byte {
	n := c.num
	v := thirdpartyJSON{ID: n.id(t.id), Entity: n.id(c.inEntity()), Name: t.name, NameAlias: t.alias, Client: n.id(t.client),
		Prospect: n.flag(t.client == 2 || t.client == 3), Fournisseur: n.flag(t.supplier), CodeClient: t.codeClient,
		CodeFournisseur: t.codeSupplier, Email: t.email, Phone: t.phone, Address: t.address, Zip: t.zip, Town: t.town,
		CountryCode: t.country, TvaIntra: t.vat, Status: n.flag(t.active), NotePublic: t.notePublic, NotePrivate: t.notePrivate,
		DateCreation: n.time(t.datec), DateModification: n.time(t.datem)}
	return v.appendJSON(b)
}

type contactJSON struct {
	ID               num      `json:"id"`
	Entity           num      `json:"entity"`
	Socid            num      `json:"socid"`
	FkSoc            num      `json:"fk_soc"`
	Lastname         string   `json:"lastname"`
	Firstname        string   `json:"firstname"`
	CivilityCode     string   `json:"civility_code"`
	Email            string   `json:"email"`
	PhonePro         string   `json:"phone_pro"`
	PhoneMobile      string   `json:"phone_mobile"`
	Poste            string   `json:"poste"`
	Address          string   `json:"address"`
	Zip              string   `json:"zip"`
	Town             string   `json:"town"`
	CountryCode      string   `json:"country_code"`
	Statut           flag     `json:"statut"`
	NotePublic       string   `json:"note_public"`
	NotePrivate      string   `json:"note_private"`
	DateCreation     unixTime `json:"date_creation"`
	DateModification unixTime `json:"date_modification"`
	ArrayOptions     options  `json:"array_options"`
}

// appendContact appends ct as the API shows it.
func (c *call) appendContact(b []byte, ct *contact) []byte {
	n := c.num
	soc := n.optID(contactSoc(ct), ct.soc != nil)
	v := contactJSON{ID: n.id(ct.id), Entity: n.id(c.inEntity()), Socid: soc, FkSoc: soc, Lastname: ct.lastname, Firstname: ct.firstname,
		CivilityCode: ct.civility, Email: ct.email, PhonePro: ct.phonePro, PhoneMobile: ct.phoneMobile, Poste: ct.poste,
		Address: ct.address, Zip: ct.zip, Town: ct.town, CountryCode: ct.country, Statut: n.flag(ct.active),
		NotePublic: ct.notePublic, NotePrivate: ct.notePrivate, DateCreation: n.time(ct.datec), DateModification: n.time(ct.datem)}
	return v.appendJSON(b)
}

type productJSON struct {
	ID               num      `json:"id"`
	Entity           num      `json:"entity"`
	Ref              string   `json:"ref"`
	Label            string   `json:"label"`
	Description      string   `json:"description"`
	Type             num      `json:"type"`
	Price            amount   `json:"price"`
	PriceTTC         amount   `json:"price_ttc"`
	PriceMin         amount   `json:"price_min"`
	PriceBaseType    string   `json:"price_base_type"`
	TvaTx            amount   `json:"tva_tx"`
	Status           flag     `json:"status"`
	StatusBuy        flag     `json:"status_buy"`
	Barcode          string   `json:"barcode"`
	StockReel        amount   `json:"stock_reel"`
	Weight           amount   `json:"weight"`
	NotePublic       string   `json:"note_public"`
	NotePrivate      string   `json:"note_private"`
	DateCreation     unixTime `json:"date_creation"`
	DateModification unixTime `json:"date_modification"`
	Multilangs       options  `json:"multilangs"`
	ArrayOptions     options  `json:"array_options"`
}

// appendProduct appends p as the API shows it.
func (c *call) appendProduct(b []byte, p *product) []byte {
	n := c.num
	v := productJSON{ID: n.id(p.id), Entity: n.id(c.inEntity()), Ref: p.ref, Label: p.label, Description: p.description, Type: n.id(p.typ),
		Price: n.dec(p.price), PriceTTC: n.dec(p.priceTTC), PriceMin: n.dec(p.priceMin), PriceBaseType: p.baseType,
		TvaTx: n.dec(p.vat), Status: n.flag(p.onSale), StatusBuy: n.flag(p.onPurchase), Barcode: p.barcode,
		StockReel: n.dec(p.stock), Weight: n.dec(p.weight), NotePublic: p.notePublic, NotePrivate: p.notePrivate,
		DateCreation: n.time(p.datec), DateModification: n.time(p.datem)}
	return v.appendJSON(b)
}

// lineJSON is a line of an invoice or an order.
type lineJSON struct {
	ID            num     `json:"id"`
	Rowid         num     `json:"rowid"`
	FkProduct     num     `json:"fk_product"`
	ProductRef    string  `json:"product_ref"`
	ProductLabel  string  `json:"product_label"`
	ProductType   num     `json:"product_type"`
	Desc          string  `json:"desc"`
	Qty           amount  `json:"qty"`
	Subprice      amount  `json:"subprice"`
	RemisePercent amount  `json:"remise_percent"`
	TvaTx         amount  `json:"tva_tx"`
	TotalHT       amount  `json:"total_ht"`
	TotalTVA      amount  `json:"total_tva"`
	TotalTTC      amount  `json:"total_ttc"`
	Rang          num     `json:"rang"`
	SpecialCode   num     `json:"special_code"`
	ArrayOptions  options `json:"array_options"`
}

// appendLine appends l as the API shows it.
func (c *call) appendLine(b []byte, l *line) []byte {
	n := c.num
	v := lineJSON{ID: n.id(l.id), Rowid: n.id(l.id), FkProduct: n.null(), ProductType: n.id(l.typ), Desc: l.desc,
		Qty: n.dec(l.qty), Subprice: n.dec(l.subprice), RemisePercent: n.dec(l.discount), TvaTx: n.dec(l.vat),
		TotalHT: n.dec(l.ht), TotalTVA: n.dec(l.tva), TotalTTC: n.dec(l.ttc), Rang: n.id(l.rank), SpecialCode: n.id(0)}
	if l.product != nil {
		v.FkProduct, v.ProductRef, v.ProductLabel = n.id(l.product.id), l.product.ref, l.product.label
	}
	return v.appendJSON(b)
}

// appendLines appends a document's lines.
func (c *call) appendLines(b []byte, lines []*line) []byte {
	return jsonw.AppendArray(b, lines, c.appendLine)
}

// linesOf is a document's lines, each written as a lineJSON when the
// document is: a list of 100 documents makes no list of lines.
type linesOf struct {
	c     *call
	lines []*line
}

func (l *linesOf) appendJSON(b []byte) []byte { return l.c.appendLines(b, l.lines) }

// MarshalJSON writes l as appendJSON does.
func (l linesOf) MarshalJSON() ([]byte, error) { return l.appendJSON(nil), nil }

type invoiceJSON struct {
	ID                num      `json:"id"`
	Entity            num      `json:"entity"`
	Ref               string   `json:"ref"`
	RefClient         string   `json:"ref_client"`
	Socid             num      `json:"socid"`
	Type              num      `json:"type"`
	Statut            num      `json:"statut"`
	Status            num      `json:"status"`
	Brouillon         flag     `json:"brouillon"`
	Paye              flag     `json:"paye"`
	Date              unixTime `json:"date"`
	DateLimReglement  unixTime `json:"date_lim_reglement"`
	DateCreation      unixTime `json:"date_creation"`
	DateValidation    unixTime `json:"date_validation"`
	TotalHT           amount   `json:"total_ht"`
	TotalTVA          amount   `json:"total_tva"`
	TotalTTC          amount   `json:"total_ttc"`
	MulticurrencyCode string   `json:"multicurrency_code"`
	NotePublic        string   `json:"note_public"`
	NotePrivate       string   `json:"note_private"`
	FkUserAuthor      num      `json:"fk_user_author"`
	CloseCode         string   `json:"close_code"`
	CloseNote         string   `json:"close_note"`
	Totalpaid         amount   `json:"totalpaid"`
	Remaintopay       amount   `json:"remaintopay"`
	Lines             linesOf  `json:"lines"`
	ArrayOptions      options  `json:"array_options"`
}

// appendInvoice appends inv as the API shows it, with its lines.
func (c *call) appendInvoice(b []byte, inv *invoice) []byte {
	n := c.num
	v := invoiceJSON{ID: n.id(inv.id), Entity: n.id(c.inEntity()), Ref: inv.ref, RefClient: inv.refClient, Socid: n.id(inv.soc.id),
		Type: n.id(inv.typ), Statut: n.id(inv.status), Status: n.id(inv.status), Brouillon: n.flag(inv.status == statusDraft),
		Paye: n.flag(inv.paid), Date: n.time(inv.date), DateLimReglement: n.time(inv.due), DateCreation: n.time(inv.datec),
		DateValidation: n.time(inv.dateValidation), TotalHT: n.dec(inv.ht), TotalTVA: n.dec(inv.tva), TotalTTC: n.dec(inv.ttc),
		MulticurrencyCode: "EUR", NotePublic: inv.notePublic, NotePrivate: inv.notePrivate,
		FkUserAuthor: n.optID(authorID(inv.author), inv.author != nil), CloseCode: inv.closeCode, CloseNote: inv.closeNote,
		Lines: linesOf{c, inv.lines}}
	if paid, remain, ok := inv.paidAndRemain8(); ok {
		v.Totalpaid, v.Remaintopay = n.dec8(paid), n.dec8(remain)
	} else {
		paid := inv.paidSum()
		v.Totalpaid, v.Remaintopay = n.dec(paid), n.dec(inv.remainAfter(paid))
	}
	return v.appendJSON(b)
}

type orderJSON struct {
	ID             num      `json:"id"`
	Entity         num      `json:"entity"`
	Ref            string   `json:"ref"`
	RefClient      string   `json:"ref_client"`
	Socid          num      `json:"socid"`
	Statut         num      `json:"statut"`
	Status         num      `json:"status"`
	Brouillon      flag     `json:"brouillon"`
	Billed         flag     `json:"billed"`
	Date           unixTime `json:"date"`
	DateCommande   unixTime `json:"date_commande"`
	DeliveryDate   unixTime `json:"delivery_date"`
	DateCreation   unixTime `json:"date_creation"`
	DateValidation unixTime `json:"date_validation"`
	DateCloture    unixTime `json:"date_cloture"`
	TotalHT        amount   `json:"total_ht"`
	TotalTVA       amount   `json:"total_tva"`
	TotalTTC       amount   `json:"total_ttc"`
	NotePublic     string   `json:"note_public"`
	NotePrivate    string   `json:"note_private"`
	UserAuthorID   num      `json:"user_author_id"`
	Lines          linesOf  `json:"lines"`
	ArrayOptions   options  `json:"array_options"`
}

// appendOrder appends o as the API shows it, with its lines.
func (c *call) appendOrder(b []byte, o *order) []byte {
	n := c.num
	v := orderJSON{ID: n.id(o.id), Entity: n.id(c.inEntity()), Ref: o.ref, RefClient: o.refClient, Socid: n.id(o.soc.id),
		Statut: n.id(o.status), Status: n.id(o.status), Brouillon: n.flag(o.status == statusDraft), Billed: n.flag(o.billed),
		Date: n.time(o.date), DateCommande: n.time(o.date), DeliveryDate: n.time(o.delivery), DateCreation: n.time(o.datec),
		DateValidation: n.time(o.dateValidation), DateCloture: n.time(o.closedAt), TotalHT: n.dec(o.ht), TotalTVA: n.dec(o.tva),
		TotalTTC: n.dec(o.ttc), NotePublic: o.notePublic, NotePrivate: o.notePrivate,
		UserAuthorID: n.optID(authorID(o.author), o.author != nil), Lines: linesOf{c, o.lines}}
	return v.appendJSON(b)
}

// proposalJSON is a commercial proposal: its date is "date" and "datep",
// its end of validity "fin_validite", its signature or refusal
// "date_signature" and "date_cloture".
type proposalJSON struct {
	ID             num      `json:"id"`
	Entity         num      `json:"entity"`
	Ref            string   `json:"ref"`
	RefClient      string   `json:"ref_client"`
	Socid          num      `json:"socid"`
	Statut         num      `json:"statut"`
	Status         num      `json:"status"`
	Brouillon      flag     `json:"brouillon"`
	Date           unixTime `json:"date"`
	Datep          unixTime `json:"datep"`
	FinValidite    unixTime `json:"fin_validite"`
	DateCreation   unixTime `json:"date_creation"`
	DateValidation unixTime `json:"date_validation"`
	DateSignature  unixTime `json:"date_signature"`
	DateCloture    unixTime `json:"date_cloture"`
	TotalHT        amount   `json:"total_ht"`
	TotalTVA       amount   `json:"total_tva"`
	TotalTTC       amount   `json:"total_ttc"`
	NotePublic     string   `json:"note_public"`
	NotePrivate    string   `json:"note_private"`
	UserAuthorID   num      `json:"user_author_id"`
	Lines          linesOf  `json:"lines"`
	ArrayOptions   options  `json:"array_options"`
}

// appendProposal appends p as the API shows it, with its lines.
func (c *call) appendProposal(b []byte, p *proposal) []byte {
	n := c.num
	v := proposalJSON{ID: n.id(p.id), Entity: n.id(c.inEntity()), Ref: p.ref, RefClient: p.refClient, Socid: n.id(p.soc.id),
		Statut: n.id(p.status), Status: n.id(p.status), Brouillon: n.flag(p.status == statusDraft),
		Date: n.time(p.date), Datep: n.time(p.date), FinValidite: n.time(p.endValidity), DateCreation: n.time(p.datec),
		DateValidation: n.time(p.dateValidation), DateCloture: n.time(p.closedAt), TotalHT: n.dec(p.ht), TotalTVA: n.dec(p.tva),
		TotalTTC: n.dec(p.ttc), NotePublic: p.notePublic, NotePrivate: p.notePrivate,
		UserAuthorID: n.optID(authorID(p.author), p.author != nil), Lines: linesOf{c, p.lines}}
	if p.status == propalSigned {
		v.DateSignature = n.time(p.closedAt)
	}
	return v.appendJSON(b)
}

// paymentJSON is a payment's part of an invoice, as GET
// /invoices/{id}/payments shows it.
type paymentJSON struct {
	Amount     amount   `json:"amount"`
	Type       string   `json:"type"`
	Date       unixTime `json:"date"`
	Num        string   `json:"num"`
	Ref        string   `json:"ref"`
	RefExt     string   `json:"ref_ext"`
	FkBankLine num      `json:"fk_bank_line"`
}

func (c *call) appendPayment(b []byte, p paymentPart) []byte {
	n := c.num
	v := paymentJSON{Amount: n.dec(p.amount), Type: p.pay.code, Date: n.time(p.pay.date), Num: p.pay.num, Ref: p.pay.ref,
		FkBankLine: n.null()}
	return v.appendJSON(b)
}

// pageJSON is a list with pagination_data: the page, then how it sits in
// the list (the keys in the order encoding/json gave a map's, as the
// answer was once written).
type pageJSON struct {
	Data       json.RawMessage `json:"data"`
	Pagination struct {
		Limit     int64 `json:"limit"`
		Page      int64 `json:"page"`
		PageCount int64 `json:"page_count"`
		Total     int64 `json:"total"`
	} `json:"pagination"`
}
