package visibility_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
)

func sortedIDs(q *visibility.Query, recs []*execution) []string {
	s := slices.Clone(recs)
	slices.SortStableFunc(s, func(a, b *execution) int { return q.Compare(a, b) })
	ids := make([]string, len(s))
	for i, r := range s {
		ids[i] = r.id
	}
	return ids
}

func TestOrder(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	tests := []struct {
		query    string
		want     []string
		orderBy  []visibility.Order
		explicit bool
	}{
		// default: StartTime DESC, then RunId; order-1 and ship-2 start together
		{"", []string{"ship-1", "order-2", "order-1", "ship-2"},
			[]visibility.Order{{"StartTime", true}, {"RunId", false}}, false},
		{"WorkflowId STARTS_WITH 'o'", []string{"ship-1", "order-2", "order-1", "ship-2"}, nil, false},
		{"ORDER BY WorkflowId DESC", []string{"ship-2", "ship-1", "order-2", "order-1"},
			[]visibility.Order{{"WorkflowId", true}, {"RunId", false}}, true},
		{"ORDER BY StartTime", []string{"order-1", "ship-2", "order-2", "ship-1"}, nil, true},
		{"ORDER BY StartTime ASC", []string{"order-1", "ship-2", "order-2", "ship-1"}, nil, true},
		{"ORDER BY WorkflowType DESC, StartTime", []string{"ship-2", "ship-1", "order-1", "order-2"},
			[]visibility.Order{{"WorkflowType", true}, {"StartTime", false}, {"RunId", false}}, true},
		// a missing value comes last, ascending or descending
		{"ORDER BY CustomInt", []string{"ship-2", "order-1", "order-2", "ship-1"}, nil, true},
		{"ORDER BY CustomInt DESC", []string{"order-2", "order-1", "ship-2", "ship-1"}, nil, true},
		{"ORDER BY CloseTime", []string{"order-2", "ship-1", "order-1", "ship-2"}, nil, true},
		{"ORDER BY CloseTime DESC", []string{"ship-1", "order-2", "order-1", "ship-2"}, nil, true},
		{"ORDER BY CustomBool", []string{"order-2", "order-1", "ship-1", "ship-2"}, nil, true},
		{"ORDER BY CustomDouble DESC", []string{"order-2", "order-1", "ship-2", "ship-1"}, nil, true},
		{"ORDER BY CustomKeyword DESC, RunId DESC", []string{"order-2", "order-1", "ship-2", "ship-1"}, nil, true},
		// RunId as a key: no tie-break added
		{"ORDER BY RunId DESC", []string{"ship-2", "ship-1", "order-2", "order-1"},
			[]visibility.Order{{"RunId", true}}, true},
		{"ORDER BY `order` DESC", []string{"order-2", "order-1", "ship-1", "ship-2"}, nil, true},
	}
	for _, tt := range tests {
		q, err := visibility.Parse(tt.query, schema)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.query, err)
			continue
		}
		if got := sortedIDs(q, records); !slices.Equal(got, tt.want) {
			t.Errorf("%q sorts %q, want %q", tt.query, got, tt.want)
		}
		if tt.orderBy != nil && !reflect.DeepEqual(q.OrderBy(), tt.orderBy) {
			t.Errorf("%q: OrderBy %v, want %v", tt.query, q.OrderBy(), tt.orderBy)
		}
		if q.HasOrderBy() != tt.explicit {
			t.Errorf("%q: HasOrderBy %v", tt.query, q.HasOrderBy())
		}
		// sort keys order the records as Compare does
		for _, a := range records {
			for _, b := range records {
				if x, y := q.Compare(a, b), q.CompareKeys(q.SortKey(a), q.SortKey(b)); sign(x) != sign(y) {
					t.Errorf("%q: Compare(%s, %s) = %d, CompareKeys %d", tt.query, a.id, b.id, x, y)
				}
			}
		}
	}
}

func sign(n int) int { return max(-1, min(1, n)) }

func TestDoubleNaNOrder(t *testing.T) {
	t.Parallel()
	q, err := visibility.Parse("ORDER BY CustomDouble", testSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(run string, v visibility.Value) visibility.MapRecord {
		return visibility.MapRecord{"RunId": visibility.StringValue(run), "CustomDouble": v}
	}
	nan := rec("a", visibility.FloatValue(nanValue()))
	one := rec("b", visibility.FloatValue(1))
	none := visibility.MapRecord{"RunId": visibility.StringValue("c")}
	if q.Compare(nan, one) >= 0 || q.Compare(one, none) >= 0 || q.Compare(nan, none) >= 0 || q.Compare(nan, nan) != 0 {
		t.Errorf("NaN orders %d %d %d %d", q.Compare(nan, one), q.Compare(one, none), q.Compare(nan, none), q.Compare(nan, nan))
	}
	for _, s := range []string{"CustomDouble = 1", "CustomDouble != 1", "CustomDouble < 1", "CustomDouble > 1", "CustomDouble IN (1)"} {
		q, _ := visibility.Parse(s, testSchema(t))
		if got, want := q.Match(nan), s == "CustomDouble != 1"; got != want {
			t.Errorf("%q matches NaN: %v", s, got)
		}
	}
}

func nanValue() float64 { z := 0.0; return z / z }

// TestPaging pages through executions with sort keys as page tokens while
// executions are added between pages: every execution present throughout
// is seen once, in order.
func TestPaging(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	for _, query := range []string{"", "ORDER BY CustomInt DESC", "ExecutionStatus != 'Failed' ORDER BY CloseTime, CustomDouble DESC, CustomBool"} {
		q, err := visibility.Parse(query, schema)
		if err != nil {
			t.Fatal(err)
		}
		all := slices.Clone(records)
		var seen []string
		var token []byte
		for page := 0; ; page++ {
			if page > 10 {
				t.Fatalf("%q: paging does not end", query)
			}
			var after visibility.SortKey
			if token != nil {
				if after, err = q.ParseSortKey(token); err != nil {
					t.Fatalf("%q: ParseSortKey: %v", query, err)
				}
			}
			var rest []*execution
			for _, r := range all {
				if q.Match(r) && (token == nil || q.CompareKeys(q.SortKey(r), after) > 0) {
					rest = append(rest, r)
				}
			}
			slices.SortFunc(rest, func(a, b *execution) int { return q.Compare(a, b) })
			n := min(2, len(rest))
			for _, r := range rest[:n] {
				seen = append(seen, r.id)
			}
			if n == len(rest) {
				break
			}
			if token, err = q.SortKey(rest[n-1]).MarshalBinary(); err != nil {
				t.Fatal(err)
			}
			// a new execution that sorts before the token is not seen; the
			// old ones are not shifted
			all = append(all, &execution{id: "late", run: "r0", start: time.Now()})
		}
		var want []string
		for _, r := range records {
			if q.Match(r) {
				want = append(want, r.id)
			}
		}
		want = sortedIDs(q, recordsByID(want))
		got := slices.DeleteFunc(seen, func(s string) bool { return s == "late" })
		if !slices.Equal(got, want) {
			t.Errorf("%q: pages give %q, want %q", query, got, want)
		}
	}
}

func recordsByID(ids []string) []*execution {
	var out []*execution
	for _, r := range records {
		if slices.Contains(ids, r.id) {
			out = append(out, r)
		}
	}
	return out
}

func TestSortKeyRoundTrip(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	q, err := visibility.Parse("ORDER BY WorkflowId, CustomInt DESC, CustomDouble, CustomBool, CloseTime, `Customer Name`", schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		k := q.SortKey(r)
		b, err := k.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		k2, err := q.ParseSortKey(b)
		if err != nil {
			t.Fatalf("%s: %v", r.id, err)
		}
		for _, o := range records {
			if x, y := q.CompareKeys(k, q.SortKey(o)), q.CompareKeys(k2, q.SortKey(o)); x != y {
				t.Errorf("%s vs %s: %d before marshalling, %d after", r.id, o.id, x, y)
			}
		}
		// every truncation and a trailing byte are refused
		for i := range b {
			if _, err := q.ParseSortKey(b[:i]); !errors.Is(err, visibility.ErrBadSortKey) {
				t.Errorf("%s: %d of %d bytes: %v", r.id, i, len(b), err)
			}
		}
		if _, err := q.ParseSortKey(append(b, 0)); !errors.Is(err, visibility.ErrBadSortKey) {
			t.Errorf("%s: a trailing byte: %v", r.id, err)
		}
	}
	// a token of another order is refused
	other, _ := visibility.Parse("ORDER BY WorkflowId DESC, CustomInt DESC, CustomDouble, CustomBool, CloseTime, `Customer Name`", schema)
	b, _ := other.SortKey(records[0]).MarshalBinary()
	if _, err := q.ParseSortKey(b); !errors.Is(err, visibility.ErrBadSortKey) {
		t.Errorf("a token of another order: %v", err)
	}
	// the same order is the same order, whatever the filter
	same, _ := visibility.Parse("WorkflowId = 'x' ORDER BY WorkflowId ASC, CustomInt DESC, CustomDouble, CustomBool, CloseTime, `Customer Name`", schema)
	b, _ = same.SortKey(records[0]).MarshalBinary()
	if _, err := q.ParseSortKey(b); err != nil {
		t.Errorf("a token of the same order: %v", err)
	}
}

func FuzzParseSortKey(f *testing.F) {
	schema := testSchema(f)
	q, err := visibility.Parse("ORDER BY WorkflowId, CustomInt DESC, CustomDouble, CustomBool, CloseTime", schema)
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range records {
		b, _ := q.SortKey(r).MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		k, err := q.ParseSortKey(b)
		if err != nil {
			return
		}
		b2, _ := k.MarshalBinary()
		k2, err := q.ParseSortKey(b2)
		if err != nil || q.CompareKeys(k, k2) != 0 {
			t.Fatalf("%x: re-marshalled %x: %v", b, b2, err)
		}
		for _, r := range records {
			q.CompareKeys(k, q.SortKey(r))
		}
	})
}

func TestDefaultOrderAndKeysInPlace(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	for query, want := range map[string]bool{
		"": true, "WorkflowId STARTS_WITH 'o'": true, "ORDER BY StartTime DESC": true,
		"ORDER BY StartTime DESC, RunId": true, "ORDER BY StartTime": false,
		"ORDER BY StartTime DESC, RunId DESC": false, "ORDER BY CustomInt": false,
	} {
		q, err := visibility.Parse(query, schema)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.DefaultOrder(); got != want {
			t.Errorf("%q: DefaultOrder %v, want %v", query, got, want)
		}
		// SortKeyIn and CompareKey agree with SortKey and CompareKeys.
		vals := make([]visibility.Value, len(records)*q.KeyLen())
		for i, a := range records {
			ka := q.SortKeyIn(a, vals[i*q.KeyLen():])
			if !reflect.DeepEqual(ka, q.SortKey(a)) {
				t.Errorf("%q: SortKeyIn %v, SortKey %v", query, ka, q.SortKey(a))
			}
			for _, b := range records {
				kb := q.SortKey(b)
				if got, want := q.CompareKey(a, kb), q.CompareKeys(q.SortKey(a), kb); got != want {
					t.Errorf("%q: CompareKey(%s, %s) = %d, want %d", query, a.id, b.id, got, want)
				}
			}
		}
	}
}
