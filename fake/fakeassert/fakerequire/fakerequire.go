// Package fakerequire has the functions of package fakeassert, in the style
// of testify's require: each reports a failure as fakeassert's does, then
// stops the test with t.FailNow instead of letting it go on, so a test can
// rely on what it checked:
//
//	fakerequire.Requested(t, srv, "POST /api/v4/projects")
//	created := srv.RequestsTo("POST /api/v4/projects")[0]
//
// Every function is its fakeassert namesake followed by t.FailNow when that
// returned false; see package fakeassert for what each checks.
package fakerequire

import (
	"github.com/stretchr/testify/require"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/fakeassert"
)

type tHelper interface{ Helper() }

func stop(t require.TestingT, ok bool) {
	if !ok {
		t.FailNow()
	}
}

// Requested is fakeassert.Requested, stopping the test on failure.
func Requested(t require.TestingT, fake control.Controls, route string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.Requested(t, fake, route, msgAndArgs...))
}

// RequestedTimes is fakeassert.RequestedTimes, stopping the test on failure.
func RequestedTimes(t require.TestingT, fake control.Controls, route string, n int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.RequestedTimes(t, fake, route, n, msgAndArgs...))
}

// NotRequested is fakeassert.NotRequested, stopping the test on failure.
func NotRequested(t require.TestingT, fake control.Controls, route string, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.NotRequested(t, fake, route, msgAndArgs...))
}

// RequestedWith is fakeassert.RequestedWith, stopping the test on failure.
func RequestedWith(t require.TestingT, fake control.Controls, route string, match func(control.Request) bool, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.RequestedWith(t, fake, route, match, msgAndArgs...))
}

// RequestedWithJSON is fakeassert.RequestedWithJSON, stopping the test on
// failure.
func RequestedWithJSON(t require.TestingT, fake control.Controls, route string, want any, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.RequestedWithJSON(t, fake, route, want, msgAndArgs...))
}

// Answered is fakeassert.Answered, stopping the test on failure.
func Answered(t require.TestingT, fake control.Controls, route string, status int, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.Answered(t, fake, route, status, msgAndArgs...))
}

// NoServerErrors is fakeassert.NoServerErrors, stopping the test on failure.
func NoServerErrors(t require.TestingT, fake control.Controls, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.NoServerErrors(t, fake, msgAndArgs...))
}

// NoPanics is fakeassert.NoPanics, stopping the test on failure.
func NoPanics(t require.TestingT, fake control.Controls, msgAndArgs ...any) {
	if h, ok := t.(tHelper); ok {
		h.Helper()
	}
	stop(t, fakeassert.NoPanics(t, fake, msgAndArgs...))
}
