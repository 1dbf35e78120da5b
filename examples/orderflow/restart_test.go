package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// client returns a client of the fake over transport, with its own worker
// identity; the call rate is unlimited so the client never waits on the
// fake's clock, which only the test moves.
func client(t *testing.T, srv *orchfake.Server, transport, identity string) *orch.Client {
	t.Helper()
	opts := []orch.Option{orch.WithIdentity(identity), orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited})}
	var c *orch.Client
	if transport == "grpc" {
		c = srv.GRPCClient(opts...)
	} else {
		c = srv.HTTPClient(opts...)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// startWorker starts a worker of the order workflow on c: Register's, or,
// when fn is not nil, fn as the workflow's code.
func startWorker(t *testing.T, c *orch.Client, fn func(workflow.Context, Order) (Receipt, error)) *orch.Worker {
	t.Helper()
	w, err := orch.NewWorker(c, TaskQueue, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fn == nil {
		err = Register(w)
	} else {
		err = errors.Join(
			workflow.Register(w, WorkflowType, fn),
			orch.RegisterActivity(w, "ChargeCard", func(context.Context, Order) (string, error) { return "ch", nil }),
			orch.RegisterActivity(w, "ShipParcel", func(context.Context, Order) (string, error) { return "trk", nil }),
		)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return w
}

// waitFor follows the run's history (long polls, no sleeping) until an
// event satisfies ok, and returns it.
func waitFor(t *testing.T, c *orch.Client, wf *orch.WorkflowRun, what string, ok func(*orchpb.HistoryEvent) bool) *orchpb.HistoryEvent {
	t.Helper()
	for ev, err := range wf.History(t.Context(), &orch.HistoryOptions{Wait: true}) {
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(ev) {
			return ev
		}
	}
	t.Fatalf("the run closed before %s", what)
	return nil
}

func history(t *testing.T, wf *orch.WorkflowRun) []*orchpb.HistoryEvent {
	t.Helper()
	var out []*orchpb.HistoryEvent
	for ev, err := range wf.History(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func timerStarted(d time.Duration) func(*orchpb.HistoryEvent) bool {
	return func(ev *orchpb.HistoryEvent) bool {
		a := ev.GetTimerStartedEventAttributes()
		return a != nil && a.GetStartToFireTimeout().AsDuration() == d
	}
}

// TestRestartMidway: a worker runs the order up to the wait for approval
// and stops; a worker of changed, non-deterministic code, asked a query,
// answers with the event that differs; a worker of the right code then
// finishes the run from its history: the status query, the approval
// signal, the cooling-off hour on the fake clock, shipping, the child
// workflow that notifies the customer. The recorded
// history replays against OrderFlow, and deliberately changed functions
// are reported non-deterministic at the event they change. Over both
// transports.
func TestRestartMidway(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"grpc", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv := orchfake.Start(t, control.WithClock(clock.NewFake(epoch)))
			c1 := client(t, srv, transport, "worker-1")
			w1 := startWorker(t, c1, nil)
			wf, err := c1.StartWorkflow(t.Context(), WorkflowType, TaskQueue, Order{ID: "o-1", Item: "lamp", Amount: 39.9}, &orch.StartWorkflowOptions{ID: "order-o-1"})
			if err != nil {
				t.Fatal(err)
			}
			// Worker 1 charges the card and starts waiting for approval.
			waitFor(t, c1, wf, "the approval timer", timerStarted(ApprovalWindow))
			w1.Stop()

			// A worker of changed code (it sleeps before charging) meets
			// the run: its replay, for a status query, differs from the
			// history, and it says where.
			cBad := client(t, srv, transport, "worker-bad")
			wBad := startWorker(t, cBad, sleepFirst)
			charge := eventID(history(t, wf), func(ev *orchpb.HistoryEvent) bool {
				return ev.GetEventType() == orchpb.EventType_ActivityTaskScheduled
			})
			want := fmt.Sprintf("workflow: non-deterministic: event %d records ActivityTaskScheduled ChargeCard (activity id 1), but the code issued StartTimer (timer id 1, 1s)", charge)
			var status string
			if err := wf.Query(t.Context(), StatusQuery, nil, &status, nil); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("query to the changed code: %q, %v; want the error %q", status, err, want)
			}
			wBad.Stop()

			// Worker 2, of the right code, resumes: the status query and
			// the signal are answered from the replayed history.
			c2 := client(t, srv, transport, "worker-2")
			startWorker(t, c2, nil)
			if err := wf.Query(t.Context(), StatusQuery, nil, &status, nil); err != nil || status != "awaiting approval" {
				t.Fatalf("status %q, %v; want awaiting approval", status, err)
			}
			if err := wf.Signal(t.Context(), ApproveSignal, Approval{By: "alice"}, nil); err != nil {
				t.Fatal(err)
			}
			waitFor(t, c2, wf, "the cooling-off timer", timerStarted(CoolingOff))
			srv.Clock().Advance(CoolingOff)
			var r Receipt
			if err := wf.Get(t.Context(), &r); err != nil {
				t.Fatal(err)
			}
			wantReceipt := Receipt{OrderID: "o-1", Charge: "ch_o-1_39.90", ApprovedBy: "alice", Tracking: "TRK-o-1", ShippedAt: epoch.Add(CoolingOff),
				Notice: "order o-1 shipped, tracking TRK-o-1"}
			if r != wantReceipt {
				t.Errorf("receipt %+v, want %+v", r, wantReceipt)
			}

			h := history(t, wf)
			if n := count(h, orchpb.EventType_ActivityTaskScheduled); n != 2 {
				t.Errorf("%d activities scheduled, want 2 (the charge ran once, across the restart)", n)
			}
			if n := count(h, orchpb.EventType_ChildWorkflowExecutionCompleted); n != 1 {
				t.Errorf("%d child workflows completed, want 1", n)
			}
			if got := completers(h); !strings.HasPrefix(got, "worker-1,worker-1,") || !strings.HasSuffix(got, ",worker-2") || strings.Contains(got, "worker-bad") {
				t.Errorf("workflow tasks completed by %s", got)
			}

			// The recorded history replays against the code; the changed
			// code is reported at the event it changes.
			if err := workflow.Replay(h, OrderFlow); err != nil {
				t.Errorf("Replay: %v", err)
			}
			if err := workflow.ReplayRun(t.Context(), c2, wf.ID, wf.RunID, OrderFlow); err != nil {
				t.Errorf("ReplayRun: %v", err)
			}
			// The child's own history replays against Notify.
			for _, ev := range h {
				if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
					if err := workflow.ReplayRun(t.Context(), c2, a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId(), Notify); err != nil {
						t.Errorf("ReplayRun of the child: %v", err)
					}
				}
			}
			var nde *workflow.NonDeterminismError
			if err := workflow.Replay(h, sleepFirst); !errors.As(err, &nde) || nde.EventID != charge || err.Error() != want {
				t.Errorf("Replay of changed code: %v, want %q", err, want)
			}
			err = workflow.Replay(h, skipCoolingOff)
			wantSkip := fmt.Sprintf("workflow: non-deterministic: event %d records TimerStarted (timer id 3, 1h0m0s), but the code issued ScheduleActivityTask ShipParcel (activity id 3)", eventID(h, timerStarted(CoolingOff)))
			if !errors.As(err, &nde) || err.Error() != wantSkip {
				t.Errorf("Replay without the cooling-off:\n got %v\nwant %s", err, wantSkip)
			}
		})
	}
}

// sleepFirst is OrderFlow changed in a way that breaks runs under way: it
// waits a second before charging.
func sleepFirst(ctx workflow.Context, o Order) (Receipt, error) {
	if err := workflow.Sleep(ctx, time.Second); err != nil {
		return Receipt{}, err
	}
	return OrderFlow(ctx, o)
}

// skipCoolingOff is OrderFlow without the cooling-off hour.
func skipCoolingOff(ctx workflow.Context, o Order) (Receipt, error) {
	ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute})
	r := Receipt{OrderID: o.ID}
	if err := workflow.ExecuteActivity(ctx, "ChargeCard", o).Get(ctx, &r.Charge); err != nil {
		return r, err
	}
	timerCtx, cancel := workflow.WithCancel(ctx)
	workflow.NewSelector(ctx).
		AddReceive(workflow.GetSignalChannel(ctx, ApproveSignal), func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) }).
		AddFuture(workflow.NewTimer(timerCtx, ApprovalWindow), func(workflow.Future) {}).
		Select(ctx)
	cancel()
	err := workflow.ExecuteActivity(ctx, "ShipParcel", o).Get(ctx, &r.Tracking)
	return r, err
}

func eventID(h []*orchpb.HistoryEvent, ok func(*orchpb.HistoryEvent) bool) int64 {
	for _, ev := range h {
		if ok(ev) {
			return ev.GetEventId()
		}
	}
	return 0
}

func count(h []*orchpb.HistoryEvent, t orchpb.EventType) int {
	n := 0
	for _, ev := range h {
		if ev.GetEventType() == t {
			n++
		}
	}
	return n
}

// completers lists who completed each workflow task, in order.
func completers(h []*orchpb.HistoryEvent) string {
	var who []string
	for _, ev := range h {
		if a := ev.GetWorkflowTaskCompletedEventAttributes(); a != nil {
			who = append(who, a.GetIdentity())
		}
	}
	return strings.Join(who, ",")
}
