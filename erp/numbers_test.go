package erp_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
)

func TestIDAndBoolDecoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		id   erp.ID
		flag erp.Bool
		bad  bool
	}{
		{`12`, 12, true, false},
		{`"12"`, 12, true, false},
		{`" 7 "`, 7, true, false},
		{`""`, 0, false, false},
		{`null`, 0, false, false},
		{`0`, 0, false, false},
		{`"0"`, 0, false, false},
		{`-3`, -3, true, false},
		{`"1.000"`, 1, true, false},
		{`9223372036854775807`, 9223372036854775807, true, false},
		{`9223372036854775808`, 0, false, true},
		{`"1.5"`, 0, false, true},
		{`"abc"`, 0, false, true},
		{`1e3`, 0, false, true},
		{`{}`, 0, false, true},
	} {
		var id erp.ID
		err := json.Unmarshal([]byte(tc.in), &id)
		if tc.bad != (err != nil) || !tc.bad && id != tc.id {
			t.Errorf("ID %s: %d %v", tc.in, id, err)
		}
		var b erp.Bool
		err = json.Unmarshal([]byte(tc.in), &b)
		if tc.bad != (err != nil) || !tc.bad && b != tc.flag {
			t.Errorf("Bool %s: %v %v", tc.in, b, err)
		}
	}
	for in, want := range map[string]erp.Bool{"true": true, "false": false} {
		var b erp.Bool
		if err := json.Unmarshal([]byte(in), &b); err != nil || b != want {
			t.Errorf("Bool %s: %v %v", in, b, err)
		}
	}
	out, _ := json.Marshal(struct {
		ID erp.ID
		B  erp.Bool
		F  erp.Bool
	}{12, true, false})
	if string(out) != `{"ID":12,"B":1,"F":0}` {
		t.Fatalf("marshal %s", out)
	}
}

func TestDecimalDecoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, text string
		bad      bool
	}{
		{`100.00000000`, "100.00000000", false},
		{`"100.00000000"`, "100.00000000", false},
		{`"-0.5"`, "-0.5", false},
		{`" +3 "`, "3", false},
		{`12`, "12", false},
		{`1.5e3`, "1.5e3", false},
		{`""`, "0", false},
		{`null`, "0", false},
		{`"0.1"`, "0.1", false},
		{`"1e99999"`, "", true},
		{`1e99999`, "", true},
		{`"12,50"`, "", true},
		{`"1/3"`, "", true},
		{`"."`, "", true},
		{`"NaN"`, "", true},
		{`true`, "", true},
	} {
		var d erp.Decimal
		err := json.Unmarshal([]byte(tc.in), &d)
		if tc.bad != (err != nil) || !tc.bad && d.Text() != tc.text {
			t.Errorf("%s: %q %v", tc.in, d, err)
		}
	}
}

func TestDecimalKeepsMoneyExact(t *testing.T) {
	t.Parallel()
	// 0.1 + 0.2 is 0.3 exactly, where float64 gives 0.30000000000000004.
	sum := dec("0.1").Add(dec("0.2"))
	a, b := dec("0.1").Float64(), dec("0.2").Float64()
	if sum.String() != "0.3" || !sum.Equal(dec("0.30")) || a+b == 0.3 {
		t.Fatalf("0.1 + 0.2 = %s", sum)
	}
	huge := dec("12345678901234567890.12345678")
	if huge.Rat().Cmp(mustRat("1234567890123456789012345678/100000000")) != 0 || huge.String() != "12345678901234567890.12345678" {
		t.Fatalf("huge %s", huge)
	}
	for _, tc := range []struct {
		got  erp.Decimal
		want string
	}{
		{dec("19.99").Mul(dec("3")), "59.97"},
		{dec("100").Sub(dec("0.01")), "99.99"},
		{dec("2.345").Round(2), "2.35"},
		{dec("-2.345").Round(2), "-2.35"},
		{dec("2.344").Round(2), "2.34"},
		{dec("1.5e2").Add(dec("0.5")), "150.5"},
		{erp.DecimalFromInt(-7), "-7"},
		{erp.DecimalFromRat(big.NewRat(1, 3), 4), "0.3333"},
		{erp.DecimalFromRat(big.NewRat(2, 3), 0), "1"},
		{erp.Decimal{}, "0"},
	} {
		if tc.got.String() != tc.want {
			t.Errorf("got %s, want %s", tc.got, tc.want)
		}
	}
	if dec("100").Cmp(dec("100.00000000")) != 0 || dec("-1").Cmp(dec("0")) != -1 || !dec("0.000").IsZero() || dec("0.001").IsZero() || !dec("0e5").IsZero() {
		t.Fatal("comparisons")
	}
	if f := dec("12.5").Float64(); f != 12.5 {
		t.Fatalf("Float64 %v", f)
	}
	out, _ := json.Marshal(map[string]erp.Decimal{"a": dec("100.00000000"), "b": {}})
	if string(out) != `{"a":100.00000000,"b":0}` {
		t.Fatalf("marshal %s", out)
	}
	if _, err := erp.ParseDecimal("1,5"); err == nil {
		t.Fatal("1,5 accepted")
	}
}

func mustRat(s string) *big.Rat {
	r, _ := new(big.Rat).SetString(s)
	return r
}

func TestTimeDecoding(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{`1793700000`, want, false},
		{`"1793700000"`, want, false},
		{`"2026-11-03 10:00:00"`, want, false},
		{`"2026-11-03"`, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), false},
		{`""`, time.Time{}, false},
		{`null`, time.Time{}, false},
		{`0`, time.Time{}, false},
		{`"yesterday"`, time.Time{}, true},
	} {
		var got erp.Time
		err := json.Unmarshal([]byte(tc.in), &got)
		if tc.bad != (err != nil) || !got.Time.Equal(tc.want) {
			t.Errorf("%s: %v %v", tc.in, got, err)
		}
	}
	out, _ := json.Marshal([]erp.Time{erp.Unix(1793700000), {}})
	if string(out) != `[1793700000,null]` {
		t.Fatalf("marshal %s", out)
	}
	if !erp.At(want.Add(300 * time.Millisecond)).Equal(erp.Unix(want.Unix())) {
		t.Fatal("At keeps sub-second time")
	}
}

func TestExtraFieldsKept(t *testing.T) {
	t.Parallel()
	in := `{"id":"4","ref":"FA2611-0004","statut":"1","total_ttc":"12.00000000","multicurrency_code":"EUR",
		"array_options":{"options_color":"red"},"lines":[{"rowid":"9","qty":"2","rang":"1","special_code":"0"}],"we\"ird":1}`
	var inv erp.Invoice
	if err := json.Unmarshal([]byte(in), &inv); err != nil {
		t.Fatal(err)
	}
	if inv.ID != 4 || inv.Status != erp.InvoiceValidated || !inv.TotalTTC.Equal(dec("12")) || inv.Lines[0].ID != 9 || inv.Lines[0].Rank != 1 {
		t.Fatalf("known fields %+v", inv)
	}
	var code string
	if ok, err := inv.Extra.Decode("multicurrency_code", &code); !ok || err != nil || code != "EUR" {
		t.Fatalf("extra %v %v %q", ok, err, code)
	}
	if string(inv.Extra["array_options"]) != `{"options_color":"red"}` || string(inv.Extra[`we"ird`]) != "1" || len(inv.Extra) != 3 {
		t.Fatalf("extra %q", inv.Extra)
	}
	if _, ok := inv.Extra["statut"]; ok {
		t.Fatal("a known alias was kept as extra")
	}
	if string(inv.Lines[0].Extra["special_code"]) != `"0"` {
		t.Fatalf("line extra %q", inv.Lines[0].Extra)
	}
	// Written back, extra fields travel along, and decoding again gives the
	// same record.
	out, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	var again erp.Invoice
	if err := json.Unmarshal(out, &again); err != nil {
		t.Fatal(err)
	}
	if d := diff(inv, again); d != "" {
		t.Fatalf("round trip (-first +again):\n%s", d)
	}
	// Decoding into a used record forgets its old extras.
	json.Unmarshal([]byte(`{"id":5}`), &inv)
	if inv.Extra != nil || inv.ID != 5 {
		t.Fatalf("reused %+v", inv)
	}
	// Requests send their Extra fields, typed fields first.
	body, _ := json.Marshal(erp.CreateThirdpartyRequest{Name: "A", Extra: map[string]any{"name": "ignored", "url": "https://a"}})
	if string(body) != `{"name":"A","client":0,"url":"https://a"}` {
		t.Fatalf("request %s", body)
	}
}

// A decimal prints for people without the 8-place columns' zeros, down to
// two places; Text keeps every digit as sent.
func TestDecimalString(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"79.80000000": "79.80", "100.00000000": "100.00", "0.12500000": "0.125", "12": "12",
		"-3.10000000": "-3.10", "0.5": "0.5", "1.5e3": "1.5e3", "": "0",
	} {
		var d erp.Decimal
		if text != "" {
			d = erp.MustDecimal(text)
		}
		if got := d.String(); got != want {
			t.Errorf("%q prints %q, want %q", text, got, want)
		}
		if text != "" && d.Text() != text {
			t.Errorf("Text of %q is %q", text, d.Text())
		}
		if got := fmt.Sprint(d); got != want {
			t.Errorf("%%v of %q is %q", text, got)
		}
	}
}
