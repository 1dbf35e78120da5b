// Command orch runs an order-fulfilment workflow with a worker: reserve the
// stock, charge the card (the payment service fails once and the activity is
// retried by its retry policy), ship; then it reads the workflow's history,
// asks it a query, and searches for it.
//
// With no setup it runs against the embedded orchestration fake, with time
// skipping on, so the retry's backoff costs no real time:
//
//	go run ./examples/orch
//
// Set ORCH_ADDR (gRPC host:port; ORCH_TOKEN and ORCH_NAMESPACE optional) to
// run it against a real service.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "orch example:", err)
		os.Exit(1)
	}
}

// Order goes from activity to activity and is the workflow's result.
type Order struct {
	ID       string  `json:"id"`
	Item     string  `json:"item"`
	Amount   float64 `json:"amount"`
	Reserved bool    `json:"reserved"`
	Charge   string  `json:"charge,omitempty"`
	Tracking string  `json:"tracking,omitempty"`
}

func run(ctx context.Context, getenv func(string) string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, closeAll, err := connect(getenv)
	if err != nil {
		return err
	}
	defer closeAll()

	const taskQueue = "fulfilment"
	w, err := orch.NewWorker(c, taskQueue, nil)
	if err != nil {
		return err
	}
	var chargeAttempts atomic.Int32
	_ = orch.RegisterActivity(w, "ReserveStock", func(ctx context.Context, o Order) (Order, error) {
		o.Reserved = true
		return o, nil
	})
	_ = orch.RegisterActivity(w, "ChargeCard", func(ctx context.Context, o Order) (Order, error) {
		info, _ := orch.GetActivityInfo(ctx)
		if chargeAttempts.Add(1) == 1 {
			// A transient failure: the service retries after the policy's backoff.
			return o, errors.New("payment service unavailable")
		}
		o.Charge = fmt.Sprintf("ch_%s_attempt%d", o.ID, info.Attempt)
		return o, nil
	})
	_ = orch.RegisterActivity(w, "Ship", func(ctx context.Context, o Order) (Order, error) {
		if o.Charge == "" {
			return o, orch.NonRetryable(errors.New("not charged"))
		}
		o.Tracking = "TRK-" + o.ID
		return o, nil
	})
	steps := &orch.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &orch.ServerRetryPolicy{InitialInterval: 2 * time.Second, MaximumAttempts: 3},
	}
	if err := w.RegisterWorkflow("OrderFulfilment", orch.Sequence(
		orch.ActivityStep{ActivityType: "ReserveStock", Options: steps},
		orch.ActivityStep{ActivityType: "ChargeCard", Options: steps},
		orch.ActivityStep{ActivityType: "Ship", Options: steps},
	)); err != nil {
		return err
	}
	if err := w.Start(ctx); err != nil {
		return err
	}
	defer w.Stop()
	fmt.Println("worker: polling task queue", taskQueue)

	order := Order{ID: fmt.Sprintf("o-%d", time.Now().UnixNano()%100000), Item: "desk lamp", Amount: 79.80}
	run, err := c.StartWorkflow(ctx, "OrderFulfilment", taskQueue, order, &orch.StartWorkflowOptions{
		ID: "order-" + order.ID, ExecutionTimeout: time.Hour,
	})
	if err != nil {
		return err
	}
	fmt.Printf("started workflow %s (run %.8s)\n", run.ID, run.RunID)

	// Starting the same id again while it runs is refused, by name.
	_, err = c.StartWorkflow(ctx, "OrderFulfilment", taskQueue, order, &orch.StartWorkflowOptions{ID: run.ID})
	var already *orch.WorkflowExecutionAlreadyStartedError
	fmt.Printf("starting %s again: WorkflowExecutionAlreadyStartedError %v\n", run.ID, errors.As(err, &already))

	var done Order
	if err := run.Get(ctx, &done); err != nil {
		return err
	}
	fmt.Printf("completed: reserved %v, charge %s, tracking %s\n", done.Reserved, done.Charge, done.Tracking)

	fmt.Println("history:")
	for ev, err := range run.History(ctx, nil) {
		if err != nil {
			return err
		}
		line := fmt.Sprintf("  %2d %s", ev.GetEventId(), ev.GetEventType())
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			line += " " + a.GetActivityType().GetName()
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() > 1 {
			line += fmt.Sprintf(" (attempt %d, after: %s)", a.GetAttempt(), a.GetLastFailure().GetMessage())
		}
		fmt.Println(line)
	}

	var progress int
	if err := run.Query(ctx, "progress", nil, &progress, nil); err != nil {
		return err
	}
	fmt.Printf("query progress: %d activities completed\n", progress)

	n, err := c.CountWorkflows(ctx, "WorkflowType = 'OrderFulfilment' AND ExecutionStatus = 'Completed'")
	if err != nil {
		return err
	}
	fmt.Printf("count of completed OrderFulfilment workflows: %d\n", n)
	return nil
}

// connect dials the real service named in the environment, or starts the
// embedded fake with time skipping.
func connect(getenv func(string) string) (*orch.Client, func(), error) {
	if addr := getenv("ORCH_ADDR"); addr != "" {
		var opts []orch.Option
		if tok := getenv("ORCH_TOKEN"); tok != "" {
			opts = append(opts, orch.WithToken(tok))
		}
		if ns := getenv("ORCH_NAMESPACE"); ns != "" {
			opts = append(opts, orch.WithNamespace(ns))
		}
		c, err := orch.Dial(addr, opts...)
		if err != nil {
			return nil, nil, err
		}
		fmt.Println("orch: real service at", addr)
		return c, func() { _ = c.Close() }, nil
	}
	srv, err := orchfake.New(orchfake.WithTimeSkipping())
	if err != nil {
		return nil, nil, err
	}
	if err := srv.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	fmt.Printf("orch: embedded fake, gRPC %s, HTTP %s\n", srv.GRPCAddr(), srv.URL())
	c := srv.GRPCClient()
	return c, func() { _ = c.Close(); srv.Close() }, nil
}
