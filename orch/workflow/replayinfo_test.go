package workflow_test

import (
	"sync"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// TestReplayFillsInfo: the code replayed by Replay and ReplayRun reads the
// run's ids in GetInfo as it did when it ran: ReplayRun knows them (the
// latest run's resolved when runID is ""); Replay reads the run id of a
// chain's first run from its WorkflowExecutionStarted event.
func TestReplayFillsInfo(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	c := srv.Client()
	defer c.Close()
	w, err := orch.NewWorker(c, "info", nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []workflow.Info // what replayed code read
	wf := func(ctx workflow.Context, n int) (workflow.Info, error) {
		mu.Lock()
		seen = append(seen, workflow.GetInfo(ctx))
		mu.Unlock()
		if n == 0 {
			return workflow.Info{}, workflow.NewContinueAsNewError(ctx, 1)
		}
		return workflow.GetInfo(ctx), nil
	}
	if err := workflow.Register(w, "Info", wf); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := c.StartWorkflow(t.Context(), "Info", "info", 0, &orch.StartWorkflowOptions{ID: "info-1"})
	if err != nil {
		t.Fatal(err)
	}
	var live workflow.Info // the second run's, as it ran
	if err := run.Get(t.Context(), &live); err != nil {
		t.Fatal(err)
	}
	if live.WorkflowID != "info-1" || live.RunID == "" || live.RunID == run.RunID {
		t.Fatalf("live info %+v (first run %s)", live, run.RunID)
	}
	replayed := func(t *testing.T, replay func() error) workflow.Info {
		t.Helper()
		mu.Lock()
		seen = nil
		mu.Unlock()
		if err := replay(); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) == 0 {
			t.Fatal("the code did not run")
		}
		return seen[0]
	}

	// The second run, the latest: ReplayRun with runID "" and with its id.
	for _, runID := range []string{"", live.RunID} {
		got := replayed(t, func() error { return workflow.ReplayRun(t.Context(), c, "info-1", runID, wf) })
		if got.WorkflowID != live.WorkflowID || got.RunID != live.RunID || got.WorkflowType != "Info" {
			t.Errorf("ReplayRun(%q): info %+v, want the ids of %+v", runID, got, live)
		}
	}
	// The first run, from its history alone.
	var history []*orchpb.HistoryEvent
	for ev, err := range c.History(t.Context(), "info-1", run.RunID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		history = append(history, ev)
	}
	got := replayed(t, func() error { return workflow.Replay(history, wf) })
	if got.RunID != run.RunID || got.WorkflowType != "Info" || got.TaskQueue != "info" {
		t.Errorf("Replay of the first run: info %+v, want run id %s", got, run.RunID)
	}
	got = replayed(t, func() error { return workflow.ReplayRun(t.Context(), c, "info-1", run.RunID, wf) })
	if got.WorkflowID != "info-1" || got.RunID != run.RunID {
		t.Errorf("ReplayRun of the first run: info %+v, want run id %s", got, run.RunID)
	}
}
