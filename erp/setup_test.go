package erp_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/erp"
)

// TestPaymentTypes: the payment types dictionary (issue 37, the calls
// scripts use next) lists the active rows sorted by code, the rows
// switched off when asked, filtered and paged as the ERP does; a type's
// id is the payment mode payments name.
func TestPaymentTypes(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p, err := tg.c.ListPaymentTypes(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	codes := func(items []*erp.PaymentType) (out []string) {
		for _, it := range items {
			out = append(out, it.Code)
		}
		return out
	}
	got := codes(p.Items)
	if !slices.IsSorted(got) || !slices.Contains(got, "CHQ") || !slices.Contains(got, "VIR") {
		t.Fatalf("active payment types, by code: %v", got)
	}
	for _, it := range p.Items {
		if it.Code == "CHQ" && (it.Mode() != erp.PaymentCheque || it.Label == "" || it.Type != erp.PaymentForBoth) {
			t.Errorf("cheque: %+v", it)
		}
	}

	one, err := tg.c.ListPaymentTypes(ctx, &erp.DictionaryOptions{ListOptions: erp.ListOptions{Filter: erp.Field("t.code").Eq("VIR")}})
	if err != nil || len(one.Items) != 1 || one.Items[0].ID != erp.ID(erp.PaymentTransfer) {
		t.Fatalf("filtered on code: %+v %v", one, err)
	}
	desc, err := tg.c.ListPaymentTypes(ctx, &erp.DictionaryOptions{ListOptions: erp.ListOptions{SortField: "id", SortOrder: erp.Desc, Limit: 2, Page: 1}})
	if err != nil || len(desc.Items) != 2 || desc.Items[0].ID <= desc.Items[1].ID || !desc.More {
		t.Fatalf("by id, descending, second page of 2: %+v %v", desc, err)
	}
	var all []string
	for it, err := range tg.c.AllPaymentTypes(ctx, &erp.DictionaryOptions{ListOptions: erp.ListOptions{Limit: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, it.Code)
	}
	if !slices.Equal(all, got) {
		t.Errorf("all, 2 a page: %v, want %v", all, got)
	}

	off, err := tg.c.ListPaymentTypes(ctx, &erp.DictionaryOptions{Inactive: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range off.Items {
		if slices.Contains(got, it.Code) {
			t.Errorf("%s is listed active and switched off", it.Code)
		}
	}
	if tg.fake != nil && !slices.Equal(codes(off.Items), []string{"FAC", "LCR", "TRA", "VAD"}) {
		t.Errorf("switched off: %v", codes(off.Items))
	}

	_, err = tg.c.ListPaymentTypes(ctx, &erp.DictionaryOptions{ListOptions: erp.ListOptions{Filter: erp.RawFilter("(t.nosuchcolumn:=:1)")}})
	if !errors.Is(err, erp.ErrBadRequest) {
		t.Errorf("a filter on no column: %v", err)
	}
}

// TestCountries: the countries dictionary lists every country by code,
// shows the names in the language asked for, filters on a part of the
// name (after the page is read, as the ERP does: AllCountries reads every
// page and keeps the matches itself), and GetCountry reads one by id.
func TestCountries(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p, err := tg.c.ListCountries(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	var france *erp.Country
	for i, k := range p.Items {
		codes = append(codes, k.Code)
		if k.Code == "FR" {
			france = p.Items[i]
		}
	}
	if !slices.IsSorted(codes) || france == nil || france.CodeISO != "FRA" || france.Label != "France" || !bool(france.EEC) || france.PhoneCode != "33" || france.NumericCode != "250" {
		t.Fatalf("countries by code: %v, France %+v", codes, france)
	}

	k, err := tg.c.GetCountry(ctx, france.ID, "de_DE")
	if err != nil || k.Code != "FR" || k.Label != "Frankreich" {
		t.Fatalf("France in German: %+v %v", k, err)
	}
	k, err = tg.c.GetCountry(ctx, france.ID, "")
	if err != nil || k.Label != "France" {
		t.Fatalf("France: %+v %v", k, err)
	}
	for _, by := range []func() (*erp.Country, error){
		func() (*erp.Country, error) { return tg.c.GetCountryByCode(ctx, "fr", "de_DE") },
		func() (*erp.Country, error) { return tg.c.GetCountryByISO(ctx, "FRA", "de_DE") },
	} {
		if k, err := by(); err != nil || k.ID != france.ID || k.Label != "Frankreich" {
			t.Fatalf("France by code, in German: %+v %v", k, err)
		}
	}
	if _, err := tg.c.GetCountryByISO(ctx, "ZZZ", ""); !errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("no such ISO code: %v", err)
	}
	if _, err := tg.c.GetCountryByCode(ctx, "../1", ""); err == nil || errors.Is(err, erp.ErrNotFound) {
		t.Fatalf("a code that is a path: %v", err)
	}
	_, err = tg.c.GetCountry(ctx, 999999, "")
	var e *erp.Error
	if !errors.Is(err, erp.ErrNotFound) || !errors.As(err, &e) || e.Message != "Not Found: Country not found" {
		t.Fatalf("no such country: %v", err)
	}

	named, err := tg.c.ListCountries(ctx, &erp.CountryOptions{Name: "LAND", Lang: "en_US"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range named.Items {
		if !strings.Contains(strings.ToLower(k.Label), "land") {
			t.Errorf("%q does not contain land", k.Label)
		}
	}
	var every []string
	for k, err := range tg.c.AllCountries(ctx, &erp.CountryOptions{Name: "land", ListOptions: erp.ListOptions{Limit: 3}}) {
		if err != nil {
			t.Fatal(err)
		}
		every = append(every, k.Code)
	}
	if len(every) != len(named.Items) {
		t.Errorf("all named ...land...: %v; one page of all: %d", every, len(named.Items))
	}
	if tg.fake == nil {
		return
	}
	// The fake's dozen: Ireland, Netherlands, Switzerland; a page of 3
	// read before the filter keeps what of them it holds.
	if !slices.Equal(every, []string{"CH", "IE", "NL"}) {
		t.Errorf("...land...: %v", every)
	}
	short, err := tg.c.ListCountries(ctx, &erp.CountryOptions{Name: "land", ListOptions: erp.ListOptions{Limit: 3}})
	if err != nil || len(short.Items) != 1 || short.Items[0].Code != "CH" {
		t.Errorf("the first page of 3 (BE, CA, CH), filtered: %+v %v", short, err)
	}
	fr, err := tg.c.ListCountries(ctx, &erp.CountryOptions{Lang: "fr_FR", ListOptions: erp.ListOptions{SortField: "t.label", SortOrder: erp.Desc, Limit: 1}})
	if err != nil || len(fr.Items) != 1 || fr.Items[0].Label != "États-Unis" {
		t.Errorf("last by the stored name, shown in French: %+v %v", fr, err)
	}
}

// TestCurrencies: the currencies dictionary lists the active currencies by
// ISO code, with their symbols; the rows switched off when asked.
func TestCurrencies(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p, err := tg.c.ListCurrencies(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, k := range p.Items {
		codes = append(codes, k.CodeISO)
		if k.CodeISO == "EUR" && k.Symbol() != "€" {
			t.Errorf("euro: %+v %q", k, k.Symbol())
		}
	}
	if !slices.IsSorted(codes) || !slices.Contains(codes, "EUR") || !slices.Contains(codes, "USD") {
		t.Fatalf("currencies by code: %v", codes)
	}
	usd, err := tg.c.ListCurrencies(ctx, &erp.DictionaryOptions{ListOptions: erp.ListOptions{Filter: erp.Field("t.code_iso").In("USD", "GBP")}})
	if err != nil || len(usd.Items) != 2 || usd.Items[0].CodeISO != "GBP" || usd.Items[1].Symbol() != "$" {
		t.Fatalf("GBP and USD: %+v %v", usd, err)
	}
	if tg.fake == nil {
		return
	}
	off, err := tg.c.ListCurrencies(ctx, &erp.DictionaryOptions{Inactive: true})
	if err != nil || len(off.Items) != 1 || off.Items[0].CodeISO != "XEU" || off.Items[0].Symbol() != "XEU" {
		t.Fatalf("switched off: %+v %v", off, err)
	}
}

func TestCurrencySymbol(t *testing.T) {
	t.Parallel()
	for unicode, want := range map[string]string{"[8364]": "€", "[36]": "$", "": "ABC", "[x]": "ABC", "[1583,46,1573]": "د.إ", "[]": "ABC", "[99999999]": "ABC"} {
		k := erp.Currency{CodeISO: "ABC", Unicode: unicode}
		if got := k.Symbol(); got != want {
			t.Errorf("%q: %q, want %q", unicode, got, want)
		}
	}
}
