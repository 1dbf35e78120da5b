package visibility_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
)

// FuzzParse: Parse never panics; an error is a *SyntaxError inside the
// query; a parsed query's String parses again to the same String and the
// same matches and order.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"WorkflowType = 'OrderFlow' AND ExecutionStatus = 'Running' AND StartTime > '2024-01-01T00:00:00Z'",
		"(CustomInt >= 10 OR CustomDouble < 2.5e0) AND NOT CustomBool = true ORDER BY CustomInt DESC, WorkflowId",
		"WorkflowId NOT IN ('a', \"b\\\"c\") OR TaskQueue STARTS_WITH 'ord' OR RunId NOT STARTS_WITH 'x'",
		"CustomDatetime BETWEEN '2024-01-01T00:00:00Z' AND '2024-12-31T23:59:59.999+05:30' AND CloseTime IS NOT NULL",
		"CustomText = 'quick fox' AND CustomKeywordList IN ('red', 'blue') AND `Customer Name` <> 'it''s'",
		"NOT NOT (((WorkflowId = 'a'))) AND `order` BETWEEN -3 AND 9 AND Größe != -0.0",
		"WorkflowId = 'a' AND AND",
		"StartTime > 1", "CustomBool > true", "CustomInt STARTS_WITH 'x'", "ORDER BY CustomText",
	} {
		f.Add(s)
	}
	schema := testSchema(f)
	f.Fuzz(func(t *testing.T, s string) {
		q, err := visibility.Parse(s, schema)
		if err != nil {
			var se *visibility.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%q: error %T %v", s, err, err)
			}
			if se.Pos < 0 || se.Pos > len(s) {
				t.Fatalf("%q: position %d outside the query", s, se.Pos)
			}
			return
		}
		c := q.String()
		q2, err := visibility.Parse(c, schema)
		if err != nil {
			t.Fatalf("%q: canonical %q does not parse: %v", s, c, err)
		}
		if c2 := q2.String(); c2 != c {
			t.Fatalf("%q: canonical %q parses to %q", s, c, c2)
		}
		if a, b := matchIDs(q), matchIDs(q2); !slices.Equal(a, b) {
			t.Fatalf("%q: matches %v, canonical %q matches %v", s, a, c, b)
		}
		for _, a := range records {
			for _, b := range records {
				if x, y := q.Compare(a, b), q2.Compare(a, b); x != y {
					t.Fatalf("%q: Compare %d, canonical %d", s, x, y)
				}
			}
		}
	})
}
