package erpfake_test

import (
	"testing"

	"github.com/apitwin/apitwin/fake/erpfake"
)

// TestDictionariesOnTheWire: the setup dictionaries answer as the ERP's
// Setup class shapes them: fetch_object rows, strings for numbers unless
// the deployment sends native numbers, a plain array (never a 404, never
// pagination_data's wrapper), and its refusals in the Restler error shape.
func TestDictionariesOnTheWire(t *testing.T) {
	t.Parallel()
	srv := erpfake.Start(t, erpfake.WithEmptyListNotFound())
	dict := api + "/setup/dictionary"
	for _, tc := range []struct {
		name, path string
		status     int
		body       string
	}{
		{"cheque", dict + "/payment_types?sqlfilters=(t.code:=:'CHQ')", 200, `[{"id":"7","code":"CHQ","type":"2","label":"Cheque","module":null}]`},
		{"switched off, by id, second page", dict + "/payment_types?active=0&sortfield=id&limit=2&page=1", 200,
			`[{"id":"52","code":"LCR","type":"2","label":"LCR","module":null},{"id":"53","code":"FAC","type":"2","label":"Factor","module":null}]`},
		{"no match: [] even where lists answer 404", dict + "/payment_types?sqlfilters=(t.code:=:'NONE')&pagination_data=true", 200, `[]`},
		{"active out of range", dict + "/payment_types?active=2", 400,
			"{\"error\":{\"code\":400,\"message\":\"Bad Request: Invalid value specified for `active`. Expecting integer value from 0 to 1\"}}"},
		{"unknown sort column", dict + "/currencies?sortfield=t.rate", 400,
			`{"error":{"code":400,"message":"Bad Request: Error when validating parameter sortfield -> unknown field t.rate"}}`},
		{"country in French", dict + "/countries/11?lang=fr_FR", 200,
			`{"id":"11","code":"US","code_iso":"USA","label":"États-Unis","phone_code":"1","eec":"0","active":"1","favorite":"0","numeric_code":"840"}`},
		{"no such country", dict + "/countries/99", 404, `{"error":{"code":404,"message":"Not Found: Country not found"}}`},
		{"by code, any case", dict + "/countries/byCode/ie", 200,
			`{"id":"8","code":"IE","code_iso":"IRL","label":"Ireland","phone_code":"353","eec":"1","active":"1","favorite":"0","numeric_code":"372"}`},
		{"by ISO code, in German", dict + "/countries/byISO/che?lang=de_DE", 200,
			`{"id":"6","code":"CH","code_iso":"CHE","label":"Schweiz","phone_code":"41","eec":"0","active":"1","favorite":"0","numeric_code":"756"}`},
		{"no such ISO code", dict + "/countries/byISO/FR", 404, `{"error":{"code":404,"message":"Not Found: Country not found"}}`},
		{"name filter after the page", dict + "/countries?limit=2&filter=A", 200,
			`[{"id":"14","code":"CA","code_iso":"CAN","label":"Canada","phone_code":"1","eec":"0","active":"1","favorite":"0","numeric_code":"124"}]`},
		{"euro and the ecu", dict + "/currencies?active=0", 200, `[{"code_iso":"XEU","label":"Ecu","unicode":null}]`},
		{"rates: none configured", dict + "/currencies?multicurrency=1", 200, `[]`},
		{"multicurrency out of range", dict + "/currencies?multicurrency=3", 400,
			"{\"error\":{\"code\":400,\"message\":\"Bad Request: Invalid value specified for `multicurrency`. Expecting integer value from 0 to 2\"}}"},
		{"bad filter", dict + "/countries?sqlfilters=(t.code:=:'FR'", 400, ""},
	} {
		got := send(t, srv, "GET", tc.path, "", "")
		if got.status != tc.status || (tc.body != "" && got.body != tc.body) {
			t.Errorf("%s: %d %s\nwant %d %s", tc.name, got.status, got.body, tc.status, tc.body)
		}
	}

	srv.SetNativeNumbers(true)
	got := send(t, srv, "GET", dict+"/payment_types?sqlfilters=(t.code:=:'CHQ')", "", "")
	if want := `[{"id":7,"code":"CHQ","type":2,"label":"Cheque","module":null}]`; got.body != want {
		t.Errorf("native numbers: %s, want %s", got.body, want)
	}
}
