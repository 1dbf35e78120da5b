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

// call is one API request being answered, with the state locked.
type call struct {
	s    *Server
	st   *state
	r    *http.Request
	body *body
	user *user
	num  numbers
}

// answer is what a handler returns: a status and a JSON body (or none).
type answer struct {
	status int
	body   any
}

func ok(body any) answer { return answer{status: http.StatusOK, body: body} }

// apiError is the ERP's error answer, Restler's shape: the message starts
// with the status text, and details follow under numeric keys.
//
//	{"error":{"code":500,"message":"Internal Server Error: Error creating product","0":"ErrorProductAlreadyExists"}}
func apiError(status int, msg string, details ...string) answer {
	text := http.StatusText(status)
	if msg != "" {
		text += ": " + msg
	}
	obj := map[string]any{"code": status, "message": text}
	for i, d := range details {
		obj[strconv.Itoa(i)] = d
	}
	return answer{status: status, body: map[string]any{"error": obj}}
}

func badRequest(msg string) answer { return apiError(http.StatusBadRequest, msg) }
func notFound(msg string) answer   { return apiError(http.StatusNotFound, msg) }

// nothingDone is the answer to a transition already made. A 304 carries no
// body over HTTP, so the ERP's message ("Error nothing done. May be object
// is already validated") cannot reach the client; the status says it.
func nothingDone() answer { return answer{status: http.StatusNotModified} }

// The messages of the authentication stage, as the ERP words them.
const (
	msgNoCredential = "Failed to login to API. No parameter 'HTTP_ERPAPIKEY' on HTTP header (and no parameter ERPAPIKEY in URL)."
	msgBadKey       = "Error user not valid (not found with api key or bad status or bad validity dates) (conf->entity=1)"
)

// moduleOffPage is what the ERP prints, with status 200, for any API call
// while its REST module is off.
const moduleOffPage = "Module <b>Api</b> must be enabled.<br><br>To activate modules, go on setup Area (Home->Setup->Modules)."

func writeModuleOff(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, moduleOffPage)
}

// serve answers an API request with fn, holding the state lock.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, fn func(c *call) answer) {
	s.mu.Lock()
	if !s.apiEnabled {
		s.mu.Unlock()
		writeModuleOff(w)
		return
	}
	c := &call{s: s, st: s.st, r: r, num: numbers{native: s.cfg.nativeNumbers}}
	a, failed := s.authenticate(c)
	if !failed {
		if b, fail := readBody(r); fail != nil {
			a = *fail
		} else {
			c.body = b
			a = fn(c)
		}
	}
	s.mu.Unlock()
	writeAnswer(w, a)
}

// writeAnswer writes a handler's answer: the bare status for those that
// carry no body, else the JSON body.
func writeAnswer(w http.ResponseWriter, a answer) {
	if a.status == http.StatusNotModified || a.status == http.StatusNoContent {
		w.WriteHeader(a.status)
		return
	}
	fakekit.WriteJSON(w, a.status, a.body)
}

// authenticate finds the caller: an API key (header ERPAPIKEY, or the
// ERPAPIKEY or api_key query parameter), else a live web session. It
// reports an error answer when there is none.
func (s *Server) authenticate(c *call) (answer, bool) {
	key := c.r.Header.Get("ERPAPIKEY")
	if key == "" {
		q := c.r.URL.Query()
		key = q.Get("ERPAPIKEY")
		if key == "" {
			key = q.Get("api_key")
		}
	}
	if key != "" {
		u := c.st.keys[key]
		if u == nil || !u.enabled {
			return apiError(http.StatusUnauthorized, msgBadKey), true
		}
		c.user = u
		return answer{}, false
	}
	if u := c.st.sessionUser(c.r, s.cfg.sessionTimeout); u != nil && u.enabled {
		c.user = u
		return answer{}, false
	}
	return apiError(http.StatusUnauthorized, msgNoCredential), true
}

// body is a request's JSON object, read leniently as PHP does: numbers may
// come as strings and strings as numbers.
type body struct {
	fields map[string]json.RawMessage
	errs   []string
}

// readBody parses a JSON body. Like the ERP's Restler layer it refuses
// other content types with 403, and malformed JSON with 400.
func readBody(r *http.Request) (*body, *answer) {
	b := &body{}
	if r.Body == nil || r.Body == http.NoBody {
		return b, nil
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		a := badRequest("could not read the request body")
		return nil, &a
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return b, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct != "application/json" {
		if ct == "" {
			ct = "text/plain"
		}
		a := apiError(http.StatusForbidden, "Content type `"+ct+"` is not supported.")
		return nil, &a
	}
	if err := json.Unmarshal(raw, &b.fields); err != nil {
		a := badRequest("Error parsing JSON")
		return nil, &a
	}
	return b, nil
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
	return rawText(raw, name, b)
}

func rawText(raw json.RawMessage, name string, b *body) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	switch raw[0] {
	case '{', '[':
		b.fail(name + " must be a value, not " + map[byte]string{'{': "an object", '[': "a list"}[raw[0]])
		return "", false
	}
	return string(raw), true
}

// strField is a string field of a body and where it goes.
type strField struct {
	name string
	dst  *string
}

// strings reads each field given into its destination, in order.
func (b *body) strings(fields ...strField) {
	for _, f := range fields {
		if v, given := b.str(f.name); given {
			*f.dst = v
		}
	}
}

// int reads an integer, from a number or a string holding one.
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
	if err != nil {
		b.fail(name + " must be an integer")
		return 0, false
	}
	return n, true
}

// flag reads 0/1 (or true/false).
func (b *body) flag(name string) (bool, bool) {
	n, ok := b.int(name)
	return n != 0, ok
}

// dec reads a decimal number.
func (b *body) dec(name string) (*big.Rat, bool) {
	s, ok := b.str(name)
	if !ok {
		return nil, false
	}
	return parseDec(s, name, b)
}

func parseDec(s, name string, b *body) (*big.Rat, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return new(big.Rat), true
	}
	r, ok := parseDecimal(s)
	if !ok {
		b.fail(name + " must be a number")
		return nil, false
	}
	return r, true
}

// parseDecimal reads a plain decimal ("12", "-0.5", "1.5e3"); it refuses
// what big.Rat would also take ("1/3") and exponents past 100.
func parseDecimal(s string) (*big.Rat, bool) {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	mant = strings.TrimPrefix(strings.TrimPrefix(mant, "-"), "+")
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart+frac == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return nil, false
	}
	if hasExp {
		e, err := strconv.Atoi(exp)
		if err != nil || e > 100 || e < -100 {
			return nil, false
		}
	}
	return new(big.Rat).SetString(s)
}

// unixTime reads a date as Unix seconds (a number or a string holding one),
// or as "YYYY-MM-DD[ HH:MM:SS]".
func (b *body) unixTime(name string) (time.Time, bool) {
	s, ok := b.str(name)
	if !ok || strings.TrimSpace(s) == "" {
		return time.Time{}, false
	}
	if t, ok := parseTime(s); ok {
		return t, true
	}
	b.fail(name + " must be a date (Unix seconds)")
	return time.Time{}, false
}

func parseTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(n, 0).UTC(), true
	}
	for _, layout := range []string{time.DateTime, time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// numbers renders numbers the way the configured deployment does: as
// strings (older PHP database drivers) or as JSON numbers.
type numbers struct{ native bool }

func (n numbers) id(v int64) json.RawMessage {
	if n.native {
		return strconv.AppendInt(nil, v, 10)
	}
	b := make([]byte, 0, 22) // the quotes and up to 20 characters
	b = strconv.AppendInt(append(b, '"'), v, 10)
	return append(b, '"')
}

// int is id for integers that are not ids (types, statuses, flags).
func (n numbers) int(v int64) json.RawMessage { return n.id(v) }

func (n numbers) flag(v bool) json.RawMessage {
	if v {
		return n.int(1)
	}
	return n.int(0)
}

// dec writes an amount: "100.00000000" (a DECIMAL(24,8) column as text) or
// 100.0 (a PHP float).
func (n numbers) dec(v *big.Rat) json.RawMessage {
	b := make([]byte, 0, 24)
	if n.native {
		b = bytes.TrimRight(appendDec8(b, v), "0")
		if b[len(b)-1] == '.' {
			b = append(b, '0')
		}
		return b
	}
	return append(appendDec8(append(b, '"'), v), '"')
}

// appendDec8 appends v (nil is 0) with 8 digits after the point, as
// v.FloatString(8) writes it. Amounts are cents and the like: when v is a
// whole number of 1e-8 that fits in an int64, it is written with integer
// arithmetic, sparing a list of documents most of its allocations;
// anything else goes through FloatString.
func appendDec8(b []byte, v *big.Rat) []byte {
	const scale = 100_000_000
	if v == nil {
		return append(b, "0.00000000"...)
	}
	num, den := v.Num(), uint64(1)
	if !v.IsInt() {
		if d := v.Denom(); d.IsUint64() {
			den = d.Uint64()
		} else {
			den = 0
		}
	}
	if !num.IsInt64() || den == 0 || den > scale || scale%den != 0 {
		return append(b, v.FloatString(8)...)
	}
	m, x := int64(scale/den), num.Int64()
	if x > math.MaxInt64/m || x < -math.MaxInt64/m {
		return append(b, v.FloatString(8)...)
	}
	x *= m
	if x < 0 {
		b, x = append(b, '-'), -x
	}
	b = append(strconv.AppendInt(b, x/scale, 10), '.')
	for d, f := int64(scale/10), x%scale; d > 0; d /= 10 {
		b = append(b, byte('0'+f/d%10))
	}
	return b
}

// time writes Unix seconds, or "" (strings) / null (native) when unset.
func (n numbers) time(t time.Time) json.RawMessage {
	if t.IsZero() {
		if n.native {
			return json.RawMessage("null")
		}
		return json.RawMessage(`""`)
	}
	return strconv.AppendInt(nil, t.Unix(), 10)
}
