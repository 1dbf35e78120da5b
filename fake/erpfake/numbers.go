package erpfake

import (
	"math"
	"math/big"
	"strconv"
	"time"
)

// The numbers of the answers, in the configured deployment's style: as
// strings (older PHP database drivers: "id":"12", "price":"100.00000000")
// or as JSON numbers (WithNativeNumbers: "id":12, "price":100.0). Each
// scalar carries the style it is written in, so that the answers' structs
// (answers.go) write the same with their generated appendJSON as with
// encoding/json.

// numbers makes the scalars of a call's answers in its deployment's style.
type numbers struct{ native bool }

// num is an integer: "12" or 12; null when null (a foreign key unset).
type num struct {
	v            int64
	native, null bool
}

// id is an id or another integer.
func (n numbers) id(v int64) num { return num{v: v, native: n.native} }

// int is id for integers that are not ids (types, statuses, flags).
func (n numbers) int(v int64) num { return n.id(v) }

// optID is the id of a record that may be missing: null then.
func (n numbers) optID(v int64, present bool) num { return num{v: v, native: n.native, null: !present} }

// null is a field the fake never sets.
func (n numbers) null() num { return num{null: true} }

func (x *num) appendJSON(b []byte) []byte {
	switch {
	case x.null:
		return append(b, "null"...)
	case x.native:
		return strconv.AppendInt(b, x.v, 10)
	}
	return append(strconv.AppendInt(append(b, '"'), x.v, 10), '"')
}

// MarshalJSON writes x as appendJSON does.
func (x num) MarshalJSON() ([]byte, error) { return x.appendJSON(make([]byte, 0, 22)), nil }

// flag is a boolean as the ERP's 1 or 0, in the style of num.
type flag struct{ v, native bool }

func (n numbers) flag(v bool) flag { return flag{v, n.native} }

func (f *flag) appendJSON(b []byte) []byte {
	switch {
	case f.native && f.v:
		return append(b, '1')
	case f.native:
		return append(b, '0')
	case f.v:
		return append(b, `"1"`...)
	}
	return append(b, `"0"`...)
}

// MarshalJSON writes f as appendJSON does.
func (f flag) MarshalJSON() ([]byte, error) { return f.appendJSON(nil), nil }

// amount is a decimal (nil is 0): "100.00000000" (a DECIMAL(24,8) column
// as text) or 100.0 (a PHP float).
type amount struct {
	r      *big.Rat
	x8     int64 // r in counts of 1e-8 (see fixed8), when fixed
	fixed  bool
	native bool
}

func (n numbers) dec(r *big.Rat) amount { return amount{r: r, native: n.native} }

// dec8 is dec for an amount in counts of 1e-8.
func (n numbers) dec8(x int64) amount { return amount{x8: x, fixed: true, native: n.native} }

func (a *amount) appendJSON(b []byte) []byte {
	if !a.native {
		b = append(b, '"')
	}
	start := len(b)
	x, ok := a.x8, a.fixed
	if !ok {
		x, ok = fixed8(a.r)
	}
	if ok {
		b = appendFixed8(b, x)
	} else {
		b = append(b, a.r.FloatString(8)...)
	}
	if !a.native {
		return append(b, '"')
	}
	return trimZeros(b, start)
}

// MarshalJSON writes a as appendJSON does.
func (a amount) MarshalJSON() ([]byte, error) { return a.appendJSON(make([]byte, 0, 24)), nil }

// trimZeros drops the zeros that end the decimals written in b from start
// on, as PHP writes a float, keeping one after the point: 100.0, 12.5.
func trimZeros(b []byte, start int) []byte {
	end := len(b)
	for end > start && b[end-1] == '0' {
		end--
	}
	b = b[:end]
	if end > start && b[end-1] == '.' {
		b = append(b, '0')
	}
	return b
}

// unixTime is a time as Unix seconds, or "" (strings) / null (native)
// when unset.
type unixTime struct {
	secs        int64
	set, native bool
}

func (n numbers) time(t time.Time) unixTime {
	if t.IsZero() {
		return unixTime{native: n.native}
	}
	return unixTime{t.Unix(), true, n.native}
}

func (u *unixTime) appendJSON(b []byte) []byte {
	switch {
	case u.set:
		return strconv.AppendInt(b, u.secs, 10)
	case u.native:
		return append(b, "null"...)
	}
	return append(b, `""`...)
}

// MarshalJSON writes u as appendJSON does.
func (u unixTime) MarshalJSON() ([]byte, error) { return u.appendJSON(nil), nil }

// appendDec8 appends v (nil is 0) with 8 digits after the point, as
// v.FloatString(8) writes it. Amounts are cents and the like: when v is a
// whole number of 1e-8 that fits in an int64, it is written with integer
// arithmetic, sparing a list of documents most of its allocations;
// anything else goes through FloatString.
func appendDec8(b []byte, v *big.Rat) []byte {
	if x, ok := fixed8(v); ok {
		return appendFixed8(b, x)
	}
	return append(b, v.FloatString(8)...)
}

// scale8 is the unit of fixed8: 1e-8, the ERP's DECIMAL(24,8).
const scale8 = 100_000_000

// fixed8 is v (nil is 0) as a count of 1e-8, when it is a whole number of
// them that fits in an int64 (not math.MinInt64).
func fixed8(v *big.Rat) (int64, bool) {
	if v == nil {
		return 0, true
	}
	num, den := v.Num(), uint64(1)
	if !v.IsInt() {
		if d := v.Denom(); d.IsUint64() {
			den = d.Uint64()
		} else {
			den = 0
		}
	}
	if !num.IsInt64() || den == 0 || den > scale8 || scale8%den != 0 {
		return 0, false
	}
	m, x := int64(scale8/den), num.Int64()
	if x > math.MaxInt64/m || x < -math.MaxInt64/m {
		return 0, false
	}
	return x * m, true
}

// appendFixed8 appends x counts of 1e-8 with 8 digits after the point, as
// FloatString(8) writes the number.
func appendFixed8(b []byte, x int64) []byte {
	if x < 0 {
		b, x = append(b, '-'), -x
	}
	b = append(strconv.AppendInt(b, x/scale8, 10), '.')
	// The decimals with their leading zeros: those of 1xxxxxxxx, but the 1.
	at := len(b)
	b = strconv.AppendInt(b, x%scale8+scale8, 10)
	copy(b[at:], b[at+1:])
	return b[:len(b)-1]
}
