package orch_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// workerClient is a client for worker tests: the call rate is unlimited so
// the client's own waits do not move the shared fake clock; the long-poll
// and heartbeat limits stay on.
func workerClient(t *testing.T, e *env) *orch.Client {
	return e.client(t, orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
}

// startWorker registers with register, starts, and stops the worker when
// the test ends.
func startWorker(t *testing.T, c *orch.Client, queue string, register func(w *orch.Worker)) *orch.Worker {
	t.Helper()
	w, err := orch.NewWorker(c, queue, nil)
	if err != nil {
		t.Fatal(err)
	}
	register(w)
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type shipment struct {
	Order   string `json:"order"`
	Charged bool   `json:"charged"`
	Shipped bool   `json:"shipped"`
}

func TestWorkerRunsTwoActivitiesInOrder(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("orders")
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Charge", func(_ context.Context, in shipment) (shipment, error) {
				in.Charged = true
				return in, nil
			}))
			must(t, orch.RegisterActivity(w, "Ship", func(_ context.Context, in shipment) (shipment, error) {
				in.Shipped = in.Charged
				return in, nil
			}))
			opts := &orch.ActivityOptions{StartToCloseTimeout: time.Minute}
			must(t, w.RegisterWorkflow("Fulfil", orch.Sequence(orch.ActivityStep{ActivityType: "Charge", Options: opts}, orch.ActivityStep{ActivityType: "Ship", Options: opts})))
		})
		run, err := c.StartWorkflow(t.Context(), "Fulfil", q, shipment{Order: "o-1"}, nil)
		must(t, err)
		var got shipment
		must(t, run.Get(t.Context(), &got))
		if got != (shipment{Order: "o-1", Charged: true, Shipped: true}) {
			t.Errorf("result %+v", got)
		}
		want := []orchpb.EventType{
			orchpb.EventType_WorkflowExecutionStarted,
			orchpb.EventType_WorkflowTaskScheduled, orchpb.EventType_WorkflowTaskStarted, orchpb.EventType_WorkflowTaskCompleted,
			orchpb.EventType_ActivityTaskScheduled, orchpb.EventType_ActivityTaskStarted, orchpb.EventType_ActivityTaskCompleted,
			orchpb.EventType_WorkflowTaskScheduled, orchpb.EventType_WorkflowTaskStarted, orchpb.EventType_WorkflowTaskCompleted,
			orchpb.EventType_ActivityTaskScheduled, orchpb.EventType_ActivityTaskStarted, orchpb.EventType_ActivityTaskCompleted,
			orchpb.EventType_WorkflowTaskScheduled, orchpb.EventType_WorkflowTaskStarted, orchpb.EventType_WorkflowTaskCompleted,
			orchpb.EventType_WorkflowExecutionCompleted,
		}
		if diff := cmp.Diff(want, eventTypes(t, c, run.ID, run.RunID)); diff != "" {
			t.Errorf("history (-want +got):\n%s", diff)
		}
		if e.srv != nil {
			desc, err := c.DescribeTaskQueue(t.Context(), q, &orch.DescribeTaskQueueOptions{Type: orchpb.TaskQueueType_ACTIVITY})
			if err != nil || len(desc.GetPollers()) == 0 || desc.GetPollers()[0].GetIdentity() != c.Identity() {
				t.Errorf("activity pollers: %v, %v", desc, err)
			}
		}
	})
}

// TestActivityRetriedPerPolicy: an activity fails twice and succeeds on the
// third attempt; the attempts start 1 s and then 2 s after the failures
// (initial interval 1 s, coefficient 2), as the fake clock shows.
func TestActivityRetriedPerPolicy(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := workerClient(t, e)
		q := uid("retry")
		var mu sync.Mutex
		var starts []time.Time
		var attempts []int32
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Flaky", func(ctx context.Context, in string) (string, error) {
				info, _ := orch.GetActivityInfo(ctx)
				mu.Lock()
				starts = append(starts, srv.Clock().Now())
				attempts = append(attempts, info.Attempt)
				mu.Unlock()
				if info.Attempt < 3 {
					return "", fmt.Errorf("attempt %d failed", info.Attempt)
				}
				return in + " ok", nil
			}))
			must(t, w.RegisterWorkflow("Retrying", orch.Sequence(orch.ActivityStep{ActivityType: "Flaky", Options: &orch.ActivityOptions{
				StartToCloseTimeout: time.Minute,
				RetryPolicy:         &orch.ServerRetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumAttempts: 5},
			}})))
		})
		run, err := c.StartWorkflow(t.Context(), "Retrying", q, "payment", nil)
		must(t, err)
		var got string
		must(t, run.Get(t.Context(), &got))
		if got != "payment ok" {
			t.Errorf("result %q", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if diff := cmp.Diff([]int32{1, 2, 3}, attempts); diff != "" {
			t.Fatalf("attempts (-want +got):\n%s", diff)
		}
		if d1, d2 := starts[1].Sub(starts[0]), starts[2].Sub(starts[1]); d1 != time.Second || d2 != 2*time.Second {
			t.Errorf("backoff %v then %v, want 1s then 2s", d1, d2)
		}
		types := eventTypes(t, c, run.ID, run.RunID)
		if slices.Contains(types, orchpb.EventType_ActivityTaskFailed) {
			t.Errorf("a retried failure left an ActivityTaskFailed event: %v", types)
		}
	}, orchfake.WithTimeSkipping())
}

func TestNonRetryableFailureFailsTheWorkflow(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("nonretry")
		calls := 0
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Refuse", func(context.Context, string) (string, error) {
				calls++
				return "", orch.NonRetryable(errors.New("card declined"))
			}))
			must(t, w.RegisterWorkflow("Pay", orch.Sequence(orch.ActivityStep{ActivityType: "Refuse", Options: &orch.ActivityOptions{StartToCloseTimeout: time.Minute}})))
		})
		run, err := c.StartWorkflow(t.Context(), "Pay", q, "x", nil)
		must(t, err)
		var werr *orch.WorkflowExecutionError
		err = run.Get(t.Context(), nil)
		if !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_FAILED || werr.Failure.GetMessage() != "card declined" {
			t.Fatalf("result: %v", err)
		}
		if !werr.Failure.GetApplicationFailureInfo().GetNonRetryable() || calls != 1 {
			t.Errorf("failure %v after %d calls", werr.Failure, calls)
		}
	})
}

// TestHeartbeatTimeout: an activity that stops heartbeating times out on
// the fake clock; its next heartbeat learns the task is gone
// (ACTIVITY_TASK_TIMEOUT), its context ends, and the workflow fails with the
// timeout. The workflow's next task waits for the heartbeat, so the
// heartbeat meets the timed-out task rather than a closed execution.
func TestHeartbeatTimeout(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := workerClient(t, e)
		q := uid("heartbeat")
		running, release, gate := make(chan struct{}), make(chan struct{}), make(chan struct{})
		heartbeatErr, cause := make(chan error, 1), make(chan error, 1)
		sequence := orch.Sequence(orch.ActivityStep{ActivityType: "Slow", Options: &orch.ActivityOptions{
			StartToCloseTimeout: time.Hour, HeartbeatTimeout: 5 * time.Second, RetryPolicy: &orch.ServerRetryPolicy{MaximumAttempts: 1},
		}})
		gated := orch.Workflow{Decide: func(ctx context.Context, wt *orch.WorkflowTask) ([]*orchpb.Command, error) {
			for _, ev := range wt.History {
				if ev.GetEventType() == orchpb.EventType_ActivityTaskTimedOut {
					<-gate
				}
			}
			return sequence.Decide(ctx, wt)
		}}
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Slow", func(ctx context.Context, _ string) (string, error) {
				must(t, orch.RecordHeartbeat(ctx, map[string]int{"done": 1}))
				close(running)
				<-release
				heartbeatErr <- orch.RecordHeartbeat(ctx, map[string]int{"done": 2})
				<-ctx.Done()
				cause <- context.Cause(ctx)
				return "", ctx.Err()
			}))
			must(t, w.RegisterWorkflow("Slowly", gated))
		})
		run, err := c.StartWorkflow(t.Context(), "Slowly", q, "x", nil)
		must(t, err)
		<-running
		srv.Clock().Advance(6 * time.Second)
		close(release)
		if err := <-heartbeatErr; !errors.Is(err, orch.ErrActivityTaskTimeout) {
			t.Errorf("heartbeat after the timeout: %v", err)
		}
		if err := <-cause; !errors.Is(err, orch.ErrActivityTaskTimeout) {
			t.Errorf("the activity's context ended with %v", err)
		}
		close(gate)
		var werr *orch.WorkflowExecutionError
		if err := run.Get(t.Context(), nil); !errors.As(err, &werr) || werr.Status != orchpb.WorkflowExecutionStatus_FAILED {
			t.Fatalf("result: %v", err)
		}
		if !slices.Contains(eventTypes(t, c, run.ID, run.RunID), orchpb.EventType_ActivityTaskTimedOut) {
			t.Error("no ActivityTaskTimedOut event")
		}
	})
}

// TestWorkflowTaskTimeoutAndRetry: a workflow task held past its timeout is
// timed out (a late answer is WORKFLOW_TASK_TIMEOUT) and a new attempt runs.
func TestWorkflowTaskTimeoutAndRetry(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := workerClient(t, e)
		q := uid("wft")
		run, err := c.StartWorkflow(t.Context(), "Late", q, nil, &orch.StartWorkflowOptions{TaskTimeout: 10 * time.Second})
		must(t, err)
		// A worker by hand takes the task and answers too late.
		task, err := c.Raw().PollWorkflowTaskQueue(t.Context(), &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: q})
		must(t, err)
		srv.Clock().Advance(11 * time.Second)
		done, err := orch.CompleteWorkflowCommand("late")
		must(t, err)
		_, err = c.Raw().RespondWorkflowTaskCompleted(t.Context(), &orchpb.RespondWorkflowTaskCompletedRequest{TaskToken: task.GetTaskToken(), Commands: []*orchpb.Command{done}})
		if !errors.Is(err, orch.ErrWorkflowTaskTimeout) {
			t.Errorf("late answer: %v", err)
		}
		// The next attempt goes to a worker.
		var attempt int32
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, w.RegisterWorkflow("Late", orch.Workflow{Decide: func(_ context.Context, wt *orch.WorkflowTask) ([]*orchpb.Command, error) {
				attempt = wt.Attempt
				cmd, err := orch.CompleteWorkflowCommand("on time")
				return []*orchpb.Command{cmd}, err
			}}))
		})
		var got string
		must(t, run.Get(t.Context(), &got))
		if got != "on time" || attempt != 2 {
			t.Errorf("result %q at attempt %d", got, attempt)
		}
		if !slices.Contains(eventTypes(t, c, run.ID, run.RunID), orchpb.EventType_WorkflowTaskTimedOut) {
			t.Error("no WorkflowTaskTimedOut event")
		}
	})
}

// TestSignalDuringARunningTask: a signal that arrives while a task runs
// makes the service refuse that task's completion; the next task sees the
// signal.
func TestSignalDuringARunningTask(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("signal")
		entered, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, w.RegisterWorkflow("Waiter", orch.Workflow{Decide: func(_ context.Context, wt *orch.WorkflowTask) ([]*orchpb.Command, error) {
				signals := wt.Signals()
				if len(signals) == 0 {
					once.Do(func() { close(entered); <-release })
					cmd, err := orch.CompleteWorkflowCommand("no signal")
					return []*orchpb.Command{cmd}, err
				}
				var got string
				if err := orch.DecodePayloads(signals[0].GetInput(), &got); err != nil {
					return nil, err
				}
				cmd, err := orch.CompleteWorkflowCommand("signal: " + got)
				return []*orchpb.Command{cmd}, err
			}}))
		})
		run, err := c.StartWorkflow(t.Context(), "Waiter", q, nil, nil)
		must(t, err)
		<-entered
		must(t, run.Signal(t.Context(), "go", "now", nil))
		close(release)
		var got string
		must(t, run.Get(t.Context(), &got))
		if got != "signal: now" {
			t.Errorf("result %q", got)
		}
	})
}

func TestQueryAnsweredByTheWorker(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("query")
		running, release := make(chan struct{}), make(chan struct{})
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Quick", func(_ context.Context, in int) (int, error) { return in + 1, nil }))
			must(t, orch.RegisterActivity(w, "Blocked", func(_ context.Context, in int) (int, error) {
				close(running)
				<-release
				return in + 1, nil
			}))
			opts := &orch.ActivityOptions{StartToCloseTimeout: time.Hour}
			must(t, w.RegisterWorkflow("Steps", orch.Sequence(orch.ActivityStep{ActivityType: "Quick", Options: opts}, orch.ActivityStep{ActivityType: "Blocked", Options: opts})))
		})
		run, err := c.StartWorkflow(t.Context(), "Steps", q, 1, nil)
		must(t, err)
		<-running
		var progress int
		must(t, run.Query(t.Context(), "progress", nil, &progress, nil))
		if progress != 1 {
			t.Errorf("progress %d, want 1", progress)
		}
		err = run.Query(t.Context(), "nonsense", nil, nil, nil)
		if !errors.Is(err, orch.ErrInvalidArgument) {
			t.Errorf("unknown query: %v", err)
		}
		close(release)
		var got int
		must(t, run.Get(t.Context(), &got))
		if got != 3 {
			t.Errorf("result %d", got)
		}
	})
}

// TestTerminateWhileAnActivityRuns: the activity's next heartbeat learns
// the execution is closed and its context ends.
func TestTerminateWhileAnActivityRuns(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("terminate")
		running, release := make(chan struct{}), make(chan struct{})
		ended := make(chan error, 1)
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "Long", func(ctx context.Context, _ string) (string, error) {
				close(running)
				<-release
				_ = orch.RecordHeartbeat(ctx, nil)
				<-ctx.Done()
				ended <- context.Cause(ctx)
				return "", ctx.Err()
			}))
			must(t, w.RegisterWorkflow("Long", orch.Sequence(orch.ActivityStep{ActivityType: "Long", Options: &orch.ActivityOptions{StartToCloseTimeout: time.Hour}})))
		})
		run, err := c.StartWorkflow(t.Context(), "Long", q, "x", nil)
		must(t, err)
		<-running
		must(t, run.Terminate(t.Context(), &orch.TerminateOptions{Reason: "stop"}))
		close(release)
		if cause := <-ended; cause == nil || !(errors.Is(cause, orch.ErrNotFound) || errors.Is(cause, orch.ErrFailedPrecondition)) {
			t.Errorf("the activity's context ended with %v", cause)
		}
		info, err := run.Describe(t.Context())
		if err != nil || info.GetStatus() != orchpb.WorkflowExecutionStatus_TERMINATED {
			t.Errorf("status %v, %v", info.GetStatus(), err)
		}
	})
}

// TestOneHourTimerWithTimeSkipping: a workflow that sleeps an hour ends at
// once when the fake skips time.
func TestOneHourTimerWithTimeSkipping(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := workerClient(t, e)
		q := uid("timer")
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, w.RegisterWorkflow("Sleeper", orch.Workflow{Decide: func(_ context.Context, wt *orch.WorkflowTask) ([]*orchpb.Command, error) {
				for _, ev := range wt.History {
					if ev.GetEventType() == orchpb.EventType_TimerFired {
						cmd, err := orch.CompleteWorkflowCommand("rested")
						return []*orchpb.Command{cmd}, err
					}
				}
				return []*orchpb.Command{orch.StartTimerCommand("nap", time.Hour)}, nil
			}}))
		})
		start := srv.Clock().Now()
		run, err := c.StartWorkflow(t.Context(), "Sleeper", q, nil, nil)
		must(t, err)
		var got string
		must(t, run.Get(t.Context(), &got))
		if got != "rested" || srv.Clock().Now().Sub(start) < time.Hour {
			t.Errorf("result %q after %v on the clock", got, srv.Clock().Now().Sub(start))
		}
	}, orchfake.WithTimeSkipping())
}
