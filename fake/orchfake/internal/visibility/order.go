package visibility

import (
	"encoding/binary"
	"errors"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"time"
)

type order struct {
	attr string
	typ  Type
	desc bool
}

// Order is one key of a query's order.
type Order struct {
	Attr string
	Desc bool
}

// setOrder sets the effective order: the explicit keys, or the default
// StartTime DESC; then RunId ASC as the tie-break unless RunId is a key.
func (q *Query) setOrder(explicit []order) {
	q.nExplicit = len(explicit)
	keys := explicit
	if len(keys) == 0 {
		keys = []order{{attr: AttrStartTime, typ: TypeDatetime, desc: true}}
	}
	if !slices.ContainsFunc(keys, func(o order) bool { return o.attr == AttrRunID }) {
		keys = append(keys, order{attr: AttrRunID, typ: TypeKeyword})
	}
	q.keys = keys
	h := fnv.New32a()
	for _, k := range keys {
		h.Write([]byte(k.attr))
		h.Write([]byte{0, byte(k.typ), boolByte(k.desc)})
	}
	q.keysID = h.Sum32()
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// Match reports whether r satisfies the query's filter. A query without a
// filter matches every record.
func (q *Query) Match(r Record) bool {
	return q.filter == nil || q.filter.match(r)
}

// MatchesAll reports whether the query has no filter.
func (q *Query) MatchesAll() bool { return q.filter == nil }

// HasOrderBy reports whether the query has an ORDER BY clause (a Scan
// refuses one, as in Temporal).
func (q *Query) HasOrderBy() bool { return q.nExplicit > 0 }

// OrderBy returns the effective order: the ORDER BY keys, or StartTime
// DESC when there are none, followed by RunId ASC unless RunId is already
// a key.
func (q *Query) OrderBy() []Order {
	out := make([]Order, len(q.keys))
	for i, k := range q.keys {
		out[i] = Order{Attr: k.attr, Desc: k.desc}
	}
	return out
}

// Compare orders two records by the effective order (see [Query.OrderBy]):
// negative when a comes first. A record missing a key's attribute comes
// after every record that has it, ascending or descending. Records with
// distinct RunIds never compare equal.
func (q *Query) Compare(a, b Record) int {
	for _, k := range q.keys {
		if c := k.compare(value(a, k), value(b, k)); c != 0 {
			return c
		}
	}
	return 0
}

func value(r Record, k order) Value {
	v, ok := r.Value(k.attr)
	if !ok {
		return Value{}
	}
	if v, ok = normalize(k.typ, v); !ok {
		return Value{}
	}
	return v
}

func (k order) compare(a, b Value) int {
	switch {
	case a.kind == KindNone && b.kind == KindNone:
		return 0
	case a.kind == KindNone:
		return 1
	case b.kind == KindNone:
		return -1
	}
	c, ok := compare(k.typ, a, b)
	if !ok { // NaN: before every number, as cmp.Compare puts it
		x, y := a.float(), b.float()
		c = boolCmp(x != x, y != y)
	}
	if k.desc {
		return -c
	}
	return c
}

func boolCmp(xNaN, yNaN bool) int {
	switch {
	case xNaN && yNaN:
		return 0
	case xNaN:
		return -1
	case yNaN:
		return 1
	}
	return 0
}

// SortKey holds a record's values for a query's effective order, read
// once. Sorting by keys gives the order of [Query.Compare]; the key of
// the last record of a page, marshalled, is a page token that keeps paging
// stable while records come and go: the next page holds the records whose
// keys compare after it.
type SortKey struct {
	id   uint32
	vals []Value
}

// SortKey reads r's values for the query's order.
func (q *Query) SortKey(r Record) SortKey {
	vals := make([]Value, len(q.keys))
	for i, k := range q.keys {
		vals[i] = value(r, k)
	}
	return SortKey{id: q.keysID, vals: vals}
}

// SortKeyIn is SortKey with the key's values written to vals, which
// must have room for [Query.KeyLen] of them: a caller keying many records
// slices one allocation instead of making one per record.
func (q *Query) SortKeyIn(r Record, vals []Value) SortKey {
	vals = vals[:len(q.keys):len(q.keys)]
	for i, k := range q.keys {
		vals[i] = value(r, k)
	}
	return SortKey{id: q.keysID, vals: vals}
}

// KeyLen is the number of values in a sort key of the query.
func (q *Query) KeyLen() int { return len(q.keys) }

// DefaultOrder reports whether the effective order is the default one,
// StartTime DESC then RunId ASC (written or not), so that records kept in
// that order can be paged without sorting.
func (q *Query) DefaultOrder() bool {
	return len(q.keys) == 2 &&
		q.keys[0].attr == AttrStartTime && q.keys[0].desc &&
		q.keys[1].attr == AttrRunID && !q.keys[1].desc
}

// CompareKey orders record r against key k, made by this query, as
// CompareKeys orders r's own key against k, without building r's key.
func (q *Query) CompareKey(r Record, k SortKey) int {
	for i, o := range q.keys {
		if i >= len(k.vals) {
			break
		}
		if c := o.compare(value(r, o), k.vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

// CompareKeys orders two keys made by this query as Compare orders their
// records.
func (q *Query) CompareKeys(a, b SortKey) int {
	for i, k := range q.keys {
		if i >= len(a.vals) || i >= len(b.vals) {
			break
		}
		if c := k.compare(a.vals[i], b.vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

// ErrBadSortKey is the error of [Query.ParseSortKey] for bytes that are
// not a key of this query's order (a page token from another query, or
// not a token at all).
var ErrBadSortKey = errors.New("visibility: invalid sort key")

// MarshalBinary encodes the key, for a page token.
func (k SortKey) MarshalBinary() ([]byte, error) {
	b := []byte{1}
	b = binary.BigEndian.AppendUint32(b, k.id)
	for _, v := range k.vals {
		b = append(b, byte(v.kind))
		switch v.kind {
		case KindString:
			b = binary.AppendUvarint(b, uint64(len(v.s)))
			b = append(b, v.s...)
		case KindInt, KindBool:
			b = binary.AppendVarint(b, v.n)
		case KindFloat:
			b = binary.BigEndian.AppendUint64(b, uint64(v.n))
		case KindTime:
			b = binary.AppendVarint(b, v.t.Unix())
			b = binary.AppendUvarint(b, uint64(v.t.Nanosecond()))
		}
	}
	return b, nil
}

// ParseSortKey decodes a key encoded by [SortKey.MarshalBinary] for a
// query with the same order. Anything else is ErrBadSortKey.
func (q *Query) ParseSortKey(data []byte) (SortKey, error) {
	if len(data) < 5 || data[0] != 1 || binary.BigEndian.Uint32(data[1:]) != q.keysID {
		return SortKey{}, ErrBadSortKey
	}
	data = data[5:]
	vals := make([]Value, len(q.keys))
	for i, k := range q.keys {
		if len(data) == 0 {
			return SortKey{}, ErrBadSortKey
		}
		kind := Kind(data[0])
		data = data[1:]
		var v Value
		var ok bool
		switch kind {
		case KindNone:
			ok = true
		case KindString:
			n, w := binary.Uvarint(data)
			if ok = w > 0 && n <= uint64(len(data)-w); ok {
				v, data = StringValue(string(data[w:w+int(n)])), data[w+int(n):]
			}
		case KindInt, KindBool:
			n, w := binary.Varint(data)
			if ok = w > 0 && (kind == KindInt || n == 0 || n == 1); ok {
				v, data = Value{kind: kind, n: n}, data[w:]
			}
		case KindFloat:
			if ok = len(data) >= 8; ok {
				v, data = FloatValue(math.Float64frombits(binary.BigEndian.Uint64(data))), data[8:]
			}
		case KindTime:
			s, w1 := binary.Varint(data)
			if w1 > 0 {
				ns, w2 := binary.Uvarint(data[w1:])
				if ok = w2 > 0 && ns < 1e9; ok {
					v, data = Value{kind: KindTime, t: time.Unix(s, int64(ns)).UTC()}, data[w1+w2:]
				}
			}
		}
		if !ok || kind != KindNone && kind != sortKind(k.typ) {
			return SortKey{}, ErrBadSortKey
		}
		vals[i] = v
	}
	if len(data) != 0 {
		return SortKey{}, ErrBadSortKey
	}
	return SortKey{id: q.keysID, vals: vals}, nil
}

// sortKind is the kind a normalised value of an orderable type has.
func sortKind(t Type) Kind {
	switch t {
	case TypeKeyword:
		return KindString
	case TypeInt:
		return KindInt
	case TypeDouble:
		return KindFloat
	case TypeBool:
		return KindBool
	case TypeDatetime:
		return KindTime
	}
	return KindNone
}

// String returns the query in canonical form: keywords in upper case,
// attribute names bare unless they need backquotes, strings in single
// quotes, datetimes in RFC 3339 with their offset, minimal parentheses,
// != for <>, and ORDER BY as written (ASC left out). Parsing it again
// gives the same query and the same String.
func (q *Query) String() string {
	var b strings.Builder
	if q.filter != nil {
		q.filter.write(&b)
	}
	if q.nExplicit > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("ORDER BY ")
		for i, k := range q.keys[:q.nExplicit] {
			if i > 0 {
				b.WriteString(", ")
			}
			writeName(&b, k.attr)
			if k.desc {
				b.WriteString(" DESC")
			}
		}
	}
	return b.String()
}
