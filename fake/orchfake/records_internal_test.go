package orchfake

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// A run's history is bounded at the service's count limit: a signal or a
// cancel request past it is refused and writes nothing. Before (issue 38),
// a caller signalling one run grew its history without end.
func TestHistoryIsBounded(t *testing.T) {
	t.Parallel()
	s, err := New(WithoutLimits())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run, err := s.startWorkflow(ctx, &orchpb.StartWorkflowExecutionRequest{Namespace: "default", WorkflowId: "w",
		WorkflowType: &orchpb.WorkflowType{Name: "t"}, TaskQueue: "q"})
	if err != nil {
		t.Fatal(err)
	}
	we := &orchpb.WorkflowExecution{WorkflowId: "w", RunId: run.GetRunId()}
	signal := func() error {
		_, err := s.signalWorkflow(ctx, &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we, SignalName: "s"})
		return err
	}
	if err := signal(); err != nil {
		t.Fatal(err)
	}
	// Fill the history to the limit (as that many signals would).
	s.mu.Lock()
	e := s.st.namespaces["default"].runs[run.GetRunId()]
	for len(e.history) < MaxHistoryEvents {
		e.history = append(e.history, &orchpb.HistoryEvent{EventId: int64(len(e.history) + 1), EventType: orchpb.EventType_WorkflowExecutionSignaled})
	}
	s.mu.Unlock()
	for name, call := range map[string]func() error{
		"signal": signal,
		"cancel request": func() error {
			_, err := s.requestCancelWorkflow(ctx, &orchpb.RequestCancelWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we})
			return err
		},
		"signal-with-start": func() error {
			_, err := s.signalWithStart(ctx, &orchpb.SignalWithStartWorkflowExecutionRequest{Namespace: "default", WorkflowId: "w",
				WorkflowType: &orchpb.WorkflowType{Name: "t"}, TaskQueue: "q", SignalName: "s"})
			return err
		},
	} {
		if ae := toAPIError(call()); ae == nil || ae.code != orchwire.InvalidArgument {
			t.Errorf("%s past the history limit: %v", name, ae)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(e.history) != MaxHistoryEvents {
		t.Fatalf("history %d events", len(e.history))
	}
}

// The histories of all runs together hold at most three times
// WithMaxRecords events: past it, a signal is refused; the count kept
// agrees with the state's.
func TestAllHistoriesAreBounded(t *testing.T) {
	t.Parallel()
	s, err := New(WithoutLimits(), control.WithMaxRecords(2))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run, err := s.startWorkflow(ctx, &orchpb.StartWorkflowExecutionRequest{Namespace: "default", WorkflowId: "w",
		WorkflowType: &orchpb.WorkflowType{Name: "t"}, TaskQueue: "q"})
	if err != nil {
		t.Fatal(err)
	}
	we := &orchpb.WorkflowExecution{WorkflowId: "w", RunId: run.GetRunId()}
	var refused *apiError
	for range 30 {
		_, err := s.signalWorkflow(ctx, &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we, SignalName: "s"})
		if err != nil {
			refused = toAPIError(err)
			break
		}
	}
	if refused == nil || refused.code != orchwire.ResourceExhausted {
		t.Fatalf("30 signals past a bound of 6 events: %v", refused)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.st.namespaces["default"].runs[run.GetRunId()]
	if len(e.history) != 6 || s.eventCount() != 6 {
		t.Fatalf("history %d events, %d counted", len(e.history), s.eventCount())
	}
}
