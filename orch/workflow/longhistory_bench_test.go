package workflow_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/apitwin/apitwin/orch"
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
// runs the next task as a worker would.
type longRun struct {
	*sim
	acts int
}

func newLongRun(b *testing.B, wf orch.Workflow) *longRun {
	return &longRun{sim: newSim(b, wf, 0)}
}

func (s *longRun) step() {
	if s.acts > 0 {
		s.activityCompleted(strconv.Itoa(s.acts), s.acts)
	}
	t := s.startTask()
	cmds, err := s.wf.Decide(context.Background(), t)
	if err != nil || len(cmds) != 1 {
		s.t.Fatalf("task after %d activities: %d commands, %v", s.acts, len(cmds), err)
	}
	s.complete(t.Raw.GetStartedEventId(), cmds)
	s.acts++
}

func (s *longRun) close() {}
