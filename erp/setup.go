package erp

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The setup dictionaries: tables the ERP ships filled (payment types,
// countries, currencies) that an administrator edits in the web
// interface. The ERP's Setup API lists them under /setup/dictionary/….

// DictionaryOptions selects one page of a dictionary that has rows
// switched off (payment types, currencies). SortField names one of the
// table's columns ("code", "code_iso", "label"; the defaults are "code"
// and "code_iso"), and Filter filters on them.
type DictionaryOptions struct {
	ListOptions
	// Inactive lists the rows switched off instead of the active ones
	// (active=0); the ERP lists one or the other, never both.
	Inactive bool
}

func (o *DictionaryOptions) list() (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	var q url.Values
	if o.Inactive {
		q = url.Values{"active": {"0"}}
	}
	return &o.ListOptions, q
}

// PaymentUse says which payments a payment type is for.
type PaymentUse int

// The uses of a payment type ("type" in the dictionary).
const (
	PaymentForCustomers PaymentUse = 0
	PaymentForSuppliers PaymentUse = 1
	PaymentForBoth      PaymentUse = 2
)

// UnmarshalJSON reads the use as a number or a string of digits.
func (u *PaymentUse) UnmarshalJSON(b []byte) error {
	var id ID
	if err := id.UnmarshalJSON(b); err != nil {
		return err
	}
	*u = PaymentUse(id)
	return nil
}

// PaymentType is a row of the payment types dictionary: its ID is the
// PaymentMode that payments name.
type PaymentType struct {
	ID    ID         `json:"id"`
	Code  string     `json:"code"` // "CHQ", "VIR", "LIQ", …
	Type  PaymentUse `json:"type"`
	Label string     `json:"label"`
	// Module names the module that added the row; empty for the ERP's own.
	Module string `json:"module"`
	Extra  Extra  `json:"-"` // fields this type does not model
}

var paymentTypeKeys = keysOf[PaymentType]()

// UnmarshalJSON decodes a payment type, keeping unknown fields in Extra.
func (p *PaymentType) UnmarshalJSON(b []byte) error {
	type plain PaymentType
	return decodeRecord(b, (*plain)(p), paymentTypeKeys, &p.Extra, nil)
}

// MarshalJSON encodes a payment type with its Extra fields.
func (p PaymentType) MarshalJSON() ([]byte, error) {
	type plain PaymentType
	return marshalRecord(plain(p), p.Extra)
}

// Mode is the payment mode a payment of this type names.
func (p *PaymentType) Mode() PaymentMode { return PaymentMode(p.ID) }

// ListPaymentTypes returns one page of the payment types, sorted by code
// unless opts says otherwise. The ERP lets a user list them who may read
// proposals, orders or invoices.
//
// ERP API: GET /setup/dictionary/payment_types
func (c *Client) ListPaymentTypes(ctx context.Context, opts *DictionaryOptions) (*Page[PaymentType], error) {
	lo, q := opts.list()
	return list[PaymentType](ctx, c, "/setup/dictionary/payment_types", lo, q)
}

// AllPaymentTypes iterates the payment types a page at a time.
//
// ERP API: GET /setup/dictionary/payment_types
func (c *Client) AllPaymentTypes(ctx context.Context, opts *DictionaryOptions) iter.Seq2[*PaymentType, error] {
	lo, q := opts.list()
	return all[PaymentType](ctx, c, "/setup/dictionary/payment_types", lo, q)
}

// Country is a row of the countries dictionary.
type Country struct {
	ID      ID     `json:"id"`
	Code    string `json:"code"`     // ISO 3166 two letters: "FR"
	CodeISO string `json:"code_iso"` // three letters: "FRA"
	// Label is the country's name, in the language the call asked for
	// when the ERP has the translation, else as the dictionary keeps it.
	Label  string `json:"label"`
	Active Bool   `json:"active"`
	// EEC is set for the members of the European Economic Community, as
	// the ERP keeps it (VAT rules read it).
	EEC Bool `json:"eec"`
	// PhoneCode is the international dialling code, without +: "33".
	PhoneCode string `json:"phone_code"`
	// NumericCode is ISO 3166's numeric code, three digits: "250".
	NumericCode string `json:"numeric_code"`
	Extra       Extra  `json:"-"` // fields this type does not model
}

var countryKeys = keysOf[Country]()

// UnmarshalJSON decodes a country, keeping unknown fields in Extra.
func (k *Country) UnmarshalJSON(b []byte) error {
	type plain Country
	return decodeRecord(b, (*plain)(k), countryKeys, &k.Extra, nil)
}

// MarshalJSON encodes a country with its Extra fields.
func (k Country) MarshalJSON() ([]byte, error) {
	type plain Country
	return marshalRecord(plain(k), k.Extra)
}

// CountryOptions selects one page of the countries. The list has every
// country, active or not (Filter on t.active to narrow it).
type CountryOptions struct {
	ListOptions
	// Name keeps the countries whose name (in Lang) contains it, in any
	// case. The ERP applies it to the page it has read, after the limit,
	// so a page of ListCountries may be short of Limit with more to come;
	// AllCountries therefore does not send it and keeps the matches
	// itself, so that it reads every page.
	Name string
	// Lang is the language the names are shown in ("fr_FR", "de_DE"); the
	// ERP shows a name it has no translation for as it keeps it.
	Lang string
}

func (o *CountryOptions) list(name bool) (*ListOptions, url.Values) {
	if o == nil {
		return nil, nil
	}
	q := url.Values{}
	if o.Lang != "" {
		q.Set("lang", o.Lang)
	}
	if name && o.Name != "" {
		q.Set("filter", o.Name)
	}
	return &o.ListOptions, q
}

// ListCountries returns one page of the countries, sorted by code unless
// opts says otherwise.
//
// ERP API: GET /setup/dictionary/countries
func (c *Client) ListCountries(ctx context.Context, opts *CountryOptions) (*Page[Country], error) {
	lo, q := opts.list(true)
	return list[Country](ctx, c, "/setup/dictionary/countries", lo, q)
}

// AllCountries iterates the countries a page at a time; it keeps those
// whose name contains opts.Name itself (see CountryOptions).
//
// ERP API: GET /setup/dictionary/countries
func (c *Client) AllCountries(ctx context.Context, opts *CountryOptions) iter.Seq2[*Country, error] {
	lo, q := opts.list(false)
	var name string
	if opts != nil {
		name = strings.ToLower(opts.Name)
	}
	return func(yield func(*Country, error) bool) {
		for k, err := range all[Country](ctx, c, "/setup/dictionary/countries", lo, q) {
			if err == nil && name != "" && !strings.Contains(strings.ToLower(k.Label), name) {
				continue
			}
			if !yield(k, err) {
				return
			}
		}
	}
}

// GetCountry returns a country by id, its name in lang when the ERP has
// the translation (empty lang: as the dictionary keeps it).
//
// ERP API: GET /setup/dictionary/countries/{id}
func (c *Client) GetCountry(ctx context.Context, id ID, lang string) (*Country, error) {
	var q url.Values
	if lang != "" {
		q = url.Values{"lang": {lang}}
	}
	return do[Country](ctx, c, http.MethodGet, "/setup/dictionary/countries/"+id.String(), q, nil)
}

// GetCountryByCode returns a country by its two-letter code ("FR", any
// case), its name in lang as GetCountry.
//
// ERP API: GET /setup/dictionary/countries/byCode/{code}
func (c *Client) GetCountryByCode(ctx context.Context, code, lang string) (*Country, error) {
	return c.countryBy(ctx, "byCode", code, lang)
}

// GetCountryByISO returns a country by its three-letter code ("FRA", any
// case), its name in lang as GetCountry.
//
// ERP API: GET /setup/dictionary/countries/byISO/{iso}
func (c *Client) GetCountryByISO(ctx context.Context, iso, lang string) (*Country, error) {
	return c.countryBy(ctx, "byISO", iso, lang)
}

func (c *Client) countryBy(ctx context.Context, by, code, lang string) (*Country, error) {
	if code == "" || strings.ContainsAny(code, "/?#") {
		// The path would name another endpoint, or none.
		return nil, fmt.Errorf("erp: country code %q is empty or not a code", code)
	}
	var q url.Values
	if lang != "" {
		q = url.Values{"lang": {lang}}
	}
	return do[Country](ctx, c, http.MethodGet, "/setup/dictionary/countries/"+by+"/"+url.PathEscape(code), q, nil)
}

// Currency is a row of the currencies dictionary, keyed by its ISO code.
type Currency struct {
	CodeISO string `json:"code_iso"` // ISO 4217: "EUR"
	Label   string `json:"label"`
	// Unicode is the symbol's code points as the ERP keeps them,
	// "[8364]" for €; empty for a currency without one. Symbol reads it.
	Unicode string `json:"unicode"`
	Extra   Extra  `json:"-"` // fields this type does not model (a rate, with multicurrency)
}

var currencyKeys = keysOf[Currency]()

// UnmarshalJSON decodes a currency, keeping unknown fields in Extra.
func (k *Currency) UnmarshalJSON(b []byte) error {
	type plain Currency
	return decodeRecord(b, (*plain)(k), currencyKeys, &k.Extra, nil)
}

// MarshalJSON encodes a currency with its Extra fields.
func (k Currency) MarshalJSON() ([]byte, error) {
	type plain Currency
	return marshalRecord(plain(k), k.Extra)
}

// Symbol is the currency's symbol, from Unicode ("[8364]" is "€"), or its
// ISO code when the ERP keeps none or keeps one this cannot read.
func (k *Currency) Symbol() string {
	inner, ok := strings.CutPrefix(k.Unicode, "[")
	inner, ok2 := strings.CutSuffix(inner, "]")
	if !ok || !ok2 || inner == "" {
		return k.CodeISO
	}
	var b strings.Builder
	for part := range strings.SplitSeq(inner, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(part), 10, 32)
		if err != nil || n <= 0 || n > 0x10FFFF {
			return k.CodeISO
		}
		b.WriteRune(rune(n))
	}
	return b.String()
}

// ListCurrencies returns one page of the currencies, sorted by ISO code
// unless opts says otherwise.
//
// ERP API: GET /setup/dictionary/currencies
func (c *Client) ListCurrencies(ctx context.Context, opts *DictionaryOptions) (*Page[Currency], error) {
	lo, q := opts.list()
	return list[Currency](ctx, c, "/setup/dictionary/currencies", lo, q)
}

// AllCurrencies iterates the currencies a page at a time.
//
// ERP API: GET /setup/dictionary/currencies
func (c *Client) AllCurrencies(ctx context.Context, opts *DictionaryOptions) iter.Seq2[*Currency, error] {
	lo, q := opts.list()
	return all[Currency](ctx, c, "/setup/dictionary/currencies", lo, q)
}
