package orch_test

import (
	"context"
	"strconv"
	"testing"

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
