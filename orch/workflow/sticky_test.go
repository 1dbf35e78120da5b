package workflow_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// stickyRig is a fake, a client and the workers of one scenario.
type stickyRig struct {
	t       *testing.T
	c       *orch.Client
	opts    *orch.WorkerOptions
	reached sync.Map // run input -> chan struct{}, closed when step 2 ran
	hook    func(w *orch.Worker, step int)
}

func newStickyRig(t *testing.T, opts *orch.WorkerOptions) *stickyRig {
	srv := orchfake.Start(t)
	r := &stickyRig{t: t, c: srv.Client(), opts: opts}
	t.Cleanup(func() { _ = r.c.Close() })
	return r
}

func (r *stickyRig) worker() *orch.Worker {
	r.t.Helper()
	w, err := orch.NewWorker(r.c, "steps", r.opts)
	if err != nil {
		r.t.Fatal(err)
	}
	step := func(_ context.Context, in [2]int) (int, error) {
		if r.hook != nil {
			r.hook(w, in[1])
		}
		if in[1] == 2 {
			ch, _ := r.reached.LoadOrStore(in[0], make(chan struct{}))
			close(ch.(chan struct{}))
		}
		return in[0]*100 + in[1], nil
	}
	if err := orch.RegisterActivity(w, "Step", step); err != nil {
		r.t.Fatal(err)
	}
	wf := func(ctx workflow.Context, run int) ([]int, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		var out []int
		for i := range 5 {
			var v int
			if err := workflow.ExecuteActivity(ctx, "Step", [2]int{run, i}).Get(ctx, &v); err != nil {
				return nil, err
			}
			out = append(out, v)
			if i == 2 {
				var extra int
				workflow.GetSignalChannel(ctx, "go").Receive(ctx, &extra)
				var side int
				if err := workflow.SideEffect(ctx, func() any { return 7 }, &side); err != nil {
					return nil, err
				}
				out = append(out, extra, side, int(workflow.GetVersion(ctx, "v", workflow.DefaultVersion, 2)))
			}
		}
		return out, nil
	}
	if err := workflow.Register(w, "Steps", wf); err != nil {
		r.t.Fatal(err)
	}
	if err := w.Start(r.t.Context()); err != nil {
		r.t.Fatal(err)
	}
	return w
}

func (r *stickyRig) start(run int) *orch.WorkflowRun {
	r.t.Helper()
	wr, err := r.c.StartWorkflow(r.t.Context(), "Steps", "steps", run, &orch.StartWorkflowOptions{ID: fmt.Sprint("steps-", run)})
	if err != nil {
		r.t.Fatal(err)
	}
	return wr
}

func (r *stickyRig) waitStep2(run int) {
	ch, _ := r.reached.LoadOrStore(run, make(chan struct{}))
	<-ch.(chan struct{})
}

func (r *stickyRig) signal(run int) {
	r.t.Helper()
	if err := r.c.SignalWorkflow(r.t.Context(), fmt.Sprint("steps-", run), "", "go", 40+run, nil); err != nil {
		r.t.Fatal(err)
	}
}

// outcome is a run's result and the commands its history records, in
// order: what must not depend on where its tasks ran.
func (r *stickyRig) outcome(wr *orch.WorkflowRun) (res []int, cmds []string, stickyTasks int) {
	r.t.Helper()
	if err := wr.Get(r.t.Context(), &res); err != nil {
		r.t.Fatal(err)
	}
	for ev, err := range r.c.History(r.t.Context(), wr.ID, wr.RunID, nil) {
		if err != nil {
			r.t.Fatal(err)
		}
		switch a := ev.GetAttributes().(type) {
		case *orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes:
			cmds = append(cmds, "activity "+a.ActivityTaskScheduledEventAttributes.GetActivityId())
		case *orchpb.HistoryEvent_MarkerRecordedEventAttributes:
			cmds = append(cmds, "marker "+a.MarkerRecordedEventAttributes.GetMarkerName())
		case *orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes:
			cmds = append(cmds, "completed")
		case *orchpb.HistoryEvent_WorkflowTaskScheduledEventAttributes:
			if a.WorkflowTaskScheduledEventAttributes.GetTaskQueue().GetKind() == orchpb.TaskQueueKind_STICKY {
				stickyTasks++
			}
		}
	}
	return res, cmds, stickyTasks
}

// TestStickyCacheSameOutcome runs the same workflow with the workflow
// cache on (the default), off, purged on purpose mid-run, with the
// worker restarted mid-run, with two workers, and with a cache of one run
// for three runs at once: the results and the commands recorded are the
// same every time, and the cache is used where it is on.
func TestStickyCacheSameOutcome(t *testing.T) {
	t.Parallel()
	type result struct {
		res  []int
		cmds []string
	}
	var want result
	{
		r := newStickyRig(t, &orch.WorkerOptions{WorkflowCacheSize: -1})
		w := r.worker()
		wr := r.start(1)
		r.waitStep2(1)
		r.signal(1)
		res, cmds, sticky := r.outcome(wr)
		want = result{res, cmds}
		w.Stop()
		if st := w.WorkflowCacheStats(); st != (orch.WorkflowCacheStats{}) || sticky != 0 {
			t.Fatalf("cache off: stats %+v, %d sticky tasks", st, sticky)
		}
		if len(res) != 8 || res[3] != 41 {
			t.Fatalf("cache off: result %v", res)
		}
	}
	check := func(t *testing.T, r *stickyRig, wr *orch.WorkflowRun, run int) int {
		t.Helper()
		res, cmds, sticky := r.outcome(wr)
		w := want
		if run != 1 { // the run's number is in its results
			w = result{append([]int(nil), want.res...), want.cmds}
			for i := range w.res {
				switch i {
				case 3:
					w.res[i] = 40 + run
				case 4, 5:
				default:
					w.res[i] += (run - 1) * 100
				}
			}
		}
		if diff := cmp.Diff(w, result{res, cmds}, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("run %d (-cache off +this):\n%s", run, diff)
		}
		return sticky
	}

	t.Run("on", func(t *testing.T) {
		t.Parallel()
		r := newStickyRig(t, nil)
		w := r.worker()
		defer w.Stop()
		wr := r.start(1)
		r.waitStep2(1)
		r.signal(1)
		sticky := check(t, r, wr, 1)
		if st := w.WorkflowCacheStats(); st.Hits == 0 || st.Misses != 1 || sticky == 0 {
			t.Errorf("cache on: stats %+v, %d sticky tasks; want hits, one miss (the first task), sticky tasks", st, sticky)
		}
	})
	t.Run("purged", func(t *testing.T) {
		t.Parallel()
		r := newStickyRig(t, nil)
		r.hook = func(w *orch.Worker, step int) {
			if step == 1 || step == 3 {
				// The task that scheduled this activity may still be
				// answering: purge once the run is back in the cache.
				for w.WorkflowCacheStats().Size == 0 {
					runtime.Gosched()
				}
				w.PurgeWorkflowCache()
			}
		}
		w := r.worker()
		defer w.Stop()
		wr := r.start(1)
		r.waitStep2(1)
		r.signal(1)
		check(t, r, wr, 1)
		if st := w.WorkflowCacheStats(); st.Hits == 0 || st.Misses != 3 {
			t.Errorf("purged twice: stats %+v; want hits and 3 misses", st)
		}
	})
	t.Run("restarted", func(t *testing.T) {
		t.Parallel()
		r := newStickyRig(t, nil)
		w1 := r.worker()
		wr := r.start(1)
		r.waitStep2(1)
		w1.Stop()
		w2 := r.worker()
		defer w2.Stop()
		r.signal(1)
		check(t, r, wr, 1)
		if st := w2.WorkflowCacheStats(); st.Misses == 0 {
			t.Errorf("the new worker: stats %+v; want a miss (it had no state)", st)
		}
	})
	t.Run("two workers", func(t *testing.T) {
		t.Parallel()
		r := newStickyRig(t, nil)
		w1, w2 := r.worker(), r.worker()
		defer w1.Stop()
		defer w2.Stop()
		var runs []*orch.WorkflowRun
		for run := 1; run <= 4; run++ {
			runs = append(runs, r.start(run))
		}
		for run := 1; run <= 4; run++ {
			r.waitStep2(run)
			r.signal(run)
		}
		for i, wr := range runs {
			check(t, r, wr, i+1)
		}
		if a, b := w1.WorkflowCacheStats(), w2.WorkflowCacheStats(); a.Hits+b.Hits == 0 {
			t.Errorf("two workers: stats %+v and %+v; want hits", a, b)
		}
	})
	t.Run("cache of one", func(t *testing.T) {
		t.Parallel()
		r := newStickyRig(t, &orch.WorkerOptions{WorkflowCacheSize: 1})
		w := r.worker()
		defer w.Stop()
		var runs []*orch.WorkflowRun
		for run := 1; run <= 3; run++ {
			runs = append(runs, r.start(run))
		}
		for run := 1; run <= 3; run++ {
			r.waitStep2(run)
		}
		for run := 1; run <= 3; run++ {
			r.signal(run)
		}
		for i, wr := range runs {
			check(t, r, wr, i+1)
		}
		if st := w.WorkflowCacheStats(); st.Evicted == 0 || st.Size > 1 {
			t.Errorf("cache of one, three runs: stats %+v; want evictions and at most one kept", st)
		}
	})
}
