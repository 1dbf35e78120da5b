package erpfake

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"time"
)

type productJSON struct {
	ID               json.RawMessage `json:"id"`
	Entity           json.RawMessage `json:"entity"`
	Ref              string          `json:"ref"`
	Label            string          `json:"label"`
	Description      string          `json:"description"`
	Type             json.RawMessage `json:"type"`
	Price            json.RawMessage `json:"price"`
	PriceTTC         json.RawMessage `json:"price_ttc"`
	PriceMin         json.RawMessage `json:"price_min"`
	PriceBaseType    string          `json:"price_base_type"`
	TvaTx            json.RawMessage `json:"tva_tx"`
	Status           json.RawMessage `json:"status"`
	StatusBuy        json.RawMessage `json:"status_buy"`
	Barcode          string          `json:"barcode"`
	StockReel        json.RawMessage `json:"stock_reel"`
	Weight           json.RawMessage `json:"weight"`
	NotePublic       string          `json:"note_public"`
	NotePrivate      string          `json:"note_private"`
	DateCreation     json.RawMessage `json:"date_creation"`
	DateModification json.RawMessage `json:"date_modification"`
	Multilangs       map[string]any  `json:"multilangs"`
	ArrayOptions     map[string]any  `json:"array_options"`
}

func (c *call) renderProduct(p *product) any {
	n := c.num
	return &productJSON{
		ID: n.id(p.id), Entity: n.id(1), Ref: p.ref, Label: p.label, Description: p.description, Type: n.int(p.typ),
		Price: n.dec(p.price), PriceTTC: n.dec(p.priceTTC), PriceMin: n.dec(p.priceMin), PriceBaseType: p.baseType,
		TvaTx: n.dec(p.vat), Status: n.flag(p.onSale), StatusBuy: n.flag(p.onPurchase), Barcode: p.barcode,
		StockReel: n.dec(p.stock), Weight: n.dec(p.weight), NotePublic: p.notePublic, NotePrivate: p.notePrivate,
		DateCreation: n.time(p.datec), DateModification: n.time(p.datem), Multilangs: map[string]any{}, ArrayOptions: map[string]any{},
	}
}

var products = &collection[*product]{
	noun:        "product",
	defaultSort: "t.ref",
	render:      (*call).renderProduct,
	fields: map[string]fieldDef[*product]{
		"rowid":           intField(false, func(p *product) int64 { return p.id }),
		"id":              intField(false, func(p *product) int64 { return p.id }),
		"ref":             textField(func(p *product) string { return p.ref }),
		"label":           textField(func(p *product) string { return p.label }),
		"description":     textField(func(p *product) string { return p.description }),
		"fk_product_type": intField(false, func(p *product) int64 { return p.typ }),
		"type":            intField(false, func(p *product) int64 { return p.typ }),
		"price":           numField(false, func(p *product) *big.Rat { return p.price }),
		"price_ttc":       numField(false, func(p *product) *big.Rat { return p.priceTTC }),
		"tva_tx":          numField(false, func(p *product) *big.Rat { return p.vat }),
		"tosell":          boolField(func(p *product) bool { return p.onSale }),
		"status":          boolField(func(p *product) bool { return p.onSale }),
		"tobuy":           boolField(func(p *product) bool { return p.onPurchase }),
		"status_buy":      boolField(func(p *product) bool { return p.onPurchase }),
		"barcode":         textField(func(p *product) string { return p.barcode }),
		"stock":           numField(false, func(p *product) *big.Rat { return p.stock }),
		"datec":           timeField(func(p *product) time.Time { return p.datec }),
		"tms":             timeField(func(p *product) time.Time { return p.datem }),
	},
}

func (c *call) listProducts() answer {
	mode, fail := queryInt(c.r.URL.Query().Get("mode"), "mode", 0)
	if fail != nil {
		return *fail
	}
	keep := func(p *product) bool {
		switch mode {
		case 1:
			return p.typ == 0
		case 2:
			return p.typ == 1
		}
		return true
	}
	return listAnswer(c, c.st.products, products, keep)
}

func (c *call) findProduct() (*product, *answer) { return findByPath(c, c.st.products, "Product") }

func (c *call) getProduct() answer {
	p, fail := c.findProduct()
	if fail != nil {
		return *fail
	}
	return ok(c.renderProduct(p))
}

// productInput reads the fields a create or an update may set into p, and
// recomputes the price on the other base (before or with tax).
func (c *call) productInput(p *product) {
	b := c.body
	b.strings(strField{"ref", &p.ref}, strField{"label", &p.label}, strField{"description", &p.description},
		strField{"barcode", &p.barcode}, strField{"note_public", &p.notePublic}, strField{"note_private", &p.notePrivate})
	p.ref, p.label = strings.TrimSpace(p.ref), strings.TrimSpace(p.label)
	if v, given := b.int("type"); given {
		if v != 0 && v != 1 {
			b.fail("type must be 0 (product) or 1 (service)")
		}
		p.typ = v
	}
	if v, given := b.str("price_base_type"); given {
		switch v = strings.ToUpper(strings.TrimSpace(v)); v {
		case "HT", "TTC":
			p.baseType = v
		default:
			b.fail("price_base_type must be HT or TTC")
		}
	}
	for _, f := range []struct {
		name string
		dst  **big.Rat
	}{{"tva_tx", &p.vat}, {"price_min", &p.priceMin}, {"weight", &p.weight}} {
		if v, given := b.dec(f.name); given {
			*f.dst = v
		}
	}
	price, hasPrice := b.dec("price")
	ttc, hasTTC := b.dec("price_ttc")
	if p.vat.Sign() < 0 {
		b.fail("tva_tx must not be negative")
	}
	rate := new(big.Rat).Add(one, new(big.Rat).Quo(p.vat, hundred))
	switch {
	case p.baseType == "TTC" && (hasTTC || hasPrice):
		if !hasTTC {
			ttc = price
		}
		p.priceTTC = ttc
		p.price = round(new(big.Rat).Quo(ttc, rate), 8)
	case hasPrice:
		p.price = price
		p.priceTTC = round(new(big.Rat).Mul(price, rate), 8)
	default:
		p.priceTTC = round(new(big.Rat).Mul(p.price, rate), 8)
	}
	if v, given := b.flag("status"); given {
		p.onSale = v
	}
	if v, given := b.flag("status_buy"); given {
		p.onPurchase = v
	}
}

func (c *call) createProduct() answer {
	for _, f := range []string{"ref", "label"} {
		if !c.body.has(f) {
			return badRequest(f + " field missing")
		}
	}
	p := &product{baseType: "HT", onSale: true, onPurchase: true, price: new(big.Rat), priceMin: new(big.Rat),
		vat: new(big.Rat), stock: new(big.Rat), weight: new(big.Rat)}
	c.productInput(p)
	if msg := c.body.problem(); msg != "" {
		return badRequest(msg)
	}
	if p.ref == "" {
		return badRequest("ref field missing")
	}
	if p.label == "" {
		return badRequest("label field missing")
	}
	if c.st.productByRef(p.ref) != nil {
		return apiError(http.StatusInternalServerError, "Error creating product", "ErrorProductAlreadyExists")
	}
	c.st.addProduct(p)
	return c.created(p.id, c.renderProduct(p))
}

func (st *state) addProduct(p *product) {
	p.id = st.next("product")
	p.datec = st.now()
	p.datem = p.datec
	st.products = append(st.products, p)
}

func (c *call) updateProduct() answer {
	p, fail := c.findProduct()
	if fail != nil {
		return *fail
	}
	next := *p
	c.productInput(&next)
	if msg := c.body.problem(); msg != "" {
		return badRequest(msg)
	}
	if next.ref == "" || next.label == "" {
		return badRequest("ref and label must not be empty")
	}
	if other := c.st.productByRef(next.ref); other != nil && other != p {
		return apiError(http.StatusInternalServerError, "Error updating product", "ErrorProductAlreadyExists")
	}
	next.datem = c.st.now()
	*p = next
	return ok(c.renderProduct(p))
}
