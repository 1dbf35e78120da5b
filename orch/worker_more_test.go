package orch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// TestActivityCancellationThroughTheContext: the workflow asks for its
// running activity to stop; the activity's next heartbeat answers that, its
// context ends with ErrActivityCanceled, and it ends canceled.
func TestActivityCancellationThroughTheContext(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("cancel")
		running, beat := make(chan struct{}), make(chan struct{})
		seen := make(chan error, 1)
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Patient", func(ctx context.Context, _ string) (string, error) {
				close(running)
				<-beat
				err := orch.RecordHeartbeat(ctx, "still here")
				seen <- context.Cause(ctx)
				return "", err
			}))
			must(t, w.RegisterWorkflow("Cancelling", orch.Workflow{Decide: func(_ context.Context, wt *orch.WorkflowTask) ([]*orchpb.Command, error) {
				var scheduled int64
				var cancelRequested bool
				for _, ev := range wt.History {
					switch ev.GetEventType() {
					case orchpb.EventType_ActivityTaskScheduled:
						scheduled = ev.GetEventId()
					case orchpb.EventType_ActivityTaskCanceled:
						cmd, err := orch.CompleteWorkflowCommand("activity canceled")
						return []*orchpb.Command{cmd}, err
					case orchpb.EventType_ActivityTaskCancelRequested:
						cancelRequested = true
					}
				}
				switch {
				case cancelRequested:
					return nil, nil // wait for the activity to end
				case scheduled == 0:
					cmd, err := orch.ScheduleActivityCommand("1", "Patient", "x", &orch.ActivityOptions{StartToCloseTimeout: time.Hour})
					return []*orchpb.Command{cmd}, err
				case len(wt.Signals()) > 0:
					return []*orchpb.Command{orch.RequestCancelActivityCommand(scheduled)}, nil
				}
				return nil, nil
			}}))
		})
		run, err := c.StartWorkflow(t.Context(), "Cancelling", q, nil, nil)
		must(t, err)
		<-running
		must(t, run.Signal(t.Context(), "stop-it", nil, nil))
		// Wait (history long poll) until the cancel request is recorded.
		for ev, err := range run.History(t.Context(), &orch.HistoryOptions{Wait: true}) {
			must(t, err)
			if ev.GetEventType() == orchpb.EventType_ActivityTaskCancelRequested {
				break
			}
		}
		close(beat)
		if cause := <-seen; !errors.Is(cause, orch.ErrActivityCanceled) {
			t.Errorf("the activity's context ended with %v", cause)
		}
		var got string
		must(t, run.Get(t.Context(), &got))
		if got != "activity canceled" {
			t.Errorf("result %q", got)
		}
	})
}

// TestGracefulStop: Stop lets a running activity finish and report; a
// Shutdown whose context ends cancels the activities still running.
func TestGracefulStop(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("stop")
		running, release := make(chan struct{}, 2), make(chan struct{})
		w, err := orch.NewWorker(c, q, nil)
		must(t, err)
		must(t, orch.RegisterActivity(w, "Work", func(ctx context.Context, in string) (string, error) {
			running <- struct{}{}
			select {
			case <-release:
				return in + " done", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}))
		must(t, w.RegisterWorkflow("Job", orch.Sequence(orch.ActivityStep{ActivityType: "Work", Options: &orch.ActivityOptions{StartToCloseTimeout: time.Hour}})))
		must(t, w.Start(t.Context()))
		run, err := c.StartWorkflow(t.Context(), "Job", q, "a", nil)
		must(t, err)
		<-running
		stopped := make(chan struct{})
		go func() { w.Stop(); close(stopped) }()
		close(release) // the running activity finishes during the stop
		<-stopped
		if !hasEvent(t, c, run, orchpb.EventType_ActivityTaskCompleted) {
			t.Error("the activity running at Stop did not report its completion")
		}

		// A second worker, stopped with a context that has ended: its
		// running activity is canceled and reports.
		w2, err := orch.NewWorker(c, q, nil)
		must(t, err)
		must(t, orch.RegisterActivity(w2, "Work", func(ctx context.Context, in string) (string, error) {
			running <- struct{}{}
			<-ctx.Done()
			return "", ctx.Err()
		}))
		must(t, w2.RegisterWorkflow("Job", orch.Sequence(orch.ActivityStep{ActivityType: "Work", Options: &orch.ActivityOptions{
			StartToCloseTimeout: time.Hour, RetryPolicy: &orch.ServerRetryPolicy{MaximumAttempts: 1},
		}})))
		must(t, w2.Start(t.Context()))
		run2, err := c.StartWorkflow(t.Context(), "Job", q, "b", nil)
		must(t, err)
		<-running
		ended, cancel := context.WithCancel(t.Context())
		cancel()
		if err := w2.Shutdown(ended); !errors.Is(err, context.Canceled) {
			t.Errorf("Shutdown: %v", err)
		}
		if !hasEvent(t, c, run2, orchpb.EventType_ActivityTaskFailed) {
			t.Error("the canceled activity did not report")
		}
		if err := w2.Start(t.Context()); err == nil {
			t.Error("a stopped worker started again")
		}
	})
}

func hasEvent(t *testing.T, c *orch.Client, run *orch.WorkflowRun, typ orchpb.EventType) bool {
	t.Helper()
	for _, got := range eventTypes(t, c, run.ID, run.RunID) {
		if got == typ {
			return true
		}
	}
	return false
}

// TestHeartbeatsKeepTheClientLimit: over the limit a heartbeat is skipped,
// not queued; the details of an attempt reach the next one.
func TestHeartbeatsKeepTheClientLimit(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t, orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited, HeartbeatsPerMinute: 2}))
		q := uid("beats")
		var resumedFrom int
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Beating", func(ctx context.Context, _ string) (int, error) {
				info, _ := orch.GetActivityInfo(ctx)
				if info.Attempt == 1 {
					for i := range 5 {
						if err := orch.RecordHeartbeat(ctx, i); err != nil {
							return 0, err
						}
					}
					return 0, errors.New("first attempt fails")
				}
				if err := orch.HeartbeatDetails(ctx, &resumedFrom); err != nil {
					return 0, err
				}
				return resumedFrom, nil
			}))
			must(t, w.RegisterWorkflow("Beats", orch.Sequence(orch.ActivityStep{ActivityType: "Beating", Options: &orch.ActivityOptions{
				StartToCloseTimeout: time.Hour, RetryPolicy: &orch.ServerRetryPolicy{InitialInterval: time.Second, MaximumAttempts: 2},
			}})))
		})
		run, err := c.StartWorkflow(t.Context(), "Beats", q, nil, nil)
		must(t, err)
		var got int
		must(t, run.Get(t.Context(), &got))
		if n := len(srv.RequestsTo("RecordActivityTaskHeartbeat")); n != 2 {
			t.Errorf("%d heartbeats sent, the limit is 2 a minute", n)
		}
		if got != 1 {
			t.Errorf("the second attempt resumed from %d, want 1 (the last heartbeat sent)", got)
		}
	}, orchfake.WithTimeSkipping())
}

func TestWorkerRegistrationRules(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		if _, err := orch.NewWorker(c, "", nil); err == nil {
			t.Error("empty task queue accepted")
		}
		if _, err := orch.NewWorker(c, "q", &orch.WorkerOptions{MaxConcurrentActivities: -1}); err == nil {
			t.Error("negative option accepted")
		}
		w, err := orch.NewWorker(c, uid("q"), nil)
		must(t, err)
		if err := w.Start(t.Context()); err == nil {
			t.Error("a worker with nothing registered started")
		}
		echo := func(_ context.Context, s string) (string, error) { return s, nil }
		must(t, orch.RegisterActivity(w, "Echo", echo))
		if err := orch.RegisterActivity(w, "Echo", echo); err == nil {
			t.Error("an activity registered twice")
		}
		if err := w.RegisterWorkflow("W", orch.Workflow{}); err == nil {
			t.Error("a workflow without Decide registered")
		}
		w.Stop() // before Start: nothing to do
		// A failed registration leaves the worker startable.
		bad := e.client(t, orch.WithNamespace(uid("missing")))
		wb, err := orch.NewWorker(bad, "q", nil)
		must(t, err)
		must(t, orch.RegisterActivity(wb, "Echo", echo))
		if err := wb.Start(t.Context()); !errors.Is(err, orch.ErrNamespaceNotFound) {
			t.Errorf("start in a missing namespace: %v", err)
		}
		wb.Stop()
		must(t, w.Start(t.Context()))
		if err := orch.RegisterActivity(w, "Late", echo); err == nil {
			t.Error("registered after start")
		}
		if err := w.Start(t.Context()); err == nil {
			t.Error("started twice")
		}
		w.Stop()
		w.Stop() // twice is fine
	})
}

func TestActivityOutsideAWorker(t *testing.T) {
	t.Parallel()
	if err := orch.RecordHeartbeat(t.Context(), 1); err == nil {
		t.Error("RecordHeartbeat outside an activity")
	}
	if _, ok := orch.GetActivityInfo(t.Context()); ok {
		t.Error("activity info outside an activity")
	}
	if err := orch.HeartbeatDetails(t.Context(), new(int)); err == nil {
		t.Error("HeartbeatDetails outside an activity")
	}
}

// TestPanicsFailTheirTask: a panicking Decide fails its workflow task (the
// service schedules another); a panicking activity fails its attempt (the
// service retries it).
func TestPanicsFailTheirTask(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		e.fake(t) // the retry waits a second: on the fake, time skipping makes that instant
		c := workerClient(t, e)
		q := uid("panic")
		seq := orch.Sequence(orch.ActivityStep{ActivityType: "Fragile", Options: &orch.ActivityOptions{
			StartToCloseTimeout: time.Minute, RetryPolicy: &orch.ServerRetryPolicy{InitialInterval: time.Second, MaximumAttempts: 3},
		}})
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Fragile", func(ctx context.Context, in string) (string, error) {
				if info, _ := orch.GetActivityInfo(ctx); info.Attempt == 1 {
					panic("first attempt breaks")
				}
				return in + "!", nil
			}))
			must(t, w.RegisterWorkflow("Moody", orch.Workflow{Decide: func(ctx context.Context, wt *orch.WorkflowTask) ([]*orchpb.Command, error) {
				if wt.Attempt == 1 && len(wt.History) < 4 {
					panic("first task breaks")
				}
				return seq.Decide(ctx, wt)
			}}))
		})
		run, err := c.StartWorkflow(t.Context(), "Moody", q, "ok", nil)
		must(t, err)
		var got string
		must(t, run.Get(t.Context(), &got))
		if got != "ok!" {
			t.Errorf("result %q", got)
		}
		if !hasEvent(t, c, run, orchpb.EventType_WorkflowTaskFailed) {
			t.Error("the panicking task left no WorkflowTaskFailed")
		}
		// A workflow type no worker registered fails its tasks, visibly.
		other, err := c.StartWorkflow(t.Context(), "Unknown", q, nil, nil)
		must(t, err)
		for ev, err := range other.History(t.Context(), &orch.HistoryOptions{Wait: true}) {
			must(t, err)
			if a := ev.GetWorkflowTaskFailedEventAttributes(); a != nil {
				if a.GetCause() != orchpb.WorkflowTaskFailedCause_WORKFLOW_WORKER_UNHANDLED_FAILURE || a.GetFailure().GetApplicationFailureInfo().GetType() != "WorkflowTypeNotRegistered" {
					t.Errorf("failure %v", a)
				}
				break
			}
		}
		must(t, other.Terminate(t.Context(), nil))
	}, orchfake.WithTimeSkipping())
}
