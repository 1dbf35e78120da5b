package workflow_test

import (
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// TestQueryHandlerIsReadOnly: a query handler that calls what would issue
// a command (a side effect, an activity, a timer, a child, a version not
// yet decided, a coroutine, a cancellation) or block fails the query with
// an error naming the call; a side effect's function never runs, and the
// run's next task goes on as if the query had not happened.
func TestQueryHandlerIsReadOnly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		call func(ctx workflow.Context, ran *int)
	}{
		{"SideEffect", func(ctx workflow.Context, ran *int) {
			_ = workflow.SideEffect(ctx, func() any { *ran++; return 1 }, nil)
		}},
		{"ExecuteActivity", func(ctx workflow.Context, _ *int) {
			workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute}), "A", nil)
		}},
		{"NewTimer", func(ctx workflow.Context, _ *int) { workflow.NewTimer(ctx, time.Minute) }},
		{"ExecuteChildWorkflow", func(ctx workflow.Context, _ *int) { workflow.ExecuteChildWorkflow(ctx, "Child", nil, nil) }},
		{"GetVersion", func(ctx workflow.Context, _ *int) { workflow.GetVersion(ctx, "new-change", workflow.DefaultVersion, 1) }},
		{"Go", func(ctx workflow.Context, ran *int) { workflow.Go(ctx, func(workflow.Context) { *ran++ }) }},
		{"CancelFunc", func(ctx workflow.Context, _ *int) {
			_, cancel := workflow.WithCancel(ctx)
			cancel()
		}},
		{"Sleep", func(ctx workflow.Context, _ *int) { _ = workflow.Sleep(ctx, time.Minute) }},
		{"Receive", func(ctx workflow.Context, _ *int) { workflow.GetSignalChannel(ctx, "never").Receive(ctx, nil) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ran := 0
			wf := func(ctx workflow.Context, _ struct{}) (int, error) {
				workflow.SetQueryHandler(ctx, "q", func() (any, error) {
					c.call(ctx, &ran)
					return "answered", nil
				})
				return 1, workflow.Sleep(ctx, time.Minute)
			}
			s := newSim(t, workflow.New(wf), nil)
			s.task()
			got, err := s.query("q", nil)
			if err == nil || !strings.Contains(err.Error(), c.name) || !strings.Contains(err.Error(), "query") {
				t.Errorf("query: %v, %v; want an error naming %s", got, err, c.name)
			}
			if ran != 0 {
				t.Errorf("the query ran workflow code %d times", ran)
			}
			s.timerFired("1")
			if cmds := s.task(); len(cmds) != 1 || cmds[0].GetCommandType().String() != "COMPLETE_WORKFLOW_EXECUTION" {
				t.Errorf("the next task: %v", kinds(cmds))
			}
			if err := workflow.Replay(s.events, wf); err != nil {
				t.Errorf("Replay: %v", err)
			}
		})
	}
}

// TestQueryRunsNoSideEffect: a query replays the events the next task will
// handle, but stops the code at a side effect that task will record: the
// function does not run for the query, whose answer is the state before
// it; the task runs it once.
func TestQueryRunsNoSideEffect(t *testing.T) {
	t.Parallel()
	calls := 0
	wf := func(ctx workflow.Context, _ struct{}) (int, error) {
		v := 0
		workflow.SetQueryHandler(ctx, "v", func() (any, error) { return v, nil })
		if err := workflow.Sleep(ctx, time.Minute); err != nil {
			return 0, err
		}
		v = 1
		if err := workflow.SideEffect(ctx, func() any { calls++; return 40 + calls }, &v); err != nil {
			return 0, err
		}
		return v, workflow.Sleep(ctx, time.Minute)
	}
	s := newSim(t, workflow.New(wf), nil)
	s.task()
	s.timerFired("1")
	if got, err := s.query("v", nil); err != nil || got != 1 || calls != 0 {
		t.Errorf("query before the task: %v, %v after %d calls; want 1 after none", got, err, calls)
	}
	s.task()
	if got, err := s.query("v", nil); err != nil || got != 41 || calls != 1 {
		t.Errorf("query after the task: %v, %v after %d calls; want 41 after 1", got, err, calls)
	}
}
