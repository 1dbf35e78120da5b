package erpfake

import (
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

func (c *call) renderProduct(p *product) []byte { return render(c, (*call).appendProduct, p) }

var products = &collection[*product]{
	noun:        "product",
	defaultSort: "t.ref",
	write:       (*call).appendProduct,
	fields: map[string]fieldDef[*product]{
		"rowid":           idField(func(p *product) int64 { return p.id }),
		"id":              idField(func(p *product) int64 { return p.id }),
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

func listProducts(in *input) step {
	q := query(in.r)
	lq, fail := parseList(q, products)
	if fail == nil {
		var mode int64
		if mode, fail = queryInt(q.Get("mode"), "mode", 0); fail == nil {
			return func(c *call) fakekit.Answer {
				return lq.answer(c, c.st.products, func(p *product) bool { return keepProduct(p, mode) })
			}
		}
	}
	return fails(*fail)
}

// keepProduct applies the list's mode: 1 products only, 2 services only,
// anything else both.
func keepProduct(p *product, mode int64) bool {
	switch mode {
	case 1:
		return p.typ == 0
	case 2:
		return p.typ == 1
	}
	return true
}

func getProduct(c *call, id int64) fakekit.Answer {
	p, fail := findByID(c.st.products, id, "Product")
	if fail != nil {
		return *fail
	}
	return okJSON(c.renderProduct(p))
}

// productPatch is what a create or an update of a product may set.
type productPatch struct {
	ref, label, description, barcode, notePublic, notePrivate opt[string]
	typ                                                       opt[int64]
	baseType                                                  opt[string]
	vat, priceMin, weight, price, ttc                         opt[*big.Rat]
	onSale, onPurchase                                        opt[bool]
}

func readProductPatch(b *body) productPatch {
	p := productPatch{ref: b.optStr("ref"), label: b.optStr("label"), description: b.optStr("description"),
		barcode: b.optStr("barcode"), notePublic: b.optStr("note_public"), notePrivate: b.optStr("note_private")}
	p.ref.v, p.label.v = strings.TrimSpace(p.ref.v), strings.TrimSpace(p.label.v)
	if v, given := b.int("type"); given {
		if v != 0 && v != 1 {
			b.fail("type must be 0 (product) or 1 (service)")
		}
		p.typ = opt[int64]{v, true}
	}
	if v, given := b.str("price_base_type"); given {
		switch v = strings.ToUpper(strings.TrimSpace(v)); v {
		case "HT", "TTC":
			p.baseType = opt[string]{v, true}
		default:
			b.fail("price_base_type must be HT or TTC")
		}
	}
	p.vat, p.priceMin, p.weight = b.optDec("tva_tx"), b.optDec("price_min"), b.optDec("weight")
	p.price, p.ttc = b.optDec("price"), b.optDec("price_ttc")
	if p.vat.set && p.vat.v != nil && p.vat.v.Sign() < 0 {
		b.fail("tva_tx must not be negative")
	}
	p.onSale, p.onPurchase = b.optFlag("status"), b.optFlag("status_buy")
	return p
}

// apply sets what the patch gives into pr, and recomputes the price on the
// other base (before or with tax). It returns what is wrong with the
// result: a computed price past the ERP's DECIMAL(24,8).
func (p *productPatch) apply(pr *product) string {
	for _, f := range []struct {
		o   opt[string]
		dst *string
	}{{p.ref, &pr.ref}, {p.label, &pr.label}, {p.description, &pr.description}, {p.barcode, &pr.barcode},
		{p.notePublic, &pr.notePublic}, {p.notePrivate, &pr.notePrivate}, {p.baseType, &pr.baseType}} {
		f.o.to(f.dst)
	}
	p.typ.to(&pr.typ)
	p.vat.to(&pr.vat)
	p.priceMin.to(&pr.priceMin)
	p.weight.to(&pr.weight)
	rate := new(big.Rat).Add(one, new(big.Rat).Quo(pr.vat, hundred))
	switch {
	case pr.baseType == "TTC" && (p.ttc.set || p.price.set):
		ttc := p.ttc.v
		if !p.ttc.set {
			ttc = p.price.v
		}
		pr.priceTTC = ttc
		pr.price = round(new(big.Rat).Quo(ttc, rate), 8)
	case p.price.set:
		pr.price = p.price.v
		pr.priceTTC = round(new(big.Rat).Mul(p.price.v, rate), 8)
	default:
		pr.priceTTC = round(new(big.Rat).Mul(pr.price, rate), 8)
	}
	p.onSale.to(&pr.onSale)
	p.onPurchase.to(&pr.onPurchase)
	if !fitsDecimal(pr.priceTTC) {
		return "price_ttc " + trimDecimal(pr.priceTTC) + " (the price with tax) has more digits than the ERP keeps: at most 16 before the point (DECIMAL(24,8))"
	}
	return ""
}

func createProduct(in *input) step {
	b := in.body
	for _, f := range []string{"ref", "label"} {
		if !b.has(f) {
			return fails(badRequest(f + " field missing"))
		}
	}
	p := readProductPatch(b)
	return func(c *call) fakekit.Answer {
		pr := &product{baseType: "HT", onSale: true, onPurchase: true, price: new(big.Rat), priceMin: new(big.Rat),
			vat: new(big.Rat), stock: new(big.Rat), weight: new(big.Rat)}
		if msg := b.problem(); msg != "" {
			return badRequest(msg)
		}
		if msg := p.apply(pr); msg != "" {
			return badRequest(msg)
		}
		if pr.ref == "" {
			return badRequest("ref field missing")
		}
		if pr.label == "" {
			return badRequest("label field missing")
		}
		if c.st.productByRef(pr.ref) != nil {
			// The ERP sends its error and its list of errors, which holds
			// the same code again.
			return apiError(http.StatusInternalServerError, "Error creating product", "ErrorProductAlreadyExists", "ErrorProductAlreadyExists")
		}
		if fail := c.full("product", 0, "Error creating product"); fail != nil {
			return *fail
		}
		c.st.addProduct(pr)
		return c.created(pr.id, c.renderProduct(pr))
	}
}

func (st *state) addProduct(p *product) {
	p.id = st.next("product")
	p.datec = st.now()
	p.datem = p.datec
	st.products = append(st.products, p)
}

func updateProduct(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	p := readProductPatch(in.body)
	return func(c *call) fakekit.Answer {
		pr, fail := findByID(c.st.products, id, "Product")
		if fail != nil {
			return *fail
		}
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		next := *pr
		if msg := p.apply(&next); msg != "" {
			return badRequest(msg)
		}
		if next.ref == "" || next.label == "" {
			return badRequest("ref and label must not be empty")
		}
		if other := c.st.productByRef(next.ref); other != nil && other != pr {
			return apiError(http.StatusInternalServerError, "Error updating product", "ErrorProductAlreadyExists")
		}
		next.datem = c.st.now()
		*pr = next
		return okJSON(c.renderProduct(pr))
	}
}

// deleteProduct is DELETE /products/{id}. A product on a line of an
// invoice or an order is in use and stays (409, the ERP's words).
func deleteProduct(c *call, id int64) fakekit.Answer {
	p, fail := findByID(c.st.products, id, "Product")
	if fail != nil {
		return *fail
	}
	used := func(lines []*line) bool {
		for _, l := range lines {
			if l.product == p {
				return true
			}
		}
		return false
	}
	for _, inv := range c.st.invoices {
		if used(inv.lines) {
			return apiError(http.StatusConflict, "Can't delete, that product is probably used")
		}
	}
	for _, o := range c.st.orders {
		if used(o.lines) {
			return apiError(http.StatusConflict, "Can't delete, that product is probably used")
		}
	}
	c.st.products = remove(c.st.products, p)
	return deleted("Object deleted")
}
