package erpfake

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"time"
)

// numbers renders numbers the way the configured deployment does: as
// strings (older PHP database drivers) or as JSON numbers.
type numbers struct{ native bool }

func (n numbers) id(v int64) json.RawMessage {
	w := jsonWriter{b: make([]byte, 0, 22), native: n.native} // the quotes and up to 20 characters
	return w.id(v).b
}

// int is id for integers that are not ids (types, statuses, flags).
func (n numbers) int(v int64) json.RawMessage { return n.id(v) }

// dec writes an amount: "100.00000000" (a DECIMAL(24,8) column as text) or
// 100.0 (a PHP float).
func (n numbers) dec(v *big.Rat) json.RawMessage {
	w := jsonWriter{b: make([]byte, 0, 24), native: n.native}
	return w.dec(v).b
}

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

// time writes Unix seconds, or "" (strings) / null (native) when unset.
func (n numbers) time(t time.Time) json.RawMessage {
	w := jsonWriter{native: n.native}
	return w.time(t).b
}
