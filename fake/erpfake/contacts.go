package erpfake

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// contact is a person at a third party (llx_socpeople).
type contact struct {
	id                           int64
	soc                          *thirdparty // nil: a contact of no third party
	lastname, firstname, email   string
	phonePro, phoneMobile, poste string
	address, zip, town, country  string
	notePublic, notePrivate      string
	active                       bool
	datec, datem                 time.Time
	civility                     string
}

func (ct *contact) recID() int64 { return ct.id }

func (c *call) renderContact(ct *contact) []byte { return render(c, (*call).appendContact, ct) }

func contactSoc(ct *contact) int64 {
	if ct.soc == nil {
		return 0
	}
	return ct.soc.id
}

var contacts = &collection[*contact]{
	noun:        "contact",
	defaultSort: "t.rowid",
	write:       (*call).appendContact,
	fields: map[string]fieldDef[*contact]{
		"rowid":        idField(func(ct *contact) int64 { return ct.id }),
		"id":           idField(func(ct *contact) int64 { return ct.id }),
		"fk_soc":       intField(true, contactSoc),
		"socid":        intField(true, contactSoc),
		"lastname":     textField(func(ct *contact) string { return ct.lastname }),
		"firstname":    textField(func(ct *contact) string { return ct.firstname }),
		"email":        textField(func(ct *contact) string { return ct.email }),
		"phone":        textField(func(ct *contact) string { return ct.phonePro }),
		"phone_mobile": textField(func(ct *contact) string { return ct.phoneMobile }),
		"poste":        textField(func(ct *contact) string { return ct.poste }),
		"town":         textField(func(ct *contact) string { return ct.town }),
		"zip":          textField(func(ct *contact) string { return ct.zip }),
		"statut":       boolField(func(ct *contact) bool { return ct.active }),
		"datec":        timeField(func(ct *contact) time.Time { return ct.datec }),
		"tms":          timeField(func(ct *contact) time.Time { return ct.datem }),
	},
}

func listContacts(in *input) step {
	return listOfThirdparties(in, contacts, func(st *state) []*contact { return st.contacts }, func(ct *contact) *thirdparty { return ct.soc })
}

func getContact(c *call, id int64) fakekit.Answer {
	ct, fail := findByID(c.st.contacts, id, "Contact")
	if fail != nil {
		return *fail
	}
	return okJSON(c.renderContact(ct))
}

// contactPatch is what a create or an update of a contact may set.
type contactPatch struct {
	lastname, firstname, email, phonePro, phoneMobile, poste opt[string]
	address, zip, town, country, notePublic, notePrivate     opt[string]
	civility                                                 opt[string]
	socid                                                    opt[int64]
	active                                                   opt[bool]
}

func readContactPatch(b *body) contactPatch {
	p := contactPatch{lastname: b.optStr("lastname"), firstname: b.optStr("firstname"), email: b.optStr("email"),
		phonePro: b.optStr("phone_pro"), phoneMobile: b.optStr("phone_mobile"), poste: b.optStr("poste"),
		address: b.optStr("address"), zip: b.optStr("zip"), town: b.optStr("town"), country: b.optStr("country_code"),
		notePublic: b.optStr("note_public"), notePrivate: b.optStr("note_private"), civility: b.optStr("civility_code")}
	p.lastname.v = strings.TrimSpace(p.lastname.v)
	if v, given := b.int("socid"); given {
		p.socid = opt[int64]{v, true}
	}
	p.active = b.optFlag("statut")
	return p
}

// apply sets the patch into ct; it answers a socid that names no third
// party.
func (p *contactPatch) apply(c *call, ct *contact, failMsg string) *fakekit.Answer {
	if p.socid.set {
		if p.socid.v <= 0 {
			ct.soc = nil
		} else {
			soc, found := byID(c.st.thirdparties, p.socid.v)
			if !found {
				a := apiError(http.StatusInternalServerError, failMsg, fmt.Sprintf("ErrorBadValueForParameter socid %d does not name a thirdparty", p.socid.v))
				return &a
			}
			ct.soc = soc
		}
	}
	for _, f := range []struct {
		o   opt[string]
		dst *string
	}{{p.lastname, &ct.lastname}, {p.firstname, &ct.firstname}, {p.email, &ct.email}, {p.phonePro, &ct.phonePro},
		{p.phoneMobile, &ct.phoneMobile}, {p.poste, &ct.poste}, {p.address, &ct.address}, {p.zip, &ct.zip},
		{p.town, &ct.town}, {p.country, &ct.country}, {p.notePublic, &ct.notePublic}, {p.notePrivate, &ct.notePrivate},
		{p.civility, &ct.civility}} {
		f.o.to(f.dst)
	}
	p.active.to(&ct.active)
	return nil
}

// createContact is POST /contacts: lastname is required; socid, when
// given, must name a third party. It answers the new id (or the record).
func createContact(in *input) step {
	b := in.body
	if !b.has("lastname") {
		return fails(badRequest("lastname field missing"))
	}
	p := readContactPatch(b)
	return func(c *call) fakekit.Answer {
		if msg := b.problem(); msg != "" {
			return badRequest(msg)
		}
		if p.lastname.v == "" {
			return badRequest("lastname field missing")
		}
		ct := &contact{active: true}
		if fail := p.apply(c, ct, "Error creating contact"); fail != nil {
			return *fail
		}
		if fail := c.full("contact", 0, "Error creating contact"); fail != nil {
			return *fail
		}
		ct.id = c.st.next("contact")
		ct.datec = c.st.now()
		ct.datem = ct.datec
		c.st.contacts = append(c.st.contacts, ct)
		return c.created(ct.id, c.renderContact(ct))
	}
}

func updateContact(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	p := readContactPatch(in.body)
	return func(c *call) fakekit.Answer {
		ct, fail := findByID(c.st.contacts, id, "Contact")
		if fail != nil {
			return *fail
		}
		if msg := in.body.problem(); msg != "" {
			return badRequest(msg)
		}
		next := *ct
		if fail := p.apply(c, &next, "Error updating contact"); fail != nil {
			return *fail
		}
		if next.lastname == "" {
			return badRequest("lastname field missing")
		}
		next.datem = c.st.now()
		*ct = next
		return okJSON(c.renderContact(ct))
	}
}

// deleteContact is DELETE /contacts/{id}; the ERP answers 1.
func deleteContact(c *call, id int64) fakekit.Answer {
	ct, fail := findByID(c.st.contacts, id, "Contact")
	if fail != nil {
		return *fail
	}
	c.st.contacts = remove(c.st.contacts, ct)
	return ok(c.num.int(1))
}
