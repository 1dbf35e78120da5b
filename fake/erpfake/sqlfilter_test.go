package erpfake

import (
	"math/big"
	"strings"
	"testing"
	"time"
)

type rec struct {
	id    int64
	ref   string
	price *big.Rat
	date  time.Time
	soc   int64
}

func (r *rec) recID() int64 { return r.id }

var recFields = map[string]fieldDef[*rec]{
	"rowid":  intField(false, func(r *rec) int64 { return r.id }),
	"ref":    textField(func(r *rec) string { return r.ref }),
	"price":  numField(false, func(r *rec) *big.Rat { return r.price }),
	"datef":  timeField(func(r *rec) time.Time { return r.date }),
	"fk_soc": intField(true, func(r *rec) int64 { return r.soc }),
}

var recs = []*rec{
	{1, "SO-001", big.NewRat(5, 1), time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), 7},
	{2, "so-002", big.NewRat(25, 2), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), 0},
	{3, "FA-O'B", big.NewRat(100, 1), time.Time{}, 8},
	{4, "", big.NewRat(0, 1), time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), 7},
}

func matching(t *testing.T, filter string) string {
	t.Helper()
	n, err := parseFilter(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	pred, err := compileFilter(n, recFields)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	var ids []string
	for _, r := range recs {
		if pred(r) {
			ids = append(ids, itoa(r.id))
		}
	}
	return strings.Join(ids, ",")
}

func itoa(n int64) string { return big.NewInt(n).String() }

func TestFilterEvaluation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ filter, want string }{
		{"", "1,2,3,4"},
		{"(t.ref:like:'SO%')", "1,2"},
		{"(t.ref:LIKE:'so-00_')", "1,2"},
		{"(t.ref:notlike:'SO%')", "3"}, // null ref fails every comparison
		{"(t.ref:=:'FA-O\\'B')", "3"},
		{"(t.ref:like:'%\\_%')", ""},
		{"(t.ref:like:'SO\\-%')", "1,2"},
		{"(t.price:>:10)", "2,3"},
		{"(t.price:>=:'12.5')", "2,3"},
		{"(t.price:<:12.5) and (t.price:!=:0)", "1"},
		{"(t.price:<>:5)", "2,3,4"},
		{"(t.ref:like:'SO%') and (t.price:>:10)", "2"},
		{"(t.rowid:=:1) or (t.rowid:=:2) and (t.price:>:100)", "1"},
		{"((t.rowid:=:1) or (t.rowid:=:2)) and (t.price:>:10)", "2"},
		{"( ( t.rowid : = : 4 ) )", "4"},
		{"(t.rowid:in:(1,3,9))", "1,3"},
		{"(t.rowid:notin:(1,3))", "2,4"},
		{"(t.ref:in:('so-001','FA-O\\'B'))", "1,3"},
		{"(t.datef:>=:'2026-02-01')", "2,4"},
		{"(t.datef:<:'2026-03-01 12:00:00')", "1,2"},
		{"(t.datef:<:1767225600)", ""},
		{"(t.datef:is:null)", "3"},
		{"(t.fk_soc:is:null)", "2"},
		{"(t.fk_soc:isnot:NULL)", "1,3,4"},
		{"(t.ref:is:null)", "4"},
		{"(fk_soc:=:7)", "1,4"},
		{"(t.price:=:-1)", ""},
		// like reads numbers without trailing zeros and dates as text.
		{"(t.price:like:'12.5')", "2"},
		{"(t.price:like:'1%')", "2,3"},
		{"(t.datef:like:'2026-03-01 12:%')", "4"},
		{"(t.fk_soc:like:'7')", "1,4"},
	} {
		if got := matching(t, tc.filter); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.filter, got, tc.want)
		}
	}
}

func TestFilterRefused(t *testing.T) {
	t.Parallel()
	for _, filter := range []string{
		"t.ref:=:'x'", "(t.ref:=:'x'", "(t.ref:=:'x'))", "(t.ref:=:'unterminated)", "(t.ref:==:'x')", "(t.ref:=:x)",
		"(t.ref:=:'x') and", "(t.ref:=:'x') xor (t.ref:=:'y')", "(t.ref:in:'x')", "(t.ref:=:('a','b'))", "(t.ref:is:'x')",
		"(t.ref:=:null)", "(t.price:like:5)", "(t.rowid:in:(1,null))", "(1t.ref:=:1)", "(t..ref:=:1)", "(t.a.b:=:1)",
		"(t.nosuch:=:1)", "(t.price:>:'cheap')", "(t.datef:>:'soon')", "(t.price:=:1.2.3)", "(t.price:=:-)", "(t.price:=:5.)",
		"()", "(:=:1)", "(t.ref:=:'x') ; drop table", strings.Repeat("(", 40) + "(t.rowid:=:1)" + strings.Repeat(")", 40),
		strings.Repeat("x", maxFilterLen+1),
	} {
		n, err := parseFilter(filter)
		if err == nil {
			_, err = compileFilter(n, recFields)
		}
		if err == nil {
			t.Errorf("%q accepted", filter)
		}
	}
}

// FuzzParseFilter checks that no filter text makes the parser or the
// evaluator panic, and that what parses evaluates.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{
		"(t.ref:like:'SO%') and (t.price:>:10)", "((t.rowid:=:1) or (t.rowid:in:(1,2)))", "(t.datef:>=:'2026-01-01')",
		"(t.ref:=:'a\\'b')", "(t.fk_soc:isnot:null)", "(t.ref:like:'%\\", "((((", "(t.price:>=:-1.5)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseFilter(s)
		if err != nil {
			return
		}
		pred, err := compileFilter(n, recFields)
		if err != nil {
			return
		}
		for _, r := range recs {
			pred(r)
		}
	})
}
