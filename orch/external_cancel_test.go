package orch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// A workflow asks another execution to cancel itself with
// RequestCancelExternalWorkflowCommand: the other gets the request as an
// event and agrees, the asker learns it was delivered; asked about an
// execution that does not exist, the asker learns that it failed.
func TestRequestCancelExternalWorkflow(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("external")
		w, err := orch.NewWorker(c, q, nil)
		must(t, err)
		must(t, w.RegisterWorkflow("Patient", orch.Workflow{Decide: func(_ context.Context, task *orch.WorkflowTask) ([]*orchpb.Command, error) {
			if task.CancelRequested() {
				return []*orchpb.Command{orch.CancelWorkflowCommand()}, nil
			}
			return nil, nil
		}}))
		// Asker asks the execution named by its input to cancel, and
		// completes with what became of the request.
		must(t, w.RegisterWorkflow("Asker", orch.Workflow{Decide: func(_ context.Context, task *orch.WorkflowTask) ([]*orchpb.Command, error) {
			for _, ev := range task.History {
				var outcome string
				switch {
				case ev.GetExternalWorkflowExecutionCancelRequestedEventAttributes() != nil:
					outcome = "delivered"
				case ev.GetRequestCancelExternalWorkflowExecutionFailedEventAttributes() != nil:
					outcome = "failed: " + strings.ToLower(ev.GetRequestCancelExternalWorkflowExecutionFailedEventAttributes().GetCause().String())
				default:
					continue
				}
				cmd, err := orch.CompleteWorkflowCommand(outcome)
				return []*orchpb.Command{cmd}, err
			}
			if len(task.History) > 3 { // asked already, waiting for the outcome
				return nil, nil
			}
			var target string
			if err := task.Input(&target); err != nil {
				return nil, err
			}
			return []*orchpb.Command{orch.RequestCancelExternalWorkflowCommand(target, "", false, "no longer needed")}, nil
		}}))
		must(t, w.Start(t.Context()))
		defer w.Stop()

		patient, err := c.StartWorkflow(t.Context(), "Patient", q, nil, nil)
		must(t, err)
		for target, want := range map[string]string{patient.ID: "delivered", uid("nobody"): "failed: external_workflow_execution_not_found"} {
			asker, err := c.StartWorkflow(t.Context(), "Asker", q, target, nil)
			must(t, err)
			var got string
			if err := asker.Get(t.Context(), &got); err != nil || got != want {
				t.Errorf("asking %s to cancel: %q, %v; want %q", target, got, err, want)
			}
		}
		var werr *orch.WorkflowExecutionError
		err = patient.Get(t.Context(), nil)
		if !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_CANCELED || !strings.Contains(err.Error(), "canceled") {
			t.Errorf("the patient: %v", err)
		}
	})
}
