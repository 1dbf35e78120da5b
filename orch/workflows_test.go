package orch_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

type order struct {
	ID    string  `json:"id"`
	Total float64 `json:"total"`
}

func TestStartDescribeSignalTerminate(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		id := uid("order")
		run, err := c.StartWorkflow(t.Context(), "OrderWorkflow", "orders", order{ID: "o-1", Total: 9.5}, &orch.StartWorkflowOptions{
			ID:               id,
			ExecutionTimeout: time.Hour,
			RunTimeout:       30 * time.Minute,
			TaskTimeout:      10 * time.Second,
			RetryPolicy:      &orch.ServerRetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 3},
			Memo:             map[string]any{"customer": "ada"},
			CronSchedule:     "",
		})
		if err != nil {
			t.Fatal(err)
		}
		if run.ID != id || run.RunID == "" || !run.Started {
			t.Fatalf("run %+v", run)
		}
		info, err := run.Describe(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if info.GetStatus() != orchpb.WorkflowExecutionStatus_RUNNING || info.GetType().GetName() != "OrderWorkflow" ||
			info.GetTaskQueue() != "orders" || info.GetExecution().GetRunId() != run.RunID {
			t.Errorf("info %v", info)
		}
		var memo string
		if err := orch.DecodePayload(info.GetMemo().GetFields()["customer"], &memo); err != nil || memo != "ada" {
			t.Errorf("memo %q, %v", memo, err)
		}
		// The input arrives as JSON in the started event.
		var first *orchpb.HistoryEvent
		for ev, err := range run.History(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			first = ev
			break
		}
		var in order
		if err := orch.DecodePayloads(first.GetWorkflowExecutionStartedEventAttributes().GetInput(), &in); err != nil || in.ID != "o-1" {
			t.Errorf("input %+v, %v", in, err)
		}
		if err := run.Signal(t.Context(), "add-item", map[string]int{"sku": 7}, nil); err != nil {
			t.Fatal(err)
		}
		if err := c.SignalWorkflow(t.Context(), id, "", "ping", nil, nil); err != nil { // the latest run
			t.Fatal(err)
		}
		if err := run.Terminate(t.Context(), &orch.TerminateOptions{Reason: "test over", Details: "bye"}); err != nil {
			t.Fatal(err)
		}
		want := []orchpb.EventType{
			orchpb.EventType_WorkflowExecutionStarted, orchpb.EventType_WorkflowTaskScheduled,
			orchpb.EventType_WorkflowExecutionSignaled, orchpb.EventType_WorkflowExecutionSignaled,
			orchpb.EventType_WorkflowExecutionTerminated,
		}
		if diff := cmp.Diff(want, eventTypes(t, c, id, run.RunID)); diff != "" {
			t.Errorf("history (-want +got):\n%s", diff)
		}
		// A closed execution refuses changes; an unknown one is not found.
		err = run.Signal(t.Context(), "late", nil, nil)
		if !errors.Is(err, orch.ErrWorkflowExecutionCompleted) || !errors.Is(err, orch.ErrNotFound) {
			t.Errorf("signal after terminate: %v", err)
		}
		if err := run.Terminate(t.Context(), nil); !errors.Is(err, orch.ErrWorkflowExecutionCompleted) {
			t.Errorf("terminate twice: %v", err)
		}
		_, err = c.DescribeWorkflow(t.Context(), uid("nobody"), "")
		if !errors.Is(err, orch.ErrWorkflowExecutionNotFound) || !errors.Is(err, orch.ErrNotFound) {
			t.Errorf("describe unknown: %v", err)
		}
		var werr *orch.WorkflowExecutionError
		if err := run.Get(t.Context(), nil); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_TERMINATED {
			t.Errorf("result of a terminated run: %v", err)
		}
	})
}

func TestStartReusePoliciesAndRequestID(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		id := uid("reuse")
		first, err := c.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ID: id, RequestID: "req-1"})
		if err != nil {
			t.Fatal(err)
		}
		// The same request id again: the same run, nothing new started.
		again, err := c.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ID: id, RequestID: "req-1"})
		if err != nil || again.RunID != first.RunID || again.Started {
			t.Fatalf("repeated start: %+v, %v", again, err)
		}
		_, err = c.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ID: id})
		var started *orch.WorkflowExecutionAlreadyStartedError
		if !errors.As(err, &started) || started.WorkflowID != id || started.RunID != first.RunID {
			t.Fatalf("second start: %v (%+v)", err, started)
		}
		if !errors.Is(err, orch.ErrWorkflowExecutionAlreadyStarted) {
			t.Errorf("%v is not ErrWorkflowExecutionAlreadyStarted", err)
		}
		// A run that did not complete successfully may be followed under
		// ALLOW_DUPLICATE_FAILED_ONLY.
		if err := first.Terminate(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		second, err := c.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ID: id, ReusePolicy: orchpb.WorkflowIdReusePolicy_ALLOW_DUPLICATE_FAILED_ONLY})
		if err != nil || second.RunID == first.RunID {
			t.Fatalf("start after terminate: %+v, %v", second, err)
		}
		// One that completed may not.
		completeNextTask(t, c, "q", "done")
		var result string
		if err := second.Get(t.Context(), &result); err != nil || result != "done" {
			t.Fatalf("result %q, %v", result, err)
		}
		_, err = c.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ID: id, ReusePolicy: orchpb.WorkflowIdReusePolicy_ALLOW_DUPLICATE_FAILED_ONLY})
		if !errors.As(err, &started) || started.RunID != second.RunID {
			t.Errorf("start after success under ALLOW_DUPLICATE_FAILED_ONLY: %v", err)
		}
	})
}

func TestWaitForCompletionLongPolls(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		run, err := c.StartWorkflow(t.Context(), "W", "waiting", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		type answer struct {
			ev  *orchpb.HistoryEvent
			err error
		}
		done := make(chan answer, 1)
		go func() {
			ev, err := run.Wait(t.Context())
			done <- answer{ev, err}
		}()
		if err := c.RequestCancelWorkflow(t.Context(), run.ID, run.RunID, &orch.CancelOptions{Reason: "not needed"}); err != nil {
			t.Fatal(err)
		}
		completeNextTask(t, c, "waiting", map[string]string{"state": "shipped"})
		a := <-done
		if a.err != nil || a.ev.GetEventType() != orchpb.EventType_WorkflowExecutionCompleted {
			t.Fatalf("wait: %v, %v", a.ev, a.err)
		}
		var got map[string]string
		if err := c.GetResult(t.Context(), run.ID, "", &got); err != nil || got["state"] != "shipped" {
			t.Errorf("result %v, %v", got, err)
		}
		types := eventTypes(t, c, run.ID, run.RunID)
		if !slices.Contains(types, orchpb.EventType_WorkflowExecutionCancelRequested) {
			t.Errorf("no cancel request in %v", types)
		}
	})
}

func TestHistoryPagesAndTimeouts(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t)
		run, err := c.StartWorkflow(t.Context(), "W", "q", nil, &orch.StartWorkflowOptions{ExecutionTimeout: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if err := run.Signal(t.Context(), "s", i, nil); err != nil {
				t.Fatal(err)
			}
		}
		srv.ResetRequests()
		var ids []int64
		for ev, err := range run.History(t.Context(), &orch.HistoryOptions{PageSize: 2}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, ev.GetEventId())
		}
		if diff := cmp.Diff([]int64{1, 2, 3, 4, 5, 6, 7}, ids); diff != "" {
			t.Errorf("event ids (-want +got):\n%s", diff)
		}
		if n := len(srv.RequestsTo("GetWorkflowExecutionHistory")); n != 4 {
			t.Errorf("%d pages read, want 4", n)
		}
		// Breaking off reads no further page.
		srv.ResetRequests()
		for range run.History(t.Context(), &orch.HistoryOptions{PageSize: 2}) {
			break
		}
		if n := len(srv.RequestsTo("GetWorkflowExecutionHistory")); n != 1 {
			t.Errorf("%d pages read after break, want 1", n)
		}
		// The execution timeout fires on the fake clock.
		srv.Clock().Advance(time.Hour)
		var werr *orch.WorkflowExecutionError
		if err := run.Get(t.Context(), nil); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_TIMED_OUT {
			t.Errorf("after the execution timeout: %v", err)
		}
	})
}
