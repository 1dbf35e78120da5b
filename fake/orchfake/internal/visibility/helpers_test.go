package visibility_test

import (
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
)

// testSchema has the system attributes and one custom attribute of every
// type, plus names that need backquotes.
func testSchema(tb testing.TB) *visibility.Schema {
	tb.Helper()
	s := visibility.NewSchema()
	for name, typ := range map[string]visibility.Type{
		"CustomKeyword":     visibility.TypeKeyword,
		"CustomText":        visibility.TypeText,
		"CustomInt":         visibility.TypeInt,
		"CustomDouble":      visibility.TypeDouble,
		"CustomBool":        visibility.TypeBool,
		"CustomDatetime":    visibility.TypeDatetime,
		"CustomKeywordList": visibility.TypeKeywordList,
		"Customer Name":     visibility.TypeKeyword,
		"order":             visibility.TypeInt,
		"Größe":             visibility.TypeDouble,
	} {
		if err := s.Register(name, typ); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// execution is a record as the fake might hold it.
type execution struct {
	id, run, typ, status, queue string
	start, close                time.Time
	custom                      map[string]visibility.Value
}

func (e *execution) Value(name string) (visibility.Value, bool) {
	switch name {
	case visibility.AttrWorkflowID:
		return visibility.StringValue(e.id), true
	case visibility.AttrRunID:
		return visibility.StringValue(e.run), e.run != ""
	case visibility.AttrWorkflowType:
		return visibility.StringValue(e.typ), true
	case visibility.AttrExecutionStatus:
		return visibility.StringValue(e.status), true
	case visibility.AttrTaskQueue:
		return visibility.StringValue(e.queue), true
	case visibility.AttrStartTime, visibility.AttrExecutionTime:
		return visibility.TimeValue(e.start), !e.start.IsZero()
	case visibility.AttrCloseTime:
		return visibility.TimeValue(e.close), !e.close.IsZero()
	}
	v, ok := e.custom[name]
	return v, ok
}

var records = []*execution{
	{id: "order-1", run: "r1", typ: "OrderFlow", status: "Running", queue: "orders",
		start: ts("2024-05-01T10:00:00Z"),
		custom: map[string]visibility.Value{
			"CustomKeyword":     visibility.StringValue("alpha"),
			"CustomText":        visibility.StringValue("The quick brown fox"),
			"CustomInt":         visibility.IntValue(10),
			"CustomDouble":      visibility.FloatValue(1.5),
			"CustomBool":        visibility.BoolValue(true),
			"CustomDatetime":    visibility.TimeValue(ts("2024-01-01T00:00:00Z")),
			"CustomKeywordList": visibility.ListValue("red", "green"),
			"Customer Name":     visibility.StringValue("Acme"),
		}},
	{id: "order-2", run: "r2", typ: "OrderFlow", status: "Completed", queue: "orders",
		start: ts("2024-05-02T10:00:00Z"), close: ts("2024-05-02T11:00:00Z"),
		custom: map[string]visibility.Value{
			"CustomKeyword":     visibility.StringValue("beta"),
			"CustomText":        visibility.StringValue("lazy DOG, quick!"),
			"CustomInt":         visibility.IntValue(20),
			"CustomDouble":      visibility.IntValue(3), // an Int for a Double: taken as 3.0
			"CustomBool":        visibility.BoolValue(false),
			"CustomKeywordList": visibility.StringValue("blue"), // one string: a list of one
			"order":             visibility.IntValue(7),
		}},
	{id: "ship-1", run: "r3", typ: "ShipFlow", status: "Failed", queue: "shipping",
		start: ts("2024-05-03T10:00:00Z"), close: ts("2024-05-03T12:00:00+02:00"),
		custom: map[string]visibility.Value{
			"CustomInt":  visibility.StringValue("30"), // wrong kind: counts as missing
			"CustomText": visibility.StringValue(""),
		}},
	{id: "ship-2", run: "r4", typ: "ShipFlow", status: "TimedOut", queue: "shipping",
		start: ts("2024-05-01T10:00:00Z"),
		custom: map[string]visibility.Value{
			"CustomInt":         visibility.IntValue(-5),
			"CustomDouble":      visibility.FloatValue(-0.25),
			"CustomKeywordList": visibility.ListValue(),
		}},
}

// matchIDs returns the WorkflowIds of the records q matches, in order.
func matchIDs(q *visibility.Query) []string {
	var ids []string
	for _, r := range records {
		if q.Match(r) {
			ids = append(ids, r.id)
		}
	}
	return ids
}
