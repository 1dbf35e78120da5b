package erp

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Filter is a condition in the ERP's sqlfilters language, which the server
// turns into SQL:
//
//	(t.ref:like:'SO%') and (t.price:>:10)
//
// Build filters with Field and And/Or rather than by hand: field names are
// checked and values quoted and escaped, so no value can end its criterion
// early and add conditions of its own.
//
//	erp.And(erp.Field("t.ref").Like("FA26%"), erp.Field("t.total_ttc").Ge(erp.MustDecimal("100")))
//
// Field names are the ERP's database columns with the table alias t
// ("t.ref", "t.fk_soc", "t.fk_statut", "t.datef", "t.nom" for a third
// party's name), not the JSON field names. String values are written
// '…' with \' and \\ escaped; times as 'YYYY-MM-DD HH:MM:SS' in UTC. The
// zero Filter matches everything.
type Filter struct {
	expr     string
	compound string // "and" or "or" when expr joins criteria, to parenthesise it inside the other
	err      error
}

// IsZero reports whether f is the empty filter.
func (f Filter) IsZero() bool { return f.expr == "" && f.err == nil }

// Build returns the sqlfilters text, or the first mistake made building it.
func (f Filter) Build() (string, error) {
	if f.err != nil {
		return "", f.err
	}
	return f.expr, nil
}

// String returns the sqlfilters text, or a description of the mistake.
func (f Filter) String() string {
	if f.err != nil {
		return "!(" + f.err.Error() + ")"
	}
	return f.expr
}

// RawFilter passes text to the server unchecked, for what the builder does
// not cover. The caller answers for quoting.
func RawFilter(text string) Filter { return Filter{expr: strings.TrimSpace(text)} }

// And matches what every filter matches; zero filters are skipped.
func And(fs ...Filter) Filter { return join("and", fs) }

// Or matches what any filter matches; zero filters are skipped.
func Or(fs ...Filter) Filter { return join("or", fs) }

func join(op string, fs []Filter) Filter {
	var parts []string
	for _, f := range fs {
		switch {
		case f.err != nil:
			return f
		case f.expr == "":
			continue
		case f.compound != "" && f.compound != op:
			parts = append(parts, "("+f.expr+")")
		default:
			parts = append(parts, f.expr)
		}
	}
	switch len(parts) {
	case 0:
		return Filter{}
	case 1:
		for _, f := range fs {
			if f.expr != "" {
				return f
			}
		}
	}
	return Filter{expr: strings.Join(parts, " "+op+" "), compound: op}
}

// FieldRef is a column to compare; see Field.
type FieldRef struct{ name string }

// Field names a column: "t.ref", "t.total_ttc", "t.fk_soc".
func Field(name string) FieldRef { return FieldRef{name: name} }

// Eq matches records whose field equals v (a string, integer, float,
// Decimal, ID, Bool, bool, time.Time or Time).
func (f FieldRef) Eq(v any) Filter { return f.compare("=", v) }

// Ne matches records whose field differs from v.
func (f FieldRef) Ne(v any) Filter { return f.compare("!=", v) }

// Lt matches records whose field is less than v.
func (f FieldRef) Lt(v any) Filter { return f.compare("<", v) }

// Le matches records whose field is at most v.
func (f FieldRef) Le(v any) Filter { return f.compare("<=", v) }

// Gt matches records whose field is greater than v.
func (f FieldRef) Gt(v any) Filter { return f.compare(">", v) }

// Ge matches records whose field is at least v.
func (f FieldRef) Ge(v any) Filter { return f.compare(">=", v) }

// Like matches a SQL LIKE pattern: % any run of characters, _ one
// character, case-insensitive on the ERP's usual collation.
func (f FieldRef) Like(pattern string) Filter { return f.compare("like", pattern) }

// NotLike matches what Like does not.
func (f FieldRef) NotLike(pattern string) Filter { return f.compare("notlike", pattern) }

// In matches records whose field equals one of vs.
func (f FieldRef) In(vs ...any) Filter { return f.list("in", vs) }

// NotIn matches records whose field equals none of vs.
func (f FieldRef) NotIn(vs ...any) Filter { return f.list("notin", vs) }

// IsNull matches records whose field is unset.
func (f FieldRef) IsNull() Filter { return f.criterion("is", "null") }

// IsNotNull matches records whose field is set.
func (f FieldRef) IsNotNull() Filter { return f.criterion("isnot", "null") }

func (f FieldRef) compare(op string, v any) Filter {
	lit, err := literal(v)
	if err != nil {
		return Filter{err: fmt.Errorf("erp: filter on %s: %w", f.name, err)}
	}
	return f.criterion(op, lit)
}

func (f FieldRef) list(op string, vs []any) Filter {
	if len(vs) == 0 {
		return Filter{err: fmt.Errorf("erp: filter on %s: %s needs at least one value", f.name, op)}
	}
	lits := make([]string, len(vs))
	for i, v := range vs {
		lit, err := literal(v)
		if err != nil {
			return Filter{err: fmt.Errorf("erp: filter on %s: %w", f.name, err)}
		}
		lits[i] = lit
	}
	return f.criterion(op, "("+strings.Join(lits, ",")+")")
}

func (f FieldRef) criterion(op, lit string) Filter {
	if !validField(f.name) {
		return Filter{err: fmt.Errorf("erp: filter: invalid field name %q", f.name)}
	}
	return Filter{expr: "(" + f.name + ":" + op + ":" + lit + ")"}
}

// validField reports whether s is a column name, with or without a table
// alias: letters, digits and underscores, one dot at most.
func validField(s string) bool {
	table, col, dotted := strings.Cut(s, ".")
	if !dotted {
		return identifier(table)
	}
	return identifier(table) && identifier(col)
}

func identifier(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// literal writes v in the filter language.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", errors.New("nil value; use IsNull")
	case string:
		return quote(x), nil
	case Decimal:
		return x.String(), nil
	case ID:
		return x.String(), nil
	case Bool:
		return boolLiteral(bool(x)), nil
	case bool:
		return boolLiteral(x), nil
	case Time:
		return quote(x.UTC().Format(time.DateTime)), nil
	case time.Time:
		return quote(x.UTC().Format(time.DateTime)), nil
	case float32:
		return floatLiteral(float64(x))
	case float64:
		return floatLiteral(x)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.String:
		return quote(rv.String()), nil
	}
	return "", fmt.Errorf("cannot compare with a %T", v)
}

func boolLiteral(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func floatLiteral(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("%v is not a number the server can compare", f)
	}
	return strconv.FormatFloat(f, 'f', -1, 64), nil
}

// quote writes s between single quotes, escaping \ and '.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for _, c := range []byte(s) {
		if c == '\\' || c == '\'' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	b.WriteByte('\'')
	return b.String()
}
