package fakerequire_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/fakeassert/fakerequire"
)

// recorder is a TestingT that records failures and FailNow.
type recorder struct {
	msgs    []string
	stopped bool
	helpers int
}

func (r *recorder) Errorf(format string, args ...any) {
	r.msgs = append(r.msgs, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow() { r.stopped = true }
func (r *recorder) Helper()  { r.helpers++ }

// logFake is a fake whose request log is given.
type logFake struct {
	control.Controls // nil: fakerequire reads only the request log
	log              []control.Request
}

func (f *logFake) Requests() []control.Request { return f.log }

func (f *logFake) RequestsTo(route string) []control.Request {
	var out []control.Request
	for _, r := range f.log {
		if r.Route == route {
			out = append(out, r)
		}
	}
	return out
}

func TestStopsOnFailureOnly(t *testing.T) {
	t.Parallel()
	const route = "POST /v1/things"
	good := &logFake{log: []control.Request{{Method: "POST", Path: "/v1/things", Route: route, Body: []byte(`{"a":1}`), BodySize: 7, Status: 201}}}
	bad := &logFake{log: []control.Request{{Method: "GET", Path: "/v1/x", Route: "GET /v1/x", Status: 500, Panic: "boom"}}}
	for _, c := range []struct {
		name string
		run  func(t *recorder, f *logFake)
	}{
		{"Requested", func(t *recorder, f *logFake) { fakerequire.Requested(t, f, route) }},
		{"RequestedTimes", func(t *recorder, f *logFake) { fakerequire.RequestedTimes(t, f, route, 1) }},
		{"NotRequested", func(t *recorder, f *logFake) { fakerequire.NotRequested(t, f, "GET /v1/x") }},
		{"RequestedWith", func(t *recorder, f *logFake) {
			fakerequire.RequestedWith(t, f, route, func(r control.Request) bool { return r.Status == 201 })
		}},
		{"RequestedWithJSON", func(t *recorder, f *logFake) { fakerequire.RequestedWithJSON(t, f, route, map[string]int{"a": 1}) }},
		{"Answered", func(t *recorder, f *logFake) { fakerequire.Answered(t, f, route, 201) }},
		{"NoServerErrors", func(t *recorder, f *logFake) { fakerequire.NoServerErrors(t, f) }},
		{"NoPanics", func(t *recorder, f *logFake) { fakerequire.NoPanics(t, f) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := &recorder{}
			c.run(r, good)
			if r.stopped || len(r.msgs) > 0 {
				t.Errorf("a passing check failed: stopped %v, %q", r.stopped, r.msgs)
			}
			if r.helpers == 0 {
				t.Error("t.Helper was not called")
			}
			r = &recorder{}
			c.run(r, bad)
			if !r.stopped || len(r.msgs) != 1 {
				t.Errorf("a failing check: stopped %v, %q; want stopped after one failure", r.stopped, r.msgs)
			}
			if !strings.Contains(strings.Join(r.msgs, ""), "GET /v1/x → 500") {
				t.Errorf("the failure does not list what the fake received: %q", r.msgs)
			}
		})
	}
}

// The message given after the arguments reaches the failure.
func TestMessage(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	fakerequire.Requested(r, &logFake{}, "POST /v1/things", "order %d", 7)
	if !r.stopped || len(r.msgs) != 1 || !strings.Contains(r.msgs[0], "order 7") {
		t.Errorf("stopped %v, %q; want the message", r.stopped, r.msgs)
	}
}
