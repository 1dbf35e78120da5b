// Package fakeassert checks what a program under test sent to an apitwin
// fake, in the style of testify's assert: each function reports a failure
// through t (with the requests the fake did receive, so the failure says
// what happened instead), returns whether it passed, and lets the test go
// on. Package fakerequire has the same functions, which stop the test.
//
// Every fake implements control.Controls, so these work for all of them;
// routes are the fakes' own names for their endpoints ("POST
// /api/v4/projects/{id}/issues" for sourcehostfake, an operation such as
// "StartWorkflowExecution" for orchfake, over either transport):
//
//	srv := sourcehostfake.Start(t)
//	… run the code under test against srv.URL() …
//	fakeassert.RequestedTimes(t, srv, "POST /api/v4/projects/{id}/issues", 1)
//	fakeassert.RequestedWithJSON(t, srv, "POST /api/v4/projects/{id}/issues", map[string]any{"title": "Checkout fails"})
//	fakeassert.NoServerErrors(t, srv)
//
// The fakes' request logs are bounded (each fake's documentation says
// how), so these see the newest requests, and of each body its first bytes.
package fakeassert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/stretchr/testify/assert"

	"github.com/apitwin/apitwin/fake/control"
)

// shown is how many of the newest requests a failure lists.
const shown = 20

type tHelper interface{ Helper() }

// Requested asserts that the fake received at least one request on route.
func Requested(t assert.TestingT, fake control.Controls, route string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	if len(fake.RequestsTo(route)) > 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("no request to %q\n%s", route, received(fake)), msgAndArgs...)
}

// RequestedTimes asserts that the fake received exactly n requests on route.
func RequestedTimes(t assert.TestingT, fake control.Controls, route string, n int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	got := len(fake.RequestsTo(route))
	if got == n {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%d requests to %q, want %d\n%s", got, route, n, received(fake)), msgAndArgs...)
}

// NotRequested asserts that the fake received no request on route.
func NotRequested(t assert.TestingT, fake control.Controls, route string, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	reqs := fake.RequestsTo(route)
	if len(reqs) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%d unexpected requests to %q, the first: %s", len(reqs), route, reqs[0]), msgAndArgs...)
}

// RequestedWith asserts that some request on route satisfies match.
func RequestedWith(t assert.TestingT, fake control.Controls, route string, match func(control.Request) bool, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	reqs := fake.RequestsTo(route)
	for _, r := range reqs {
		if match(r) {
			return true
		}
	}
	return assert.Fail(t, fmt.Sprintf("none of the %d requests to %q matches\n%s", len(reqs), route, received(fake)), msgAndArgs...)
}

// RequestedWithJSON asserts that some request on route carried a JSON body
// holding want: every field want has (when encoded as JSON) is in the body
// with an equal value, objects compared the same way at every depth, arrays
// element by element with equal lengths. Fields of the body that want does
// not name are not compared, so a test names only what it cares about.
func RequestedWithJSON(t assert.TestingT, fake control.Controls, route string, want any, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	wantJSON, err := json.Marshal(want)
	if err != nil {
		return assert.Fail(t, fmt.Sprintf("want cannot be encoded as JSON: %v", err), msgAndArgs...)
	}
	var w any
	json.Unmarshal(wantJSON, &w) // it was just encoded
	reqs := fake.RequestsTo(route)
	var seen []string
	for _, r := range reqs {
		var body any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			note := "not JSON"
			if r.Truncated() {
				note = fmt.Sprintf("cut at the log's %d-byte bound, of %d", len(r.Body), r.BodySize)
			}
			seen = append(seen, fmt.Sprintf("  %s: %s", r.Method+" "+r.Path, note))
			continue
		}
		if contains(body, w) {
			return true
		}
		seen = append(seen, fmt.Sprintf("  %s: %s", r.Method+" "+r.Path, bytes.TrimSpace(r.Body)))
	}
	if len(reqs) == 0 {
		return assert.Fail(t, fmt.Sprintf("no request to %q\n%s", route, received(fake)), msgAndArgs...)
	}
	return assert.Fail(t, fmt.Sprintf("no request to %q has a body holding %s; the bodies were:\n%s",
		route, wantJSON, strings.Join(last(seen), "\n")), msgAndArgs...)
}

// Answered asserts that the newest request on route was answered status.
func Answered(t assert.TestingT, fake control.Controls, route string, status int, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	reqs := fake.RequestsTo(route)
	if len(reqs) == 0 {
		return assert.Fail(t, fmt.Sprintf("no request to %q\n%s", route, received(fake)), msgAndArgs...)
	}
	if r := reqs[len(reqs)-1]; r.Status != status {
		return assert.Fail(t, fmt.Sprintf("the newest request to %q was answered %d, want %d: %s", route, r.Status, status, r), msgAndArgs...)
	}
	return true
}

// NoServerErrors asserts that the fake answered no request with a 5xx of
// its own: one an injected fault did not cause. Such an answer (a handler
// that panicked among them) is a bug in the fake, or a fake driven outside
// what it supports.
func NoServerErrors(t assert.TestingT, fake control.Controls, msgAndArgs ...any) bool {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	var bad []string
	for _, r := range fake.Requests() {
		if r.Status >= 500 && !r.Fault || r.Panic != "" {
			line := "  " + r.String()
			if r.Panic != "" {
				line += " (panic: " + r.Panic + ")"
			}
			bad = append(bad, line)
		}
	}
	if len(bad) == 0 {
		return true
	}
	return assert.Fail(t, fmt.Sprintf("%d requests answered with a server error no fault caused:\n%s", len(bad), strings.Join(last(bad), "\n")), msgAndArgs...)
}

// contains reports whether got holds want, as RequestedWithJSON says.
func contains(got, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !contains(gv, wv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !contains(g[i], w[i]) {
				return false
			}
		}
		return true
	default:
		return reflect.DeepEqual(got, want)
	}
}

// received lists the newest requests the fake logged, for a failure.
func received(fake control.Controls) string {
	reqs := fake.Requests()
	if len(reqs) == 0 {
		return "the fake received no request at all"
	}
	lines := make([]string, 0, min(len(reqs), shown))
	for _, r := range reqs[max(0, len(reqs)-shown):] {
		route := r.Route
		if route == "" {
			route = "no route"
		}
		lines = append(lines, fmt.Sprintf("  %s %s → %d (%s)", r.Method, r.Path, r.Status, route))
	}
	head := "the fake received:"
	if len(reqs) > shown {
		head = fmt.Sprintf("the fake received %d requests, the newest %d:", len(reqs), shown)
	}
	return head + "\n" + strings.Join(lines, "\n")
}

func last(lines []string) []string { return lines[max(0, len(lines)-shown):] }
