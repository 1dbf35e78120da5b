package orch_test

import (
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/google/go-cmp/cmp"
)

// firstTaskDone starts a workflow and completes its first workflow task
// with no command (events 1-4), then signals it (5, and a task at 6).
func firstTaskDone(t *testing.T, c *orch.Client, queue string) *orch.WorkflowRun {
	t.Helper()
	run, err := c.StartWorkflow(t.Context(), "Order", queue, nil, &orch.StartWorkflowOptions{ID: uid("reset")})
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.Raw().PollWorkflowTaskQueue(t.Context(), &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: queue, Identity: "test"})
	if err != nil || len(task.GetTaskToken()) == 0 {
		t.Fatalf("poll: %v", err)
	}
	if _, err := c.Raw().RespondWorkflowTaskCompleted(t.Context(), &orchpb.RespondWorkflowTaskCompletedRequest{TaskToken: task.GetTaskToken()}); err != nil {
		t.Fatal(err)
	}
	if err := run.Signal(t.Context(), "paid", 12, nil); err != nil {
		t.Fatal(err)
	}
	return run
}

func TestResetWorkflow(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		queue := uid("reset-q")
		run := firstTaskDone(t, c, queue)
		next, err := c.ResetWorkflow(t.Context(), run.ID, run.RunID, 4, &orch.ResetOptions{Reason: "replay the payment"})
		if err != nil {
			t.Fatal(err)
		}
		if next.ID != run.ID || next.RunID == run.RunID || next.RunID == "" {
			t.Fatalf("new run %+v of %+v", next, run)
		}
		old, err := c.DescribeWorkflow(t.Context(), run.ID, run.RunID)
		if err != nil || old.GetStatus() != orchpb.WorkflowExecutionStatus_TERMINATED {
			t.Fatalf("the reset run: %v, %v", old.GetStatus(), err)
		}
		want := []orchpb.EventType{orchpb.EventType_WorkflowExecutionStarted, orchpb.EventType_WorkflowTaskScheduled, orchpb.EventType_WorkflowTaskStarted,
			orchpb.EventType_WorkflowTaskFailed, orchpb.EventType_WorkflowExecutionSignaled, orchpb.EventType_WorkflowTaskScheduled}
		if diff := cmp.Diff(want, eventTypes(t, c, next.ID, next.RunID)); diff != "" {
			t.Errorf("the new run's history (-want +got):\n%s", diff)
		}
		cur, err := c.DescribeWorkflow(t.Context(), run.ID, "")
		if err != nil || cur.GetExecution().GetRunId() != next.RunID {
			t.Errorf("current run %v, %v; want %s", cur.GetExecution(), err, next.RunID)
		}

		// Back to an event that does not end a workflow task: refused.
		_, err = c.ResetWorkflow(t.Context(), run.ID, next.RunID, 5, nil)
		if !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("reset to a signal: %v, want INVALID_ARGUMENT", err)
		}
	})
}

func TestDeleteWorkflow(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		run, err := c.StartWorkflow(t.Context(), "Order", uid("delete-q"), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteWorkflow(t.Context(), run.ID, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := run.Describe(t.Context()); !errors.Is(err, orch.ErrWorkflowExecutionNotFound) {
			t.Errorf("describe after delete: %v", err)
		}
		if err := run.Signal(t.Context(), "late", nil, nil); !errors.Is(err, orch.ErrWorkflowExecutionNotFound) {
			t.Errorf("signal after delete: %v", err)
		}
	})
}

func TestStartConflictPolicy(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		id, queue := uid("conflict"), uid("conflict-q")
		first, err := c.StartWorkflow(t.Context(), "Order", queue, nil, &orch.StartWorkflowOptions{ID: id})
		if err != nil {
			t.Fatal(err)
		}
		var started *orch.WorkflowExecutionAlreadyStartedError
		if _, err := c.StartWorkflow(t.Context(), "Order", queue, nil, &orch.StartWorkflowOptions{ID: id}); !errors.As(err, &started) {
			t.Errorf("default policy: %v", err)
		}
		same, err := c.StartWorkflow(t.Context(), "Order", queue, nil, &orch.StartWorkflowOptions{ID: id,
			ConflictPolicy: orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING})
		if err != nil || same.RunID != first.RunID || same.Started {
			t.Errorf("use existing: %+v, %v", same, err)
		}
		fresh, err := c.StartWorkflow(t.Context(), "Order", queue, nil, &orch.StartWorkflowOptions{ID: id,
			ConflictPolicy: orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING})
		if err != nil || fresh.RunID == first.RunID || !fresh.Started {
			t.Errorf("terminate existing: %+v, %v", fresh, err)
		}
		if _, err := c.SignalWithStartWorkflow(t.Context(), id, "go", nil, "Order", queue, nil, &orch.StartWorkflowOptions{
			ConflictPolicy: orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_FAIL}); !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("signal-with-start FAIL: %v", err)
		}
		got, err := c.GetWorkflow(t.Context(), id, "", 0)
		if err != nil || got.GetPendingWorkflowTask().GetState() != orchpb.PendingWorkflowTaskState_PENDING_WORKFLOW_TASK_STATE_SCHEDULED {
			t.Errorf("pending workflow task: %v, %v", got.GetPendingWorkflowTask(), err)
		}
	})
}

func TestUpdateDeprecateDeleteNamespace(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		e.fake(t) // registers and deletes namespaces
		c := e.client(t)
		ctx := t.Context()
		if err := c.RegisterNamespace(ctx, "billing", &orch.RegisterNamespaceOptions{Description: "old", Data: map[string]string{"team": "ops"}}); err != nil {
			t.Fatal(err)
		}
		ns, err := c.UpdateNamespace(ctx, "billing", &orch.UpdateNamespaceOptions{Description: "invoices", Retention: 30 * 24 * time.Hour,
			Data: map[string]string{"site": "eu"}})
		if err != nil {
			t.Fatal(err)
		}
		if ns.GetNamespaceInfo().GetDescription() != "invoices" || ns.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration() != 30*24*time.Hour ||
			!cmp.Equal(ns.GetNamespaceInfo().GetData(), map[string]string{"team": "ops", "site": "eu"}) {
			t.Errorf("updated: %v", ns)
		}
		if _, err := c.UpdateNamespace(ctx, "billing", &orch.UpdateNamespaceOptions{Retention: time.Minute}); !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("a minute's retention: %v", err)
		}
		if err := c.DeprecateNamespace(ctx, "billing"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.WithNamespace("billing").StartWorkflow(ctx, "Order", "q", nil, nil); !errors.Is(err, orch.ErrFailedPrecondition) {
			t.Errorf("a start in a deprecated namespace: %v", err)
		}
		if err := c.DeleteNamespace(ctx, "billing"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DescribeNamespace(ctx, "billing"); !errors.Is(err, orch.ErrNamespaceNotFound) {
			t.Errorf("describe after delete: %v", err)
		}
	})
}
