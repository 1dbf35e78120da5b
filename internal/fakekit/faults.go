package fakekit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/fake/control"
)

type faultRule struct {
	route     string
	match     func(r *http.Request, route string) bool
	fault     control.Fault
	remaining int // -1 for unlimited
}

// InjectFault makes requests matching route answer as f says. route is an
// http.ServeMux pattern ("POST /api/v4/projects", "GET
// /api/v4/projects/{id}", "/api/v4/" for every method and path below), or,
// with Config.Operations, an operation's name; "" matches every request.
// Faults apply in the order they were injected; the first that matches and
// has requests left wins. A fault or route the fake cannot use is an error
// and injects nothing.
func (k *Kit) InjectFault(route string, f control.Fault) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f.Code != "" && (k.cfg.Codes == nil || !k.cfg.Codes(f.Code)) {
		if k.cfg.Codes == nil {
			return fmt.Errorf("invalid fault: this service has no error codes (%q); give a Status", f.Code)
		}
		return fmt.Errorf("invalid fault: unknown error code %q", f.Code)
	}
	if k.cfg.Operations != nil && (f.Drop || f.Body != "" || len(f.Header) > 0) {
		return errors.New("invalid fault: Drop, Body and Header apply to HTTP routes, not operations")
	}
	rule := &faultRule{route: route, fault: f, remaining: f.Times}
	if f.Times == 0 {
		rule.remaining = -1
	}
	switch {
	case route == "":
		rule.match = func(*http.Request, string) bool { return true }
	case k.cfg.Operations != nil:
		if !k.cfg.Operations(route) {
			return fmt.Errorf("invalid fault: unknown operation %q", route)
		}
		rule.match = func(_ *http.Request, op string) bool { return op == route }
	default:
		m, err := compilePattern(route)
		if err != nil {
			return err
		}
		if !k.cfg.Routes.Reaches(route, m) {
			return fmt.Errorf("invalid fault: no route of this service matches %q", route)
		}
		rule.match = func(r *http.Request, _ string) bool {
			if r == nil {
				return false
			}
			_, pattern := m.Handler(r)
			return pattern != ""
		}
	}
	k.faultMu.Lock()
	defer k.faultMu.Unlock()
	k.faults = append(k.faults, rule)
	return nil
}

// compilePattern holds just route in a ServeMux, to let ServeMux match.
func compilePattern(route string) (m *http.ServeMux, err error) {
	m = http.NewServeMux()
	defer func() { // ServeMux.Handle panics on a malformed pattern
		if p := recover(); p != nil {
			m, err = nil, fmt.Errorf("invalid fault: route pattern %q: %v", route, p)
		}
	}()
	m.Handle(route, http.NotFoundHandler())
	return m, nil
}

// ClearFaults removes every injected fault.
func (k *Kit) ClearFaults() {
	k.faultMu.Lock()
	defer k.faultMu.Unlock()
	k.faults = nil
}

// Faults returns the faults in force, in the order they apply.
func (k *Kit) Faults() []control.ActiveFault {
	k.faultMu.Lock()
	defer k.faultMu.Unlock()
	out := make([]control.ActiveFault, 0, len(k.faults))
	for _, r := range k.faults {
		out = append(out, control.ActiveFault{Route: r.route, Fault: r.fault, Remaining: r.remaining})
	}
	return out
}

// TakeFault finds the fault for a request (r, nil for one that is not
// HTTP) that reached route, and counts the request against it.
func (k *Kit) TakeFault(r *http.Request, route string) (control.Fault, bool) {
	k.faultMu.Lock()
	defer k.faultMu.Unlock()
	for i, rule := range k.faults {
		if !rule.match(r, route) {
			continue
		}
		if rule.remaining > 0 {
			rule.remaining--
			if rule.remaining == 0 {
				k.faults = append(k.faults[:i:i], k.faults[i+1:]...)
			}
		}
		return rule.fault, true
	}
	return control.Fault{}, false
}

// ErrClosed is what a wait answers when the fake closes during it.
var ErrClosed = errors.New("the fake is shut down")

// Wait waits out a fault's latency, on the wall clock or, with OnClock, on
// the fake's. It ends early with ctx's error when the caller gives up, and
// with ErrClosed when the kit closes.
func (k *Kit) Wait(ctx context.Context, f control.Fault) error {
	if f.Latency <= 0 {
		return nil
	}
	fired := make(chan struct{})
	if f.OnClock {
		t := k.clock.AfterFunc(f.Latency, func() { close(fired) })
		defer t.Stop()
	} else {
		t := time.AfterFunc(f.Latency, func() { close(fired) })
		defer t.Stop()
	}
	select {
	case <-fired:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-k.done:
		return ErrClosed
	}
}

// applyFault answers r as f says; it reports whether r should still go on
// to its route.
func (k *Kit) applyFault(w *statusRecorder, r *http.Request, f control.Fault) bool {
	if err := k.Wait(r.Context(), f); err != nil {
		if errors.Is(err, ErrClosed) {
			k.writeError(w, r, http.StatusServiceUnavailable, "")
		}
		return false
	}
	if f.Drop {
		// Logged before the connection closes: a client that has seen the
		// drop finds the request in the log (Finish, after, would be late).
		w.x.commit()
		dropConnection(w)
		return false
	}
	for name, vals := range f.Header {
		w.Header()[http.CanonicalHeaderKey(name)] = vals
	}
	if f.Status == 0 {
		return true
	}
	if f.Body != "" {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
		return false
	}
	// The service's error answer, with the fault's headers over its own (a
	// fault's Retry-After wins over the one a 429 carries by default).
	a := k.ErrorAnswer(r, f.Status, f.Message)
	if len(f.Header) > 0 {
		h := a.Header.Clone()
		if h == nil {
			h = http.Header{}
		}
		for name, vals := range f.Header {
			h[http.CanonicalHeaderKey(name)] = vals
		}
		a.Header = h
	}
	WriteAnswer(w, a)
	return false
}

// dropConnection closes the client's connection without an answer.
func dropConnection(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	// HTTP/2 cannot hijack; aborting the handler resets the stream.
	panic(http.ErrAbortHandler)
}
