package erp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/erp"
)

// Every record type writes back what it read: its own fields, and the
// fields this package does not know (Extra: custom fields, modules'
// additions) with their values, so that a record read, kept and sent on
// loses nothing.
func TestRecordsWriteBackTheirExtraFields(t *testing.T) {
	t.Parallel()
	const extras = `"array_options":{"options_color":"red"},"x_module_flag":"1"`
	roundTrip(t, "third party", `{"id":"7","name":"Acme",`+extras+`}`, func(v *erp.Thirdparty) string { return v.Name })
	roundTrip(t, "contact", `{"id":"7","lastname":"Doe",`+extras+`}`, func(v *erp.Contact) string { return v.Lastname })
	roundTrip(t, "product", `{"id":"7","ref":"W-1",`+extras+`}`, func(v *erp.Product) string { return v.Ref })
	roundTrip(t, "order", `{"id":"7","ref":"CO-1",`+extras+`}`, func(v *erp.Order) string { return v.Ref })
	roundTrip(t, "invoice", `{"id":"7","ref":"IN-1",`+extras+`}`, func(v *erp.Invoice) string { return v.Ref })
	roundTrip(t, "user", `{"id":"7","login":"ann",`+extras+`}`, func(v *erp.User) string { return v.Login })
}

func roundTrip[T any](t *testing.T, name, in string, known func(*T) string) {
	t.Helper()
	var first T
	if err := json.Unmarshal([]byte(in), &first); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if known(&first) == "" {
		t.Fatalf("%s: the known field was not read from %s", name, in)
	}
	out, err := json.Marshal(first)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, want := range []string{`"array_options":{"options_color":"red"}`, `"x_module_flag":"1"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s: %s lacks %s", name, out, want)
		}
	}
	var second T
	if err := json.Unmarshal(out, &second); err != nil {
		t.Fatalf("%s: reading back %s: %v", name, out, err)
	}
	if d := cmp.Diff(first, second); d != "" {
		t.Errorf("%s: read back differs (-first +second):\n%s", name, d)
	}
}
