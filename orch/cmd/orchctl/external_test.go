package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// TestShowSignalsBetweenWorkflows: workflow show names a signal's sender
// and target, a failed signal's cause and the memo a workflow upserted;
// describe shows the upserted memo.
func TestShowSignalsBetweenWorkflows(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, c cli) {
		wc := c.srv.Client(orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
		t.Cleanup(func() { _ = wc.Close() })
		w, err := orch.NewWorker(wc, "q", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(
			workflow.Register(w, "Hold", hold),
			workflow.Register(w, "Poke", func(ctx workflow.Context, _ any) (string, error) {
				if err := workflow.SignalExternalWorkflow(ctx, "held", "", "add", "done").Get(ctx, nil); err != nil {
					return "", err
				}
				_ = workflow.SignalExternalWorkflow(ctx, "nobody", "", "add", "x").Get(ctx, nil)
				return "poked", workflow.UpsertMemo(ctx, map[string]any{"stage": "poked"})
			}),
		); err != nil {
			t.Fatal(err)
		}
		if err := w.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		c.ok("workflow", "start", "-t", "Hold", "-q", "q", "-w", "held", "-i", `"in"`)
		c.ok("workflow", "start", "-t", "Poke", "-q", "q", "-w", "poker", "--wait")
		c.ok("workflow", "result", "held")
		out := c.ok("workflow", "show", "poker")
		for _, want := range []string{"SignalExternalWorkflowExecutionInitiated", "id=held name=add input=\"done\"",
			"ExternalWorkflowExecutionSignaled", "SignalExternalWorkflowExecutionFailed", "cause=SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND",
			"WorkflowPropertiesModified", `memo.stage="poked"`} {
			if !strings.Contains(out, want) {
				t.Errorf("show poker printed\n%s\nwant %q", out, want)
			}
		}
		if out := c.ok("workflow", "show", "held"); !strings.Contains(out, `name=add input="done" from=poker`) {
			t.Errorf("show held printed\n%s", out)
		}
		if out := c.ok("workflow", "describe", "poker"); !strings.Contains(out, `Memo stage`) || !strings.Contains(out, `"poked"`) {
			t.Errorf("describe poker printed\n%s", out)
		}
	})
}
