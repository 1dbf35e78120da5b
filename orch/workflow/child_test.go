package workflow_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// TestChildWorkflows: two children, one with its own id; the start
// future gives the child's run, the result future its result, a failed
// child a ChildWorkflowError with the child's failure, and the history
// replays.
func TestChildWorkflows(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) ([]string, error) {
		a := workflow.ExecuteChildWorkflow(ctx, "Pack", "box", nil)
		b := workflow.ExecuteChildWorkflow(ctx, "Ship", "box", &workflow.ChildWorkflowOptions{WorkflowID: "ship-1", ParentClosePolicy: orchpb.ParentClosePolicy_ABANDON})
		var exec workflow.Execution
		if err := a.GetChildWorkflowExecution().Get(ctx, &exec); err != nil {
			return nil, err
		}
		var packed string
		if err := a.Get(ctx, &packed); err != nil {
			return nil, err
		}
		err := b.Get(ctx, nil)
		var cerr *workflow.ChildWorkflowError
		var app *orch.ApplicationError
		if !errors.As(err, &cerr) || !errors.As(err, &app) {
			return nil, fmt.Errorf("not a child error: %v", err)
		}
		return []string{exec.WorkflowID, exec.RunID, packed, cerr.WorkflowID, app.Message}, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	cmds := s.task()
	if diff := cmp.Diff([]string{"START_CHILD_WORKFLOW_EXECUTION Pack run_1", "START_CHILD_WORKFLOW_EXECUTION Ship ship-1"}, kinds(cmds)); diff != "" {
		t.Fatal(diff)
	}
	if p := cmds[1].GetStartChildWorkflowExecutionCommandAttributes().GetParentClosePolicy(); p != orchpb.ParentClosePolicy_ABANDON {
		t.Errorf("parent close policy %v", p)
	}
	s.childStarted("run_1", "r-pack")
	s.childStarted("ship-1", "r-ship")
	s.task()
	s.childCompleted("run_1", "packed box")
	s.childFailed("ship-1", &orchpb.Failure{Message: "no courier", FailureInfo: &orchpb.Failure_ApplicationFailureInfo{ApplicationFailureInfo: &orchpb.ApplicationFailureInfo{Type: "NoCourier"}}})
	var got []string
	result(t, s.task()[0], &got)
	if diff := cmp.Diff([]string{"run_1", "r-pack", "packed box", "ship-1", "no courier"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
	// Another child type is non-deterministic at its initiated event.
	changed := func(ctx workflow.Context, _ struct{}) ([]string, error) {
		return nil, workflow.ExecuteChildWorkflow(ctx, "Wrap", "box", nil).Get(ctx, nil)
	}
	want := fmt.Sprintf("workflow: non-deterministic: event %d records StartChildWorkflowExecutionInitiated Pack (workflow id run_1), but the code issued StartChildWorkflowExecution Wrap (workflow id _1)", s.initiated("run_1"))
	if err := workflow.Replay(s.events, changed); err == nil || err.Error() != want {
		t.Errorf("Replay of changed code:\n got %v\nwant %s", err, want)
	}
}

// TestChildCanceled: canceling the context of a running child asks the
// service to cancel it; one that could not start fails both futures.
func TestChildCanceled(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (string, error) {
		cctx, cancel := workflow.WithCancel(ctx)
		long := workflow.ExecuteChildWorkflow(cctx, "Long", nil, &workflow.ChildWorkflowOptions{WorkflowID: "long"})
		dup := workflow.ExecuteChildWorkflow(ctx, "Dup", nil, &workflow.ChildWorkflowOptions{WorkflowID: "dup"})
		if err := long.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
			return "", err
		}
		cancel()
		err1 := long.Get(ctx, nil)
		err2 := dup.GetChildWorkflowExecution().Get(ctx, nil)
		if !errors.Is(err1, workflow.ErrCanceled) {
			return "", fmt.Errorf("long: %v", err1)
		}
		return err2.Error(), nil
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.childStarted("long", "r1")
	s.childStartFailed("dup")
	cmds := s.task()
	if diff := cmp.Diff([]string{"REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION long", "COMPLETE_WORKFLOW_EXECUTION"}, kinds(cmds)); diff != "" {
		t.Fatal(diff)
	}
	if !cmds[0].GetRequestCancelExternalWorkflowExecutionCommandAttributes().GetChildWorkflowOnly() {
		t.Error("the cancel request may reach other workflows")
	}
	var got string
	result(t, cmds[1], &got)
	if want := "child workflow Dup (id dup) failed: the child could not start: WORKFLOW_ALREADY_EXISTS"; got != want {
		t.Errorf("dup: %q, want %q", got, want)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

// TestSelectorOnAChild: a Selector waits on a child workflow's result
// future (and on its start future) as on any other future; AddFuture
// refused the ChildWorkflowFuture with a panic, which failed every task.
func TestSelectorOnAChild(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) ([]string, error) {
		var got []string
		child := workflow.ExecuteChildWorkflow(ctx, "Pack", "box", &workflow.ChildWorkflowOptions{WorkflowID: "pack"})
		sel := workflow.NewSelector(ctx).
			AddFuture(child.GetChildWorkflowExecution(), func(f workflow.Future) { got = append(got, "started") }).
			AddFuture(child, func(f workflow.Future) {
				if _, ok := f.(workflow.ChildWorkflowFuture); !ok {
					got = append(got, "not the child's future")
				}
				var s string
				if err := f.Get(ctx, &s); err != nil {
					s = err.Error()
				}
				got = append(got, s)
			})
		sel.Select(ctx)
		sel.Select(ctx)
		return got, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	if diff := cmp.Diff([]string{"START_CHILD_WORKFLOW_EXECUTION Pack pack"}, kinds(s.task())); diff != "" {
		t.Fatal(diff)
	}
	s.childStarted("pack", "r-pack")
	s.task()
	s.childCompleted("pack", "packed")
	var got []string
	result(t, s.task()[0], &got)
	if diff := cmp.Diff([]string{"started", "packed"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}

// TestReplayOfACanceledChild: Replay, which does not know the run's id,
// reproduces a run that canceled a child of the default id
// ("<run id>_<n>"): the cancel request names the child the history
// initiated. (It named "_1" and Replay reported a non-determinism.)
func TestReplayOfACanceledChild(t *testing.T) {
	t.Parallel()
	wf := func(ctx workflow.Context, _ struct{}) (string, error) {
		cctx, cancel := workflow.WithCancel(ctx)
		f := workflow.ExecuteChildWorkflow(cctx, "Long", nil, nil)
		if err := f.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
			return "", err
		}
		cancel()
		var cerr *workflow.ChildWorkflowError
		if err := f.Get(ctx, nil); !errors.As(err, &cerr) {
			return "", fmt.Errorf("child: %v", err)
		}
		return cerr.WorkflowID, nil
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.childStarted("run_1", "r1")
	cmds := s.task()
	if diff := cmp.Diff([]string{"REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION run_1", "COMPLETE_WORKFLOW_EXECUTION"}, kinds(cmds)); diff != "" {
		t.Fatal(diff)
	}
	if err := workflow.Replay(s.events, wf); err != nil {
		t.Errorf("Replay: %v", err)
	}
}
