// Command orderflow runs an order workflow written as an ordinary Go
// function (package orch/workflow): charge the card, wait for the
// warehouse's "approve" signal (at most a day), keep a one-hour cooling-off
// period, ship the parcel, have a child workflow notify the customer, and
// return a receipt. Then it replays the run's
// recorded history against the same function, as a test of a code change
// would.
//
// With no setup it runs against the embedded orchestration fake with time
// skipping on, so the hour of cooling-off costs no real time:
//
//	go run ./examples/orderflow
//
// Set ORCH_ADDR (gRPC host:port; ORCH_TOKEN and ORCH_NAMESPACE optional) to
// run it against a real service (the cooling-off hour is then real).
//
// Its tests show both ways of testing workflow code: against the fake with
// a worker (main_test.go, restart_test.go), and in process with
// orch/orchtest, activities mocked or real and time skipped (env_test.go).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

func main() {
	if err := run(context.Background(), os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "orderflow:", err)
		os.Exit(1)
	}
}

// Order is the workflow's input.
type Order struct {
	ID     string  `json:"id"`
	Item   string  `json:"item"`
	Amount float64 `json:"amount"`
}

// Approval is the payload of the "approve" signal.
type Approval struct {
	By string `json:"by"`
}

// Receipt is the workflow's result.
type Receipt struct {
	OrderID    string    `json:"order_id"`
	Charge     string    `json:"charge"`
	ApprovedBy string    `json:"approved_by"`
	Tracking   string    `json:"tracking"`
	ShippedAt  time.Time `json:"shipped_at"`
	// Notice is what the child workflow Notify sent the customer.
	Notice string `json:"notice"`
}

// The workflow's names, shared by the worker and its callers.
const (
	WorkflowType   = "OrderFlow"
	NotifyType     = "Notify"
	TaskQueue      = "orderflow"
	ApproveSignal  = "approve"
	StatusQuery    = "status"
	ApprovalWindow = 24 * time.Hour
	CoolingOff     = time.Hour
)

// ErrNotApproved fails an order nobody approved within ApprovalWindow.
var ErrNotApproved = errors.New("order not approved in time")

// OrderFlow is the workflow: plain Go, replayed from the history on every
// workflow task, so a worker that restarts picks it up where it stopped.
func OrderFlow(ctx workflow.Context, o Order) (Receipt, error) {
	status := "charging"
	workflow.SetQueryHandler(ctx, StatusQuery, func() (any, error) { return status, nil })
	ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute})

	r := Receipt{OrderID: o.ID}
	if err := workflow.ExecuteActivity(ctx, "ChargeCard", o).Get(ctx, &r.Charge); err != nil {
		return r, err
	}

	// Wait for the warehouse's approval, or give up after a day.
	status = "awaiting approval"
	var approval Approval
	timerCtx, cancelTimer := workflow.WithCancel(ctx)
	expired := false
	workflow.NewSelector(ctx).
		AddReceive(workflow.GetSignalChannel(ctx, ApproveSignal), func(c workflow.ReceiveChannel, _ bool) {
			c.Receive(ctx, &approval)
		}).
		AddFuture(workflow.NewTimer(timerCtx, ApprovalWindow), func(workflow.Future) { expired = true }).
		Select(ctx)
	cancelTimer()
	if expired {
		status = "refunding"
		if err := workflow.ExecuteActivity(ctx, "Refund", r.Charge).Get(ctx, nil); err != nil {
			return r, err
		}
		return r, orch.NonRetryable(ErrNotApproved)
	}
	r.ApprovedBy = approval.By

	status = "cooling off"
	if err := workflow.Sleep(ctx, CoolingOff); err != nil {
		return r, err
	}

	status = "shipping"
	if err := workflow.ExecuteActivity(ctx, "ShipParcel", o).Get(ctx, &r.Tracking); err != nil {
		return r, err
	}
	r.ShippedAt = workflow.Now(ctx)

	status = "notifying"
	if err := workflow.ExecuteChildWorkflow(ctx, NotifyType, r, nil).Get(ctx, &r.Notice); err != nil {
		return r, err
	}
	status = "done"
	return r, nil
}

// Notify is the child workflow: it writes to the customer about a
// shipped order (an activity) and returns what it sent.
func Notify(ctx workflow.Context, r Receipt) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute})
	var sent string
	err := workflow.ExecuteActivity(ctx, "EmailCustomer", r).Get(ctx, &sent)
	return sent, err
}

// The activities: what the workflow asks the outside world to do.

// ChargeCard charges the order's amount and returns the charge's id.
func ChargeCard(_ context.Context, o Order) (string, error) {
	return fmt.Sprintf("ch_%s_%.2f", o.ID, o.Amount), nil
}

// Refund refunds a charge.
func Refund(_ context.Context, charge string) (string, error) { return "re_" + charge, nil }

// ShipParcel ships the order and returns the tracking number.
func ShipParcel(_ context.Context, o Order) (string, error) { return "TRK-" + o.ID, nil }

// EmailCustomer tells the customer the order shipped.
func EmailCustomer(_ context.Context, r Receipt) (string, error) {
	return fmt.Sprintf("order %s shipped, tracking %s", r.OrderID, r.Tracking), nil
}

// Register registers the workflow and its activities with w.
func Register(w *orch.Worker) error {
	return errors.Join(
		workflow.Register(w, WorkflowType, OrderFlow),
		workflow.Register(w, NotifyType, Notify),
		orch.RegisterActivity(w, "ChargeCard", ChargeCard),
		orch.RegisterActivity(w, "Refund", Refund),
		orch.RegisterActivity(w, "ShipParcel", ShipParcel),
		orch.RegisterActivity(w, "EmailCustomer", EmailCustomer),
	)
}

func run(ctx context.Context, getenv func(string) string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	c, closeAll, err := connect(getenv)
	if err != nil {
		return err
	}
	defer closeAll()

	w, err := orch.NewWorker(c, TaskQueue, nil)
	if err != nil {
		return err
	}
	if err := Register(w); err != nil {
		return err
	}
	if err := w.Start(ctx); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	defer w.Stop()

	id := fmt.Sprintf("order-%d", time.Now().UnixNano())
	// Signal-with-start: the approval is in the history before the
	// workflow's first task, so the workflow finds it waiting when it gets
	// there (a signal sent after a plain start could come after the
	// time-skipping fake has already let the day of waiting pass).
	wf, err := c.SignalWithStartWorkflow(ctx, id, ApproveSignal, Approval{By: "warehouse"},
		WorkflowType, TaskQueue, Order{ID: id, Item: "desk lamp", Amount: 39.90}, nil)
	if err != nil {
		return fmt.Errorf("start workflow: %w", err)
	}
	fmt.Printf("started %s (run %.8s) with the signal %s\n", wf.ID, wf.RunID, ApproveSignal)

	var r Receipt
	if err := wf.Get(ctx, &r); err != nil {
		return fmt.Errorf("workflow result: %w", err)
	}
	fmt.Printf("receipt: charge %s, approved by %s, tracking %s\n", r.Charge, r.ApprovedBy, r.Tracking)
	fmt.Printf("child workflow %s: %s\n", NotifyType, r.Notice)

	var history []*orchpb.HistoryEvent
	for ev, err := range wf.History(ctx, nil) {
		if err != nil {
			return fmt.Errorf("history: %w", err)
		}
		history = append(history, ev)
	}
	fmt.Printf("history: %d events\n", len(history))
	if err := workflow.Replay(history, OrderFlow); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	fmt.Println("replay: the code reproduces the recorded history")
	return nil
}

// connect returns a client of the service ORCH_ADDR names, or of an
// embedded fake with time skipping.
func connect(getenv func(string) string) (*orch.Client, func(), error) {
	addr := getenv("ORCH_ADDR")
	if addr == "" {
		srv, err := orchfake.New(orchfake.WithTimeSkipping())
		if err != nil {
			return nil, nil, err
		}
		if err := srv.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil {
			return nil, nil, err
		}
		c := srv.GRPCClient()
		return c, func() { _ = c.Close(); srv.Close() }, nil
	}
	opts := []orch.Option{}
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
	return c, func() { _ = c.Close() }, nil
}
