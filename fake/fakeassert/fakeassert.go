package fakeassert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/apitwin/apitwin/fake/control"
)

const (
	// shown is how many requests a failure lists at most (the newest).
	shown = 20
	// bodyShown is how many bytes of a body a failure shows at most.
	bodyShown = 512
)

type tHelper interface{ Helper() }

// Requested asserts that the fake received at least one request on route.
//
//	fakeassert.Requested(t, srv, "GET /api/v4/projects/{id}")
func Requested(t assert.TestingT, fake control.Controls, route string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if len(fake.RequestsTo(route)) > 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("no request to %q; %s", route, received(fake)), msgAndArgs...)
}

// RequestedTimes asserts that the fake received exactly n requests on
// route (of those its request log still holds).
//
//	fakeassert.RequestedTimes(t, srv, "POST /api/v4/projects/{id}/issues", 1)
func RequestedTimes(t assert.TestingT, fake control.Controls, route string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	reqs := fake.RequestsTo(route)
	if len(reqs) == n {
		return true
	}
	msg := fmt.Sprintf("%s to %q, want %d", count(len(reqs)), route, n)
	if len(reqs) == 0 {
		return assert.Fail(t, msg+"; "+received(fake), msgAndArgs...)
	}
	return assert.Fail(t, msg+shownOf(len(reqs))+":\n"+list(reqs), msgAndArgs...)
}

// NotRequested asserts that the fake received no request on route.
//
//	fakeassert.NotRequested(t, srv, "DELETE /api/v4/projects/{id}")
func NotRequested(t assert.TestingT, fake control.Controls, route string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	reqs := fake.RequestsTo(route)
	if len(reqs) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%s to %q, want none%s:\n%s", count(len(reqs)), route, shownOf(len(reqs)), list(reqs)), msgAndArgs...)
}

// RequestedWith asserts that some request on route satisfies match, which
// may look at anything the request log keeps (see control.Request): the
// caller, headers, query, body, the answer.
//
//	fakeassert.RequestedWith(t, srv, "GET /api/v4/projects", func(r control.Request) bool {
//		return r.Query.Get("search") == "shop"
//	})
func RequestedWith(t assert.TestingT, fake control.Controls, route string, match func(control.Request) bool, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if match == nil {
		return assert.Fail(t, "RequestedWith needs a match function, not nil", msgAndArgs...)
	}
	reqs := fake.RequestsTo(route)
	if slices.ContainsFunc(reqs, match) {
		return true
	}
	if len(reqs) == 0 {
		return assert.Fail(t, fmt.Sprintf("no request to %q; %s", route, received(fake)), msgAndArgs...)
	}
	return assert.Fail(t, fmt.Sprintf("none of the %s to %q matches%s:\n%s", count(len(reqs)), route, shownOf(len(reqs)), list(reqs)), msgAndArgs...)
}

// RequestedWithJSON asserts that some request on route carried a JSON body
// holding want: every field of want is in the body with an equal value, and
// the body's other fields are not compared (see the package documentation
// for why, and for how arrays, numbers and structs compare). orchfake logs
// a gRPC request's message as JSON, so this works on both its transports.
//
//	fakeassert.RequestedWithJSON(t, srv, "POST /api/v4/projects/{id}/issues",
//		map[string]any{"title": "Order 7 failed", "labels": "orders,bug"})
//
// A failure shows, for each request, the first field that differed and the
// body (its first 512 bytes); a body that is not JSON is not shown (a form
// may carry credentials), and one the request log cut at its bound is said
// to be.
func RequestedWithJSON(t assert.TestingT, fake control.Controls, route string, want any, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	var wantJSON []byte
	switch w := want.(type) {
	case json.RawMessage:
		wantJSON = w
	case []byte:
		wantJSON = w
	default:
		var err error
		if wantJSON, err = marshal(want); err != nil {
			return assert.Fail(t, fmt.Sprintf("want cannot be encoded as JSON: %v", err), msgAndArgs...)
		}
	}
	w, err := decodeJSON(wantJSON)
	if err != nil {
		return assert.Fail(t, fmt.Sprintf("want is not JSON: %v", err), msgAndArgs...)
	}
	reqs := fake.RequestsTo(route)
	if len(reqs) == 0 {
		return assert.Fail(t, fmt.Sprintf("no request to %q; %s", route, received(fake)), msgAndArgs...)
	}
	lines := make([]string, 0, len(reqs))
	cut := false
	for _, r := range reqs {
		line := "  " + r.String() + ": "
		body, err := decodeJSON(r.Body)
		switch {
		case err != nil && r.Truncated():
			cut = true
			line += fmt.Sprintf("body cut by the request log at %d of its %d bytes, not comparable", len(r.Body), r.BodySize)
		case err != nil && r.BodySize == 0:
			line += "no body"
		case err != nil:
			// Not shown: a form body may carry credentials (client_secret).
			line += fmt.Sprintf("body not JSON (%v), %d bytes", err, r.BodySize)
		default:
			d := difference(body, w, "")
			if d == "" {
				return true
			}
			line += d + "\n      in " + excerpt(r.Body)
		}
		lines = append(lines, line)
	}
	msg := fmt.Sprintf("none of the %s to %q has a JSON body holding %s%s:\n%s",
		count(len(reqs)), route, excerpt(wantJSON), shownOf(len(reqs)), strings.Join(newest(lines), "\n"))
	if cut {
		msg += "\nthe request log keeps only the start of each body: make it keep more with the fake's WithRequestLog option"
	}
	return assert.Fail(t, msg, msgAndArgs...)
}

// Answered asserts that the newest request on route was answered status.
// A request whose connection was dropped, or whose caller left first, was
// answered 0.
//
//	fakeassert.Answered(t, srv, "POST /api/v4/projects/{id}/issues", http.StatusCreated)
func Answered(t assert.TestingT, fake control.Controls, route string, status int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	reqs := fake.RequestsTo(route)
	if len(reqs) == 0 {
		return assert.Fail(t, fmt.Sprintf("no request to %q; %s", route, received(fake)), msgAndArgs...)
	}
	if r := reqs[len(reqs)-1]; r.Status != status {
		return assert.Fail(t, fmt.Sprintf("the newest request to %q was answered %s, want %d; the requests to it%s:\n%s",
			route, answer(r), status, shownOf(len(reqs)), list(reqs)), msgAndArgs...)
	}
	return true
}

// NoServerErrors asserts that the fake answered no request with a 5xx of
// its own, one no injected fault caused; a handler that panicked is one.
// Such an answer is a bug in the fake, the fake driven outside what it
// supports, or one of the 5xx answers the real service gives on purpose
// (see the package documentation: for those, use [NoPanics]). A request an
// injected fault matched is never reported, even a fault that only delayed
// it.
func NoServerErrors(t assert.TestingT, fake control.Controls, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	var bad []control.Request
	for _, r := range fake.Requests() {
		if r.Panic != "" || r.Status >= 500 && r.Status <= 599 && !r.Fault {
			bad = append(bad, r)
		}
	}
	if len(bad) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%s answered with a server error no injected fault caused%s:\n%s",
		count(len(bad)), shownOf(len(bad)), list(bad)), msgAndArgs...)
}

// NoPanics asserts that no handler of the fake panicked. A panic is always
// a bug in the fake (it answered 500 in the service's error shape and
// logged the panic); please report it with the failure's text.
func NoPanics(t assert.TestingT, fake control.Controls, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	var bad []control.Request
	for _, r := range fake.Requests() {
		if r.Panic != "" {
			bad = append(bad, r)
		}
	}
	if len(bad) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("the fake panicked on %s (a bug in the fake)%s:\n%s", count(len(bad)), shownOf(len(bad)), list(bad)), msgAndArgs...)
}

// count is "1 request", "3 requests".
func count(n int) string {
	if n == 1 {
		return "1 request"
	}
	return strconv.Itoa(n) + " requests"
}

// answer is how r was answered: "201", "503 UNAVAILABLE", "no answer".
func answer(r control.Request) string {
	switch {
	case r.Status == 0:
		return "0 (no answer)"
	case r.Code != "":
		return strconv.Itoa(r.Status) + " " + r.Code
	default:
		return strconv.Itoa(r.Status)
	}
}

// received lists the newest requests the fake logged, for a failure.
func received(fake control.Controls) string {
	reqs := fake.Requests()
	if len(reqs) == 0 {
		return "the fake received no request"
	}
	return "the fake received " + count(len(reqs)) + shownOf(len(reqs)) + ":\n" + list(reqs)
}

// shownOf says how many of n requests a failure lists, when not all.
func shownOf(n int) string {
	if n > shown {
		return fmt.Sprintf(" (the newest %d shown)", shown)
	}
	return ""
}

// list is one line per request, the newest ones: its summary (without
// credentials), the route it matched, and a panic's value.
func list(reqs []control.Request) string {
	lines := make([]string, 0, min(len(reqs), shown))
	for _, r := range reqs[max(0, len(reqs)-shown):] {
		route := r.Route
		if route == "" {
			route = "no route"
		}
		line := "  " + r.String() + " [" + route + "]"
		if r.Panic != "" {
			line += "\n      panic: " + firstLine(r.Panic)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

func newest(lines []string) []string { return lines[max(0, len(lines)-shown):] }

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// excerpt is the start of a body, for a failure.
func excerpt(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) <= bodyShown {
		return strings.ToValidUTF8(string(b), "�")
	}
	cut := bodyShown
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(b[:cut]), "�") + fmt.Sprintf("… (%d bytes)", len(b))
}

// decodeJSON decodes one JSON value, numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty")
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// difference is where got fails to hold want, as RequestedWithJSON says
// ("title is \"a\", want \"b\""), or "" when it holds it. path names where
// got is in the body, "" at the top.
func difference(got, want any, path string) string {
	at := path
	if at == "" {
		at = "the body"
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s is %s, want an object", at, brief(got))
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			gv, ok := g[k]
			if !ok {
				return p + " is missing"
			}
			if d := difference(gv, w[k], p); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s is %s, want an array", at, brief(got))
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s has %d elements, want %d", at, len(g), len(w))
		}
		for i := range w {
			if d := difference(g[i], w[i], path+"["+strconv.Itoa(i)+"]"); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(g, w) {
			return ""
		}
	default:
		if got == want { // strings, booleans, null
			return ""
		}
	}
	return fmt.Sprintf("%s is %s, want %s", at, brief(got), brief(want))
}

// sameNumber reports whether a and b, JSON numbers, are the same number,
// exactly: their decimal digits and exponents are compared once normalized.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	an, ad, ae, aok := normalize(string(a))
	bn, bd, be, bok := normalize(string(b))
	return aok && bok && an == bn && ad == bd && ae == be
}

// normalize reads a JSON number as ±digits×10^exp, digits without leading
// or trailing zeros ("" for zero, which has no sign).
func normalize(s string) (neg bool, digits string, exp int, ok bool) {
	neg = strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, e, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		var err error
		if exp, err = strconv.Atoi(e); err != nil || exp > 1<<40 || exp < -1<<40 {
			return false, "", 0, false
		}
	}
	whole, frac, _ := strings.Cut(mant, ".") // a JSON number: the decoder checked it
	digits = strings.TrimLeft(whole+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	if trimmed == "" {
		return false, "", 0, true
	}
	return neg, trimmed, exp, true
}

// marshal is json.Marshal without its HTML escapes, which would make a
// failure harder to read.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// brief is v as JSON, its start only.
func brief(v any) string {
	b, _ := marshal(v) // v was decoded from JSON
	return excerpt(b)
}
