package erpfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

type thirdpartyJSON struct {
	ID               json.RawMessage `json:"id"`
	Entity           json.RawMessage `json:"entity"`
	Name             string          `json:"name"`
	NameAlias        string          `json:"name_alias"`
	Client           json.RawMessage `json:"client"`
	Prospect         json.RawMessage `json:"prospect"`
	Fournisseur      json.RawMessage `json:"fournisseur"`
	CodeClient       string          `json:"code_client"`
	CodeFournisseur  string          `json:"code_fournisseur"`
	Email            string          `json:"email"`
	Phone            string          `json:"phone"`
	Address          string          `json:"address"`
	Zip              string          `json:"zip"`
	Town             string          `json:"town"`
	CountryCode      string          `json:"country_code"`
	TvaIntra         string          `json:"tva_intra"`
	Status           json.RawMessage `json:"status"`
	NotePublic       string          `json:"note_public"`
	NotePrivate      string          `json:"note_private"`
	DateCreation     json.RawMessage `json:"date_creation"`
	DateModification json.RawMessage `json:"date_modification"`
	ArrayOptions     map[string]any  `json:"array_options"`
}

func (c *call) renderThirdparty(t *thirdparty) any {
	n := c.num
	return &thirdpartyJSON{
		ID: n.id(t.id), Entity: n.id(1), Name: t.name, NameAlias: t.alias,
		Client: n.int(t.client), Prospect: n.flag(t.client == 2 || t.client == 3), Fournisseur: n.flag(t.supplier),
		CodeClient: t.codeClient, CodeFournisseur: t.codeSupplier, Email: t.email, Phone: t.phone, Address: t.address,
		Zip: t.zip, Town: t.town, CountryCode: t.country, TvaIntra: t.vat, Status: n.flag(t.active),
		NotePublic: t.notePublic, NotePrivate: t.notePrivate,
		DateCreation: n.time(t.datec), DateModification: n.time(t.datem), ArrayOptions: map[string]any{},
	}
}

var thirdparties = &collection[*thirdparty]{
	noun:        "thirdparty",
	defaultSort: "t.rowid",
	render:      (*call).renderThirdparty,
	fields: map[string]fieldDef[*thirdparty]{
		"rowid":            intField(false, func(t *thirdparty) int64 { return t.id }),
		"id":               intField(false, func(t *thirdparty) int64 { return t.id }),
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

func (c *call) listThirdparties() answer {
	mode, fail := queryInt(c.r.URL.Query().Get("mode"), "mode", 0)
	if fail != nil {
		return *fail
	}
	keep := func(t *thirdparty) bool {
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
	return listAnswer(c, c.st.thirdparties, thirdparties, keep)
}

func (c *call) findThirdparty() (*thirdparty, *answer) {
	return findByPath(c, c.st.thirdparties, "Thirdparty")
}

func (c *call) getThirdparty() answer {
	t, fail := c.findThirdparty()
	if fail != nil {
		return *fail
	}
	return ok(c.renderThirdparty(t))
}

// thirdpartyInput reads the fields a create or an update may set into t.
func (c *call) thirdpartyInput(t *thirdparty) {
	b := c.body
	b.strings(strField{"name", &t.name}, strField{"name_alias", &t.alias}, strField{"email", &t.email},
		strField{"phone", &t.phone}, strField{"address", &t.address}, strField{"zip", &t.zip}, strField{"town", &t.town},
		strField{"country_code", &t.country}, strField{"tva_intra", &t.vat}, strField{"code_client", &t.codeClient},
		strField{"code_fournisseur", &t.codeSupplier}, strField{"note_public", &t.notePublic}, strField{"note_private", &t.notePrivate})
	t.name = strings.TrimSpace(t.name)
	if v, given := b.int("client"); given {
		if v < 0 || v > 3 {
			b.fail("client must be 0 (none), 1 (customer), 2 (prospect) or 3 (both)")
		}
		t.client = v
	}
	if v, given := b.flag("fournisseur"); given {
		t.supplier = v
	}
	if v, given := b.flag("status"); given {
		t.active = v
	}
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

func (c *call) createThirdparty() answer {
	if !c.body.has("name") {
		return badRequest("name field missing")
	}
	t := &thirdparty{active: true}
	c.thirdpartyInput(t)
	if msg := c.body.problem(); msg != "" {
		return badRequest(msg)
	}
	if t.name == "" {
		return badRequest("name field missing")
	}
	if code := c.codeTaken(t, nil); code != "" {
		return apiError(http.StatusInternalServerError, "Error creating thirdparty", code)
	}
	c.st.addThirdparty(t)
	return c.created(t.id, c.renderThirdparty(t))
}

func (st *state) addThirdparty(t *thirdparty) {
	t.id = st.next("thirdparty")
	t.datec = st.now()
	t.datem = t.datec
	st.assignCodes(t)
	st.thirdparties = append(st.thirdparties, t)
}

func (c *call) updateThirdparty() answer {
	t, fail := c.findThirdparty()
	if fail != nil {
		return *fail
	}
	next := *t
	c.thirdpartyInput(&next)
	if msg := c.body.problem(); msg != "" {
		return badRequest(msg)
	}
	if next.name == "" {
		return badRequest("name field missing")
	}
	if code := c.codeTaken(&next, t); code != "" {
		return apiError(http.StatusInternalServerError, "Error updating thirdparty", code)
	}
	next.datem = c.st.now()
	*t = next
	c.st.assignCodes(t)
	return ok(c.renderThirdparty(t))
}
