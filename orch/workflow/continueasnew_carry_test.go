package workflow_test

import (
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// TestContinueAsNewCarriesMemoAndSearchAttributes: the service gives a
// continued run only the memo, search attributes, retry policy and header
// its continue-as-new command names, so the package names the run's own in
// the command, as Temporal's Go SDK does: a chain keeps them from run to
// run.
func TestContinueAsNewCarriesMemoAndSearchAttributes(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	if err := srv.RegisterSearchAttribute("default", "CustomerId", orchfake.Keyword); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	defer c.Close()
	w, err := orch.NewWorker(c, "carry", nil)
	if err != nil {
		t.Fatal(err)
	}
	wf := func(ctx workflow.Context, n int) (int, error) {
		if n < 2 {
			return 0, workflow.NewContinueAsNewError(ctx, n+1)
		}
		return n, nil
	}
	if err := workflow.Register(w, "Carry", wf); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := c.StartWorkflow(t.Context(), "Carry", "carry", 0, &orch.StartWorkflowOptions{ID: "carry-1",
		Memo: map[string]any{"owner": "ops"}, SearchAttributes: map[string]any{"CustomerId": "acme"},
		Header: map[string]any{"trace": "t-1"}, RetryPolicy: &orch.ServerRetryPolicy{MaximumAttempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := run.Get(t.Context(), &n); err != nil || n != 2 {
		t.Fatalf("result %d, %v", n, err)
	}
	last, err := c.DescribeWorkflow(t.Context(), "carry-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if last.GetExecution().GetRunId() == run.RunID {
		t.Fatal("the chain did not continue")
	}
	if got := string(last.GetMemo().GetFields()["owner"].GetData()); got != `"ops"` {
		t.Errorf("the last run's memo owner = %s, want \"ops\"", got)
	}
	if got := string(last.GetSearchAttributes().GetIndexedFields()["CustomerId"].GetData()); got != `"acme"` {
		t.Errorf("the last run's CustomerId = %s, want \"acme\"", got)
	}
	for ev, err := range c.History(t.Context(), "carry-1", last.GetExecution().GetRunId(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		st := ev.GetWorkflowExecutionStartedEventAttributes()
		if got := st.GetRetryPolicy().GetMaximumAttempts(); got != 3 {
			t.Errorf("the last run's retry policy allows %d attempts, want 3", got)
		}
		if got := string(st.GetHeader().GetFields()["trace"].GetData()); got != `"t-1"` {
			t.Errorf("the last run's header trace = %s, want \"t-1\"", got)
		}
		break // the started event is the first
	}
}
