package workflow_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// Reminder is a workflow written as an ordinary function: an activity, a
// durable timer, a signal with a deadline, then the result.
func Reminder(ctx workflow.Context, who string) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute})
	var text string
	if err := workflow.ExecuteActivity(ctx, "Compose", who).Get(ctx, &text); err != nil {
		return "", err
	}
	if err := workflow.Sleep(ctx, 24*time.Hour); err != nil { // costs no real time on a time-skipping fake
		return "", err
	}
	reply := "no reply"
	timeout, stop := workflow.WithCancel(ctx)
	workflow.NewSelector(ctx).
		AddReceive(workflow.GetSignalChannel(ctx, "reply"), func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &reply) }).
		AddFuture(workflow.NewTimer(timeout, time.Hour), func(workflow.Future) {}).
		Select(ctx)
	stop()
	return text + " / " + reply, nil
}

func Example() {
	srv := orchfake.New(orchfake.WithTimeSkipping()) // a test would use orchfake.Start(t)
	defer srv.Close()
	c := srv.Client() // in memory; orch.Dial or orch.NewHTTP for a real service
	defer c.Close()
	ctx := context.Background()

	w, err := orch.NewWorker(c, "reminders", nil)
	if err != nil {
		panic(err)
	}
	if err := workflow.Register(w, "Reminder", Reminder); err != nil {
		panic(err)
	}
	if err := orch.RegisterActivity(w, "Compose", func(_ context.Context, who string) (string, error) {
		return "Dear " + who + ", your invoice is due", nil
	}); err != nil {
		panic(err)
	}
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Stop()

	run, err := c.StartWorkflow(ctx, "Reminder", "reminders", "Ada", nil)
	if err != nil {
		panic(err)
	}
	var out string
	if err := run.Get(ctx, &out); err != nil {
		panic(err)
	}
	fmt.Println(out)

	// The recorded history replays against the code: the test to run
	// before deploying a change to it.
	var history []*orchpb.HistoryEvent
	for ev, err := range run.History(ctx, nil) {
		if err != nil {
			panic(err)
		}
		history = append(history, ev)
	}
	fmt.Println("replay:", workflow.Replay(history, Reminder))

	// A change that moves the sleep before the activity breaks runs
	// under way, and Replay says where.
	changed := func(ctx workflow.Context, who string) (string, error) {
		if err := workflow.Sleep(ctx, time.Hour); err != nil {
			return "", err
		}
		return Reminder(ctx, who)
	}
	err = workflow.Replay(history, changed)
	fmt.Println(strings.ReplaceAll(err.Error(), ", but", ",\n  but"))
	// Output:
	// Dear Ada, your invoice is due / no reply
	// replay: <nil>
	// workflow: non-deterministic: event 5 records ActivityTaskScheduled Compose (activity id 1),
	//   but the code issued StartTimer (timer id 1, 1h0m0s)
}
