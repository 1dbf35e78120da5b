package orch_test

import (
	"context"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
)

// Run serves until its context ends, then stops the worker and returns
// nil; a workflow it ran reads back through a handle made from the ids
// alone (Client.Workflow, runID "" for the latest run).
func TestWorkerRunServesUntilItsContextEnds(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("run")
		w, err := orch.NewWorker(c, q, nil)
		must(t, err)
		must(t, orch.RegisterActivity(w, "Double", func(_ context.Context, n int) (int, error) { return 2 * n, nil }))
		must(t, w.RegisterWorkflow("DoubleIt", orch.Sequence(orch.ActivityStep{ActivityType: "Double", Options: &orch.ActivityOptions{StartToCloseTimeout: time.Minute}})))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()

		run, err := c.StartWorkflow(t.Context(), "DoubleIt", q, 21, nil)
		must(t, err)
		var got int
		must(t, c.Workflow(run.ID, "").Get(t.Context(), &got))
		if got != 42 {
			t.Errorf("result %d, want 42", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v after its context ended", err)
		}
	})
}
