package workflow_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// receiver returns the first "ping" signal's value.
func receiver(ctx workflow.Context, _ struct{}) (string, error) {
	var got string
	workflow.GetSignalChannel(ctx, "ping").Receive(ctx, &got)
	return got, nil
}

// victim waits until asked to cancel.
func victim(ctx workflow.Context, _ struct{}) (string, error) {
	return "", workflow.Await(ctx, func() bool { return false })
}

// sender signals and cancels the workflows its input names (the prefix of
// their ids), also ones that do not exist, and upserts its memo and
// search attributes; it returns what each request came to.
func sender(ctx workflow.Context, prefix string) ([]string, error) {
	var out []string
	outcome := func(f workflow.Future) {
		err := f.Get(ctx, nil)
		var xe *workflow.ExternalWorkflowError
		switch {
		case err == nil:
			out = append(out, "ok")
		case errors.As(err, &xe) && errors.Is(err, workflow.ErrUnknownExternalWorkflowExecution):
			out = append(out, xe.Op+" "+xe.WorkflowID+": unknown")
		default:
			out = append(out, err.Error())
		}
	}
	outcome(workflow.SignalExternalWorkflow(ctx, prefix+"receiver", "", "ping", "hello"))
	outcome(workflow.SignalExternalWorkflow(ctx, prefix+"nobody", "", "ping", "hello"))
	outcome(workflow.RequestCancelExternalWorkflow(ctx, prefix+"victim", ""))
	outcome(workflow.RequestCancelExternalWorkflow(ctx, prefix+"nobody", ""))
	if err := workflow.UpsertMemo(ctx, map[string]any{"stage": "sent", "draft": nil}); err != nil {
		return nil, err
	}
	if err := workflow.UpsertSearchAttributes(ctx, map[string]any{"Stage": "sent"}); err != nil {
		return nil, err
	}
	return out, nil
}

// TestSignalAndCancelExternalWorkflows: through the whole stack, over both
// transports and with and without the worker's cache: a signal reaches
// its target (which sees the sender), a cancel request cancels its
// target, both fail with ErrUnknownExternalWorkflowExecution for an id
// with no run, the memo and search attribute upserts show in describe
// and in queries, and the sender's history replays.
func TestSignalAndCancelExternalWorkflows(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	if err := srv.Client().AddSearchAttributes(t.Context(), map[string]orchpb.IndexedValueType{"Stage": orchpb.IndexedValueType_KEYWORD}); err != nil {
		t.Fatal(err)
	}
	for tr, c := range clients(t, srv) {
		for _, cache := range []int{0, -1} {
			t.Run(fmt.Sprintf("%s/cache%d", tr, cache), func(t *testing.T) {
				t.Parallel()
				queue := fmt.Sprintf("ext-%s%d", tr, cache)
				prefix := queue + "-"
				startWorker(t, c, queue, &orch.WorkerOptions{WorkflowCacheSize: cache}, func(w *orch.Worker) error {
					return errors.Join(workflow.Register(w, "Receiver", receiver), workflow.Register(w, "Victim", victim), workflow.Register(w, "Sender", sender))
				})
				ctx := t.Context()
				recv, err := c.StartWorkflow(ctx, "Receiver", queue, nil, &orch.StartWorkflowOptions{ID: prefix + "receiver"})
				if err != nil {
					t.Fatal(err)
				}
				vict, err := c.StartWorkflow(ctx, "Victim", queue, nil, &orch.StartWorkflowOptions{ID: prefix + "victim"})
				if err != nil {
					t.Fatal(err)
				}
				send, err := c.StartWorkflow(ctx, "Sender", queue, prefix, &orch.StartWorkflowOptions{ID: prefix + "sender",
					Memo: map[string]any{"draft": true, "owner": "ada"}})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				if err := send.Get(ctx, &got); err != nil {
					t.Fatal(err)
				}
				want := []string{"ok", "signal " + prefix + "nobody: unknown", "ok", "cancel " + prefix + "nobody: unknown"}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("outcomes (-want +got):\n%s", diff)
				}
				var hello string
				if err := recv.Get(ctx, &hello); err != nil || hello != "hello" {
					t.Errorf("receiver: %q, %v", hello, err)
				}
				_ = vict.Get(ctx, nil) // waits for the close
				if d, err := vict.Describe(ctx); err != nil || d.GetStatus() != orchpb.WorkflowExecutionStatus_CANCELED {
					t.Errorf("victim: %v, %v", d.GetStatus(), err)
				}
				for ev, err := range recv.History(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil && a.GetExternalWorkflowExecution().GetWorkflowId() != prefix+"sender" {
						t.Errorf("the signal names its sender as %v", a.GetExternalWorkflowExecution())
					}
				}
				info, err := c.DescribeWorkflow(ctx, send.ID, "")
				if err != nil {
					t.Fatal(err)
				}
				memo := map[string]string{}
				for k, p := range info.GetMemo().GetFields() {
					memo[k] = string(p.GetData())
				}
				if diff := cmp.Diff(map[string]string{"owner": `"ada"`, "stage": `"sent"`}, memo); diff != "" {
					t.Errorf("memo (-want +got):\n%s", diff)
				}
				if n, err := c.CountWorkflows(ctx, "Stage = 'sent' AND WorkflowId = '"+send.ID+"'"); err != nil || n != 1 {
					t.Errorf("count by the upserted attribute: %d, %v", n, err)
				}
				if err := workflow.ReplayRun(ctx, c, send.ID, send.RunID, sender); err != nil {
					t.Errorf("replay: %v", err)
				}
			})
		}
	}
}
