package erpfake

import (
	"strings"
	"testing"
)

// phpGetReference is how PHP fills $_GET, written the plain way: every
// pair decoded into a map, the last of a name winning.
func phpGetReference(raw string) map[string]string {
	q := map[string]string{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if k = phpUnescape(k); k != "" {
			q[k] = phpUnescape(v)
		}
	}
	return q
}

var phpQuerySeeds = []string{
	"", "limit=10", "limit=10&limit=20", "a", "a=", "=x", "&&limit=5&", "sqlfilters=(t.nom:like:'%acme%')",
	"sqlfilters=(t.nom:like:'%25acme%25')", "so%72tfield=t.ref", "sort+field=x+y", "l%69mit=1&limit=2",
	"limit=1&l%69mit=2", "%=%&%%=1", "page=%2", "pagination_data=true&page=-1",
}

// TestPHPQuery checks phpQuery.Get, which reads the raw string at each
// call, against the map PHP would fill.
func TestPHPQuery(t *testing.T) {
	t.Parallel()
	for _, raw := range phpQuerySeeds {
		checkPHPQuery(t, raw)
	}
}

func FuzzPHPQuery(f *testing.F) {
	for _, raw := range phpQuerySeeds {
		f.Add(raw)
	}
	f.Fuzz(checkPHPQuery)
}

func checkPHPQuery(t *testing.T, raw string) {
	want := phpGetReference(raw)
	names := []string{"limit", "page", "sortfield", "sort field", "sqlfilters", "a", "%", "%%", "x"}
	for k := range want {
		names = append(names, k)
	}
	for _, name := range names {
		if got := phpQuery(raw).Get(name); got != want[name] {
			t.Errorf("phpQuery(%q).Get(%q) = %q, want %q", raw, name, got, want[name])
		}
	}
}
