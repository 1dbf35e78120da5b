package workflow_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/orch/workflow"
)

// TestSideEffect: fn runs once, in the task that first gets there; later
// tasks replay its recorded value.
func TestSideEffect(t *testing.T) {
	t.Parallel()
	calls := 0
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		var n int
		if err := workflow.SideEffect(ctx, func() any { calls++; return 40 + calls }, &n); err != nil {
			return 0, err
		}
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return 0, err
		}
		return n, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	if diff := cmp.Diff([]string{"RECORD_MARKER", "START_TIMER #2 1m0s"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.timerFired("2")
	var got int
	result(t, s.task()[0], &got)
	if got != 41 || calls != 1 {
		t.Errorf("result %d after %d calls, want 41 after 1", got, calls)
	}
	if err := workflow.Replay(s.events, wf); err != nil || calls != 1 {
		t.Errorf("Replay: %v, %d calls", err, calls)
	}
}

// TestGetVersion: a change guarded by GetVersion leaves runs started
// under the old code on the old path, takes new runs down the new one,
// and refuses versions the code no longer supports.
func TestGetVersion(t *testing.T) {
	t.Parallel()
	old := func(ctx workflow.Context, _ struct{}) (string, error) {
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return "", err
		}
		return "old", workflow.Sleep(ctx, time.Minute)
	}
	changed := func(ctx workflow.Context, _ struct{}) (string, error) {
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return "", err
		}
		if workflow.GetVersion(ctx, "second-wait", workflow.DefaultVersion, 1) == 1 {
			return "new", nil // no second wait any more
		}
		return "old", workflow.Sleep(ctx, time.Minute)
	}
	// A run made by the old code, then finished by the changed code.
	s := newSim(t, workflow.New(old), nil)
	s.task()
	s.timerFired("1")
	s.task()
	s.wf = workflow.New(changed)
	s.timerFired("2")
	var got string
	result(t, s.task()[0], &got)
	if got != "old" {
		t.Errorf("a run under way took the %q path", got)
	}
	if err := workflow.Replay(s.events, changed); err != nil {
		t.Errorf("Replay: %v", err)
	}

	// A new run records version 1 and keeps it.
	n := newSim(t, workflow.New(changed), nil)
	n.task()
	n.timerFired("1")
	cmds := n.task()
	if diff := cmp.Diff([]string{"RECORD_MARKER", "COMPLETE_WORKFLOW_EXECUTION"}, kinds(cmds)); diff != "" {
		t.Fatal(diff)
	}
	result(t, cmds[1], &got)
	if got != "new" {
		t.Errorf("a new run took the %q path", got)
	}
	if err := workflow.Replay(n.events, changed); err != nil {
		t.Errorf("Replay: %v", err)
	}
	// Code that dropped version 1 refuses the run.
	dropped := func(ctx workflow.Context, _ struct{}) (string, error) {
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return "", err
		}
		workflow.GetVersion(ctx, "second-wait", 2, 2)
		return "", nil
	}
	if err := workflow.Replay(n.events, dropped); err == nil || !strings.Contains(err.Error(), "version 1 of this run is outside the supported 2 to 2") {
		t.Errorf("Replay with version 1 dropped: %v", err)
	}
	// Old code meets the marker it does not know.
	if err := workflow.Replay(n.events, old); err == nil || !strings.Contains(err.Error(), "records MarkerRecorded Version second-wait, but the code issued StartTimer") {
		t.Errorf("Replay of the old code: %v", err)
	}
}

// TestGetVersionInAQuery: a query that runs the code past the completed
// tasks gets the version the next task will record, not DefaultVersion.
func TestGetVersionInAQuery(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		v := workflow.Version(-2)
		workflow.SetQueryHandler(ctx, "version", func() (any, error) { return int(v), nil })
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return 0, err
		}
		v = workflow.GetVersion(ctx, "c", workflow.DefaultVersion, 3)
		return int(v), workflow.Sleep(ctx, time.Minute)
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.timerFired("1")
	if got, err := s.query("version", nil); err != nil || got != 3 {
		t.Errorf("query: %v, %v; want 3", got, err)
	}
	s.task()
	if got, err := s.query("version", nil); err != nil || got != 3 {
		t.Errorf("query after the task: %v, %v; want 3", got, err)
	}
}

// TestReplayRunsNoMissingSideEffect: code that now calls SideEffect where
// the history recorded none fails the replay as non-deterministic without
// running the function.
func TestReplayRunsNoMissingSideEffect(t *testing.T) {
	t.Parallel()
	before := func(ctx workflow.Context, _ struct{}) (int, error) {
		return 1, workflow.Sleep(ctx, time.Minute)
	}
	s := newSim(t, workflow.New(before), nil)
	s.task()
	calls := 0
	after := func(ctx workflow.Context, _ struct{}) (int, error) {
		var n int
		_ = workflow.SideEffect(ctx, func() any { calls++; return 1 }, &n)
		return n, workflow.Sleep(ctx, time.Minute)
	}
	var nd *workflow.NonDeterminismError
	if err := workflow.Replay(s.events, after); !errors.As(err, &nd) || calls != 0 {
		t.Errorf("Replay: %v after %d calls; want a NonDeterminismError after none", err, calls)
	}
}
