package erpfake

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

func (c *call) renderThirdparty(t *thirdparty) []byte { return render(c, (*call).appendThirdparty, t) }

var thirdparties = &collection[*thirdparty]{
	noun:        "thirdparty",
	defaultSort: "t.rowid",
	write:       (*call).appendThirdparty,
	fields: map[string]fieldDef[*thirdparty]{
		"rowid":            idField(func(t *thirdparty) int64 { return t.id }),
		"id":               idField(func(t *thirdparty) int64 { return t.id }),
		"nom":              textField(func(t *thirdparty) string { return t.name }),
		"name":             textField(func(t *thirdparty) string { return t.name }),
		"name_alias":       textField(func(t *thirdparty) string { return t.alias }),
		"client":           intField(false, func(t *thirdparty) int64 { return t.client }),
		"fournisseur":      boolField(func(t *thirdparty) bool { return t.supplier }),
		"code_client":      textField(func(t *thirdparty) string { return t.codeClient }),
		"code_fournisseur": textField(func(t *thirdparty) string { return t.codeSupplier }),
		"email":            textField(func(t *thirdparty) string { return t.email }),
		"phone":            textField(func(t *thirdparty) string { return t.phone }),
		"zip":              textField(func(t *thirdparty) string { return t.zip }),
		"town":             textField(func(t *thirdparty) string { return t.town }),
		"tva_intra":        textField(func(t *thirdparty) string { return t.vat }),
		"status":           boolField(func(t *thirdparty) bool { return t.active }),
		"datec":            timeField(func(t *thirdparty) time.Time { return t.datec }),
		"tms":              timeField(func(t *thirdparty) time.Time { return t.datem }),
	},
}

func listThirdparties(in *input) step {
	q := query(in.r)
	lq, fail := parseList(q, thirdparties)
	if fail == nil {
		var mode int64
		if mode, fail = queryInt(q.Get("mode"), "mode", 0); fail == nil {
			return func(c *call) fakekit.Answer {
				return lq.answer(c, c.st.thirdparties, func(t *thirdparty) bool { return keepThirdparty(t, mode) })
			}
		}
	}
	return fails(*fail)
}

// keepThirdparty applies the list's mode: 1 customers, 2 prospects, 3
// neither, 4 suppliers, anything else all.
func keepThirdparty(t *thirdparty, mode int64) bool {
	switch mode {
	case 1:
		return t.client == 1 || t.client == 3
	case 2:
		return t.client == 2 || t.client == 3
	case 3:
		return t.client == 0
	case 4:
		return t.supplier
	}
	return true
}

func getThirdparty(c *call, id int64) fakekit.Answer {
	t, fail := findByID(c.st.thirdparties, id, "Thirdparty")
	if fail != nil {
		return *fail
	}
	return okJSON(c.renderThirdparty(t))
}

// thirdpartyPatch is what a create or an update of a third party may set.
type thirdpartyPatch struct {
	name, alias, email, phone, address, zip, town, country, vat opt[string]
	codeClient, codeSupplier, notePublic, notePrivate           opt[string]
	client                                                      opt[int64]
	supplier, active                                            opt[bool]
}

func readThirdpartyPatch(b *body) thirdpartyPatch {
	p := thirdpartyPatch{name: b.optStr("name"), alias: b.optStr("name_alias"), email: b.optStr("email"),
		phone: b.optStr("phone"), address: b.optStr("address"), zip: b.optStr("zip"), town: b.optStr("town"),
		country: b.optStr("country_code"), vat: b.optStr("tva_intra"), codeClient: b.optStr("code_client"),
		codeSupplier: b.optStr("code_fournisseur"), notePublic: b.optStr("note_public"), notePrivate: b.optStr("note_private")}
	p.name.v = strings.TrimSpace(p.name.v)
	if v, given := b.int("client"); given {
		if v < 0 || v > 3 {
			b.fail("client must be 0 (none), 1 (customer), 2 (prospect) or 3 (both)")
		}
		p.client = opt[int64]{v, true}
	}
	p.supplier, p.active = b.optFlag("fournisseur"), b.optFlag("status")
	return p
}

func (p *thirdpartyPatch) apply(t *thirdparty) {
	for _, f := range []struct {
		o   opt[string]
		dst *string
	}{{p.name, &t.name}, {p.alias, &t.alias}, {p.email, &t.email}, {p.phone, &t.phone}, {p.address, &t.address},
		{p.zip, &t.zip}, {p.town, &t.town}, {p.country, &t.country}, {p.vat, &t.vat}, {p.codeClient, &t.codeClient},
		{p.codeSupplier, &t.codeSupplier}, {p.notePublic, &t.notePublic}, {p.notePrivate, &t.notePrivate}} {
		f.o.to(f.dst)
	}
	p.client.to(&t.client)
	p.supplier.to(&t.supplier)
	p.active.to(&t.active)
}

// codeTaken reports which of t's customer and supplier codes another third
// party than self already has, as the ERP's error code.
func (c *call) codeTaken(t, self *thirdparty) string {
	for _, o := range c.st.thirdparties {
		switch {
		case o == self:
		case t.codeClient != "" && strings.EqualFold(o.codeClient, t.codeClient):
			return "ErrorCustomerCodeAlreadyUsed"
		case t.codeSupplier != "" && strings.EqualFold(o.codeSupplier, t.codeSupplier):
			return "ErrorSupplierCodeAlreadyUsed"
		}
	}
	return ""
}

// assignCodes gives a customer or supplier without a code the next one of
// the ERP's default numbering: CU2611-00001, SU2611-00001.
func (st *state) assignCodes(t *thirdparty) {
	now := st.now()
	if t.codeClient == "" && (t.client == 1 || t.client == 3) {
		st.refs["CU"]++
		t.codeClient = fmt.Sprintf("CU%s-%05d", now.Format("0601"), st.refs["CU"])
	}
	if t.codeSupplier == "" && t.supplier {
		st.refs["SU"]++
		t.codeSupplier = fmt.Sprintf("SU%s-%05d", now.Format("0601"), st.refs["SU"])
	}
}

func createThirdparty(in *input) step {
	b := in.body
	if !b.has("name") {
		return fails(badRequest("name field missing"))
	}
	p := readThirdpartyPatch(b)
	return func(c *call) fakekit.Answer {
		if msg := b.problem(); msg != "" {
			return badRequest(msg)
		}
		if p.name.v == "" {
			return badRequest("name field missing")
		}
		t := &thirdparty{active: true}
		p.apply(t)
		if code := c.codeTaken(t, nil); code != "" {
			return apiError(http.StatusInternalServerError, "Error creating thirdparty", code)
		}
		if fail := c.full("thirdparty", 0, "Error creating thirdparty"); fail != nil {
			return *fail
		}
		c.st.addThirdparty(t)
		return c.created(t.id, c.renderThirdparty(t))
	}
}

func (st *state) addThirdparty(t *thirdparty) {
	t.id = st.next("thirdparty")
	t.datec = st.now()
	t.datem = t.datec
	st.assignCodes(t)
	st.thirdparties = append(st.thirdparties, t)
}

func updateThirdparty(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	p := readThirdpartyPatch(in.body)
	return func(c *call) fakekit.Answer {
		t, fail := findByID(c.st.thirdparties, id, "Thirdparty")
		if fail != nil {
			return *fail
		}
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		next := *t
		p.apply(&next)
		if next.name == "" {
			return badRequest("name field missing")
		}
		if code := c.codeTaken(&next, t); code != "" {
			// The ERP's PUT answers its object's error as the message.
			return apiError(http.StatusInternalServerError, code)
		}
		next.datem = c.st.now()
		*t = next
		c.st.assignCodes(t)
		return okJSON(c.renderThirdparty(t))
	}
}

// deleteThirdparty is DELETE /thirdparties/{id}. A third party that
// invoices or orders name is in use and stays (409, the ERP's words); its
// contacts go with it.
func deleteThirdparty(c *call, id int64) fakekit.Answer {
	t, fail := findByID(c.st.thirdparties, id, "Thirdparty")
	if fail != nil {
		return *fail
	}
	for _, inv := range c.st.invoices {
		if inv.soc == t {
			return apiError(http.StatusConflict, "Can't delete, that product is probably used")
		}
	}
	for _, o := range c.st.orders {
		if o.soc == t {
			return apiError(http.StatusConflict, "Can't delete, that product is probably used")
		}
	}
	kept := c.st.contacts[:0:0]
	for _, ct := range c.st.contacts {
		if ct.soc != t {
			kept = append(kept, ct)
		}
	}
	c.st.contacts = kept
	c.st.thirdparties = remove(c.st.thirdparties, t)
	return deleted("Object deleted")
}
