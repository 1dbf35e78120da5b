package workflow_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// BenchmarkWorkflowThroughTheFake runs one workflow of two activities at a
// time through a worker and the in-memory fake: written as a function
// (replayed on each of its three tasks) and as orch.Sequence (Decide on
// the history), to show what the replay costs end to end.
func BenchmarkWorkflowThroughTheFake(b *testing.B) {
	opts := &orch.ActivityOptions{StartToCloseTimeout: time.Minute}
	twoSteps := func(ctx workflow.Context, n int) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, *opts)
		if err := workflow.ExecuteActivity(ctx, "Inc", n).Get(ctx, &n); err != nil {
			return 0, err
		}
		err := workflow.ExecuteActivity(ctx, "Inc", n).Get(ctx, &n)
		return n, err
	}
	for _, style := range []string{"function", "sequence"} {
		b.Run(style, func(b *testing.B) {
			srv := orchfake.Start(b, orchfake.WithoutLimits())
			c := srv.Client(orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
			defer c.Close()
			w, err := orch.NewWorker(c, "bench", nil)
			if err != nil {
				b.Fatal(err)
			}
			if err := orch.RegisterActivity(w, "Inc", func(_ context.Context, n int) (int, error) { return n + 1, nil }); err != nil {
				b.Fatal(err)
			}
			if style == "function" {
				err = workflow.Register(w, "TwoSteps", twoSteps)
			} else {
				err = w.RegisterWorkflow("TwoSteps", orch.Sequence(orch.ActivityStep{ActivityType: "Inc", Options: opts}, orch.ActivityStep{ActivityType: "Inc", Options: opts}))
			}
			if err != nil {
				b.Fatal(err)
			}
			if err := w.Start(b.Context()); err != nil {
				b.Fatal(err)
			}
			defer w.Stop()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				run, err := c.StartWorkflow(b.Context(), "TwoSteps", "bench", i, &orch.StartWorkflowOptions{ID: fmt.Sprint(style, i)})
				if err != nil {
					b.Fatal(err)
				}
				var got int
				if err := run.Get(b.Context(), &got); err != nil || got != i+2 {
					b.Fatalf("result %d, %v", got, err)
				}
			}
		})
	}
}
