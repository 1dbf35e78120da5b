package visibility

import (
	"cmp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

const (
	precOr = iota + 1
	precAnd
	precNot
	precPred
)

type node interface {
	match(r Record) bool
	write(b *strings.Builder)
	prec() int
}

type orNode []node

func (n orNode) match(r Record) bool {
	for _, x := range n {
		if x.match(r) {
			return true
		}
	}
	return false
}

func (n orNode) prec() int { return precOr }

func (n orNode) write(b *strings.Builder) { writeList(b, n, " OR ", precOr) }

type andNode []node

func (n andNode) match(r Record) bool {
	for _, x := range n {
		if !x.match(r) {
			return false
		}
	}
	return true
}

func (n andNode) prec() int { return precAnd }

func (n andNode) write(b *strings.Builder) { writeList(b, n, " AND ", precAnd) }

// writeList writes operands joined by sep, parenthesising those that bind
// more loosely than the list. (Lists are flattened when parsed, so an
// operand is never a list of the same connective.)
func writeList(b *strings.Builder, list []node, sep string, prec int) {
	for i, x := range list {
		if i > 0 {
			b.WriteString(sep)
		}
		writeOperand(b, x, prec)
	}
}

// writeOperand writes x, in parentheses when it is an AND or OR list that
// binds no tighter than its context.
func writeOperand(b *strings.Builder, x node, prec int) {
	if x.prec() <= prec && x.prec() < precNot {
		b.WriteByte('(')
		x.write(b)
		b.WriteByte(')')
		return
	}
	x.write(b)
}

type notNode struct{ x node }

func (n notNode) match(r Record) bool { return !n.x.match(r) }

func (n notNode) prec() int { return precNot }

func (n notNode) write(b *strings.Builder) {
	b.WriteString("NOT ")
	writeOperand(b, n.x, precNot)
}

type op uint8

const (
	opEq op = iota // neg: !=
	opLt
	opLe
	opGt
	opGe
	opIn         // neg: NOT IN
	opBetween    // neg: NOT BETWEEN
	opStartsWith // neg: NOT STARTS_WITH
	opIsNull     // neg: IS NOT NULL
)

// predicate is one comparison of an attribute with literals, already
// converted to the attribute's type.
type predicate struct {
	attr   string
	typ    Type
	status bool // the attribute is ExecutionStatus
	op     op
	neg    bool
	vals   []Value
	words  []string // Text: the words of the literal
}

func (p *predicate) prec() int { return precPred }

// allowed reports whether the operator applies to the attribute's type.
func (p *predicate) allowed() bool {
	switch p.op {
	case opEq, opIsNull:
		return true
	case opLt, opLe, opGt, opGe, opBetween:
		return p.typ == TypeKeyword && !p.status || p.typ == TypeInt || p.typ == TypeDouble || p.typ == TypeDatetime
	case opIn:
		return p.typ != TypeText && p.typ != TypeBool
	case opStartsWith:
		return p.typ == TypeKeyword && !p.status || p.typ == TypeKeywordList
	}
	return false
}

func (p *predicate) opName() string {
	var s string
	switch p.op {
	case opEq:
		if p.neg {
			return "!="
		}
		return "="
	case opLt:
		return "<"
	case opLe:
		return "<="
	case opGt:
		return ">"
	case opGe:
		return ">="
	case opIn:
		s = "IN"
	case opBetween:
		s = "BETWEEN"
	case opStartsWith:
		s = "STARTS_WITH"
	case opIsNull:
		if p.neg {
			return "IS NOT NULL"
		}
		return "IS NULL"
	}
	if p.neg {
		return "NOT " + s
	}
	return s
}

func (p *predicate) match(r Record) bool {
	if p.typ == TypeKeyword && p.op != opIsNull {
		if kr, isKR := r.(KeywordRecord); isKR {
			s, ok := kr.Keyword(p.attr)
			return (ok && p.testKeyword(s)) != p.neg
		}
	}
	v, ok := r.Value(p.attr)
	if ok {
		v, ok = normalize(p.typ, v)
	}
	if p.op == opIsNull {
		return ok == p.neg
	}
	return (ok && p.test(v)) != p.neg
}

// normalize converts a record's value to the kind the type compares in:
// Double takes an Int, KeywordList a single string. A value of any other
// kind, a KindTime holding the zero time, or an empty list counts as
// missing.
func normalize(t Type, v Value) (Value, bool) {
	switch t {
	case TypeKeyword, TypeText:
		return v, v.kind == KindString
	case TypeInt:
		return v, v.kind == KindInt
	case TypeDouble:
		if v.kind == KindInt {
			return FloatValue(float64(v.n)), true
		}
		return v, v.kind == KindFloat
	case TypeBool:
		return v, v.kind == KindBool
	case TypeDatetime:
		return v, v.kind == KindTime && !v.t.IsZero()
	case TypeKeywordList:
		if v.kind == KindString {
			return Value{kind: KindStrings, ss: []string{v.s}}, true
		}
		return v, v.kind == KindStrings && len(v.ss) > 0
	}
	return Value{}, false
}

// testKeyword is test for a Keyword attribute's value s, without building
// a Value: the same answers, as compare orders strings with
// strings.Compare.
func (p *predicate) testKeyword(s string) bool {
	switch p.op {
	case opEq:
		return s == p.vals[0].s
	case opLt:
		return s < p.vals[0].s
	case opLe:
		return s <= p.vals[0].s
	case opGt:
		return s > p.vals[0].s
	case opGe:
		return s >= p.vals[0].s
	case opIn:
		for _, lit := range p.vals {
			if s == lit.s {
				return true
			}
		}
		return false
	case opBetween:
		return s >= p.vals[0].s && s <= p.vals[1].s
	case opStartsWith:
		return strings.HasPrefix(s, p.vals[0].s)
	}
	return false
}

// test applies the operator, without negation, to a present value.
func (p *predicate) test(v Value) bool {
	switch p.typ {
	case TypeText:
		return containsWords(v.s, p.words)
	case TypeKeywordList:
		for _, s := range v.ss {
			for _, lit := range p.vals {
				if p.op == opStartsWith && strings.HasPrefix(s, lit.s) || p.op != opStartsWith && s == lit.s {
					return true
				}
			}
		}
		return false
	}
	switch p.op {
	case opEq:
		c, ok := compare(p.typ, v, p.vals[0])
		return ok && c == 0
	case opLt:
		c, ok := compare(p.typ, v, p.vals[0])
		return ok && c < 0
	case opLe:
		c, ok := compare(p.typ, v, p.vals[0])
		return ok && c <= 0
	case opGt:
		c, ok := compare(p.typ, v, p.vals[0])
		return ok && c > 0
	case opGe:
		c, ok := compare(p.typ, v, p.vals[0])
		return ok && c >= 0
	case opIn:
		for _, lit := range p.vals {
			if c, ok := compare(p.typ, v, lit); ok && c == 0 {
				return true
			}
		}
		return false
	case opBetween:
		lo, ok1 := compare(p.typ, v, p.vals[0])
		hi, ok2 := compare(p.typ, v, p.vals[1])
		return ok1 && ok2 && lo >= 0 && hi <= 0
	case opStartsWith:
		return strings.HasPrefix(v.s, p.vals[0].s)
	}
	return false
}

// compare orders two normalised values of a scalar type. ok is false when
// they are not comparable (a NaN).
func compare(t Type, a, b Value) (int, bool) {
	switch t {
	case TypeKeyword, TypeText:
		return strings.Compare(a.s, b.s), true
	case TypeInt:
		return cmp.Compare(a.n, b.n), true
	case TypeDouble:
		x, y := a.float(), b.float()
		if x != x || y != y {
			return 0, false
		}
		return cmp.Compare(x, y), true
	case TypeBool:
		return cmp.Compare(a.n, b.n), true
	case TypeDatetime:
		return a.t.Compare(b.t), true
	}
	return 0, false
}

func (p *predicate) write(b *strings.Builder) {
	writeName(b, p.attr)
	b.WriteByte(' ')
	b.WriteString(p.opName())
	switch p.op {
	case opIsNull:
	case opIn:
		b.WriteString(" (")
		for i, v := range p.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			writeLiteral(b, v)
		}
		b.WriteByte(')')
	case opBetween:
		b.WriteByte(' ')
		writeLiteral(b, p.vals[0])
		b.WriteString(" AND ")
		writeLiteral(b, p.vals[1])
	default:
		b.WriteByte(' ')
		writeLiteral(b, p.vals[0])
	}
}

func writeLiteral(b *strings.Builder, v Value) {
	switch v.kind {
	case KindString:
		quote(b, v.s, '\'')
	case KindInt:
		b.WriteString(strconv.FormatInt(v.n, 10))
	case KindFloat:
		b.WriteString(strconv.FormatFloat(v.float(), 'g', -1, 64))
	case KindBool:
		if v.n != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case KindTime:
		quote(b, v.t.Format(time.RFC3339Nano), '\'')
	}
}

// isWordRune reports whether r belongs to a Text word: letters, digits
// and the underscore; everything else separates words.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// textWords splits s into its words.
func textWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
}

// containsWords reports whether every word of words is a word of s,
// ignoring case. No words match nothing.
func containsWords(s string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !hasWord(s, w) {
			return false
		}
	}
	return true
}

func hasWord(s, w string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !isWordRune(r) {
				break
			}
			j += size
		}
		if strings.EqualFold(s[i:j], w) {
			return true
		}
		i = j
	}
	return false
}
