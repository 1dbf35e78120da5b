package orchfake

import (
	"net/http"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
)

// InjectFault makes the next calls of operation op (an RPC's name such as
// "StartWorkflowExecution", or "" for every operation) answer as f says, on
// both transports: f.Code is one of orchwire's codes ("UNAVAILABLE",
// "RESOURCE_EXHAUSTED", …), or f.Status an HTTP status the code is read
// from (503 is UNAVAILABLE); f.Latency delays the call first (on the fake
// clock with OnClock). An injected RESOURCE_EXHAUSTED is a rate refusal:
// it carries the RateLimitExceeded detail (scope "fault"), as the fake's own
// limits do. Body, Header and Drop belong to HTTP routes and are
// refused. Faults apply in the order they were injected; the first that
// matches and has calls left wins.
func (s *Server) InjectFault(op string, f control.Fault) error { return s.kit.InjectFault(op, f) }

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() { s.kit.ClearFaults() }

// Faults returns the faults in force, in the order they apply.
func (s *Server) Faults() []control.ActiveFault { return s.kit.Faults() }

// Requests returns the calls received over both transports, oldest first:
// the operation as Route, the request message as JSON in Body (over HTTP,
// the body sent), the code answered as Code, the caller as Caller.
func (s *Server) Requests() []control.Request { return s.kit.Requests() }

// RequestsTo returns the logged calls of one operation
// ("StartWorkflowExecution").
func (s *Server) RequestsTo(op string) []control.Request { return s.kit.RequestsTo(op) }

// RequestCount is how many calls the log holds, without copying it.
func (s *Server) RequestCount() int { return s.kit.RequestCount() }

// ResetRequests empties the request log.
func (s *Server) ResetRequests() { s.kit.ResetRequests() }

// Clock returns the fake's clock: it drives execution timeouts, task
// timeouts, timers, token expiry and rate-limit windows.
func (s *Server) Clock() *clock.Fake { return s.clk }

// Reset puts the fake back as New left it: the "default" namespace alone,
// no execution, task queue or timer, no fault, an empty request log, fresh
// rate windows. Running long polls end empty. The signing key, the API
// keys, the options and the clock stay.
func (s *Server) Reset() {
	s.kit.ClearFaults()
	s.kit.ResetRequests()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.stopTimers()
	s.st.endPolls()
	s.st = newState(s)
	s.limits.init(s.clk, s.cfg.limits)
}

var _ control.Controls = (*Server)(nil)

// errorAnswer is the HTTP side's error body for what the kit refuses
// itself: a body over the limit (413, RESOURCE_EXHAUSTED) and a panic
// (500, INTERNAL).
func errorAnswer(_ *http.Request, status int, msg string) fakekit.Answer {
	code := orchwire.FromHTTPStatus(status)
	if status == http.StatusRequestEntityTooLarge {
		code = orchwire.ResourceExhausted
	}
	if msg == "" {
		switch status {
		case http.StatusRequestEntityTooLarge:
			msg = "request body too large: it is more than the fake's limit (WithMaxBody)"
		case http.StatusInternalServerError:
			msg = "internal error: the fake panicked (a bug in orchfake; the request log holds the stack)"
		default:
			msg = http.StatusText(status)
		}
	}
	return fakekit.Answer{Status: status, Raw: orchwire.HTTPBody(code, msg), ContentType: "application/json"}
}

// knownOp reports whether name is an operation of the contract, for fault
// routes.
func knownOp(name string) bool {
	r, ok := orchwire.LookupRPC(name)
	return ok && r.Name == name
}
