package orch_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
)

// benchStart measures one StartWorkflow round trip (encode, send, the
// fake's start, answer, decode) with the client-side limits off, so the
// figure is the client's and the fake's cost, not the 100/s limit.
func benchStart(b *testing.B, c *orch.Client) {
	ctx := context.Background()
	input := map[string]any{"order": "o-1", "total": 42.5, "items": []string{"book", "pen"}}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := c.StartWorkflow(ctx, "OrderWorkflow", "orders", input, &orch.StartWorkflowOptions{ID: "wf-" + strconv.Itoa(i)}); err != nil {
			b.Fatal(err)
		}
	}
}

var unlimited = orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited})

func BenchmarkStartWorkflowGRPC(b *testing.B) {
	srv := orchfake.Start(b, orchfake.WithoutLimits())
	c := srv.GRPCClient(unlimited)
	defer c.Close()
	benchStart(b, c)
}

func BenchmarkStartWorkflowGRPCInMemory(b *testing.B) {
	srv := orchfake.Start(b, orchfake.WithoutLimits())
	benchStart(b, srv.Client(unlimited))
}

func BenchmarkStartWorkflowHTTP(b *testing.B) {
	srv := orchfake.Start(b, orchfake.WithoutLimits())
	benchStart(b, srv.HTTPClient(unlimited))
}

func BenchmarkDescribeWorkflowGRPC(b *testing.B) {
	srv := orchfake.Start(b, orchfake.WithoutLimits())
	c := srv.GRPCClient(unlimited)
	defer c.Close()
	benchDescribe(b, c)
}

func BenchmarkDescribeWorkflowHTTP(b *testing.B) {
	srv := orchfake.Start(b, orchfake.WithoutLimits())
	benchDescribe(b, srv.HTTPClient(unlimited))
}

func benchDescribe(b *testing.B, c *orch.Client) {
	ctx := context.Background()
	run, err := c.StartWorkflow(ctx, "OrderWorkflow", "orders", nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := run.Describe(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWorkflows measures workflows completed per second through the fake:
// each is a two-activity Sequence run by one worker; all b.N are started,
// then waited for.
func benchWorkflows(b *testing.B, c *orch.Client) {
	ctx := context.Background()
	w, err := orch.NewWorker(c, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	add := func(_ context.Context, n int) (int, error) { return n + 1, nil }
	if err := orch.RegisterActivity(w, "Add", add); err != nil {
		b.Fatal(err)
	}
	opts := &orch.ActivityOptions{StartToCloseTimeout: time.Minute}
	if err := w.RegisterWorkflow("Two", orch.Sequence(orch.ActivityStep{ActivityType: "Add", Options: opts}, orch.ActivityStep{ActivityType: "Add", Options: opts})); err != nil {
		b.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	runs := make([]*orch.WorkflowRun, b.N)
	for i := range runs {
		if runs[i], err = c.StartWorkflow(ctx, "Two", "bench", 1, nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, run := range runs {
		var got int
		if err := run.Get(ctx, &got); err != nil || got != 3 {
			b.Fatal(got, err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "workflows/s")
}

func BenchmarkTwoActivityWorkflowsGRPC(b *testing.B) {
	srv := orchfake.Start(b, orchfake.WithoutLimits())
	c := srv.GRPCClient(unlimited)
	defer c.Close()
	benchWorkflows(b, c)
}

func BenchmarkTwoActivityWorkflowsHTTP(b *testing.B) {
	srv := orchfake.Start(b, orchfake.WithoutLimits())
	benchWorkflows(b, srv.HTTPClient(unlimited))
}
