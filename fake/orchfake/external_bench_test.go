package orchfake_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// BenchmarkSignalExternalTask: one workflow task answered with a
// SIGNAL_EXTERNAL_WORKFLOW_EXECUTION command, over gRPC in memory: the
// poll, the answer, the signal delivered to a running target and the
// sender's next task scheduled. A new sender every 10 tasks keeps the
// histories short (a poll hands out the whole history).
func BenchmarkSignalExternalTask(b *testing.B) {
	s := newFake(b, orchfake.WithoutLimits())
	c := orchpb.NewWorkflowServiceClient(s.Conn())
	ctx := context.Background()
	start := func(id, q string) {
		req := startReq("default", id)
		req.TaskQueue = q
		if _, err := c.StartWorkflowExecution(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	cmd := []*orchpb.Command{signalCmd("", "bench-target", "s", false)}
	sender := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if i%10 == 0 {
			b.StopTimer()
			start(fmt.Sprintf("bench-target-%d", i), "bench-targets") // a target per sender: its history stays short too
			cmd[0].GetSignalExternalWorkflowExecutionCommandAttributes().Execution.WorkflowId = fmt.Sprintf("bench-target-%d", i)
			sender++
			start(fmt.Sprintf("bench-sender-%d", sender), "bench-senders")
			b.StartTimer()
		}
		t, err := c.PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: "bench-senders"})
		if err != nil || len(t.GetTaskToken()) == 0 {
			b.Fatal(err)
		}
		if _, err := c.RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: t.GetTaskToken(), Commands: cmd}); err != nil {
			b.Fatal(err)
		}
	}
}
