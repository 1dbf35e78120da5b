package fakekit

import (
	"fmt"
	"net/http"
	"time"
)

// Fault is an answer a test forces on the next requests to a route.
type Fault struct {
	// Status answers with this status instead of the route. 0 lets the
	// request through to its route (after Latency), unless Drop is set.
	Status int
	// Body is the raw answer body; empty means the API's own error body for
	// Status.
	Body string
	// Header is added to the answer.
	Header http.Header
	// Latency delays the answer by this much wall-clock time (it exists to
	// exercise client timeouts and concurrency, so it is real time).
	Latency time.Duration
	// Drop closes the connection without answering.
	Drop bool
	// Times is how many requests the fault affects; 0 means every request
	// until ClearFaults.
	Times int
}

type faultRule struct {
	route     string
	match     *http.ServeMux // holds just the rule's pattern, to let ServeMux do the matching
	fault     Fault
	remaining int // -1 for unlimited
}

// InjectFault makes requests matching route answer as f says. route is an
// http.ServeMux pattern: "POST /api/v4/projects", "GET /api/v4/projects/{id}",
// "/api/v4/" (every method, every path below), or "" for every request.
// Faults apply in the order they were injected; the first that matches and
// has requests left wins.
func (k *Kit) InjectFault(route string, f Fault) (err error) {
	if f.Times < 0 || f.Latency < 0 || f.Status != 0 && (f.Status < 100 || f.Status > 999) {
		return fmt.Errorf("fakekit: invalid fault %+v", f)
	}
	rule := &faultRule{route: route, fault: f, remaining: f.Times}
	if f.Times == 0 {
		rule.remaining = -1
	}
	if route != "" {
		rule.match = http.NewServeMux()
		defer func() { // ServeMux.Handle panics on a malformed pattern
			if p := recover(); p != nil {
				err = fmt.Errorf("fakekit: invalid route pattern %q: %v", route, p)
			}
		}()
		rule.match.Handle(route, http.NotFoundHandler())
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.faults = append(k.faults, rule)
	return nil
}

// ClearFaults removes every injected fault.
func (k *Kit) ClearFaults() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.faults = nil
}

// takeFault finds the fault for r and counts r against it.
func (k *Kit) takeFault(r *http.Request) (Fault, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for i, rule := range k.faults {
		if rule.match != nil {
			if _, pattern := rule.match.Handler(r); pattern == "" {
				continue
			}
		}
		if rule.remaining > 0 {
			rule.remaining--
			if rule.remaining == 0 {
				k.faults = append(k.faults[:i:i], k.faults[i+1:]...)
			}
		}
		return rule.fault, true
	}
	return Fault{}, false
}

// applyFault answers r as f says; it reports whether r should still go on to
// its route.
func (k *Kit) applyFault(w *statusRecorder, r *http.Request, f Fault) bool {
	if f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-r.Context().Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
	if f.Drop {
		dropConnection(w)
		return false
	}
	for name, vals := range f.Header {
		w.Header()[name] = vals
	}
	if f.Status == 0 {
		return true
	}
	switch {
	case f.Body != "":
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(f.Body))
	case k.faultBody != nil:
		k.faultBody(w, r, f.Status)
	default:
		http.Error(w, http.StatusText(f.Status), f.Status)
	}
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
