package orch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// SignalWithStart starts and signals atomically, then only signals the
// running run.
func TestSignalWithStartWorkflow(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		id := uid("cart")
		run, err := c.SignalWithStartWorkflow(t.Context(), id, "add", "book", "Cart", "carts", []string{}, nil)
		if err != nil || !run.Started || run.RunID == "" {
			t.Fatalf("first: %+v, %v", run, err)
		}
		again, err := c.SignalWithStartWorkflow(t.Context(), id, "add", "pen", "Cart", "carts", nil, nil)
		if err != nil || again.Started || again.RunID != run.RunID {
			t.Fatalf("second: %+v, %v", again, err)
		}
		var signals []string
		for ev, err := range run.History(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil {
				var item string
				if err := orch.DecodePayloads(a.GetInput(), &item); err != nil {
					t.Fatal(err)
				}
				signals = append(signals, item)
			}
		}
		if fmt.Sprint(signals) != "[book pen]" {
			t.Errorf("signals %v", signals)
		}
	})
}

// A parent starts a child with a command, the child's result reaches the
// parent's history, and the parent completes with it; a cancellation
// request reaches the workflow as an event it decides on.
func TestChildWorkflowAndCancellation(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		q := uid("family")
		w, err := orch.NewWorker(c, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Double doubles its input.
		must(t, w.RegisterWorkflow("Double", orch.Workflow{Decide: func(_ context.Context, task *orch.WorkflowTask) ([]*orchpb.Command, error) {
			var n int
			if err := task.Input(&n); err != nil {
				return nil, err
			}
			cmd, err := orch.CompleteWorkflowCommand(2 * n)
			return []*orchpb.Command{cmd}, err
		}}))
		// Parent starts Double(21) and returns what it answers.
		must(t, w.RegisterWorkflow("Parent", orch.Workflow{Decide: func(_ context.Context, task *orch.WorkflowTask) ([]*orchpb.Command, error) {
			started := false
			for _, ev := range task.History {
				if a := ev.GetChildWorkflowExecutionCompletedEventAttributes(); a != nil {
					var n int
					if err := orch.DecodePayloads(a.GetResult(), &n); err != nil {
						return nil, err
					}
					cmd, err := orch.CompleteWorkflowCommand(n)
					return []*orchpb.Command{cmd}, err
				}
				started = started || ev.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil
			}
			if started {
				return nil, nil // waiting for the child
			}
			cmd, err := orch.StartChildWorkflowCommand(task.WorkflowID+"-child", "Double", 21, nil)
			return []*orchpb.Command{cmd}, err
		}}))
		// Patient waits until asked to cancel, then agrees.
		must(t, w.RegisterWorkflow("Patient", orch.Workflow{Decide: func(_ context.Context, task *orch.WorkflowTask) ([]*orchpb.Command, error) {
			if task.CancelRequested() {
				return []*orchpb.Command{orch.CancelWorkflowCommand()}, nil
			}
			return nil, nil
		}}))
		must(t, w.Start(t.Context()))
		defer w.Stop()

		run, err := c.StartWorkflow(t.Context(), "Parent", q, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := run.Get(t.Context(), &got); err != nil || got != 42 {
			t.Fatalf("parent: %d, %v", got, err)
		}
		child, err := c.DescribeWorkflow(t.Context(), run.ID+"-child", "")
		if err != nil || child.GetParentExecution().GetWorkflowId() != run.ID || child.GetStatus() != orchpb.WorkflowExecutionStatus_COMPLETED {
			t.Errorf("child: %v, %v", child, err)
		}

		patient, err := c.StartWorkflow(t.Context(), "Patient", q, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := patient.RequestCancel(t.Context(), &orch.CancelOptions{Reason: "customer left"}); err != nil {
			t.Fatal(err)
		}
		var werr *orch.WorkflowExecutionError
		if err := patient.Get(t.Context(), nil); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_CANCELED {
			t.Errorf("canceled workflow: %v", err)
		}
	})
}
