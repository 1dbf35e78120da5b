package workflow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// BenchmarkTaskOnLongHistory is the cost of one more workflow task on a
// warm worker for a run whose history already holds about n events:
// activities run one after the other, and each iteration is the task that
// handles one more activity's result, run as the worker runs it.
//
// The history grows by five events a task; every few tasks (timer
// stopped) the run starts again from a history of n events, so the figure
// is the cost at n, not at n plus what the benchmark added.
func BenchmarkTaskOnLongHistory(b *testing.B) {
	wf := func(ctx workflow.Context, _ int) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		sum := 0
		for i := 0; ; i++ {
			var v int
			if err := workflow.ExecuteActivity(ctx, "Add", i).Get(ctx, &v); err != nil {
				return 0, err
			}
			sum += v
		}
	}
	const regrow = 4 // tasks measured before the run starts again at n
	for _, n := range []int{100, 500, 2000} {
		b.Run(fmt.Sprint("events=", n), func(b *testing.B) {
			var s *longRun
			fresh := func() {
				s = newLongRun(b, workflow.New(wf))
				for len(s.events) < n {
					s.step()
				}
			}
			fresh()
			b.ReportAllocs()
			done := 0
			for b.Loop() {
				if done == regrow {
					b.StopTimer()
					s.close()
					fresh()
					done = 0
					b.StartTimer()
				}
				s.step()
				done++
			}
			s.close()
		})
	}
}

// longRun drives one run of a workflow that runs activities one after
// the other: each step completes the activity the last task scheduled and
// runs the next task as a worker with a workflow cache does: the first
// task from the whole history (Start), the others on the kept state with
// the events since the last task (Continue), as a sticky task carries them.
type longRun struct {
	*sim
	acts   int
	state  orch.CachedRun
	result *orchpb.Payloads
}

func newLongRun(b testing.TB, wf orch.Workflow) *longRun {
	result, err := orch.EncodePayloads(1)
	if err != nil {
		b.Fatal(err)
	}
	return &longRun{sim: newSim(b, wf, 0), result: result}
}

func (s *longRun) step() {
	if s.acts > 0 {
		// The activity the last task scheduled: its event is the last.
		s.add(orchpb.EventType_ActivityTaskCompleted, &orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &orchpb.ActivityTaskCompletedEventAttributes{
			ScheduledEventId: int64(len(s.events)), Result: s.result}})
	}
	prev := s.lastCompleted
	sched := s.add(orchpb.EventType_WorkflowTaskScheduled, nil)
	started := s.add(orchpb.EventType_WorkflowTaskStarted, &orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes{
		WorkflowTaskStartedEventAttributes: &orchpb.WorkflowTaskStartedEventAttributes{ScheduledEventId: sched.GetEventId()}})
	t := &orch.WorkflowTask{WorkflowID: "wf", RunID: "run", WorkflowType: "Test", PreviousStartedEventID: prev,
		Raw: &orchpb.PollWorkflowTaskQueueResponse{StartedEventId: started.GetEventId(), PreviousStartedEventId: prev}}
	var cmds []*orchpb.Command
	var err error
	if s.state == nil {
		t.History = s.events
		s.state, cmds, err = s.wf.Start(context.Background(), t)
	} else {
		// What a sticky task carries: the events after the last task's
		// WorkflowTaskStarted.
		cmds, err = s.state.Continue(context.Background(), t, s.events[prev:])
	}
	if err != nil || len(cmds) != 1 {
		s.t.Fatalf("task after %d activities: %d commands, %v", s.acts, len(cmds), err)
	}
	s.complete(started.GetEventId(), cmds)
	s.acts++
}

func (s *longRun) close() {
	if s.state != nil {
		s.state.Close()
	}
}

// TestTaskCostFlatInHistory: on a warm worker one more task of a run whose
// history holds 2,000 events costs at most 3 times one at 100 events,
// counted in allocations (deterministic, unlike time). Replaying the whole
// history on every task cost 10,219 allocations against 615 (16x).
//
// Not parallel: AllocsPerRun counts the allocations of every goroutine.
func TestTaskCostFlatInHistory(t *testing.T) {
	wf := func(ctx workflow.Context, _ int) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		for i := 0; ; i++ {
			if err := workflow.ExecuteActivity(ctx, "Add", i).Get(ctx, nil); err != nil {
				return 0, err
			}
		}
	}
	allocs := map[int]float64{}
	for _, n := range []int{100, 2000} {
		s := newLongRun(t, workflow.New(wf))
		for len(s.events) < n {
			s.step()
		}
		allocs[n] = testing.AllocsPerRun(20, s.step)
		s.close()
	}
	if allocs[2000] > 3*allocs[100] {
		t.Errorf("one more task: %.0f allocations at 2000 events, %.0f at 100: more than 3x", allocs[2000], allocs[100])
	}
}
