package orch_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// startFake serves a fake on loopback ports for an example; a test would use
// orchfake.Start(t).
func startFake() *orchfake.Server {
	srv, err := orchfake.New(control.WithClock(clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	if err := srv.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		panic(err)
	}
	return srv
}

func Example() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()

	// Over gRPC (plaintext to the local fake); orch.NewHTTP(srv.URL()) gives
	// the same client over HTTP/JSON.
	c, err := orch.Dial(srv.GRPCAddr(), orch.WithInsecure(), orch.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}
	defer c.Close()

	run, err := c.StartWorkflow(ctx, "OrderWorkflow", "orders", map[string]any{"order": "o-1"}, &orch.StartWorkflowOptions{
		ID:               "order-o-1",
		ExecutionTimeout: 24 * time.Hour,
	})
	if err != nil {
		panic(err)
	}
	if err := run.Signal(ctx, "add-item", map[string]any{"sku": "book"}, nil); err != nil {
		panic(err)
	}
	info, err := run.Describe(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(info.GetExecution().GetWorkflowId(), info.GetStatus())

	// The same id again, while it runs: the specification's named error.
	_, err = c.StartWorkflow(ctx, "OrderWorkflow", "orders", nil, &orch.StartWorkflowOptions{ID: "order-o-1"})
	var started *orch.WorkflowExecutionAlreadyStartedError
	fmt.Println(errors.As(err, &started), started.RunID == run.RunID)

	if err := run.Terminate(ctx, &orch.TerminateOptions{Reason: "customer cancelled"}); err != nil {
		panic(err)
	}
	for ev, err := range run.History(ctx, nil) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.GetEventId(), ev.GetEventType())
	}
	var closed *orch.WorkflowExecutionError
	err = run.Get(ctx, nil)
	fmt.Println(errors.As(err, &closed), closed.Status)
	// Output:
	// order-o-1 RUNNING
	// true true
	// 1 WorkflowExecutionStarted
	// 2 WorkflowTaskScheduled
	// 3 WorkflowExecutionSignaled
	// 4 WorkflowExecutionTerminated
	// true TERMINATED
}

func ExampleClient_AllWorkflows() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c, err := orch.NewHTTP(srv.URL(), orch.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}
	for i, typ := range []string{"Order", "Refund", "Order"} {
		if _, err := c.StartWorkflow(ctx, typ, "orders", nil, &orch.StartWorkflowOptions{ID: fmt.Sprintf("wf-%d", i)}); err != nil {
			panic(err)
		}
		srv.Clock().Advance(time.Minute)
	}
	query := "WorkflowType = 'Order' AND ExecutionStatus = 'Running' ORDER BY StartTime ASC"
	for info, err := range c.AllWorkflows(ctx, query, &orch.ListOptions{PageSize: 1}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(info.GetExecution().GetWorkflowId(), info.GetType().GetName())
	}
	n, err := c.CountWorkflows(ctx, "ExecutionStatus = 'Running'")
	fmt.Println(n, err)
	// Output:
	// wf-0 Order
	// wf-2 Order
	// 3 <nil>
}

func ExampleClient_RegisterNamespace() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c, err := orch.NewHTTP(srv.URL())
	if err != nil {
		panic(err)
	}
	err = c.RegisterNamespace(ctx, "payments", &orch.RegisterNamespaceOptions{Retention: 7 * 24 * time.Hour, OwnerEmail: "ops@example.com"})
	fmt.Println(err)
	ns, err := c.DescribeNamespace(ctx, "payments")
	if err != nil {
		panic(err)
	}
	fmt.Println(ns.GetNamespaceInfo().GetName(), ns.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration())
	_, err = c.DescribeNamespace(ctx, "nowhere")
	fmt.Println(errors.Is(err, orch.ErrNamespaceNotFound))
	_, err = c.DescribeTaskQueue(ctx, "nobody-polls", nil)
	var bad *orch.BadRequestError
	fmt.Println(errors.As(err, &bad), bad.Message)
	// Output:
	// <nil>
	// payments 168h0m0s
	// true
	// true Task queue not found
}

func ExampleWorker() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c, err := orch.NewHTTP(srv.URL(), orch.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}

	type Order struct {
		ID      string `json:"id"`
		Paid    bool   `json:"paid"`
		Shipped bool   `json:"shipped"`
	}
	w, err := orch.NewWorker(c, "fulfilment", nil)
	if err != nil {
		panic(err)
	}
	_ = orch.RegisterActivity(w, "Charge", func(ctx context.Context, o Order) (Order, error) {
		_ = orch.RecordHeartbeat(ctx, "charging "+o.ID)
		o.Paid = true
		return o, nil
	})
	_ = orch.RegisterActivity(w, "Ship", func(_ context.Context, o Order) (Order, error) {
		if !o.Paid {
			return o, orch.NonRetryable(errors.New("not paid"))
		}
		o.Shipped = true
		return o, nil
	})
	step := &orch.ActivityOptions{StartToCloseTimeout: time.Minute}
	_ = w.RegisterWorkflow("Fulfil", orch.Sequence(
		orch.ActivityStep{ActivityType: "Charge", Options: step},
		orch.ActivityStep{ActivityType: "Ship", Options: step},
	))
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Stop()

	run, err := c.StartWorkflow(ctx, "Fulfil", "fulfilment", Order{ID: "o-7"}, &orch.StartWorkflowOptions{ID: "fulfil-o-7"})
	if err != nil {
		panic(err)
	}
	var done Order
	if err := run.Get(ctx, &done); err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", done)
	for ev, err := range run.History(ctx, nil) {
		if err != nil {
			panic(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
			fmt.Println(ev.GetEventType(), a.GetActivityType().GetName())
		}
	}
	// Output:
	// {ID:o-7 Paid:true Shipped:true}
	// ActivityTaskScheduled Charge
	// ActivityTaskScheduled Ship
}

func ExampleClient_SignalWithStartWorkflow() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()

	// The first call starts the cart and signals it; the second only signals.
	for _, item := range []string{"book", "pen"} {
		run, err := c.SignalWithStartWorkflow(ctx, "cart-42", "add", item, "Cart", "carts", nil, nil)
		if err != nil {
			panic(err)
		}
		fmt.Println(item, "started:", run.Started)
	}
	// Output:
	// book started: true
	// pen started: false
}

func ExampleStartChildWorkflowCommand() {
	cmd, err := orch.StartChildWorkflowCommand("order-7-shipping", "Ship", map[string]string{"order": "7"},
		&orch.ChildWorkflowOptions{ParentClosePolicy: orchpb.ParentClosePolicy_ABANDON})
	if err != nil {
		panic(err)
	}
	a := cmd.GetStartChildWorkflowExecutionCommandAttributes()
	fmt.Println(cmd.GetCommandType(), a.GetWorkflowId(), a.GetParentClosePolicy())
	// Output:
	// START_CHILD_WORKFLOW_EXECUTION order-7-shipping ABANDON
}

func ExampleClient_AddSearchAttributes() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()

	if err := c.AddSearchAttributes(ctx, map[string]orchpb.IndexedValueType{"Priority": orchpb.IndexedValueType_INT}); err != nil {
		panic(err)
	}
	if _, err := c.StartWorkflow(ctx, "Order", "orders", nil, &orch.StartWorkflowOptions{SearchAttributes: map[string]any{"Priority": 3}}); err != nil {
		panic(err)
	}
	n, err := c.CountWorkflows(ctx, "Priority >= 3")
	fmt.Println(n, err)
	_, err = c.CountWorkflows(ctx, "Priority = 'high'")
	fmt.Println(errors.Is(err, orch.ErrInvalidArgument))
	// Output:
	// 1 <nil>
	// true
}

// ExampleClient_ResetWorkflow goes back to a workflow's first task: the new
// run keeps the history up to it and the signal that came after.
func ExampleClient_ResetWorkflow() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()

	run, err := c.StartWorkflow(ctx, "Payment", "payments", nil, &orch.StartWorkflowOptions{ID: "payment-7"})
	if err != nil {
		panic(err)
	}
	// A worker's first task: completed with no command (events 2 to 4).
	task, err := c.Raw().PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: "payments"})
	if err != nil {
		panic(err)
	}
	if _, err := c.Raw().RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{TaskToken: task.GetTaskToken()}); err != nil {
		panic(err)
	}
	if err := run.Signal(ctx, "approved", true, nil); err != nil {
		panic(err)
	}

	next, err := c.ResetWorkflow(ctx, run.ID, run.RunID, 4, &orch.ResetOptions{Reason: "the worker had a bug"})
	if err != nil {
		panic(err)
	}
	for ev, err := range next.History(ctx, nil) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ev.GetEventId(), ev.GetEventType())
	}
	old, _ := run.Describe(ctx)
	fmt.Println("old run:", old.GetStatus())
	// Output:
	// 1 WorkflowExecutionStarted
	// 2 WorkflowTaskScheduled
	// 3 WorkflowTaskStarted
	// 4 WorkflowTaskFailed
	// 5 WorkflowExecutionSignaled
	// 6 WorkflowTaskScheduled
	// old run: TERMINATED
}

func ExampleClient_UpdateNamespace() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()

	if err := c.RegisterNamespace(ctx, "shipping", nil); err != nil {
		panic(err)
	}
	ns, err := c.UpdateNamespace(ctx, "shipping", &orch.UpdateNamespaceOptions{Description: "parcels", Retention: 14 * 24 * time.Hour})
	if err != nil {
		panic(err)
	}
	fmt.Println(ns.GetNamespaceInfo().GetDescription(), ns.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration())

	// Deprecated: no new workflows; then deleted with its workflows.
	if err := c.DeprecateNamespace(ctx, "shipping"); err != nil {
		panic(err)
	}
	_, err = c.WithNamespace("shipping").StartWorkflow(ctx, "Parcel", "parcels", nil, nil)
	fmt.Println(errors.Is(err, orch.ErrFailedPrecondition))
	fmt.Println(c.DeleteNamespace(ctx, "shipping"))
	_, err = c.DescribeNamespace(ctx, "shipping")
	fmt.Println(errors.Is(err, orch.ErrNamespaceNotFound))
	// Output:
	// parcels 336h0m0s
	// true
	// <nil>
	// true
}

// A schedule starts a workflow every hour; advancing the fake's clock
// starts the runs, each named after its nominal time.
func ExampleClient_CreateSchedule() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c, err := orch.NewHTTP(srv.URL(), orch.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}
	defer c.Close()

	action, err := orch.ScheduleWorkflow("report", "ReportWorkflow", "reports", nil)
	if err != nil {
		panic(err)
	}
	_, err = c.CreateSchedule(ctx, "hourly-report", &orchpb.Schedule{
		Spec:     &orchpb.ScheduleSpec{CronString: []string{"0 * * * *"}},
		Action:   action,
		Policies: &orchpb.SchedulePolicies{OverlapPolicy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL},
	}, nil)
	if err != nil {
		panic(err)
	}
	srv.Clock().Advance(2 * time.Hour)

	d, err := c.DescribeSchedule(ctx, "hourly-report")
	if err != nil {
		panic(err)
	}
	for _, a := range d.GetInfo().GetRecentActions() {
		fmt.Println(a.GetStartWorkflowResult().GetWorkflowId(), a.GetStartWorkflowStatus())
	}
	fmt.Println("next:", d.GetInfo().GetFutureActionTimes()[0].AsTime().Format(time.RFC3339))
	// Output:
	// report-2026-03-01T13:00:00Z RUNNING
	// report-2026-03-01T14:00:00Z RUNNING
	// next: 2026-03-01T15:00:00Z
}
