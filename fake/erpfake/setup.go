package erpfake

import (
	"encoding/json"
	"strings"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The setup dictionaries (the ERP's Setup API class, GET
// /setup/dictionary/…): tables the ERP ships filled and an administrator
// edits in the web interface, never through the API. The fake's are a
// small part of the ERP's own rows, the same in every fake; they are not
// in the state (nothing changes them) and not in snapshots.
//
// As the ERP does, each list takes sortfield, sortorder, limit (default
// 100, 0 for all) and page, and sqlfilters over the table's columns;
// payment types and currencies take active (1, the default, or 0: the
// rows switched off), countries take filter (a part of the name, any
// case) and lang (the language the names are shown in). The ERP applies a
// country name filter to the page it read, after the limit, so a filtered
// page may be short; the fake does the same. pagination_data is not read
// (the Setup class has none), and an empty list is [] in every version.

// paymentType is a row of the ERP's payment types (llx_c_paiement).
type paymentType struct {
	id     int64
	code   string
	typ    int64 // 0 customer payments, 1 supplier payments, 2 both
	label  string
	active bool
}

func (p *paymentType) recID() int64 { return p.id }

// paymentTypes are the ERP's standard payment types; the ids are those of
// paymentModes.
var paymentTypes = []*paymentType{
	{1, "TIP", 2, "TIP", true},
	{2, "VIR", 2, "Transfer", true},
	{3, "PRE", 2, "Direct debit", true},
	{4, "LIQ", 2, "Cash", true},
	{6, "CB", 2, "Credit card", true},
	{7, "CHQ", 2, "Cheque", true},
	{50, "VAD", 2, "Online payment", false},
	{51, "TRA", 2, "Bill of exchange", false},
	{52, "LCR", 2, "LCR", false},
	{53, "FAC", 2, "Factor", false},
}

var paymentTypeColumns = &collection[*paymentType]{
	noun: "payment type", defaultSort: "code",
	fields: map[string]fieldDef[*paymentType]{
		"id":      idField(func(p *paymentType) int64 { return p.id }),
		"code":    textField(func(p *paymentType) string { return p.code }),
		"type":    intField(false, func(p *paymentType) int64 { return p.typ }),
		"libelle": textField(func(p *paymentType) string { return p.label }),
		"label":   textField(func(p *paymentType) string { return p.label }),
		"active":  boolField(func(p *paymentType) bool { return p.active }),
		"module":  textField(func(*paymentType) string { return "" }),
	},
}

type paymentTypeJSON struct {
	ID     num     `json:"id"`
	Code   string  `json:"code"`
	Type   num     `json:"type"`
	Label  string  `json:"label"`
	Module *string `json:"module"`
}

// country is a row of the ERP's countries (llx_c_country; shown as its
// Ccountry object: the row's columns, rowid as id), with the names
// the ERP's translation files give it in two languages besides English.
type country struct {
	id                               int64
	code, iso, phone, numeric, label string
	active, eec, favorite            bool
	names                            map[string]string // by language: fr_FR, de_DE
}

func (c *country) recID() int64 { return c.id }

// countries are some of the ERP's countries, with its ids.
var countries = []*country{
	{1, "FR", "FRA", "33", "250", "France", true, true, true, map[string]string{"fr_FR": "France", "de_DE": "Frankreich"}},
	{2, "BE", "BEL", "32", "056", "Belgium", true, true, false, map[string]string{"fr_FR": "Belgique", "de_DE": "Belgien"}},
	{3, "IT", "ITA", "39", "380", "Italy", true, true, false, map[string]string{"fr_FR": "Italie", "de_DE": "Italien"}},
	{4, "ES", "ESP", "34", "724", "Spain", true, true, false, map[string]string{"fr_FR": "Espagne", "de_DE": "Spanien"}},
	{5, "DE", "DEU", "49", "276", "Germany", true, true, false, map[string]string{"fr_FR": "Allemagne", "de_DE": "Deutschland"}},
	{6, "CH", "CHE", "41", "756", "Switzerland", true, false, false, map[string]string{"fr_FR": "Suisse", "de_DE": "Schweiz"}},
	{7, "GB", "GBR", "44", "826", "United Kingdom", true, false, false, map[string]string{"fr_FR": "Royaume-Uni", "de_DE": "Vereinigtes Königreich"}},
	{8, "IE", "IRL", "353", "372", "Ireland", true, true, false, map[string]string{"fr_FR": "Irlande", "de_DE": "Irland"}},
	{11, "US", "USA", "1", "840", "United States", true, false, false, map[string]string{"fr_FR": "États-Unis", "de_DE": "Vereinigte Staaten"}},
	{14, "CA", "CAN", "1", "124", "Canada", true, false, false, map[string]string{"fr_FR": "Canada", "de_DE": "Kanada"}},
	{17, "NL", "NLD", "31", "528", "Netherlands", true, true, false, map[string]string{"fr_FR": "Pays-Bas", "de_DE": "Niederlande"}},
	{25, "PT", "PRT", "351", "620", "Portugal", true, true, false, map[string]string{"fr_FR": "Portugal", "de_DE": "Portugal"}},
}

var countryColumns = &collection[*country]{
	noun: "country", defaultSort: "code",
	fields: map[string]fieldDef[*country]{
		"rowid":        idField(func(c *country) int64 { return c.id }),
		"id":           idField(func(c *country) int64 { return c.id }),
		"code":         textField(func(c *country) string { return c.code }),
		"code_iso":     textField(func(c *country) string { return c.iso }),
		"label":        textField(func(c *country) string { return c.label }),
		"phone_code":   textField(func(c *country) string { return c.phone }),
		"numeric_code": textField(func(c *country) string { return c.numeric }),
		"active":       boolField(func(c *country) bool { return c.active }),
		"eec":          boolField(func(c *country) bool { return c.eec }),
		"favorite":     boolField(func(c *country) bool { return c.favorite }),
	},
}

type countryJSON struct {
	ID          num    `json:"id"`
	Code        string `json:"code"`
	CodeISO     string `json:"code_iso"`
	Label       string `json:"label"`
	PhoneCode   string `json:"phone_code"`
	EEC         flag   `json:"eec"`
	Active      flag   `json:"active"`
	Favorite    flag   `json:"favorite"`
	NumericCode string `json:"numeric_code"`
}

// label is the country's name in lang, as the ERP's translations give it:
// English, the database's, for an empty or unknown language.
func (c *country) name(lang string) string {
	if n, ok := c.names[lang]; ok {
		return n
	}
	return c.label
}

func (c *call) countryJSON(k *country, lang string) countryJSON {
	n := c.num
	return countryJSON{ID: n.id(k.id), Code: k.code, CodeISO: k.iso, Label: k.name(lang), PhoneCode: k.phone,
		EEC: n.flag(k.eec), Active: n.flag(k.active), Favorite: n.flag(k.favorite), NumericCode: k.numeric}
}

// currency is a row of the ERP's currencies (llx_c_currencies), which has
// no id: the ISO code is its key.
type currency struct {
	ord                  int64 // the row's place, for the list's machinery
	code, label, unicode string
	active               bool
}

func (c *currency) recID() int64 { return c.ord }

// currencies are some of the ERP's currencies; unicode is the symbol's
// code points as the ERP keeps them ("[8364]" for €), empty where it keeps
// none.
var currencies = []*currency{
	{1, "CAD", "Canadian Dollar", "[36]", true},
	{2, "CHF", "Swiss Franc", "", true},
	{3, "EUR", "Euros", "[8364]", true},
	{4, "GBP", "Pound sterling", "[163]", true},
	{5, "JPY", "Yen", "[165]", true},
	{6, "USD", "US Dollar", "[36]", true},
	{7, "XEU", "Ecu", "", false},
}

var currencyColumns = &collection[*currency]{
	noun: "currency", defaultSort: "code_iso",
	fields: map[string]fieldDef[*currency]{
		"code_iso": textField(func(c *currency) string { return c.code }),
		"label":    textField(func(c *currency) string { return c.label }),
		"unicode":  textField(func(c *currency) string { return c.unicode }),
		"active":   boolField(func(c *currency) bool { return c.active }),
	},
}

type currencyJSON struct {
	CodeISO string  `json:"code_iso"`
	Label   string  `json:"label"`
	Unicode *string `json:"unicode"`
}

// activeParam reads a dictionary's active parameter: 1 (the default) or 0.
func activeParam(q phpQuery) (bool, *fakekit.Answer) {
	v, fail := queryInt(q.Get("active"), "active", 1)
	if fail != nil {
		return false, fail
	}
	if v != 0 && v != 1 {
		a := badRequest("Invalid value specified for `active`. Expecting integer value from 0 to 1")
		return false, &a
	}
	return v == 1, nil
}

// dictionaryPage answers the page lq asks for of rows, those keep keeps,
// shown by view; the Setup class answers a plain array, [] when empty.
func dictionaryPage[T interface{ recID() int64 }, V any](lq *listQuery[T], rows []T, keep func(T) bool, view func(T) (V, bool)) fakekit.Answer {
	out := make([]V, 0, min(len(rows), 16))
	lq.eachOfPage(rows, keep, func(it T) {
		if v, ok := view(it); ok {
			out = append(out, v)
		}
	})
	b, err := json.Marshal(out)
	if err != nil {
		return apiError(503, "Error when retrieving list")
	}
	return okJSON(b)
}

func listPaymentTypes(in *input) step {
	q := query(in.r)
	lq, fail := parseList(q, paymentTypeColumns)
	if fail != nil {
		return fails(*fail)
	}
	active, fail := activeParam(q)
	if fail != nil {
		return fails(*fail)
	}
	return func(c *call) fakekit.Answer {
		n := c.num
		return dictionaryPage(lq, paymentTypes, func(p *paymentType) bool { return p.active == active },
			func(p *paymentType) (paymentTypeJSON, bool) {
				return paymentTypeJSON{ID: n.id(p.id), Code: p.code, Type: n.int(p.typ), Label: p.label}, true
			})
	}
}

func listCountries(in *input) step {
	q := query(in.r)
	lq, fail := parseList(q, countryColumns)
	if fail != nil {
		return fails(*fail)
	}
	lang, filter := q.Get("lang"), strings.ToLower(q.Get("filter"))
	return func(c *call) fakekit.Answer {
		return dictionaryPage(lq, countries, nil, func(k *country) (countryJSON, bool) {
			v := c.countryJSON(k, lang)
			// After the page is read, on the shown name, as the ERP does.
			return v, filter == "" || strings.Contains(strings.ToLower(v.Label), filter)
		})
	}
}

func getCountry(in *input) step {
	id, fail := in.pathID()
	if fail != nil {
		return fails(*fail)
	}
	return countryWhere(in, func(k *country) bool { return k.id == id })
}

// getCountryBy reads a country by its code or its ISO code, the path's
// {code} or {iso}: upper-cased, as the ERP's Ccountry::fetch does.
func getCountryBy(param string) operation {
	return func(in *input) step {
		v := strings.ToUpper(in.r.PathValue(param))
		if param == "iso" {
			return countryWhere(in, func(k *country) bool { return k.iso == v })
		}
		return countryWhere(in, func(k *country) bool { return k.code == v })
	}
}

// countryWhere answers the country match picks, named in the query's lang.
func countryWhere(in *input, match func(*country) bool) step {
	lang := query(in.r).Get("lang")
	return func(c *call) fakekit.Answer {
		for _, k := range countries {
			if match(k) {
				b, _ := json.Marshal(c.countryJSON(k, lang))
				return okJSON(b)
			}
		}
		return notFound("Country not found")
	}
}

func listCurrencies(in *input) step {
	q := query(in.r)
	lq, fail := parseList(q, currencyColumns)
	if fail != nil {
		return fails(*fail)
	}
	active, fail := activeParam(q)
	if fail != nil {
		return fails(*fail)
	}
	multi, fail := queryInt(q.Get("multicurrency"), "multicurrency", 0)
	if fail == nil && (multi < 0 || multi > 2) {
		a := badRequest("Invalid value specified for `multicurrency`. Expecting integer value from 0 to 2")
		fail = &a
	}
	if fail != nil {
		return fails(*fail)
	}
	return func(c *call) fakekit.Answer {
		return dictionaryPage(lq, currencies, func(k *currency) bool {
			// The rates are a join on the multicurrency module's tables,
			// which the fake has empty: no currency has a rate.
			return k.active == active && multi == 0
		}, func(k *currency) (currencyJSON, bool) {
			v := currencyJSON{CodeISO: k.code, Label: k.label}
			if k.unicode != "" {
				v.Unicode = &k.unicode
			}
			return v, true
		})
	}
}

// The dictionaries' own parameters, for the explorer.
var (
	activeDictParam    = param{name: "active", in: "query", typ: "integer", description: "1 (default): the active rows; 0: those switched off"}
	langParam          = param{name: "lang", in: "query", typ: "string", description: "Language of the names, e.g. fr_FR"}
	countryFilterParam = param{name: "filter", in: "query", typ: "string", description: "Part of the name, any case (applied to the page read)"}
	multicurrencyParam = param{name: "multicurrency", in: "query", typ: "integer", description: "0: no rates; 1: last rate; 2: all rates"}
)

// dictionaryParams are a dictionary list's parameters: the lists' own but
// pagination_data, which the Setup class does not read.
func dictionaryParams(extra ...param) []param {
	var ps []param
	for _, p := range listParams(extra...) {
		if p.name != "pagination_data" {
			ps = append(ps, p)
		}
	}
	return ps
}
