package workflow_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// A workflow signals another, asks a third to cancel, and records its
// progress in its memo.
func ExampleSignalExternalWorkflow() {
	srv, err := orchfake.New() // a test would use orchfake.Start(t)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	c := srv.Client()
	defer c.Close()
	ctx := context.Background()

	w, err := orch.NewWorker(c, "shop", nil)
	if err != nil {
		panic(err)
	}
	if err := errors.Join(
		workflow.Register(w, "Warehouse", func(ctx workflow.Context, _ struct{}) (string, error) {
			var order string
			workflow.GetSignalChannel(ctx, "ship").Receive(ctx, &order)
			return "shipped " + order, nil
		}),
		workflow.Register(w, "Reminder", func(ctx workflow.Context, _ struct{}) (string, error) {
			return "", workflow.Await(ctx, func() bool { return false }) // until canceled
		}),
		workflow.Register(w, "Checkout", func(ctx workflow.Context, order string) (string, error) {
			if err := workflow.SignalExternalWorkflow(ctx, "warehouse", "", "ship", order).Get(ctx, nil); err != nil {
				return "", err
			}
			if err := workflow.RequestCancelExternalWorkflow(ctx, "reminder", "").Get(ctx, nil); err != nil {
				return "", err
			}
			err := workflow.SignalExternalWorkflow(ctx, "nobody", "", "ship", order).Get(ctx, nil)
			if !errors.Is(err, workflow.ErrUnknownExternalWorkflowExecution) {
				return "", fmt.Errorf("want an unknown workflow, got %v", err)
			}
			return "paid", workflow.UpsertMemo(ctx, map[string]any{"stage": "handed to the warehouse"})
		}),
	); err != nil {
		panic(err)
	}
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Stop()

	warehouse, _ := c.StartWorkflow(ctx, "Warehouse", "shop", nil, &orch.StartWorkflowOptions{ID: "warehouse"})
	reminder, _ := c.StartWorkflow(ctx, "Reminder", "shop", nil, &orch.StartWorkflowOptions{ID: "reminder"})
	checkout, err := c.StartWorkflow(ctx, "Checkout", "shop", "order-7", &orch.StartWorkflowOptions{ID: "checkout"})
	if err != nil {
		panic(err)
	}
	var paid, shipped string
	if err := checkout.Get(ctx, &paid); err != nil {
		panic(err)
	}
	if err := warehouse.Get(ctx, &shipped); err != nil {
		panic(err)
	}
	_ = reminder.Get(ctx, nil)
	st, _ := reminder.Describe(ctx)
	info, _ := checkout.Describe(ctx)
	fmt.Println(paid, "/", shipped, "/ reminder", st.GetStatus())
	fmt.Println("memo stage:", string(info.GetMemo().GetFields()["stage"].GetData()))
	// Output:
	// paid / shipped order-7 / reminder CANCELED
	// memo stage: "handed to the warehouse"
}
