package visibility

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind is the Go shape of a [Value].
type Kind uint8

// The kinds of value a [Record] can hold.
const (
	KindNone    Kind = iota // the zero Value: no value; counts as missing
	KindString              // Keyword, Text (and a one-element KeywordList)
	KindInt                 // Int (and Double)
	KindFloat               // Double
	KindBool                // Bool
	KindTime                // Datetime
	KindStrings             // KeywordList
)

var kindNames = [...]string{"none", "string", "int", "float", "bool", "time", "strings"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one search-attribute value of a record: a string, an int64, a
// float64, a bool, a time.Time or a []string. The zero Value holds nothing
// and matches like a missing attribute. Values are small and are passed by
// value; a Value built with [ListValue] shares the slice it was given.
type Value struct {
	kind Kind
	s    string
	n    int64 // KindInt; KindBool (0/1); KindFloat as math.Float64bits
	t    time.Time
	ss   []string
}

// StringValue is a Keyword or Text value.
func StringValue(s string) Value { return Value{kind: KindString, s: s} }

// IntValue is an Int value.
func IntValue(n int64) Value { return Value{kind: KindInt, n: n} }

// FloatValue is a Double value.
func FloatValue(f float64) Value { return Value{kind: KindFloat, n: int64(math.Float64bits(f))} }

// BoolValue is a Bool value.
func BoolValue(b bool) Value {
	v := Value{kind: KindBool}
	if b {
		v.n = 1
	}
	return v
}

// TimeValue is a Datetime value. The zero time.Time gives the zero Value
// (missing), so a record can pass an unset CloseTime straight through.
func TimeValue(t time.Time) Value {
	if t.IsZero() {
		return Value{}
	}
	return Value{kind: KindTime, t: t}
}

// ListValue is a KeywordList value. It does not copy ss.
func ListValue(ss ...string) Value { return Value{kind: KindStrings, ss: ss} }

// Kind reports which of the constructors built v.
func (v Value) Kind() Kind { return v.kind }

// Any returns the Go value v holds: string, int64, float64, bool,
// time.Time, []string, or nil for the zero Value.
func (v Value) Any() any {
	switch v.kind {
	case KindString:
		return v.s
	case KindInt:
		return v.n
	case KindFloat:
		return v.float()
	case KindBool:
		return v.n != 0
	case KindTime:
		return v.t
	case KindStrings:
		return v.ss
	}
	return nil
}

func (v Value) float() float64 { return math.Float64frombits(uint64(v.n)) }

// String formats v for people (tests, logs); it is not query syntax.
func (v Value) String() string {
	switch v.kind {
	case KindString:
		return strconv.Quote(v.s)
	case KindTime:
		return v.t.Format(time.RFC3339Nano)
	case KindStrings:
		q := make([]string, len(v.ss))
		for i, s := range v.ss {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, " ") + "]"
	case KindNone:
		return "<none>"
	}
	return fmt.Sprint(v.Any())
}

// Record is what a query is evaluated against: one workflow execution as
// the fake holds it. Value returns the attribute's value and true, or false
// when the record has no value for it. A Value whose kind does not fit the
// attribute's type (see [Type]) counts as missing.
type Record interface {
	Value(name string) (Value, bool)
}

// KeywordRecord is a Record that also gives a string value without
// building a Value, which matching Keyword attributes (WorkflowType,
// ExecutionStatus, custom Keywords) then uses: Keyword(name) must be (s,
// true) exactly when Value(name) is a string Value holding s, and ("",
// false) otherwise.
type KeywordRecord interface {
	Record
	Keyword(name string) (string, bool)
}

// Str returns the string of a string Value (Keyword, Text), and whether v
// is one.
func (v Value) Str() (string, bool) { return v.s, v.kind == KindString }

// MapRecord is a Record held in a map, for tests and small callers.
type MapRecord map[string]Value

// Value implements [Record].
func (m MapRecord) Value(name string) (Value, bool) {
	v, ok := m[name]
	return v, ok
}
