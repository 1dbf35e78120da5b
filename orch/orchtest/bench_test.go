package orchtest_test

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchtest"
	"github.com/apitwin/apitwin/orch/workflow"
)

// BenchmarkExecuteWorkflow is one workflow of two activities run to
// completion in an Env, the same workflow as orch/workflow's
// BenchmarkWorkflowThroughTheFake/function runs through a worker and the
// in-memory fake: the cost per workflow of a unit test.
func BenchmarkExecuteWorkflow(b *testing.B) {
	twoSteps := func(ctx workflow.Context, n int) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, minute)
		if err := workflow.ExecuteActivity(ctx, "Inc", n).Get(ctx, &n); err != nil {
			return 0, err
		}
		err := workflow.ExecuteActivity(ctx, "Inc", n).Get(ctx, &n)
		return n, err
	}
	wf := workflow.New(twoSteps)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		env := orchtest.New(nil)
		env.RegisterWorkflowHandler("TwoSteps", wf)
		orchtest.RegisterActivity(env, "Inc", func(_ context.Context, n int) (int, error) { return n + 1, nil })
		env.ExecuteWorkflow("TwoSteps", i, &orch.StartWorkflowOptions{})
		var got int
		if err := env.Result(&got); err != nil || got != i+2 {
			b.Fatalf("result %d, %v", got, err)
		}
	}
}
