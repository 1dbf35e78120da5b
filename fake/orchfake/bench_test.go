package orchfake_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func BenchmarkStartWorkflow(b *testing.B) {
	s := newFake(b, orchfake.WithoutLimits())
	b.Run("grpc-loopback", func(b *testing.B) {
		s.Reset() // the same ids again with -count
		conn, err := grpc.NewClient(s.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		c := orchpb.NewWorkflowServiceClient(conn)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := c.StartWorkflowExecution(context.Background(), startReq("default", fmt.Sprintf("g-%d", i))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("grpc-inmemory", func(b *testing.B) {
		s.Reset() // the same ids again with -count
		c := orchpb.NewWorkflowServiceClient(s.Conn())
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := c.StartWorkflowExecution(context.Background(), startReq("default", fmt.Sprintf("m-%d", i))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("http", func(b *testing.B) {
		s.Reset() // the same ids again with -count
		url := s.URL() + "/api/v1/namespaces/default/workflows"
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			body := fmt.Sprintf(`{"workflow_id":"h-%d","workflow_type":{"name":"Order"},"task_queue":"orders"}`, i)
			r, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			if r.StatusCode != 200 {
				b.Fatal(r.Status)
			}
			_ = r.Body.Close()
		}
	})
}

// BenchmarkStartToFirstCall: a new fake on loopback ports, started, then
// one call answered over gRPC (in memory) and the fake closed.
func BenchmarkStartToFirstCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := orchfake.New()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil {
			b.Fatal(err)
		}
		if _, err := orchpb.NewWorkflowServiceClient(s.Conn()).DescribeNamespace(context.Background(), &orchpb.DescribeNamespaceRequest{Namespace: "default"}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkStartToFirstCallLoopback is the same with the call dialled to
// the gRPC port.
func BenchmarkStartToFirstCallLoopback(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := orchfake.New()
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil {
			b.Fatal(err)
		}
		conn, err := grpc.NewClient(s.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := orchpb.NewWorkflowServiceClient(conn).DescribeNamespace(context.Background(), &orchpb.DescribeNamespaceRequest{Namespace: "default"}); err != nil {
			b.Fatal(err)
		}
		_ = conn.Close()
		s.Close()
	}
}

func BenchmarkList3Terms10k(b *testing.B) {
	s := newFake(b)
	seedSearch(b, s, 10_000)
	c := orchpb.NewWorkflowServiceClient(s.Conn())
	req := &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", PageSize: 100,
		Query: "WorkflowType = 'Order' AND ExecutionStatus = 'Running' AND CustomerId STARTS_WITH 'acme-'"}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.ListWorkflowExecutions(context.Background(), req)
		if err != nil || len(resp.GetExecutions()) != 100 {
			b.Fatal(err, len(resp.GetExecutions()))
		}
	}
}

// BenchmarkResetWorkflow: a reset to the first workflow task of a run (its
// finish event 4), the run reset then deleted (so the runs kept stay two),
// over gRPC in memory.
func BenchmarkResetWorkflow(b *testing.B) {
	s := newFake(b, orchfake.WithoutLimits())
	c := orchpb.NewWorkflowServiceClient(s.Conn())
	ctx := context.Background()
	started, err := c.StartWorkflowExecution(ctx, startReq("default", "bench-reset"))
	if err != nil {
		b.Fatal(err)
	}
	task, err := c.PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: "orders"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: task.GetTaskToken()}); err != nil {
		b.Fatal(err)
	}
	run := started.GetRunId()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r, err := c.ResetWorkflowExecution(ctx, &orchpb.ResetWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: we("bench-reset", run), Reason: "bench", WorkflowTaskFinishEventId: 4})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.DeleteWorkflowExecution(ctx, &orchpb.DeleteWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we("bench-reset", run)}); err != nil {
			b.Fatal(err)
		}
		run = r.GetRunId()
	}
}

// BenchmarkSnapshotSchedules: Snapshot and Restore of a fake holding 100
// schedules, each with one run started (apitwin-fake -state-dir's cost).
func BenchmarkSnapshotSchedules(b *testing.B) {
	s := newFake(b, orchfake.WithoutLimits())
	c := orchpb.NewWorkflowServiceClient(s.Conn())
	for i := range 100 {
		sch := everyMinute(orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_SKIP)
		sch.GetAction().GetStartWorkflow().WorkflowId = fmt.Sprintf("s%d", i)
		if _, err := c.CreateSchedule(context.Background(), &orchpb.CreateScheduleRequest{Namespace: "default",
			ScheduleId: fmt.Sprintf("s%d", i), Schedule: sch}); err != nil {
			b.Fatal(err)
		}
	}
	s.Clock().Advance(time.Minute)
	data, err := s.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("snapshot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.Snapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("restore", func(b *testing.B) {
		dst := newFake(b, orchfake.WithoutLimits())
		b.ReportAllocs()
		for b.Loop() {
			if err := dst.Restore(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
