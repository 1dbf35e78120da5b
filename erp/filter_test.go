package erp_test

import (
	"math"
	"testing"
	"time"

	"github.com/apitwin/apitwin/erp"
)

func TestFilterBuilder(t *testing.T) {
	t.Parallel()
	type myInt int
	for _, tc := range []struct {
		f    erp.Filter
		want string
	}{
		{erp.Filter{}, ""},
		{erp.Field("t.ref").Like("SO%"), `(t.ref:like:'SO%')`},
		{erp.And(erp.Field("t.ref").Like("SO%"), erp.Field("t.price").Gt(10)), `(t.ref:like:'SO%') and (t.price:>:10)`},
		{erp.Field("t.nom").Eq(`O'Brien \ Sons (UK)`), `(t.nom:=:'O\'Brien \\ Sons (UK)')`},
		{erp.Field("t.nom").Eq("x') or (t.rowid:>:0"), `(t.nom:=:'x\') or (t.rowid:>:0')`},
		{erp.Field("t.total_ttc").Ge(dec("99.90")), `(t.total_ttc:>=:99.90)`},
		{erp.Field("t.fk_soc").In(erp.ID(1), 2, myInt(3), uint8(4)), `(t.fk_soc:in:(1,2,3,4))`},
		{erp.Field("t.fk_statut").NotIn(0, 3), `(t.fk_statut:notin:(0,3))`},
		{erp.Field("t.tosell").Eq(true), `(t.tosell:=:1)`},
		{erp.Field("t.paye").Ne(erp.Bool(false)), `(t.paye:!=:0)`},
		{erp.Field("t.price").Lt(9.5), `(t.price:<:9.5)`},
		{erp.Field("t.price").Le(float32(2)), `(t.price:<=:2)`},
		{erp.Field("t.datef").Ge(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)), `(t.datef:>=:'2026-01-02 03:04:05')`},
		{erp.Field("t.datec").Lt(erp.Unix(0).Add(0)), `(t.datec:<:'1970-01-01 00:00:00')`},
		{erp.Field("t.email").IsNull(), `(t.email:is:null)`},
		{erp.Field("email").IsNotNull(), `(email:isnot:null)`},
		{erp.Field("t.label").NotLike("%test%"), `(t.label:notlike:'%test%')`},
		{erp.Or(erp.And(erp.Field("a").Eq(1), erp.Field("b").Eq(2)), erp.Field("c").Eq(3)), `((a:=:1) and (b:=:2)) or (c:=:3)`},
		{erp.And(erp.Or(erp.Field("a").Eq(1), erp.Field("b").Eq(2)), erp.And(erp.Field("c").Eq(3), erp.Field("d").Eq(4))), `((a:=:1) or (b:=:2)) and (c:=:3) and (d:=:4)`},
		{erp.And(erp.Filter{}, erp.Field("a").Eq(1), erp.Filter{}), `(a:=:1)`},
		{erp.Or(), ""},
		{erp.RawFilter(" (t.x:=:1) "), "(t.x:=:1)"},
	} {
		got, err := tc.f.Build()
		if err != nil || got != tc.want {
			t.Errorf("got %q %v, want %q", got, err, tc.want)
		}
	}
	for name, f := range map[string]erp.Filter{
		"bad field":       erp.Field("t.ref)").Eq(1),
		"two dots":        erp.Field("a.b.c").Eq(1),
		"digit first":     erp.Field("1a").Eq(1),
		"nil value":       erp.Field("a").Eq(nil),
		"unsupported":     erp.Field("a").Eq([]int{1}),
		"NaN":             erp.Field("a").Eq(math.NaN()),
		"empty in":        erp.Field("a").In(),
		"bad in element":  erp.Field("a").In(1, struct{}{}),
		"error in an And": erp.And(erp.Field("a").Eq(1), erp.Field("").Eq(1)),
	} {
		if s, err := f.Build(); err == nil {
			t.Errorf("%s: built %q", name, s)
		} else if f.String() == "" || f.IsZero() {
			t.Errorf("%s: String %q", name, f.String())
		}
	}
}
