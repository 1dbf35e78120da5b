package orchfake_test

import (
	"context"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The activity dispatch rate the pollers set (max_tasks_per_second) holds
// tasks back: at 0.5 per second, of three activities scheduled at once the
// first goes out at once, the next ones two seconds apart on the fake clock.
func TestTaskQueueRateLimitDelaysActivities(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		q := "slow-" + iv.name
		req := startReq("default", "slow-"+iv.name)
		req.TaskQueue = q
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		complete(t, iv, pollWF(t, iv, q).GetTaskToken(), scheduleCmd("a1", nil), scheduleCmd("a2", nil), scheduleCmd("a3", nil))
		poll := func(ctx context.Context) (*orchpb.PollActivityTaskQueueResponse, error) {
			var r orchpb.PollActivityTaskQueueResponse
			err := iv.call(ctx, "PollActivityTaskQueue", &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: q, Identity: "slow",
				TaskQueueMetadata: &orchpb.TaskQueueMetadata{MaxTasksPerSecond: wrapperspb.Double(0.5)}}, &r)
			return &r, err
		}
		if r, err := poll(t.Context()); err != nil || len(r.GetTaskToken()) == 0 {
			t.Fatalf("%s: first: %v", iv.name, err)
		}
		for i := 2; i <= 3; i++ {
			before := s.Clock().Pending()
			got := make(chan *orchpb.PollActivityTaskQueueResponse, 1)
			go func() {
				r, err := poll(context.Background())
				if err != nil {
					t.Error(err)
				}
				got <- r
			}()
			// The poll waits (its MaxPollWait timer, and the dispatch wakeup).
			if err := s.Clock().WaitForTimers(t.Context(), before+2); err != nil {
				t.Fatal(err)
			}
			select {
			case r := <-got:
				t.Fatalf("%s: activity %d handed out at once: %v", iv.name, i, r.GetActivityId())
			default:
			}
			s.Clock().Advance(2 * time.Second)
			if r := <-got; len(r.GetTaskToken()) == 0 {
				t.Fatalf("%s: activity %d: empty poll after the wait", iv.name, i)
			}
		}
	}
}
