package orchfake

import "time"

// SetStartHook makes s call hook inside every workflow start, with the
// state lock held: tests use it to make a handler panic there.
func SetStartHook(s *Server, hook func()) { s.startHook.Store(&hook) }

// WorkflowTaskRetryDelay is the backoff before a failed workflow task's
// attempt.
func WorkflowTaskRetryDelay(attempt int32) time.Duration { return workflowTaskRetryDelay(attempt) }
