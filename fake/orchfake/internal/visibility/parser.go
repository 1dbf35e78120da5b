package visibility

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Limits on what Parse accepts. A query past either is a *SyntaxError.
const (
	// MaxQueryLength is the longest query, in bytes.
	MaxQueryLength = 8192
	// MaxDepth is the deepest nesting of parentheses and NOTs.
	MaxDepth = 64
)

// Query is a parsed query: a filter and an order. It is immutable and safe
// for concurrent use.
type Query struct {
	filter    node    // nil: every record matches
	keys      []order // the effective order, ending with the tie-break
	nExplicit int     // how many of keys ORDER BY gave
	keysID    uint32  // fingerprint of keys, carried in sort keys
}

// Parse parses query against schema (nil: the system attributes only).
// Every error is a *SyntaxError. An empty or all-blank query matches every
// record in the default order.
func Parse(query string, schema *Schema) (*Query, error) {
	if len(query) > MaxQueryLength {
		return nil, errorf(MaxQueryLength, "query longer than %d bytes", MaxQueryLength)
	}
	toks, err := lex(query)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, schema: schema}
	q := &Query{}
	if !p.peekKeyword("ORDER") && p.peek().kind != tEOF {
		if q.filter, err = p.or(); err != nil {
			return nil, err
		}
	}
	var explicit []order
	if p.peekKeyword("ORDER") {
		if explicit, err = p.orderBy(); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, unexpected(t)
	}
	q.setOrder(explicit)
	return q, nil
}

type parser struct {
	toks   []token
	i      int
	schema *Schema
	depth  int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) peekKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tKeyword && t.text == kw
}

func (p *parser) acceptKeyword(kw string) bool {
	if p.peekKeyword(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKeyword(kw string) error {
	if !p.acceptKeyword(kw) {
		return unexpected(p.peek())
	}
	return nil
}

func unexpected(t token) *SyntaxError {
	if t.kind == tEOF {
		return errorf(t.pos, "unexpected end of query")
	}
	raw := t.raw
	if len(raw) > 40 {
		cut := 37
		for cut > 0 && raw[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		raw = raw[:cut] + "..."
	}
	return errorf(t.pos, "unexpected token %q", raw)
}

func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > MaxDepth {
		return errorf(t.pos, "query nested deeper than %d", MaxDepth)
	}
	return nil
}

// or := and {OR and}
func (p *parser) or() (node, error) {
	x, err := p.and()
	if err != nil {
		return nil, err
	}
	if !p.peekKeyword("OR") {
		return x, nil
	}
	list := appendFlat(nil, x, precOr)
	for p.acceptKeyword("OR") {
		y, err := p.and()
		if err != nil {
			return nil, err
		}
		list = appendFlat(list, y, precOr)
	}
	return orNode(list), nil
}

// and := unary {AND unary}
func (p *parser) and() (node, error) {
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	if !p.peekKeyword("AND") {
		return x, nil
	}
	list := appendFlat(nil, x, precAnd)
	for p.acceptKeyword("AND") {
		y, err := p.unary()
		if err != nil {
			return nil, err
		}
		list = appendFlat(list, y, precAnd)
	}
	return andNode(list), nil
}

// appendFlat appends x, or x's operands when x is the same connective, so
// that (a OR b) OR c and a OR (b OR c) are both the list a, b, c.
func appendFlat(list []node, x node, prec int) []node {
	switch n := x.(type) {
	case orNode:
		if prec == precOr {
			return append(list, n...)
		}
	case andNode:
		if prec == precAnd {
			return append(list, n...)
		}
	}
	return append(list, x)
}

// unary := NOT unary | '(' or ')' | predicate
func (p *parser) unary() (node, error) {
	t := p.peek()
	switch {
	case t.kind == tKeyword && t.text == "NOT":
		if err := p.enter(t); err != nil {
			return nil, err
		}
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		p.depth--
		return notNode{x}, nil
	case t.kind == tLParen:
		if err := p.enter(t); err != nil {
			return nil, err
		}
		p.next()
		x, err := p.or()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, unexpected(c)
		}
		p.depth--
		return x, nil
	}
	return p.predicate()
}

// attribute reads an attribute name and looks it up.
func (p *parser) attribute() (string, Type, token, error) {
	t := p.next()
	if t.kind != tIdent && t.kind != tQuoted {
		return "", 0, t, unexpected(t)
	}
	typ, ok := p.schema.Lookup(t.text)
	if !ok {
		if s := p.schema.suggest(t.text); s != "" {
			return "", 0, t, errorf(t.pos, "unknown attribute %q (attribute names are case-sensitive; did you mean %q?)", t.text, s)
		}
		return "", 0, t, errorf(t.pos, "unknown attribute %q", t.text)
	}
	return t.text, typ, t, nil
}

// predicate := attr ( cmp literal | [NOT] IN (literal, …) | [NOT] BETWEEN
// literal AND literal | [NOT] STARTS_WITH literal | IS [NOT] NULL )
func (p *parser) predicate() (node, error) {
	name, typ, _, err := p.attribute()
	if err != nil {
		return nil, err
	}
	pr := &predicate{attr: name, typ: typ, status: name == AttrExecutionStatus}
	opTok := p.next()
	switch {
	case opTok.kind == tOp:
		switch opTok.text {
		case "=":
			pr.op = opEq
		case "!=":
			pr.op, pr.neg = opEq, true
		case "<":
			pr.op = opLt
		case "<=":
			pr.op = opLe
		case ">":
			pr.op = opGt
		case ">=":
			pr.op = opGe
		}
	case opTok.kind == tKeyword && opTok.text == "IS":
		pr.op = opIsNull
		pr.neg = p.acceptKeyword("NOT")
		if err := p.expectKeyword("NULL"); err != nil {
			return nil, err
		}
		return pr, nil
	case opTok.kind == tKeyword:
		if opTok.text == "NOT" {
			pr.neg = true
			opTok = p.next()
			if opTok.kind != tKeyword {
				return nil, unexpected(opTok)
			}
		}
		switch opTok.text {
		case "IN":
			pr.op = opIn
		case "BETWEEN":
			pr.op = opBetween
		case "STARTS_WITH":
			pr.op = opStartsWith
		default:
			return nil, unexpected(opTok)
		}
	default:
		return nil, unexpected(opTok)
	}
	if !pr.allowed() {
		what := typ.String()
		if pr.status {
			what = "ExecutionStatus"
		}
		return nil, errorf(opTok.pos, "operator %s is not valid for %s attribute %q", pr.opName(), what, name)
	}
	switch pr.op {
	case opIn:
		if t := p.next(); t.kind != tLParen {
			return nil, unexpected(t)
		}
		for {
			v, err := p.literal(pr)
			if err != nil {
				return nil, err
			}
			pr.vals = append(pr.vals, v)
			t := p.next()
			if t.kind == tRParen {
				break
			}
			if t.kind != tComma {
				return nil, unexpected(t)
			}
		}
	case opBetween:
		lo, err := p.literal(pr)
		if err != nil {
			return nil, err
		}
		if err := p.expectKeyword("AND"); err != nil {
			return nil, err
		}
		hi, err := p.literal(pr)
		if err != nil {
			return nil, err
		}
		pr.vals = []Value{lo, hi}
	default:
		v, err := p.literal(pr)
		if err != nil {
			return nil, err
		}
		pr.vals = []Value{v}
	}
	if pr.typ == TypeText {
		pr.words = textWords(pr.vals[0].s)
	}
	return pr, nil
}

// literal reads one literal and converts it to the predicate's type.
func (p *parser) literal(pr *predicate) (Value, error) {
	t := p.next()
	bad := func(want string) (Value, error) {
		if t.kind == tEOF || t.kind == tLParen || t.kind == tRParen || t.kind == tComma || t.kind == tOp {
			return Value{}, unexpected(t)
		}
		raw := t.raw
		if len(raw) > 40 {
			return Value{}, errorf(t.pos, "%s attribute %q needs %s", pr.typ, pr.attr, want)
		}
		return Value{}, errorf(t.pos, "%s attribute %q needs %s, not %s", pr.typ, pr.attr, want, raw)
	}
	switch pr.typ {
	case TypeKeyword, TypeText, TypeKeywordList:
		if t.kind != tString {
			return bad("a quoted string")
		}
		if pr.status {
			s, ok := canonicalStatus(t.text)
			if !ok {
				return Value{}, errorf(t.pos, "invalid ExecutionStatus %q (want one of %s)", t.text, strings.Join(ExecutionStatuses(), ", "))
			}
			return StringValue(s), nil
		}
		return StringValue(t.text), nil
	case TypeInt:
		if t.kind != tNumber {
			return bad("an integer")
		}
		n, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			if strings.ContainsAny(t.text, ".eE") {
				return bad("an integer")
			}
			return Value{}, errorf(t.pos, "integer %s out of range", t.text)
		}
		return IntValue(n), nil
	case TypeDouble:
		if t.kind != tNumber {
			return bad("a number")
		}
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsInf(f, 0) {
			return Value{}, errorf(t.pos, "number %s out of range", t.text)
		}
		if f == 0 {
			f = 0 // no negative zero: -0 and 0 are one value and one text
		}
		return FloatValue(f), nil
	case TypeBool:
		if t.kind == tKeyword && (t.text == "TRUE" || t.text == "FALSE") {
			return BoolValue(t.text == "TRUE"), nil
		}
		return bad("true or false")
	case TypeDatetime:
		if t.kind != tString {
			return bad("a quoted RFC 3339 time")
		}
		tm, err := time.Parse(time.RFC3339Nano, t.text)
		if err != nil {
			return Value{}, errorf(t.pos, "invalid datetime %q for %s (want RFC 3339, as in 2006-01-02T15:04:05Z)", t.text, pr.attr)
		}
		return Value{kind: KindTime, t: tm}, nil
	}
	return bad("a value") // unreachable: the schema only holds valid types
}

// orderBy := ORDER BY attr [ASC|DESC] {, attr [ASC|DESC]}
func (p *parser) orderBy() ([]order, error) {
	p.next() // ORDER
	if err := p.expectKeyword("BY"); err != nil {
		return nil, err
	}
	var keys []order
	for {
		name, typ, t, err := p.attribute()
		if err != nil {
			return nil, err
		}
		switch typ {
		case TypeText, TypeKeywordList:
			return nil, errorf(t.pos, "cannot order by %s attribute %q", typ, name)
		}
		for _, k := range keys {
			if k.attr == name {
				return nil, errorf(t.pos, "attribute %q ordered twice", name)
			}
		}
		k := order{attr: name, typ: typ}
		if p.acceptKeyword("DESC") {
			k.desc = true
		} else {
			p.acceptKeyword("ASC")
		}
		keys = append(keys, k)
		if p.peek().kind != tComma {
			return keys, nil
		}
		p.next()
	}
}
