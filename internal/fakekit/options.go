package fakekit

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
)

// Options reads a fake's options (control.Apply) for its New, or for its
// Start when start is true. New refuses control.WithTLS, which only Start
// can honour; for Start, a process that asked for fakes in memory
// (control.ServeInMemoryByDefault) gets InMemory unless WithTLS was given.
func Options[C any](fake string, cfg *C, opts []control.Option, start bool) (control.Settings, error) {
	st, err := control.Apply(fake, cfg, opts)
	if err != nil {
		return st, err
	}
	if st.TLS && !start {
		return st, fmt.Errorf("%s: control.WithTLS is an option of Start; a program serving over TLS gives Serve a TLS listener", fake)
	}
	if start && !st.TLS && control.InMemoryByDefault() {
		st.InMemory = true
	}
	return st, nil
}

// LimitsOf is the kit's limits as st asks (defaults where it asks for
// none), with defaultMaxBody, the fake's own, in place of the kit's.
func LimitsOf(st control.Settings, defaultMaxBody int64) Limits {
	l := Limits{MaxBody: st.MaxBody, LogEntries: st.LogEntries, LogBodyBytes: st.LogBodyBytes}
	if l.MaxBody <= 0 {
		l.MaxBody = defaultMaxBody
	}
	return l
}

// InjectFaults injects the faults of control.WithFault, in order; the
// error names the fake and the first fault it refuses.
func (k *Kit) InjectFaults(fake string, faults []control.ActiveFault) error {
	for _, af := range faults {
		if err := k.InjectFault(af.Route, af.Fault); err != nil {
			return fmt.Errorf("%s: control.WithFault(%q): %w", fake, af.Route, err)
		}
	}
	return nil
}

// StartFor serves h for tb on a loopback port, over TLS when st asks
// (control.WithTLS: httptest's self-signed certificate, and no log of the
// handshakes its clients refuse, which tests of certificates make on
// purpose), and returns its URL. It stops when the test ends, or at the
// Endpoint's Close. A fake that serves in memory (st.InMemory) was served
// by its New (ServeInMemoryOnDemand) and needs no StartFor.
func (e *Endpoint) StartFor(tb testing.TB, st control.Settings, h http.Handler) string {
	tb.Helper()
	if st.TLS {
		return e.StartTLSQuiet(tb, h)
	}
	return e.Start(tb, h)
}
