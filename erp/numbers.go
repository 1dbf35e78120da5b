package erp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// The ERP's PHP layer sends numbers as JSON numbers or as strings, depending
// on the database driver and the field ("id":"12", "price":"100.00000000",
// "qty":2, "date":1767225600). The types here read both forms, and write the
// plain JSON form the ERP accepts.

// ID identifies a record. It reads 12, "12", "" and null (the last two as 0).
type ID int64

// String returns the decimal form of id.
func (id ID) String() string { return strconv.FormatInt(int64(id), 10) }

// UnmarshalJSON reads a JSON number or a string holding one.
func (id *ID) UnmarshalJSON(b []byte) error {
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: id: %w", err)
	}
	*id = ID(n)
	return nil
}

// Bool is a flag the ERP writes as 1 or 0 (or "1", "0", true, false, "").
type Bool bool

// UnmarshalJSON reads true, false, numbers (non-zero is true), strings
// holding a number, "" and null (false).
func (v *Bool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*v = true
		return nil
	case "false", "null":
		*v = false
		return nil
	}
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: flag: %w", err)
	}
	*v = n != 0
	return nil
}

// MarshalJSON writes 1 or 0, as the ERP's own forms do.
func (v Bool) MarshalJSON() ([]byte, error) {
	if v {
		return []byte("1"), nil
	}
	return []byte("0"), nil
}

// parseJSONInt reads an integer from a JSON number, a string holding one
// (surrounding spaces allowed), an empty string or null. A fractional part
// of zeros ("1.000", as decimal columns print) is accepted; anything else
// is an error. It does not allocate on success.
func parseJSONInt(b []byte) (int64, error) {
	if len(b) > 0 && b[0] == '"' {
		if len(b) < 2 || b[len(b)-1] != '"' {
			return 0, errors.New("unterminated string")
		}
		b = bytes.TrimSpace(b[1 : len(b)-1])
		if len(b) == 0 {
			return 0, nil
		}
	} else if string(b) == "null" {
		return 0, nil
	}
	if len(b) == 0 {
		return 0, errors.New("empty value")
	}
	neg := false
	i := 0
	switch b[0] {
	case '-':
		neg, i = true, 1
	case '+':
		i = 1
	}
	if i == len(b) {
		return 0, fmt.Errorf("%q is not an integer", b)
	}
	var n uint64
	for ; i < len(b) && b[i] != '.'; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not an integer", b)
		}
		if n > (math.MaxUint64-9)/10 {
			return 0, fmt.Errorf("%q is out of range", b)
		}
		n = n*10 + uint64(c-'0')
	}
	if i < len(b) { // a fraction: only zeros may follow
		for _, c := range b[i+1:] {
			if c != '0' {
				return 0, fmt.Errorf("%q is not an integer", b)
			}
		}
	}
	if neg {
		if n > 1<<63 {
			return 0, fmt.Errorf("%q is out of range", b)
		}
		return -int64(n), nil //nolint:gosec // range checked above
	}
	if n > math.MaxInt64 {
		return 0, fmt.Errorf("%q is out of range", b)
	}
	return int64(n), nil
}

// Decimal is an exact decimal number: prices, quantities, VAT rates and
// totals. It keeps the text the server sent ("100.00000000"), so nothing is
// lost to float64; convert with Rat, Float64 or String, and compare with Cmp
// or Equal (which compare values: 100 equals 100.00000000). The zero value
// is 0.
type Decimal struct {
	text string // a valid decimal literal, or "" for zero
}

// maxExponent bounds the exponent of a decimal in scientific notation, so
// that converting a hostile "1e999999999" to a big.Rat cannot exhaust memory.
const maxExponent = 1000

// ParseDecimal reads a decimal: "12", "-0.5", "100.00000000", "1.5e3".
// Surrounding spaces and a leading + are dropped.
func ParseDecimal(s string) (Decimal, error) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "+")
	if !validDecimal(s) {
		return Decimal{}, fmt.Errorf("erp: %q is not a decimal number", s)
	}
	return Decimal{text: s}, nil
}

// MustDecimal is ParseDecimal for literals known to be valid; it panics
// otherwise.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// DecimalFromInt returns n as a Decimal.
func DecimalFromInt(n int64) Decimal { return Decimal{text: strconv.FormatInt(n, 10)} }

// DecimalFromRat returns r rounded to scale digits after the point, halves
// away from zero (as the ERP rounds amounts).
func DecimalFromRat(r *big.Rat, scale int) Decimal {
	if r == nil {
		return Decimal{}
	}
	scale = max(scale, 0)
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	num := new(big.Int).Mul(r.Num(), pow)
	q, rem := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	// Round half away from zero: compare twice the remainder to the divisor.
	if rem.Sign() != 0 && new(big.Int).Abs(new(big.Int).Lsh(rem, 1)).Cmp(r.Denom()) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return Decimal{text: new(big.Rat).SetFrac(q, pow).FloatString(scale)}
}

// validDecimal reports whether s is [-]digits[.digits][e[+-]digits] (or
// [-].digits…), with a bounded exponent.
func validDecimal(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := i - start
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		f := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracDigits = i - f
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		e := i
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if exp = exp*10 + int(s[i]-'0'); exp > maxExponent {
				return false
			}
			i++
		}
		if i == e {
			return false
		}
	}
	return i == len(s)
}

// String returns the decimal for people: without the trailing zeros of
// the ERP's 8-place columns, down to two places ("79.80" for
// "79.80000000", "100.00" for "100.00000000", "0.125" kept); "0" for the
// zero value. Text gives every digit as sent.
func (d Decimal) String() string {
	t := d.Text()
	dot := strings.IndexByte(t, '.')
	if dot < 0 || strings.ContainsAny(t, "eE") {
		return t
	}
	keep := min(len(t), dot+3) // two places, if there are two
	end := len(t)
	for end > keep && t[end-1] == '0' {
		end--
	}
	return t[:end]
}

// Text returns the decimal as the server sent it (or as it was parsed),
// every digit kept; "0" for the zero value.
func (d Decimal) Text() string {
	if d.text == "" {
		return "0"
	}
	return d.text
}

// Rat returns the exact value.
func (d Decimal) Rat() *big.Rat {
	r, ok := new(big.Rat).SetString(d.Text())
	if !ok { // cannot happen: text is validated
		return new(big.Rat)
	}
	return r
}

// Float64 returns the nearest float64, for display or statistics, not for
// money arithmetic.
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(d.Text(), 64)
	return f
}

// IsZero reports whether the value is zero (0, "0.00000000", "").
func (d Decimal) IsZero() bool {
	for _, c := range d.text {
		if c >= '1' && c <= '9' {
			if strings.ContainsAny(d.text, "eE") {
				return d.Rat().Sign() == 0
			}
			return false
		}
	}
	return true
}

// Cmp compares values: -1 if d < o, 0 if equal, +1 if d > o.
func (d Decimal) Cmp(o Decimal) int {
	if d.text == o.text {
		return 0
	}
	return d.Rat().Cmp(o.Rat())
}

// Equal reports whether d and o have the same value.
func (d Decimal) Equal(o Decimal) bool { return d.Cmp(o) == 0 }

// scale is the number of digits after the point the value needs.
func (d Decimal) scale() int {
	s := d.text
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	frac := 0
	if i := strings.IndexByte(s, '.'); i >= 0 {
		frac = len(s) - i - 1
	}
	return max(frac-exp, 0)
}

// Add returns d + o, exactly.
func (d Decimal) Add(o Decimal) Decimal {
	return DecimalFromRat(new(big.Rat).Add(d.Rat(), o.Rat()), max(d.scale(), o.scale()))
}

// Sub returns d - o, exactly.
func (d Decimal) Sub(o Decimal) Decimal {
	return DecimalFromRat(new(big.Rat).Sub(d.Rat(), o.Rat()), max(d.scale(), o.scale()))
}

// Mul returns d × o, exactly.
func (d Decimal) Mul(o Decimal) Decimal {
	return DecimalFromRat(new(big.Rat).Mul(d.Rat(), o.Rat()), d.scale()+o.scale())
}

// Round returns d rounded to scale digits after the point, halves away from
// zero.
func (d Decimal) Round(scale int) Decimal { return DecimalFromRat(d.Rat(), scale) }

// MarshalJSON writes the decimal as a JSON number with its exact digits.
func (d Decimal) MarshalJSON() ([]byte, error) { return []byte(d.Text()), nil }

// UnmarshalJSON reads a JSON number, a string holding a decimal, "" or null
// (the last two as zero).
func (d *Decimal) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) == 0:
		return errors.New("erp: decimal: empty value")
	case b[0] == '"':
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return fmt.Errorf("erp: decimal: %w", err)
		}
		if strings.TrimSpace(s) == "" {
			*d = Decimal{}
			return nil
		}
		v, err := ParseDecimal(s)
		if err != nil {
			return err
		}
		*d = v
		return nil
	case string(b) == "null":
		*d = Decimal{}
		return nil
	}
	// A JSON number: the decoder has checked its syntax; only the exponent
	// bound is ours to check.
	s := string(b)
	if !validDecimal(s) {
		return fmt.Errorf("erp: decimal: %q is not a decimal number", s)
	}
	*d = Decimal{text: s}
	return nil
}

// Time is a moment the ERP sends as Unix seconds (1767225600 or
// "1767225600"); "", 0 and null are the zero Time. Database-style text
// ("2026-01-01 00:00:00" or "2026-01-01", read as UTC) is accepted too, as
// some fields of some versions print it.
type Time struct {
	time.Time
}

// Unix returns the Time for Unix seconds.
func Unix(sec int64) Time { return Time{time.Unix(sec, 0).UTC()} }

// At returns t as a Time, truncated to the second (the ERP keeps seconds).
func At(t time.Time) Time { return Time{t.Truncate(time.Second).UTC()} }

// Equal reports whether t and u are the same moment (both zero counts as
// equal). It shadows time.Time's Equal so that cmp.Diff compares Times.
func (t Time) Equal(u Time) bool { return t.Time.Equal(u.Time) }

// MarshalJSON writes Unix seconds, or null for the zero Time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, t.Unix(), 10), nil
}

// UnmarshalJSON reads Unix seconds as a number or a string, database-style
// text, "" or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		if err != nil {
			return fmt.Errorf("erp: time: %w", err)
		}
		s = strings.TrimSpace(s)
		for _, layout := range []string{time.DateTime, time.DateOnly} {
			if len(s) == len(layout) {
				if v, err := time.Parse(layout, s); err == nil {
					*t = Time{v}
					return nil
				}
			}
		}
	}
	n, err := parseJSONInt(b)
	if err != nil {
		return fmt.Errorf("erp: time: %w", err)
	}
	if n == 0 {
		*t = Time{}
		return nil
	}
	*t = Unix(n)
	return nil
}
