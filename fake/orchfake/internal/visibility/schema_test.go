package visibility_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
)

func TestRegister(t *testing.T) {
	t.Parallel()
	s := visibility.NewSchema()
	tests := []struct {
		name string
		typ  visibility.Type
		err  error
	}{
		{"Color", visibility.TypeKeyword, nil},
		{"Color", visibility.TypeKeyword, nil}, // again, same type: nothing
		{"Color", visibility.TypeInt, visibility.ErrTypeConflict},
		{"color", visibility.TypeInt, nil}, // names are case-sensitive
		{"WorkflowId", visibility.TypeKeyword, visibility.ErrSystemAttribute},
		{"StartTime", visibility.TypeInt, visibility.ErrSystemAttribute},
		{"", visibility.TypeKeyword, visibility.ErrInvalidName},
		{"a\nb", visibility.TypeKeyword, visibility.ErrInvalidName},
		{"\xff", visibility.TypeKeyword, visibility.ErrInvalidName},
		{strings.Repeat("a", visibility.MaxNameLength+1), visibility.TypeKeyword, visibility.ErrInvalidName},
		{strings.Repeat("a", visibility.MaxNameLength), visibility.TypeKeyword, nil},
		{"X", visibility.TypeUnspecified, visibility.ErrInvalidType},
		{"X", visibility.TypeKeywordList + 1, visibility.ErrInvalidType},
	}
	for _, tt := range tests {
		if err := s.Register(tt.name, tt.typ); !errors.Is(err, tt.err) {
			t.Errorf("Register(%.20q, %v) = %v, want %v", tt.name, tt.typ, err, tt.err)
		}
	}
	if typ, ok := s.Lookup("Color"); !ok || typ != visibility.TypeKeyword {
		t.Errorf("Lookup(Color) = %v, %v", typ, ok)
	}
	if typ, ok := s.Lookup("CloseTime"); !ok || typ != visibility.TypeDatetime {
		t.Errorf("Lookup(CloseTime) = %v, %v", typ, ok)
	}
	if len(s.Custom()) != 3 {
		t.Errorf("Custom() = %v", s.Custom())
	}
	s.Custom()["Injected"] = visibility.TypeInt // a copy
	if _, ok := s.Lookup("Injected"); ok {
		t.Error("Custom() is not a copy")
	}
	if len(visibility.SystemAttributes()) != 10 || !visibility.IsSystem("ExecutionStatus") || !visibility.IsSystem("ScheduledById") || visibility.IsSystem("Color") {
		t.Error("system attributes")
	}

	q, err := visibility.Parse("Color = 'red'", s)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Remove("Color") || s.Remove("Color") || s.Remove("WorkflowId") {
		t.Error("Remove")
	}
	if _, err := visibility.Parse("Color = 'red'", s); err == nil {
		t.Error("a removed attribute parsed")
	}
	// a parsed query keeps the types it was parsed with
	if !q.Match(visibility.MapRecord{"Color": visibility.StringValue("red")}) {
		t.Error("the query changed with the schema")
	}
}

func TestParseType(t *testing.T) {
	t.Parallel()
	for typ := visibility.TypeKeyword; typ <= visibility.TypeKeywordList; typ++ {
		for _, s := range []string{typ.String(), strings.ToLower(typ.String()), strings.ToUpper(typ.String())} {
			if got, err := visibility.ParseType(s); err != nil || got != typ {
				t.Errorf("ParseType(%q) = %v, %v", s, got, err)
			}
		}
	}
	for _, s := range []string{"", "Unspecified", "String", "Keyword "} {
		if _, err := visibility.ParseType(s); err == nil {
			t.Errorf("ParseType(%q) succeeded", s)
		}
	}
	if got := visibility.Type(99).String(); got != "Type(99)" {
		t.Errorf("Type(99) = %q", got)
	}
}

// TestConcurrentSchema: registering while parsing and matching is safe
// (run with -race).
func TestConcurrentSchema(t *testing.T) {
	t.Parallel()
	s := testSchema(t)
	q, err := visibility.Parse("CustomInt > 0 ORDER BY CustomInt", s)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 200 {
				name := "A" + string(rune('a'+i)) + string(rune('a'+j%26))
				_ = s.Register(name, visibility.TypeInt)
				_, _ = visibility.Parse(name+" = 1 AND CustomKeyword = 'x'", s)
				for _, r := range records {
					q.Match(r)
				}
				s.Remove(name)
			}
		})
	}
	wg.Wait()
}

func TestValue(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		v    visibility.Value
		kind visibility.Kind
		any  any
		str  string
	}{
		{visibility.Value{}, visibility.KindNone, nil, "<none>"},
		{visibility.StringValue("a b"), visibility.KindString, "a b", `"a b"`},
		{visibility.IntValue(-3), visibility.KindInt, int64(-3), "-3"},
		{visibility.FloatValue(2.5), visibility.KindFloat, 2.5, "2.5"},
		{visibility.BoolValue(true), visibility.KindBool, true, "true"},
		{visibility.BoolValue(false), visibility.KindBool, false, "false"},
		{visibility.TimeValue(now), visibility.KindTime, now, "2024-05-01T10:00:00Z"},
		{visibility.TimeValue(time.Time{}), visibility.KindNone, nil, "<none>"},
		{visibility.ListValue("x", "y"), visibility.KindStrings, []string{"x", "y"}, `["x" "y"]`},
	}
	for _, tt := range tests {
		if tt.v.Kind() != tt.kind || tt.v.String() != tt.str {
			t.Errorf("%v: kind %v, string %q", tt.any, tt.v.Kind(), tt.v.String())
		}
		switch a := tt.v.Any().(type) {
		case []string:
			if strings.Join(a, ",") != strings.Join(tt.any.([]string), ",") {
				t.Errorf("Any() = %v", a)
			}
		default:
			if a != tt.any {
				t.Errorf("Any() = %v, want %v", a, tt.any)
			}
		}
	}
	if visibility.Kind(42).String() != "Kind(42)" {
		t.Error("Kind(42)")
	}
}
