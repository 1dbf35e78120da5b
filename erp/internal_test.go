package erp

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func errorFor(status int, contentType string, body string) *Error {
	resp := &http.Response{StatusCode: status, Header: http.Header{},
		Request: &http.Request{Method: "GET", URL: &url.URL{Path: "/api/index.php/invoices/9"}}}
	if contentType != "" {
		resp.Header.Set("Content-Type", contentType)
	}
	return decodeError(resp, []byte(body)).(*Error)
}

func TestDecodeError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status      int
		ct, body    string
		msg         string
		code        int
		details     []string
		apiDisabled bool
		text        string
	}{
		{404, "application/json", `{"error":{"code":404,"message":"Not Found: Invoice not found"}}`, "Not Found: Invoice not found", 404, nil, false,
			"erp: GET /api/index.php/invoices/9: 404 Not Found: Invoice not found"},
		{500, "application/json", `{"error":{"code":500,"message":"Internal Server Error: Error creating product","1":"second","0":"ErrorProductAlreadyExists"},"debug":{"source":"x"}}`,
			"Internal Server Error: Error creating product", 500, []string{"ErrorProductAlreadyExists", "second"}, false,
			"erp: GET /api/index.php/invoices/9: 500 Internal Server Error: Error creating product (ErrorProductAlreadyExists; second)"},
		{401, "application/json", `{"error":{"code":"401","message":"Unauthorized"}}`, "Unauthorized", 401, nil, false, ""},
		{400, "application/json", `{"message":"plain shape"}`, "plain shape", 0, nil, false, ""},
		{304, "", ``, "Not Modified: nothing done", 0, nil, false, "erp: GET /api/index.php/invoices/9: 304 Not Modified: nothing done"},
		{502, "text/html", "<html><body><h1>Bad   Gateway</h1>\n</body></html>", "Bad Gateway", 0, nil, false, ""},
		{200, "text/html", "Module <b>Api</b> must be enabled.<br><br>To activate", "Module Api must be enabled. To activate", 0, nil, true,
			"erp: GET /api/index.php/invoices/9: API not enabled (Module Api must be enabled. To activate)"},
		{503, "text/plain", "API not enabled", "API not enabled", 0, nil, true, ""},
		{500, "application/json", `{"error":"a string"}`, "a string", 0, nil, false, ""},
		{500, "application/json", `[1,2]`, "[1,2]", 0, nil, false, ""},
	} {
		e := errorFor(tc.status, tc.ct, tc.body)
		if e.Message != tc.msg || e.Code != tc.code || strings.Join(e.Details, "|") != strings.Join(tc.details, "|") || e.apiDisabled != tc.apiDisabled {
			t.Errorf("%d %s: %+v", tc.status, tc.body, e)
		}
		if tc.text != "" && e.Error() != tc.text {
			t.Errorf("Error() = %q, want %q", e.Error(), tc.text)
		}
	}
}

func TestNoRecordsAndRefusedAtLogin(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		`{"error":{"code":404,"message":"Not Found: No product found"}}`:       true,
		`{"error":{"code":404,"message":"Not Found: Thirdparties not found"}}`: true,
		`{"error":{"code":404,"message":"Not Found"}}`:                         false,
		`<html>Not Found</html>`:                                               false,
	} {
		if got := noRecords(errorFor(404, "application/json", body)); got != want {
			t.Errorf("noRecords(%s) = %v", body, got)
		}
	}
	if noRecords(errorFor(404, "text/html", "No product found")) {
		t.Error("a page counted as the ERP's empty list")
	}
	for body, want := range map[string]bool{
		`{"error":{"code":401,"message":"Unauthorized: Failed to login to API. No parameter"}}`:              true,
		`{"error":{"code":401,"message":"Unauthorized"},"debug":{"source":"a.php:1 at authenticate stage"}}`: true,
		`{"error":{"code":401,"message":"Unauthorized: Session expired"}}`:                                   true,
		`{"error":{"code":401,"message":"Unauthorized: Access not allowed for login admin"}}`:                false,
	} {
		if got := refusedAtLogin(errorFor(401, "application/json", body)); got != want {
			t.Errorf("refusedAtLogin(%s) = %v", body, got)
		}
	}
}

func FuzzDecodeError(f *testing.F) {
	for _, seed := range []string{
		`{"error":{"code":404,"message":"Not Found: Invoice not found"}}`,
		`{"error":{"code":500,"message":"x","0":"ErrorProductAlreadyExists","1":{"a":1}}}`,
		`{"error":{"code":"1e99","message":7}}`,
		"Module <b>Api</b> must be enabled.<br>",
		`{"message":["a"]}`,
		"\xff\xfe<",
	} {
		f.Add(500, "application/json", []byte(seed))
		f.Add(200, "text/html", []byte(seed))
	}
	f.Fuzz(func(t *testing.T, status int, ct string, body []byte) {
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}},
			Request: &http.Request{Method: "GET", URL: &url.URL{Path: "/api/index.php/x"}}}
		e := decodeError(resp, body).(*Error)
		if !utf8.ValidString(e.Message) || len([]rune(e.Message)) > 501 {
			t.Fatalf("message not one valid line: %q", e.Message)
		}
		_ = e.Error()
		_ = noRecords(e)
		_ = refusedAtLogin(e)
	})
}

// FuzzNumbers checks the number types never panic and agree with each
// other: a value ID accepts, Decimal accepts with the same value.
func FuzzNumbers(f *testing.F) {
	for _, s := range []string{`12`, `"12"`, `"100.00000000"`, `1.5e3`, `""`, `null`, `"-0"`, `"1e1001"`, `"9223372036854775808"`, `"1.000"`, `"2026-01-01"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id ID
		idErr := id.UnmarshalJSON(b)
		var d Decimal
		decErr := d.UnmarshalJSON(b)
		var flag Bool
		_ = flag.UnmarshalJSON(b)
		var tm Time
		_ = tm.UnmarshalJSON(b)
		if decErr == nil {
			r := d.Rat() // must not blow up on a huge exponent
			if idErr == nil && json.Valid(b) && r.Cmp(new(Decimal).set(int64(id)).Rat()) != 0 {
				t.Fatalf("%s: ID %d, Decimal %s", b, id, d)
			}
			out, _ := d.MarshalJSON()
			var back Decimal
			if err := back.UnmarshalJSON(out); err != nil || back.Cmp(d) != 0 {
				t.Fatalf("%s: round trip %s: %v", b, out, err)
			}
			_, _, _ = d.Add(d), d.Mul(d), d.Round(2)
		}
	})
}

func (d *Decimal) set(n int64) *Decimal { *d = DecimalFromInt(n); return d }

// FuzzRecordMembers checks the member scanner that finds a record's extra
// fields against encoding/json on any valid object.
func FuzzRecordMembers(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":"x","c":{"d":[1,{"e":"}"}]},"f":null}`, `{"we\"ird":"\\","a":[]}`, `{}`, `{"a":1,"a":2}`, "{\"\xff\":1}", `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(b, &want) != nil {
			forEachMember(b, func(_, _ []byte) {}) // must not panic on anything
			return
		}
		got := map[string]json.RawMessage{}
		forEachMember(b, func(k, v []byte) { got[string(k)] = v })
		if len(got) != len(want) {
			t.Fatalf("%s: %d members, encoding/json %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("%s: member %q = %s, encoding/json %s", b, k, got[k], v)
			}
		}
		var inv Invoice
		_ = json.Unmarshal(b, &inv)
	})
}
