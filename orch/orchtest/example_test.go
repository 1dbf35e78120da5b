package orchtest_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchtest"
	"github.com/apitwin/apitwin/orch/workflow"
)

// An order workflow: charge, wait for approval (at most a day), cool off
// for an hour, ship. The test mocks the charge, runs the real shipping
// activity, approves two hours in, and takes 26 hours of workflow time
// in well under a millisecond.
func Example() {
	order := func(ctx workflow.Context, id string) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute})
		var charge string
		if err := workflow.ExecuteActivity(ctx, "ChargeCard", id).Get(ctx, &charge); err != nil {
			return "", err
		}
		approve := workflow.GetSignalChannel(ctx, "approve")
		if ok, err := workflow.AwaitWithTimeout(ctx, 24*time.Hour, func() bool { return approve.Len() > 0 }); err != nil || !ok {
			return "", errors.Join(err, errors.New("not approved in time"))
		}
		var by string
		approve.Receive(ctx, &by)
		if err := workflow.Sleep(ctx, time.Hour); err != nil {
			return "", err
		}
		var tracking string
		err := workflow.ExecuteActivity(ctx, "ShipParcel", id).Get(ctx, &tracking)
		return fmt.Sprintf("%s charged %s, approved by %s, shipped %s", id, charge, by, tracking), err
	}

	env := orchtest.New(nil) // in a test: orchtest.New(t)
	orchtest.RegisterWorkflow(env, "Order", order)
	charge := env.OnActivity("ChargeCard").Return("ch_1", nil).Once()
	orchtest.RegisterActivity(env, "ShipParcel", func(_ context.Context, id string) (string, error) { return "TRK-" + id, nil })
	env.After(2*time.Hour, func() { _ = env.SignalWorkflow("approve", "ops") })

	start := env.Now()
	env.ExecuteWorkflow("Order", "o-1", nil)
	var receipt string
	if err := env.Result(&receipt); err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(receipt)
	fmt.Println("workflow time:", env.Now().Sub(start))
	fmt.Println("charge calls:", len(charge.Calls()), "mocks met:", env.Verify() == nil)
	fmt.Println("replays:", workflow.Replay(env.History(), order) == nil)
	// Output:
	// o-1 charged ch_1, approved by ops, shipped TRK-o-1
	// workflow time: 3h0m0s
	// charge calls: 1 mocks met: true
	// replays: true
}

// Retries follow the activity's retry policy in skipped workflow time:
// here the first two attempts fail and the third, four seconds later in
// workflow time (backoff 1 s, then 3 s with a coefficient of 3), succeeds.
func ExampleMock_Times() {
	fetch := func(ctx workflow.Context, _ any) (string, error) {
		ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute,
			RetryPolicy: &orch.ServerRetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 3}})
		var page string
		err := workflow.ExecuteActivity(ctx, "Fetch", "https://example.com/").Get(ctx, &page)
		return page, err
	}
	env := orchtest.New(nil)
	orchtest.RegisterWorkflow(env, "Fetch", fetch)
	failing := env.OnActivity("Fetch").Return(nil, errors.New("503")).Times(2)
	ok := env.OnActivity("Fetch").Return("<html>", nil).Once()
	start := env.Now()
	env.ExecuteWorkflow("Fetch", nil, nil)
	var page string
	fmt.Println(env.Result(&page), page)
	for _, c := range append(failing.Calls(), ok.Calls()...) {
		fmt.Printf("attempt %d at +%v\n", c.Attempt, c.Time.Sub(start))
	}
	// Output:
	// <nil> <html>
	// attempt 1 at +0s
	// attempt 2 at +1s
	// attempt 3 at +4s
}

// A workflow that waits for something the test never sends ends at once
// with a report of what it waits on, rather than hanging the test.
func ExampleBlockedError() {
	waits := func(ctx workflow.Context, _ any) (string, error) {
		var by string
		workflow.GetSignalChannel(ctx, "approve").Receive(ctx, &by)
		return by, nil
	}
	env := orchtest.New(nil)
	orchtest.RegisterWorkflow(env, "Waits", waits)
	env.ExecuteWorkflow("Waits", nil, &orch.StartWorkflowOptions{ID: "order-9"})
	var blocked *orchtest.BlockedError
	fmt.Println(errors.As(env.Err(), &blocked), blocked.Runs[0].Signals)
	fmt.Println(env.Err())
	// Output:
	// true [approve]
	// orchtest: the workflow is blocked at 0s of workflow time: nothing is pending and no callback is due; Waits order-9 (run orchtest-run-1) waits on signal approve
}

// A child workflow may be mocked: the parent's test does not run it.
func ExampleEnv_OnWorkflow() {
	parent := func(ctx workflow.Context, user string) (string, error) {
		var sent string
		err := workflow.ExecuteChildWorkflow(ctx, "Notify", user, nil).Get(ctx, &sent)
		return "notified: " + sent, err
	}
	env := orchtest.New(nil)
	orchtest.RegisterWorkflow(env, "Parent", parent)
	notify := env.OnWorkflow("Notify").Do(func(user string) (string, error) { return "mail to " + user, nil })
	env.ExecuteWorkflow("Parent", "ada", nil)
	var out string
	fmt.Println(env.Result(&out), out)
	var arg string
	_ = notify.Calls()[0].Arg(&arg)
	fmt.Println("child input:", arg)
	// Output:
	// <nil> notified: mail to ada
	// child input: ada
}
