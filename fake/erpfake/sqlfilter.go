package erpfake

import (
	"cmp"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"time"
)

// The sqlfilters language, the subset the fake understands (the ERP hands
// the same text to its SQL layer):
//
//	filter    = or
//	or        = and { "or" and }
//	and       = primary { "and" primary }
//	primary   = "(" criterion ")" | "(" or ")"
//	criterion = field ":" op ":" value
//	field     = name [ "." name ]            t.ref, t.fk_soc, ref
//	op        = "=" | "!=" | "<>" | "<" | "<=" | ">" | ">=" |
//	            "like" | "notlike" | "in" | "notin" | "is" | "isnot"
//	value     = string | number | "null" | "(" scalar { "," scalar } ")"
//	string    = "'" { char | "\'" | "\\" | "\%" | "\_" } "'"
//	number    = [ "-" ] digits [ "." digits ]
//
// Keywords and operators are case-insensitive; "and" binds tighter than
// "or", as in SQL. A list is for in and notin only, null for is and isnot
// only. String comparisons ignore case (the usual collation); like takes %
// and _ wildcards, and \% and \_ for the characters themselves (kept as
// written inside the string, as MySQL keeps them). A date field compares
// with Unix seconds or with 'YYYY-MM-DD[ HH:MM:SS]'. A field that is unset
// is null and fails every comparison but is null. Anything else is
// refused: a malformed filter, an unknown field, a value of the wrong kind.

const (
	maxFilterLen   = 10_000
	maxFilterDepth = 32
)

type filterNode struct {
	join  string // "and" or "or" for a join; "" for a criterion
	kids  []*filterNode
	field string
	op    string
	lits  []literal // one value, or the list of in/notin
	list  bool
}

type litKind int

const (
	litString litKind = iota
	litNumber
	litNull
)

type literal struct {
	kind litKind
	text string
	num  *big.Rat
}

func (l literal) String() string {
	switch l.kind {
	case litString:
		return "'" + l.text + "'"
	case litNull:
		return "null"
	}
	return l.text
}

// parseFilter parses sqlfilters text; "" is no filter (nil).
func parseFilter(text string) (*filterNode, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	if len(text) > maxFilterLen {
		return nil, fmt.Errorf("the filter is longer than %d characters", maxFilterLen)
	}
	p := &filterParser{s: text}
	n, err := p.or(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, p.errorf("unexpected %q", p.rest())
	}
	return n, nil
}

type filterParser struct {
	s string
	i int
}

func (p *filterParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at character %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

func (p *filterParser) rest() string {
	r := p.s[p.i:]
	if len(r) > 20 {
		r = r[:20] + "…"
	}
	return r
}

func (p *filterParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// keyword consumes word (case-insensitive) when it stands alone.
func (p *filterParser) keyword(word string) bool {
	p.space()
	end := p.i + len(word)
	if end > len(p.s) || !strings.EqualFold(p.s[p.i:end], word) {
		return false
	}
	if end < len(p.s) && isNameByte(p.s[end]) {
		return false
	}
	p.i = end
	return true
}

func (p *filterParser) expect(c byte) error {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != c {
		if p.i >= len(p.s) {
			return p.errorf("expected %q, found the end", c)
		}
		return p.errorf("expected %q, found %q", c, p.rest())
	}
	p.i++
	return nil
}

func (p *filterParser) or(depth int) (*filterNode, error) {
	return p.joined(depth, "or", p.and)
}

func (p *filterParser) and(depth int) (*filterNode, error) {
	return p.joined(depth, "and", p.primary)
}

func (p *filterParser) joined(depth int, word string, next func(int) (*filterNode, error)) (*filterNode, error) {
	first, err := next(depth)
	if err != nil {
		return nil, err
	}
	n := first
	for p.keyword(word) {
		right, err := next(depth)
		if err != nil {
			return nil, err
		}
		if n == first {
			n = &filterNode{join: word, kids: []*filterNode{first}}
		}
		n.kids = append(n.kids, right)
	}
	return n, nil
}

func (p *filterParser) primary(depth int) (*filterNode, error) {
	if depth >= maxFilterDepth {
		return nil, p.errorf("parentheses nested deeper than %d", maxFilterDepth)
	}
	if err := p.expect('('); err != nil {
		return nil, err
	}
	p.space()
	var n *filterNode
	var err error
	if p.i < len(p.s) && p.s[p.i] == '(' {
		n, err = p.or(depth + 1)
	} else {
		n, err = p.criterion()
	}
	if err != nil {
		return nil, err
	}
	return n, p.expect(')')
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *filterParser) criterion() (*filterNode, error) {
	start := p.i
	for p.i < len(p.s) && (isNameByte(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	field := p.s[start:p.i]
	if !validFieldName(field) {
		p.i = start
		return nil, p.errorf("expected a field name, found %q", p.rest())
	}
	if err := p.expect(':'); err != nil {
		return nil, err
	}
	p.space()
	start = p.i
	for p.i < len(p.s) && p.s[p.i] != ':' && p.s[p.i] != ')' && p.s[p.i] != '(' && p.s[p.i] != '\'' {
		p.i++
	}
	op := strings.ToLower(strings.TrimSpace(p.s[start:p.i]))
	switch op {
	case "=", "!=", "<>", "<", "<=", ">", ">=", "like", "notlike", "in", "notin", "is", "isnot":
	default:
		p.i = start
		return nil, p.errorf("unknown operator %q", op)
	}
	if op == "<>" {
		op = "!="
	}
	if err := p.expect(':'); err != nil {
		return nil, err
	}
	n := &filterNode{field: field, op: op}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '(' {
		p.i++
		n.list = true
		for {
			l, err := p.scalar()
			if err != nil {
				return nil, err
			}
			n.lits = append(n.lits, l)
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if err := p.expect(')'); err != nil {
				return nil, err
			}
			break
		}
	} else {
		l, err := p.scalar()
		if err != nil {
			return nil, err
		}
		n.lits = []literal{l}
	}
	return n, n.check()
}

func validFieldName(s string) bool {
	table, col, dotted := strings.Cut(s, ".")
	ok := func(x string) bool { return x != "" && !(x[0] >= '0' && x[0] <= '9') && !strings.Contains(x, ".") }
	if !dotted {
		return ok(table)
	}
	return ok(table) && ok(col)
}

// check matches the operator to its value.
func (n *filterNode) check() error {
	l := n.lits[0]
	switch n.op {
	case "in", "notin":
		if !n.list {
			return fmt.Errorf("%s %s needs a list of values, (a,b,…)", n.field, n.op)
		}
		for _, l := range n.lits {
			if l.kind == litNull {
				return fmt.Errorf("%s %s: null cannot be in a list", n.field, n.op)
			}
		}
		return nil
	case "is", "isnot":
		if n.list || l.kind != litNull {
			return fmt.Errorf("%s %s takes only null", n.field, n.op)
		}
		return nil
	}
	switch {
	case n.list:
		return fmt.Errorf("%s %s takes one value, not a list", n.field, n.op)
	case l.kind == litNull:
		return fmt.Errorf("%s %s null: use is or isnot", n.field, n.op)
	case (n.op == "like" || n.op == "notlike") && l.kind != litString:
		return fmt.Errorf("%s %s needs a quoted pattern", n.field, n.op)
	}
	return nil
}

// scalar reads a string, a number or null.
func (p *filterParser) scalar() (literal, error) {
	p.space()
	if p.i >= len(p.s) {
		return literal{}, p.errorf("expected a value, found the end")
	}
	switch c := p.s[p.i]; {
	case c == '\'':
		var b strings.Builder
		for p.i++; p.i < len(p.s); p.i++ {
			switch p.s[p.i] {
			case '\\':
				if p.i+1 < len(p.s) {
					p.i++
					if c := p.s[p.i]; c == '%' || c == '_' {
						b.WriteByte('\\') // kept for like, as MySQL keeps \% and \_
					}
					b.WriteByte(p.s[p.i])
				}
			case '\'':
				p.i++
				return literal{kind: litString, text: b.String()}, nil
			default:
				b.WriteByte(p.s[p.i])
			}
		}
		return literal{}, p.errorf("unterminated string")
	case c == '-' || c >= '0' && c <= '9':
		start := p.i
		p.i++
		for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
			p.i++
		}
		text := p.s[start:p.i]
		if strings.Count(text, ".") > 1 || strings.HasSuffix(text, ".") || text == "-" || strings.HasPrefix(text, "-.") {
			p.i = start
			return literal{}, p.errorf("malformed number %q", text)
		}
		r, _ := new(big.Rat).SetString(text)
		return literal{kind: litNumber, text: text, num: r}, nil
	case p.keyword("null"):
		return literal{kind: litNull, text: "null"}, nil
	}
	return literal{}, p.errorf("expected a quoted string, a number or null, found %q", p.rest())
}

// Fields of a resource that filters and sorts can name.

type fieldKind int

const (
	fieldText fieldKind = iota
	fieldNumber
	fieldTime
)

// value is a record's field: text, a number, or a time (Unix seconds as a
// number); null when unset. Numbers and times are written as text only when
// a comparison asks for it (str), not at every read.
type value struct {
	null bool
	text string    // a text field's value
	num  *big.Rat  // a number, or a time's Unix seconds
	time time.Time // a time, for its text
}

// str is the value as text: a text field's own, a number without trailing
// zeros, a time as YYYY-MM-DD HH:MM:SS (UTC).
func (v value) str() string {
	switch {
	case v.num == nil:
		return v.text
	case !v.time.IsZero():
		return v.time.UTC().Format(time.DateTime)
	}
	return trimDecimal(v.num)
}

type fieldDef[T any] struct {
	kind fieldKind
	get  func(T) value
	// integer, for the fields of integers, flags and dates, is the value
	// as an int64 (a date's Unix seconds) and whether it is null, without
	// the big.Rat of get: sorts read it.
	integer func(T) (n int64, null bool)
	// id marks the record's id.
	id bool
}

// sortKey is a record's value of a sort field, read once per sort.
type sortKey struct {
	null bool
	how  keyKind
	n    int64    // keyInt: integers, flags, dates (Unix seconds)
	num  *big.Rat // keyNumber: other numbers
	text string   // keyText
}

type keyKind uint8

const (
	keyText keyKind = iota
	keyInt
	keyNumber
)

func (f fieldDef[T]) sortKey(v T) sortKey {
	if f.integer != nil {
		n, null := f.integer(v)
		return sortKey{null: null, how: keyInt, n: n}
	}
	fv := f.get(v)
	if f.kind == fieldText {
		return sortKey{null: fv.null, how: keyText, text: fv.text}
	}
	return sortKey{null: fv.null, how: keyNumber, num: fv.num}
}

func textField[T any](get func(T) string) fieldDef[T] {
	return fieldDef[T]{kind: fieldText, get: func(v T) value {
		s := get(v)
		return value{null: s == "", text: s}
	}}
}

// numField is a number; nullIfZero makes 0 null (a foreign key unset).
func numField[T any](nullIfZero bool, get func(T) *big.Rat) fieldDef[T] {
	return fieldDef[T]{kind: fieldNumber, get: func(v T) value {
		r := get(v)
		if r == nil || nullIfZero && r.Sign() == 0 {
			return value{null: true}
		}
		return value{num: r}
	}}
}

func intField[T any](nullIfZero bool, get func(T) int64) fieldDef[T] {
	f := numField(nullIfZero, func(v T) *big.Rat { return big.NewRat(get(v), 1) })
	f.integer = func(v T) (int64, bool) {
		n := get(v)
		return n, nullIfZero && n == 0
	}
	return f
}

// idField is the record's id (rowid), the order lists keep their records
// in.
func idField[T any](get func(T) int64) fieldDef[T] {
	f := intField(false, get)
	f.id = true
	return f
}

func boolField[T any](get func(T) bool) fieldDef[T] {
	return intField(false, func(v T) int64 {
		if get(v) {
			return 1
		}
		return 0
	})
}

func timeField[T any](get func(T) time.Time) fieldDef[T] {
	return fieldDef[T]{kind: fieldTime, get: func(v T) value {
		t := get(v)
		if t.IsZero() {
			return value{null: true}
		}
		return value{num: big.NewRat(t.Unix(), 1), time: t}
	}, integer: func(v T) (int64, bool) {
		t := get(v)
		return t.Unix(), t.IsZero()
	}}
}

func trimDecimal(r *big.Rat) string {
	s := r.FloatString(8)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// lookupField finds a field by its name, with or without the alias t.
func lookupField[T any](fields map[string]fieldDef[T], name string) (fieldDef[T], bool) {
	name = strings.ToLower(name)
	if f, ok := fields[name]; ok {
		return f, true
	}
	f, ok := fields[strings.TrimPrefix(name, "t.")]
	return f, ok
}

// compileFilter turns a parsed filter into a predicate over records.
func compileFilter[T any](n *filterNode, fields map[string]fieldDef[T]) (func(T) bool, error) {
	if n == nil {
		return func(T) bool { return true }, nil
	}
	if n.join != "" {
		preds := make([]func(T) bool, len(n.kids))
		for i, k := range n.kids {
			p, err := compileFilter(k, fields)
			if err != nil {
				return nil, err
			}
			preds[i] = p
		}
		if n.join == "and" {
			return func(v T) bool {
				for _, p := range preds {
					if !p(v) {
						return false
					}
				}
				return true
			}, nil
		}
		return func(v T) bool {
			for _, p := range preds {
				if p(v) {
					return true
				}
			}
			return false
		}, nil
	}
	f, ok := lookupField(fields, n.field)
	if !ok {
		return nil, fmt.Errorf("unknown field %s", n.field)
	}
	null := func(v T) bool { return f.get(v).null }
	if f.integer != nil {
		null = func(v T) bool { _, null := f.integer(v); return null }
	}
	switch n.op {
	case "is":
		return null, nil
	case "isnot":
		return func(v T) bool { return !null(v) }, nil
	case "like", "notlike":
		re, err := likePattern(n.lits[0].text)
		if err != nil {
			return nil, err
		}
		want := n.op == "like"
		return func(v T) bool {
			fv := f.get(v)
			return !fv.null && re.MatchString(fv.str()) == want
		}, nil
	}
	test := func(r int) bool {
		switch n.op {
		case "=", "in":
			return r == 0
		case "!=", "notin":
			return r != 0
		case "<":
			return r < 0
		case "<=":
			return r <= 0
		case ">":
			return r > 0
		}
		return r >= 0 // ">="
	}
	negated := n.op == "notin"
	if ints, ok := integerLiterals(f, n); ok {
		// An integer field against integers: no big.Rat per record.
		return func(v T) bool {
			x, null := f.integer(v)
			if null {
				return false
			}
			for _, lit := range ints {
				r := cmp.Compare(x, lit)
				if negated {
					if !test(r) {
						return false
					}
				} else if test(r) {
					return true
				}
			}
			return negated
		}, nil
	}
	cmps := make([]func(value) int, len(n.lits))
	for i, l := range n.lits {
		c, err := comparer(f.kind, n.field, l)
		if err != nil {
			return nil, err
		}
		cmps[i] = c
	}
	return func(v T) bool {
		fv := f.get(v)
		if fv.null {
			return false
		}
		for _, c := range cmps {
			r := c(fv)
			if negated {
				if !test(r) {
					return false
				}
			} else if test(r) {
				return true
			}
		}
		return negated
	}, nil
}

// comparer compares a field's value with a literal: numbers and times by
// value, text ignoring case.
func comparer(kind fieldKind, name string, l literal) (func(value) int, error) {
	switch kind {
	case fieldNumber, fieldTime:
		num, err := literalNumber(kind, name, l)
		if err != nil {
			return nil, err
		}
		return func(v value) int { return v.num.Cmp(num) }, nil
	}
	return func(v value) int { return compareLower(v.str(), l.text) }, nil
}

// literalNumber is a literal compared with a number or a date field, as a
// number: a date's Unix seconds.
func literalNumber(kind fieldKind, name string, l literal) (*big.Rat, error) {
	if l.kind != litString {
		return l.num, nil
	}
	if kind == fieldTime {
		t, ok := parseTime(l.text)
		if !ok {
			return nil, fmt.Errorf("%s is a date: %s is neither a date nor Unix seconds", name, l)
		}
		return big.NewRat(t.Unix(), 1), nil
	}
	r, bad := parseDecimal(strings.TrimSpace(l.text))
	if bad != "" {
		return nil, fmt.Errorf("%s is a number: %s is not one", name, l)
	}
	return r, nil
}

// integerLiterals are the literals of a comparison as int64s, when the
// field has integer values and every literal is a whole number that fits;
// ok is false otherwise (the comparison then goes through big.Rat).
func integerLiterals[T any](f fieldDef[T], n *filterNode) ([]int64, bool) {
	if f.integer == nil || f.kind == fieldText {
		return nil, false
	}
	ints := make([]int64, len(n.lits))
	for i, l := range n.lits {
		num, err := literalNumber(f.kind, n.field, l)
		if err != nil || num == nil || !num.IsInt() || !num.Num().IsInt64() {
			return nil, false
		}
		ints[i] = num.Num().Int64()
	}
	return ints, true
}

// likePattern compiles a LIKE pattern: % any run, _ one character, \ escapes
// the next; case-insensitive, whole-value.
func likePattern(pat string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?is)^")
	escaped := false
	for _, r := range pat {
		switch {
		case escaped:
			b.WriteString(regexp.QuoteMeta(string(r)))
			escaped = false
		case r == '\\':
			escaped = true
		case r == '%':
			b.WriteString(".*")
		case r == '_':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, errors.New("malformed like pattern")
	}
	return re, nil
}
