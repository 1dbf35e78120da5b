package erpfake

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/fakekit"
)

// The bounds of what the ERP reads, as its database holds it. Every number
// is checked against them before any arithmetic on it, and refused with
// 400 naming the field.
const (
	// DefaultMaxBody is the default cap on a request body (WithMaxBody):
	// the largest document a client sends is a few hundred lines.
	DefaultMaxBody = 1 << 20

	// Integers (ids, socid, fk_product, types, flags, limit, page, mode)
	// are the ERP's INT columns.
	minInt   = math.MinInt32
	maxInt   = math.MaxInt32
	intRange = "-2147483648 to 2147483647"

	// Amounts, quantities and rates are DECIMAL(24,8) columns: at most 16
	// digits before the point and 8 after.
	maxIntDigits  = 16
	maxFracDigits = 8
)

// Dates are DATETIME columns: from 1000-01-01 to 9999-12-31.
var (
	minDate = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDate = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// body is a request's JSON object, read leniently as PHP does: numbers may
// come as strings and strings as numbers. Reading a field that is wrong
// records a problem; the first one is the answer.
type body struct {
	fields map[string]json.RawMessage
	errs   []string
}

// readInput reads a request's JSON body. Like the ERP's Restler layer it
// refuses other content types with 403, and malformed JSON with 400. The
// kit has read the body already, within the body limit.
func readInput(r *http.Request) (*input, fakekit.Answer) {
	all := &struct {
		in   input
		body body
		call call
	}{in: input{r: r}} // one allocation for the three
	in := &all.in
	in.body, in.call = &all.body, &all.call
	if r.Body == nil || r.Body == http.NoBody {
		return in, fakekit.Answer{}
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, badRequest("could not read the request body")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return in, fakekit.Answer{}
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/json" {
		if ct == "" {
			ct = "text/plain"
		}
		return nil, apiError(http.StatusForbidden, "Content type `"+ct+"` is not supported.")
	}
	if err := json.Unmarshal(raw, &in.body.fields); err != nil {
		return nil, badRequest("Error parsing JSON")
	}
	return in, fakekit.Answer{}
}

func (b *body) fail(msg string) { b.errs = append(b.errs, msg) }

// problem returns the first problem found, or "".
func (b *body) problem() string {
	if len(b.errs) == 0 {
		return ""
	}
	return b.errs[0]
}

func (b *body) has(name string) bool {
	v, ok := b.fields[name]
	return ok && string(v) != "null"
}

// str reads a string; numbers and booleans are taken as their text.
func (b *body) str(name string) (string, bool) {
	raw, ok := b.fields[name]
	if !ok || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	switch raw[0] {
	case '{':
		b.fail(name + " must be a value, not an object")
		return "", false
	case '[':
		b.fail(name + " must be a value, not a list")
		return "", false
	}
	return string(raw), true
}

// optStr reads a string field that may be absent.
func (b *body) optStr(name string) opt[string] {
	v, given := b.str(name)
	return opt[string]{v, given}
}

// int reads an integer, from a number or a string holding one, within the
// ERP's INT range.
func (b *body) int(name string) (int64, bool) {
	s, ok := b.str(name)
	if !ok {
		return 0, false
	}
	s = strings.TrimSpace(s)
	switch s {
	case "", "false":
		return 0, true
	case "true":
		return 1, true
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil && !isDigits(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")):
		b.fail(name + " must be an integer")
		return 0, false
	case err != nil || n < minInt || n > maxInt:
		b.fail(name + " " + excerpt(s) + " is out of range: the ERP's integers are " + intRange)
		return 0, false
	}
	return n, true
}

// flag reads 0/1 (or true/false); any other integer is true.
func (b *body) flag(name string) (bool, bool) {
	n, ok := b.int(name)
	return n != 0, ok
}

func (b *body) optFlag(name string) opt[bool] {
	v, given := b.flag(name)
	return opt[bool]{v, given}
}

// dec reads a decimal number, within the precision of the ERP's
// DECIMAL(24,8) columns.
func (b *body) dec(name string) (*big.Rat, bool) {
	s, ok := b.str(name)
	if !ok {
		return nil, false
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return new(big.Rat), true
	}
	r, err := parseDecimal(s)
	if err != "" {
		b.fail(name + " " + err)
		return nil, false
	}
	return r, true
}

func (b *body) optDec(name string) opt[*big.Rat] {
	v, given := b.dec(name)
	return opt[*big.Rat]{v, given}
}

// parseDecimal reads a plain decimal ("12", "-0.5", "1.5e3") that fits a
// DECIMAL(24,8) column: at most 16 digits before the point and 8 after,
// leading and trailing zeros aside. It counts the digits first, in one pass
// over the text, so a number of a million digits costs no more than
// reading it; the big.Rat is made from at most 24 digits. It returns what
// is wrong ("must be a number", "… has more digits …") or "".
func parseDecimal(s string) (*big.Rat, string) {
	mant, expText, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, expText, hasExp = strings.Cut(s, "E")
	}
	neg := false
	if mant != "" && (mant[0] == '-' || mant[0] == '+') {
		neg, mant = mant[0] == '-', mant[1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart+frac == "" || !isDigits(intPart) || !isDigits(frac) {
		return nil, "must be a number"
	}
	var exp int64
	if hasExp {
		e := strings.TrimPrefix(expText, "+")
		mag := strings.TrimPrefix(e, "-")
		if mag == "" || !isDigits(mag) {
			return nil, "must be a number"
		}
		if len(mag) > 15 { // saturates: no text of digits can make up for it
			mag = "999999999999999"
		}
		exp, _ = strconv.ParseInt(mag, 10, 64)
		if e[0] == '-' {
			exp = -exp
		}
	}
	// The significant digits, and where the point falls among them.
	all := intPart + frac
	digits := strings.TrimLeft(all, "0")
	if digits == "" {
		return new(big.Rat), ""
	}
	point := int64(len(intPart)) + exp - int64(len(all)-len(digits))
	digits = strings.TrimRight(digits, "0")
	intDigits, fracDigits := max(point, 0), max(int64(len(digits))-point, 0)
	if intDigits > maxIntDigits || fracDigits > maxFracDigits {
		return nil, excerpt(s) + " has more digits than the ERP keeps: at most 16 before the point and 8 after (DECIMAL(24,8))"
	}
	// At most 24 digits: write them out with the point where it falls.
	var t strings.Builder
	if neg {
		t.WriteByte('-')
	}
	switch {
	case point <= 0:
		t.WriteString("0.")
		t.WriteString(strings.Repeat("0", int(-point)))
		t.WriteString(digits)
	case point >= int64(len(digits)):
		t.WriteString(digits)
		t.WriteString(strings.Repeat("0", int(point)-len(digits)))
	default:
		t.WriteString(digits[:point])
		t.WriteByte('.')
		t.WriteString(digits[point:])
	}
	r, _ := new(big.Rat).SetString(t.String())
	return r, ""
}

// fitsDecimal reports whether a computed amount fits a DECIMAL(24,8)
// column once rounded to its 8 decimals.
func fitsDecimal(r *big.Rat) bool {
	return new(big.Rat).Abs(r).Cmp(decimalLimit) < 0
}

var decimalLimit = new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(maxIntDigits), nil))

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// excerpt is the start of a value a caller sent, short enough for a
// message.
func excerpt(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

// unixTime reads a date as Unix seconds (a number or a string holding one),
// or as "YYYY-MM-DD[ HH:MM:SS]", within the ERP's DATETIME range.
func (b *body) unixTime(name string) (time.Time, bool) {
	s, ok := b.str(name)
	if !ok || strings.TrimSpace(s) == "" {
		return time.Time{}, false
	}
	t, ok := parseTime(s)
	switch {
	case !ok:
		b.fail(name + " must be a date (Unix seconds)")
		return time.Time{}, false
	case t.Before(minDate) || t.After(maxDate):
		b.fail(name + " " + excerpt(s) + " is out of range: dates are 1000-01-01 to 9999-12-31")
		return time.Time{}, false
	}
	return t, true
}

func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	// Unix seconds beyond the DATETIME range are kept just past its ends:
	// refused as a field, and still ordered rightly in a filter.
	if n, err := strconv.ParseInt(s, 10, 64); err == nil || isDigits(strings.TrimPrefix(s, "-")) && strings.Trim(s, "-") != "" {
		switch {
		case err != nil && s[0] == '-' || err == nil && n < minDate.Unix():
			return minDate.Add(-time.Second), true
		case err != nil || n > maxDate.Unix():
			return maxDate.Add(time.Second), true
		}
		return time.Unix(n, 0).UTC(), true
	}
	for _, layout := range []string{time.DateTime, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// opt is a field a request may leave out.
type opt[T any] struct {
	v   T
	set bool
}

// to sets *dst to the value when it was given.
func (o opt[T]) to(dst *T) {
	if o.set {
		*dst = o.v
	}
}
