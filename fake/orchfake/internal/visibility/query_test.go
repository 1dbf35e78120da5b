package visibility_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	all := []string{"order-1", "order-2", "ship-1", "ship-2"}
	tests := []struct {
		query string
		want  []string
	}{
		// empty
		{"", all},
		{" \t\r\n ", all},
		{"ORDER BY WorkflowId", all},

		// Keyword: every operator; case-sensitive; both quotes
		{"WorkflowId = 'order-1'", []string{"order-1"}},
		{"WorkflowId = 'ORDER-1'", nil},
		{`WorkflowId = "order-1"`, []string{"order-1"}},
		{"WorkflowId != 'order-1'", []string{"order-2", "ship-1", "ship-2"}},
		{"WorkflowId <> 'order-1'", []string{"order-2", "ship-1", "ship-2"}},
		{"WorkflowId > 'order-2'", []string{"ship-1", "ship-2"}},
		{"WorkflowId >= 'order-2'", []string{"order-2", "ship-1", "ship-2"}},
		{"WorkflowId < 'order-2'", []string{"order-1"}},
		{"WorkflowId <= 'order-2'", []string{"order-1", "order-2"}},
		{"WorkflowId IN ('order-1', 'ship-2', 'nope')", []string{"order-1", "ship-2"}},
		{"WorkflowId IN ('nope')", nil},
		{"WorkflowId NOT IN ('order-1', 'ship-2')", []string{"order-2", "ship-1"}},
		{"WorkflowId BETWEEN 'order-2' AND 'ship-1'", []string{"order-2", "ship-1"}},
		{"WorkflowId NOT BETWEEN 'order-2' AND 'ship-1'", []string{"order-1", "ship-2"}},
		{"WorkflowId BETWEEN 'ship-1' AND 'order-2'", nil},
		{"WorkflowId STARTS_WITH 'ship'", []string{"ship-1", "ship-2"}},
		{"WorkflowId STARTS_WITH ''", all},
		{"WorkflowId NOT STARTS_WITH 'ship'", []string{"order-1", "order-2"}},
		{"WorkflowId STARTS_WITH 'Ship'", nil},
		{"RunId = 'r3'", []string{"ship-1"}},
		{"WorkflowType = 'OrderFlow'", []string{"order-1", "order-2"}},
		{"TaskQueue = 'shipping'", []string{"ship-1", "ship-2"}},
		{"WorkflowId IS NOT NULL", all},

		// ExecutionStatus: values read ignoring case
		{"ExecutionStatus = 'Running'", []string{"order-1"}},
		{"ExecutionStatus = 'running'", []string{"order-1"}},
		{"ExecutionStatus != 'Running'", []string{"order-2", "ship-1", "ship-2"}},
		{"ExecutionStatus IN ('Failed', 'TIMEDOUT')", []string{"ship-1", "ship-2"}},
		{"ExecutionStatus NOT IN ('Failed', 'TimedOut', 'Canceled')", []string{"order-1", "order-2"}},

		// missing values: comparisons false, their negations true
		{"CustomKeyword = 'alpha'", []string{"order-1"}},
		{"CustomKeyword != 'alpha'", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomKeyword > 'a'", []string{"order-1", "order-2"}},
		{"CustomKeyword NOT IN ('alpha')", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomKeyword NOT BETWEEN 'a' AND 'z'", []string{"ship-1", "ship-2"}},
		{"CustomKeyword NOT STARTS_WITH 'al'", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomKeyword IS NULL", []string{"ship-1", "ship-2"}},
		{"CustomKeyword IS NOT NULL", []string{"order-1", "order-2"}},
		{"`Customer Name` = 'Acme'", []string{"order-1"}},
		{"`Größe` IS NULL", all},
		{"`order` = 7", []string{"order-2"}},

		// Text: every word of the literal is a word of the value, ignoring case
		{"CustomText = 'quick'", []string{"order-1", "order-2"}},
		{"CustomText = 'QUICK fox'", []string{"order-1"}},
		{"CustomText = 'fox, the!'", []string{"order-1"}},
		{"CustomText = 'dog'", []string{"order-2"}},
		{"CustomText = 'qui'", nil},
		{"CustomText = 'quick cat'", nil},
		{"CustomText = ''", nil},
		{"CustomText = '!!!'", nil},
		{"CustomText != 'quick'", []string{"ship-1", "ship-2"}},
		{"CustomText IS NULL", []string{"ship-2"}},

		// Int (ship-1 holds a string: missing)
		{"CustomInt = 10", []string{"order-1"}},
		{"CustomInt != 10", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomInt > 10", []string{"order-2"}},
		{"CustomInt >= 10", []string{"order-1", "order-2"}},
		{"CustomInt < 10", []string{"ship-2"}},
		{"CustomInt <= 10", []string{"order-1", "ship-2"}},
		{"CustomInt > -6", []string{"order-1", "order-2", "ship-2"}},
		{"CustomInt IN (10, -5)", []string{"order-1", "ship-2"}},
		{"CustomInt NOT IN (10, -5)", []string{"order-2", "ship-1"}},
		{"CustomInt BETWEEN -5 AND 10", []string{"order-1", "ship-2"}},
		{"CustomInt NOT BETWEEN 0 AND 15", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomInt IS NULL", []string{"ship-1"}},
		{"CustomInt = 30", nil},

		// Double (order-2 holds an Int: taken as a Double)
		{"CustomDouble = 3", []string{"order-2"}},
		{"CustomDouble = 3.0", []string{"order-2"}},
		{"CustomDouble = 1.5", []string{"order-1"}},
		{"CustomDouble != 1.5", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomDouble > 0", []string{"order-1", "order-2"}},
		{"CustomDouble >= 1.5e0", []string{"order-1", "order-2"}},
		{"CustomDouble < 0", []string{"ship-2"}},
		{"CustomDouble <= -0.25", []string{"ship-2"}},
		{"CustomDouble = -2.5E-1", []string{"ship-2"}},
		{"CustomDouble IN (1.5, 3)", []string{"order-1", "order-2"}},
		{"CustomDouble BETWEEN -1 AND 1.5", []string{"order-1", "ship-2"}},
		{"CustomDouble NOT BETWEEN -1 AND 1.5", []string{"order-2", "ship-1"}},

		// Bool
		{"CustomBool = true", []string{"order-1"}},
		{"CustomBool = FALSE", []string{"order-2"}},
		{"CustomBool != true", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomBool IS NOT NULL", []string{"order-1", "order-2"}},

		// Datetime: instants compared, whatever the offset
		{"StartTime = '2024-05-01T10:00:00Z'", []string{"order-1", "ship-2"}},
		{"StartTime = '2024-05-01T12:00:00+02:00'", []string{"order-1", "ship-2"}},
		{"StartTime != '2024-05-01T10:00:00Z'", []string{"order-2", "ship-1"}},
		{"StartTime > '2024-05-01T10:00:00Z'", []string{"order-2", "ship-1"}},
		{"StartTime > '2024-05-01T10:00:00.000000001Z'", []string{"order-2", "ship-1"}},
		{"StartTime >= '2024-05-02T10:00:00Z'", []string{"order-2", "ship-1"}},
		{"StartTime < '2024-05-02T00:00:00Z'", []string{"order-1", "ship-2"}},
		{"StartTime <= '2024-05-02T10:00:00Z'", []string{"order-1", "order-2", "ship-2"}},
		{"StartTime BETWEEN '2024-05-02T00:00:00Z' AND '2024-05-03T10:00:00Z'", []string{"order-2", "ship-1"}},
		{"StartTime IN ('2024-05-03T10:00:00Z', '2024-05-02T10:00:00Z')", []string{"order-2", "ship-1"}},
		{"ExecutionTime > '2024-05-02T00:00:00-01:00'", []string{"order-2", "ship-1"}},
		{"CloseTime IS NULL", []string{"order-1", "ship-2"}},
		{"CloseTime < '2024-05-03T00:00:00Z'", []string{"order-2"}},
		{"CloseTime != '2024-05-03T10:00:00Z'", []string{"order-1", "order-2", "ship-2"}},
		{"CustomDatetime < '2024-06-01T00:00:00Z'", []string{"order-1"}},

		// KeywordList: = contains; an empty list is missing
		{"CustomKeywordList = 'red'", []string{"order-1"}},
		{"CustomKeywordList = 'blue'", []string{"order-2"}},
		{"CustomKeywordList = 'RED'", nil},
		{"CustomKeywordList != 'red'", []string{"order-2", "ship-1", "ship-2"}},
		{"CustomKeywordList IN ('green', 'blue')", []string{"order-1", "order-2"}},
		{"CustomKeywordList NOT IN ('green', 'blue')", []string{"ship-1", "ship-2"}},
		{"CustomKeywordList STARTS_WITH 'gr'", []string{"order-1"}},
		{"CustomKeywordList IS NULL", []string{"ship-1", "ship-2"}},

		// precedence: NOT binds tighter than AND, AND than OR
		{"WorkflowType = 'ShipFlow' OR WorkflowType = 'OrderFlow' AND ExecutionStatus = 'Running'", []string{"order-1", "ship-1", "ship-2"}},
		{"(WorkflowType = 'ShipFlow' OR WorkflowType = 'OrderFlow') AND ExecutionStatus = 'Running'", []string{"order-1"}},
		{"ExecutionStatus = 'Running' AND WorkflowType = 'OrderFlow' OR WorkflowType = 'ShipFlow'", []string{"order-1", "ship-1", "ship-2"}},
		{"NOT WorkflowType = 'ShipFlow' AND ExecutionStatus = 'Running'", []string{"order-1"}},
		{"NOT (WorkflowType = 'ShipFlow' AND ExecutionStatus = 'Failed')", []string{"order-1", "order-2", "ship-2"}},
		{"ExecutionStatus = 'Failed' OR NOT CustomBool = true AND TaskQueue = 'orders'", []string{"order-2", "ship-1"}},
		{"NOT NOT WorkflowId = 'order-1'", []string{"order-1"}},
		{"NOT WorkflowId = 'order-1' OR WorkflowId = 'order-1'", all},
		{"((((WorkflowId = 'order-1'))))", []string{"order-1"}},
		{"WorkflowId BETWEEN 'a' AND 'order-1' AND TaskQueue = 'orders' OR RunId = 'r4'", []string{"order-1", "ship-2"}},

		// keywords ignore case
		{"WorkflowId = 'order-1' oR not WorkflowId nOt In ('ship-1') anD TaskQueue starts_with 'ship' Or CustomBool = True", []string{"order-1", "ship-1"}},
		{"CustomInt between 0 And 15", []string{"order-1"}},
		{"CloseTime is Not null", []string{"order-2", "ship-1"}},
	}
	for _, tt := range tests {
		q, err := visibility.Parse(tt.query, schema)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.query, err)
			continue
		}
		if got := matchIDs(q); !slices.Equal(got, tt.want) {
			t.Errorf("%q matches %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	deep := strings.Repeat("(", visibility.MaxDepth+1) + "WorkflowId = 'x'" + strings.Repeat(")", visibility.MaxDepth+1)
	deepNot := strings.Repeat("NOT ", visibility.MaxDepth+1) + "WorkflowId = 'x'"
	tests := []struct {
		query string
		pos   int
		msg   string
	}{
		{"WorkflowId = 'x' OR OR WorkflowId = 'y'", 20, `unexpected token "OR"`},
		{"AND", 0, `unexpected token "AND"`},
		{"WorkflowId =", 12, "unexpected end of query"},
		{"WorkflowId = 'x' AND", 20, "unexpected end of query"},
		{"WorkflowId", 10, "unexpected end of query"},
		{"(WorkflowId = 'x'", 17, "unexpected end of query"},
		{"WorkflowId = 'x')", 16, `unexpected token ")"`},
		{"WorkflowId = 'x' WorkflowId = 'y'", 17, `unexpected token "WorkflowId"`},
		{"'x' = WorkflowId", 0, `unexpected token "'x'"`},
		{"WorkflowId NOT = 'x'", 15, `unexpected token "="`},
		{"WorkflowId IS 'x'", 14, `unexpected token "'x'"`},
		{"WorkflowId IN ()", 15, `unexpected token ")"`},
		{"WorkflowId IN 'a'", 14, `unexpected token "'a'"`},
		{"WorkflowId IN ('a' 'b')", 19, `unexpected token "'b'"`},
		{"WorkflowId BETWEEN 'a' 'b'", 23, `unexpected token "'b'"`},
		{"WorkflowId = '" + strings.Repeat("x", 50) + "' '" + strings.Repeat("y", 50) + "'", 66, `unexpected token "'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy..."`},
		{"Nope = 'x'", 0, `unknown attribute "Nope"`},
		{"`Nope Attr` = 1", 0, `unknown attribute "Nope Attr"`},
		{"workflowid = 'x'", 0, `unknown attribute "workflowid" (attribute names are case-sensitive; did you mean "WorkflowId"?)`},
		{"CustomInt STARTS_WITH 'x'", 10, `operator STARTS_WITH is not valid for Int attribute "CustomInt"`},
		{"CustomBool > true", 11, `operator > is not valid for Bool attribute "CustomBool"`},
		{"CustomBool IN (true)", 11, `operator IN is not valid for Bool attribute "CustomBool"`},
		{"CustomBool BETWEEN false AND true", 11, `operator BETWEEN is not valid for Bool attribute "CustomBool"`},
		{"CustomText IN ('a')", 11, `operator IN is not valid for Text attribute "CustomText"`},
		{"CustomText < 'a'", 11, `operator < is not valid for Text attribute "CustomText"`},
		{"CustomText NOT STARTS_WITH 'a'", 15, `operator NOT STARTS_WITH is not valid for Text attribute "CustomText"`},
		{"CustomKeywordList >= 'a'", 18, `operator >= is not valid for KeywordList attribute "CustomKeywordList"`},
		{"CustomKeywordList BETWEEN 'a' AND 'b'", 18, `operator BETWEEN is not valid for KeywordList attribute "CustomKeywordList"`},
		{"CustomDouble STARTS_WITH '1'", 13, `operator STARTS_WITH is not valid for Double attribute "CustomDouble"`},
		{"StartTime STARTS_WITH '2024'", 10, `operator STARTS_WITH is not valid for Datetime attribute "StartTime"`},
		{"ExecutionStatus STARTS_WITH 'R'", 16, `operator STARTS_WITH is not valid for ExecutionStatus attribute "ExecutionStatus"`},
		{"ExecutionStatus > 'Running'", 16, `operator > is not valid for ExecutionStatus attribute "ExecutionStatus"`},
		{"ExecutionStatus = 'Sleeping'", 18, `invalid ExecutionStatus "Sleeping" (want one of Running, Completed, Failed, Canceled, Terminated, ContinuedAsNew, TimedOut)`},
		{"ExecutionStatus IN ('Running', 'Done')", 31, `invalid ExecutionStatus "Done"`},
		{"CustomInt = 'x'", 12, `Int attribute "CustomInt" needs an integer, not 'x'`},
		{"CustomInt = 1.5", 12, `Int attribute "CustomInt" needs an integer, not 1.5`},
		{"CustomInt = 1e3", 12, `Int attribute "CustomInt" needs an integer, not 1e3`},
		{"CustomInt = true", 12, `Int attribute "CustomInt" needs an integer, not true`},
		{"CustomInt = 9223372036854775808", 12, "integer 9223372036854775808 out of range"},
		{"CustomInt BETWEEN 1 AND 'x'", 24, `Int attribute "CustomInt" needs an integer, not 'x'`},
		{"CustomDouble = 1e999", 15, "number 1e999 out of range"},
		{"CustomDouble = '1.5'", 15, `Double attribute "CustomDouble" needs a number, not '1.5'`},
		{"CustomBool = 'true'", 13, `Bool attribute "CustomBool" needs true or false, not 'true'`},
		{"CustomBool = 1", 13, `Bool attribute "CustomBool" needs true or false, not 1`},
		{"WorkflowId = 5", 13, `Keyword attribute "WorkflowId" needs a quoted string, not 5`},
		{"CustomText = x", 13, `Text attribute "CustomText" needs a quoted string, not x`},
		{"CustomKeywordList = null", 20, `KeywordList attribute "CustomKeywordList" needs a quoted string, not null`},
		{"StartTime > 5", 12, `Datetime attribute "StartTime" needs a quoted RFC 3339 time, not 5`},
		{"StartTime > '2024-01-01'", 12, `invalid datetime "2024-01-01" for StartTime (want RFC 3339, as in 2006-01-02T15:04:05Z)`},
		{"StartTime > '2024-13-01T00:00:00Z'", 12, `invalid datetime`},
		{"WorkflowId = 'abc", 13, "unterminated string"},
		{`WorkflowId = "abc\"`, 13, "unterminated string"},
		{`WorkflowId = 'abc\`, 13, "unterminated string"},
		{"`Custom", 0, "unterminated attribute name"},
		{"`` = 'x'", 0, "empty attribute name"},
		{`WorkflowId = 'a\qb'`, 15, `unknown escape \q`},
		{"WorkflowId # 'x'", 11, `unexpected character '#'`},
		{"WorkflowId ! 'x'", 11, `unexpected character "!"`},
		{"WorkflowId = 'x' ; DROP TABLE", 17, `unexpected character ';'`},
		{"CustomInt = 12abc", 12, `malformed number "12abc"`},
		{"CustomDouble = 1.", 15, `malformed number "1."`},
		{"CustomDouble = 1.5.2", 15, `malformed number "1.5.2"`},
		{"CustomDouble = 1e", 15, `malformed number "1e"`},
		{"WorkflowId = '\xff'", 14, "invalid UTF-8"},
		{"WorkflowId = 'x' ORDER BY CustomText", 26, `cannot order by Text attribute "CustomText"`},
		{"ORDER BY CustomKeywordList", 9, `cannot order by KeywordList attribute "CustomKeywordList"`},
		{"ORDER BY WorkflowId, WorkflowId DESC", 21, `attribute "WorkflowId" ordered twice`},
		{"ORDER WorkflowId", 6, `unexpected token "WorkflowId"`},
		{"ORDER BY", 8, "unexpected end of query"},
		{"ORDER BY WorkflowId,", 20, "unexpected end of query"},
		{"ORDER BY WorkflowId DESC ASC", 25, `unexpected token "ASC"`},
		{"ORDER BY Nope", 9, `unknown attribute "Nope"`},
		{"ORDER BY StartTime WorkflowId = 'x'", 19, `unexpected token "WorkflowId"`},
		{"order = 7", 6, `unexpected token "="`}, // a keyword: backquote it
		{deep, visibility.MaxDepth, "query nested deeper than 64"},
		{deepNot, 4 * visibility.MaxDepth, "query nested deeper than 64"},
		{strings.Repeat(" ", visibility.MaxQueryLength+1), visibility.MaxQueryLength, "query longer than 8192 bytes"},
	}
	for _, tt := range tests {
		_, err := visibility.Parse(tt.query, schema)
		var se *visibility.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) = %v, want a *SyntaxError", tt.query, err)
			continue
		}
		if se.Pos != tt.pos || !strings.HasPrefix(se.Msg, tt.msg) {
			t.Errorf("Parse(%q): Pos %d, Msg %q; want %d, %q", tt.query, se.Pos, se.Msg, tt.pos, tt.msg)
		}
	}
}

func TestSyntaxErrorText(t *testing.T) {
	t.Parallel()
	_, err := visibility.Parse("WorkflowId = 'a' AND AND", nil)
	const want = `invalid query: unexpected token "AND" at position 21`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

// TestLimits: the deepest nesting and the longest query allowed parse.
func TestLimits(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		strings.Repeat("(", visibility.MaxDepth) + "WorkflowId = 'x'" + strings.Repeat(")", visibility.MaxDepth),
		strings.Repeat("NOT ", visibility.MaxDepth) + "WorkflowId = 'x'",
		strings.Repeat("NOT (", visibility.MaxDepth/2) + "WorkflowId = 'x'" + strings.Repeat(")", visibility.MaxDepth/2),
		"WorkflowId = '" + strings.Repeat("x", visibility.MaxQueryLength-15) + "'",
		// many operands are not nesting
		strings.Repeat("WorkflowId = 'x' OR ", 300) + "WorkflowId = 'y'",
	} {
		if _, err := visibility.Parse(s, nil); err != nil {
			t.Errorf("Parse(%.40q…): %v", s, err)
		}
	}
}

func TestString(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	tests := []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"WorkflowId='a'", "WorkflowId = 'a'"},
		{`WorkflowId = "it's \"x\"\n"`, `WorkflowId = 'it\'s "x"\n'`},
		{"WorkflowId = 'it''s' or RunId <> 'b\\\\'", `WorkflowId = 'it\'s' OR RunId != 'b\\'`},
		{"WorkflowId = 'tab\there\x00'", `WorkflowId = 'tab\there\0'`},
		{"WorkflowId = 'a' and (RunId = 'b' or RunId = 'c')", "WorkflowId = 'a' AND (RunId = 'b' OR RunId = 'c')"},
		{"(WorkflowId = 'a' and RunId = 'b') or RunId = 'c'", "WorkflowId = 'a' AND RunId = 'b' OR RunId = 'c'"},
		{"(WorkflowId = 'a' or RunId = 'b') or (RunId = 'c' or RunId = 'd')", "WorkflowId = 'a' OR RunId = 'b' OR RunId = 'c' OR RunId = 'd'"},
		{"not (WorkflowId = 'a' and RunId = 'b')", "NOT (WorkflowId = 'a' AND RunId = 'b')"},
		{"not not (WorkflowId = 'a')", "NOT NOT WorkflowId = 'a'"},
		{"WorkflowId in ('a',\"b\") and RunId not in ('c')", "WorkflowId IN ('a', 'b') AND RunId NOT IN ('c')"},
		{"CustomInt between -1 and 2 and CustomInt not between 5 and 6", "CustomInt BETWEEN -1 AND 2 AND CustomInt NOT BETWEEN 5 AND 6"},
		{"CustomDouble = 3 and CustomDouble > -0.0 and CustomDouble < 1.50e3 and CustomDouble != 1e-7", "CustomDouble = 3 AND CustomDouble > 0 AND CustomDouble < 1500 AND CustomDouble != 1e-07"},
		{"CustomBool = TRUE or CustomBool = False", "CustomBool = true OR CustomBool = false"},
		{"StartTime > '2024-05-01T10:00:00.500+02:00' and CloseTime is not null and ExecutionTime is null", "StartTime > '2024-05-01T10:00:00.5+02:00' AND CloseTime IS NOT NULL AND ExecutionTime IS NULL"},
		{"ExecutionStatus = 'continuedasnew'", "ExecutionStatus = 'ContinuedAsNew'"},
		{"TaskQueue starts_with 'q' and TaskQueue not starts_with 'qq'", "TaskQueue STARTS_WITH 'q' AND TaskQueue NOT STARTS_WITH 'qq'"},
		{"`CustomInt` = 1 and `Customer Name` = 'x' and `order` = 2 and `Größe` = 1", "CustomInt = 1 AND `Customer Name` = 'x' AND `order` = 2 AND `Größe` = 1"},
		{"order by StartTime asc, `order` desc", "ORDER BY StartTime, `order` DESC"},
		{"WorkflowId = 'a' ORDER BY RunId DESC", "WorkflowId = 'a' ORDER BY RunId DESC"},
	}
	for _, tt := range tests {
		q, err := visibility.Parse(tt.in, schema)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := q.String(); got != tt.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
		q2, err := visibility.Parse(q.String(), schema)
		if err != nil || q2.String() != tt.want {
			t.Errorf("canonical %q does not parse back to itself: %v", tt.want, err)
		}
	}
}

func TestNilSchema(t *testing.T) {
	t.Parallel()
	q, err := visibility.Parse("WorkflowType = 'OrderFlow' AND StartTime > '2024-05-01T12:00:00Z'", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := matchIDs(q); !slices.Equal(got, []string{"order-2"}) {
		t.Errorf("matches %q", got)
	}
	if _, err := visibility.Parse("CustomInt = 1", nil); err == nil {
		t.Error("a custom attribute parsed without a schema")
	}
	if _, err := visibility.Parse("CustomInt = 1", &visibility.Schema{}); err == nil {
		t.Error("a custom attribute parsed with the zero schema")
	}
}

func TestMatchesAll(t *testing.T) {
	t.Parallel()
	for query, want := range map[string]bool{"": true, " ": true, "ORDER BY RunId": true, "RunId = 'x'": false, "RunId IS NULL ORDER BY RunId": false} {
		q, err := visibility.Parse(query, nil)
		if err != nil {
			t.Fatal(err)
		}
		if q.MatchesAll() != want {
			t.Errorf("%q: MatchesAll %v", query, !want)
		}
	}
}

// TestLongTokenInMessage: a long token is cut in the message, never inside
// a UTF-8 sequence.
func TestLongTokenInMessage(t *testing.T) {
	t.Parallel()
	_, err := visibility.Parse("RunId = 'x' '"+strings.Repeat("é", 30)+"'", nil)
	var se *visibility.SyntaxError
	if !errors.As(err, &se) || se.Msg != `unexpected token "'`+strings.Repeat("é", 18)+`..."` {
		t.Errorf("error %v", err)
	}
}

// keywordRecord gives Keyword values from Value, as a KeywordRecord must:
// matching through it takes the Keyword fast path.
type keywordRecord struct{ visibility.Record }

func (k keywordRecord) Keyword(name string) (string, bool) {
	v, ok := k.Value(name)
	if !ok {
		return "", false
	}
	return v.Str()
}

func TestKeywordFastPathMatchesAsValue(t *testing.T) {
	t.Parallel()
	schema := testSchema(t)
	recs := []visibility.Record{visibility.MapRecord{"CustomKeyword": visibility.IntValue(3)}} // wrong kind: missing
	for _, r := range records {
		recs = append(recs, r)
	}
	var n int
	for _, attr := range []string{"WorkflowId", "RunId", "WorkflowType", "TaskQueue", "CustomKeyword", "`Customer Name`"} {
		for _, pred := range []string{"= 'order-1'", "!= 'order-1'", "= 'alpha'", "!= ''", "= ''", "> 'beta'", ">= 'beta'", "< 'beta'", "<= 'beta'",
			"IN ('alpha', 'r2', 'ShipFlow')", "NOT IN ('alpha', 'orders')", "BETWEEN 'a' AND 'r1'", "NOT BETWEEN 'a' AND 'r1'",
			"STARTS_WITH 'ord'", "NOT STARTS_WITH 'r'", "STARTS_WITH ''", "IS NULL", "IS NOT NULL"} {
			for _, query := range []string{attr + " " + pred, "NOT " + attr + " " + pred, attr + " " + pred + " OR ExecutionStatus = 'Failed'",
				"ExecutionStatus != 'Running' AND " + attr + " " + pred} {
				q, err := visibility.Parse(query, schema)
				if err != nil {
					continue // an operator the attribute does not take
				}
				n++
				for i, r := range recs {
					if got, want := q.Match(keywordRecord{r}), q.Match(r); got != want {
						t.Errorf("%q on record %d: fast path %v, Value %v", query, i, got, want)
					}
				}
			}
		}
	}
	if n < 200 {
		t.Fatalf("only %d queries parsed", n)
	}
}
