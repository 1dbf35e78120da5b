package workflow_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
	"google.golang.org/protobuf/encoding/protojson"
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
	srv, err := orchfake.New(orchfake.WithTimeSkipping()) // a test would use orchfake.Start(t)
	if err != nil {
		log.Fatal(err)
	}
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

// A history saved to a file does not say which workflow id it was
// recorded under (nor, for a run that continues another, which run id):
// ReplayWithOptions gives the code the ids it read in GetInfo when it ran.
func ExampleReplayWithOptions() {
	srv, err := orchfake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c := srv.Client()
	defer c.Close()
	ctx := context.Background()

	var read string // what the code last read in GetInfo
	label := func(ctx workflow.Context, _ any) (string, error) {
		info := workflow.GetInfo(ctx)
		read = fmt.Sprintf("workflow id %q, run id %q", info.WorkflowID, info.RunID)
		return read, nil
	}
	w, err := orch.NewWorker(c, "labels", nil)
	if err != nil {
		panic(err)
	}
	if err := workflow.Register(w, "Label", label); err != nil {
		panic(err)
	}
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Stop()
	run, err := c.StartWorkflow(ctx, "Label", "labels", nil, &orch.StartWorkflowOptions{ID: "invoice-7"})
	if err != nil {
		panic(err)
	}
	if err := run.Get(ctx, &read); err != nil {
		panic(err)
	}
	show := func(name string, err error) {
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-18s %s\n", name+":", strings.ReplaceAll(read, run.RunID, "<run id>"))
	}
	show("ran", nil)

	// The history as "orchctl workflow show --output json" saves it.
	var events []*orchpb.HistoryEvent
	for ev, err := range run.History(ctx, nil) {
		if err != nil {
			panic(err)
		}
		events = append(events, ev)
	}
	saved, err := protojson.Marshal(&orchpb.GetWorkflowExecutionHistoryResponse{History: events})
	if err != nil {
		panic(err)
	}

	history, err := workflow.ParseHistoryJSON(saved)
	if err != nil {
		panic(err)
	}
	show("Replay", workflow.Replay(history, label))
	err = workflow.ReplayWithOptions(history, label, workflow.ReplayOptions{WorkflowID: "invoice-7", RunID: run.RunID})
	show("ReplayWithOptions", err)
	// Output:
	// ran:               workflow id "invoice-7", run id "<run id>"
	// Replay:            workflow id "", run id "<run id>"
	// ReplayWithOptions: workflow id "invoice-7", run id "<run id>"
}

// A workflow that takes updates: a validator refuses bad ones before
// anything is recorded, the handler answers the others, and the caller
// gets the answer (or the refusal) back.
func ExampleSetUpdateHandlerWithArg() {
	srv, err := orchfake.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c := srv.Client()
	defer c.Close()
	ctx := context.Background()

	counter := func(ctx workflow.Context, _ struct{}) (int, error) {
		count := 0
		workflow.SetUpdateHandlerWithArg(ctx, "add", func(ctx workflow.Context, n int) (any, error) {
			count += n
			return count, nil
		}, func(n int) error {
			if n <= 0 {
				return fmt.Errorf("%d is not positive", n)
			}
			return nil
		})
		err := workflow.Await(ctx, func() bool { return count >= 5 })
		return count, err
	}
	w, err := orch.NewWorker(c, "counters", nil)
	if err != nil {
		panic(err)
	}
	if err := workflow.Register(w, "Counter", counter); err != nil {
		panic(err)
	}
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Stop()

	run, err := c.StartWorkflow(ctx, "Counter", "counters", nil, nil)
	if err != nil {
		panic(err)
	}
	for _, n := range []int{2, -1, 3} {
		u, err := run.Update(ctx, "add", n, nil) // waits for the update to complete
		if err != nil {
			panic(err)
		}
		var count int
		var refused *orch.UpdateFailedError
		if err := u.Get(ctx, &count); errors.As(err, &refused) {
			fmt.Println("add", n, "refused:", refused.Failure.GetMessage())
			continue
		} else if err != nil {
			panic(err)
		}
		fmt.Println("add", n, "count", count)
	}
	var final int
	if err := run.Get(ctx, &final); err != nil {
		panic(err)
	}
	fmt.Println("final", final)
	// Output:
	// add 2 count 2
	// add -1 refused: -1 is not positive
	// add 3 count 5
	// final 5
}
