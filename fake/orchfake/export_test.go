package orchfake

import (
	"net/http"
	"time"
)

// SetStartHook makes s call hook inside every workflow start, with the
// state lock held: tests use it to make a handler panic there.
func SetStartHook(s *Server, hook func()) { s.startHook.Store(&hook) }

// SetUpdateHook makes s call hook when it admits an update, with the
// state lock held: tests use it to know an update is in.
func SetUpdateHook(s *Server, hook func()) { s.updateHook.Store(&hook) }

// WorkflowTaskRetryDelay is the backoff before a failed workflow task's
// attempt.
func WorkflowTaskRetryDelay(attempt int32) time.Duration { return workflowTaskRetryDelay(attempt) }

// SetGatewayOnly makes s answer List and Scan over HTTP through
// grpc-gateway only (on), without the direct path, or by it again (off).
func SetGatewayOnly(s *Server, on bool) { s.gatewayOnly.Store(on) }

// TakesDirect is whether the direct List and Scan path takes r (it puts
// back a Scan body it reads).
func TakesDirect(r *http.Request) bool {
	_, ok := parseListCall(r)
	return ok
}
