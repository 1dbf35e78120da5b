package orch_test

import (
	"context"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/orch"
)

// An activity that waits on a person: it hands its task token to whoever
// will decide (here a channel) and returns ErrActivityResultPending; the
// decision completes it with CompleteActivity, and the workflow goes on.
func ExampleClient_CompleteActivity() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c, err := orch.Dial(srv.GRPCAddr(), orch.WithInsecure(), orch.WithClock(srv.Clock()))
	if err != nil {
		panic(err)
	}
	defer c.Close()

	w, err := orch.NewWorker(c, "approvals", nil)
	if err != nil {
		panic(err)
	}
	inbox := make(chan []byte, 1)
	if err := orch.RegisterActivity(w, "AskManager", func(ctx context.Context, expense string) (string, error) {
		info, _ := orch.GetActivityInfo(ctx)
		inbox <- info.TaskToken // e.g. stored with the approval request
		return "", orch.ErrActivityResultPending
	}); err != nil {
		panic(err)
	}
	if err := w.RegisterWorkflow("Expense", orch.Sequence(orch.ActivityStep{ActivityType: "AskManager",
		Options: &orch.ActivityOptions{StartToCloseTimeout: 24 * time.Hour}})); err != nil {
		panic(err)
	}
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	defer w.Stop()

	run, err := c.StartWorkflow(ctx, "Expense", "approvals", "taxi 42 EUR", &orch.StartWorkflowOptions{ID: "expense-7"})
	if err != nil {
		panic(err)
	}
	token := <-inbox // later, when the manager answers:
	if err := c.CompleteActivity(ctx, token, "approved by Grace", nil); err != nil {
		panic(err)
	}
	var decision string
	if err := run.Get(ctx, &decision); err != nil {
		panic(err)
	}
	fmt.Println(decision)
	// Output: approved by Grace
}
