package workflow_test

import (
	"sync"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// TestReplayWithOptionsGivesTheOriginalExecution: a history saved to a
// file does not say which workflow id (nor, for a continued run, which
// run id) it was recorded under; ReplayWithOptions takes them from the
// caller and GetInfo gives them to the code, as it did when the run ran.
// Without them, GetInfo shows an empty workflow id, and the run id only
// for the first run of a chain (its first_execution_run_id). ReplayRun,
// which reads the history from the service, knows both.
func TestReplayWithOptionsGivesTheOriginalExecution(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	c := srv.Client()
	defer c.Close()
	w, err := orch.NewWorker(c, "original", nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []workflow.Info // what the code read, live or replayed
	wf := func(ctx workflow.Context, n int) (workflow.Info, error) {
		info := workflow.GetInfo(ctx)
		mu.Lock()
		seen = append(seen, info)
		mu.Unlock()
		if n == 0 {
			return workflow.Info{}, workflow.NewContinueAsNewError(ctx, 1)
		}
		return info, nil // the continued run's ids, as it ran
	}
	if err := workflow.Register(w, "Original", wf); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run, err := c.StartWorkflow(t.Context(), "Original", "original", 0, &orch.StartWorkflowOptions{ID: "original-1"})
	if err != nil {
		t.Fatal(err)
	}
	var live workflow.Info
	if err := run.Get(t.Context(), &live); err != nil {
		t.Fatal(err)
	}
	if live.WorkflowID != "original-1" || live.RunID == "" || live.RunID == run.RunID {
		t.Fatalf("live info of the continued run %+v (first run %s)", live, run.RunID)
	}

	// Each run's history as a file holds it: JSON, read back.
	saved := func(runID string) []*orchpb.HistoryEvent {
		t.Helper()
		var events []*orchpb.HistoryEvent
		for ev, err := range c.History(t.Context(), "original-1", runID, nil) {
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
		}
		data, err := orchwire.MarshalJSON.Marshal(&orchpb.GetWorkflowExecutionHistoryResponse{History: events})
		if err != nil {
			t.Fatal(err)
		}
		h, err := workflow.ParseHistoryJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	first, continued := saved(run.RunID), saved(live.RunID)
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
		for _, info := range seen[1:] {
			if info != seen[0] {
				t.Fatalf("GetInfo changed during the replay: %+v, then %+v", seen[0], info)
			}
		}
		return seen[0]
	}
	ids := func(info workflow.Info) [2]string { return [2]string{info.WorkflowID, info.RunID} }

	for _, tc := range []struct {
		name    string
		history []*orchpb.HistoryEvent
		opts    *workflow.ReplayOptions // nil: Replay
		want    [2]string               // workflow id, run id
	}{
		{"first run, Replay", first, nil, [2]string{"", run.RunID}},
		{"first run, no ids", first, &workflow.ReplayOptions{}, [2]string{"", run.RunID}},
		{"first run, workflow id", first, &workflow.ReplayOptions{WorkflowID: "original-1"}, [2]string{"original-1", run.RunID}},
		{"first run, both", first, &workflow.ReplayOptions{WorkflowID: "original-1", RunID: run.RunID}, [2]string{"original-1", run.RunID}},
		{"continued run, Replay", continued, nil, [2]string{"", ""}},
		{"continued run, no ids", continued, &workflow.ReplayOptions{}, [2]string{"", ""}},
		{"continued run, run id", continued, &workflow.ReplayOptions{RunID: live.RunID}, [2]string{"", live.RunID}},
		{"continued run, both", continued, &workflow.ReplayOptions{WorkflowID: "original-1", RunID: live.RunID}, ids(live)},
	} {
		got := replayed(t, func() error {
			if tc.opts == nil {
				return workflow.Replay(tc.history, wf)
			}
			return workflow.ReplayWithOptions(tc.history, wf, *tc.opts)
		})
		if ids(got) != tc.want || got.WorkflowType != "Original" || got.TaskQueue != "original" {
			t.Errorf("%s: info %+v, want workflow id and run id %q", tc.name, got, tc.want)
		}
	}

	// ReplayRun knows both ids: the latest run's with runID "", and either
	// run's by its id.
	for _, tc := range []struct {
		runID string
		want  [2]string
	}{{"", ids(live)}, {live.RunID, ids(live)}, {run.RunID, [2]string{"original-1", run.RunID}}} {
		got := replayed(t, func() error { return workflow.ReplayRun(t.Context(), c, "original-1", tc.runID, wf) })
		if ids(got) != tc.want || got.WorkflowType != "Original" {
			t.Errorf("ReplayRun(%q): info %+v, want workflow id and run id %q", tc.runID, got, tc.want)
		}
	}
}
