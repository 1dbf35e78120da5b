package workflow_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// BenchmarkWorkflowsPerSecond is workflows completed per second end to end
// through the fake: b.N runs of a workflow of ten activities one after the
// other (eleven workflow tasks each), started at once and waited for, by
// one worker, over gRPC and HTTP, in memory (control.WithInMemory) and on
// loopback, with the worker's workflow cache off (every task replays the
// whole history: what the worker did before the cache) and on. Run it with
// -count: the sub-benchmarks then alternate, which pairs the figures on a
// shared machine.
func BenchmarkWorkflowsPerSecond(b *testing.B) {
	tenSteps := func(ctx workflow.Context, n int) (int, error) {
		ctx = workflow.WithActivityOptions(ctx, orch.ActivityOptions{StartToCloseTimeout: time.Minute})
		for range 10 {
			if err := workflow.ExecuteActivity(ctx, "Inc", n).Get(ctx, &n); err != nil {
				return 0, err
			}
		}
		return n, nil
	}
	unlimited := orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited, ConcurrentLongPolls: orch.Unlimited})
	for _, wire := range []string{"inmemory", "loopback"} {
		for _, transport := range []string{"grpc", "http"} {
			for _, cache := range []string{"off", "on"} {
				b.Run(fmt.Sprintf("%s/%s/cache=%s", wire, transport, cache), func(b *testing.B) {
					opts := []orchfake.Option{orchfake.WithoutLimits()}
					if wire == "inmemory" {
						opts = append(opts, control.WithInMemory())
					}
					srv := orchfake.Start(b, opts...)
					c := srv.HTTPClient(unlimited)
					if transport == "grpc" {
						c = srv.GRPCClient(unlimited)
					}
					defer c.Close()
					wo := &orch.WorkerOptions{}
					if cache == "off" {
						wo.WorkflowCacheSize = -1
					}
					w, err := orch.NewWorker(c, "bench", wo)
					if err != nil {
						b.Fatal(err)
					}
					if err := orch.RegisterActivity(w, "Inc", func(_ context.Context, n int) (int, error) { return n + 1, nil }); err != nil {
						b.Fatal(err)
					}
					if err := workflow.Register(w, "TenSteps", tenSteps); err != nil {
						b.Fatal(err)
					}
					if err := w.Start(b.Context()); err != nil {
						b.Fatal(err)
					}
					defer w.Stop()
					b.ReportAllocs()
					b.ResetTimer()
					start := time.Now()
					runs := make([]*orch.WorkflowRun, b.N)
					for i := range runs {
						if runs[i], err = c.StartWorkflow(b.Context(), "TenSteps", "bench", i, nil); err != nil {
							b.Fatal(err)
						}
					}
					for i, run := range runs {
						var got int
						if err := run.Get(b.Context(), &got); err != nil || got != i+10 {
							b.Fatalf("result %d, %v", got, err)
						}
					}
					b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "workflows/s")
				})
			}
		}
	}
}
