package orchfake_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// TestStickyQueueDispatchAndFallback walks a run through a worker's sticky
// queue over both transports: a task completed with sticky_attributes
// sends the run's next task to the sticky queue of the worker instance
// that polled it, with only the events since that task; a sticky task
// nobody takes within StickyScheduleToStartTimeout (fake clock) times out
// (SCHEDULE_TO_START) and a new one goes to the run's task queue with the
// whole history; after ShutdownWorker, or when the sticky queue went
// unpolled for StickyPollerUnavailable, the next task goes to the task
// queue at once.
func TestStickyQueueDispatchAndFallback(t *testing.T) {
	t.Parallel()
	for _, tr := range []string{orchfake.TransportGRPC, orchfake.TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			s := newFake(t)
			iv := &invoker{name: tr, s: s}
			ctx := t.Context()
			const id = "sticky-run"
			poll := func(ctx context.Context, queue, key string, kind orchpb.TaskQueueKind) (*orchpb.PollWorkflowTaskQueueResponse, error) {
				resp := &orchpb.PollWorkflowTaskQueueResponse{}
				iv := *iv // its own: an invoker keeps the last answer's headers
				err := iv.call(ctx, "PollWorkflowTaskQueue", &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: queue,
					Identity: key, WorkerInstanceKey: key, TaskQueueKind: kind}, resp)
				return resp, err
			}
			// stickyPoll starts a STICKY poll and returns once the fake
			// lists it as the queue's poller.
			stickyPoll := func(ctx context.Context, key string) <-chan *orchpb.PollWorkflowTaskQueueResponse {
				ch := make(chan *orchpb.PollWorkflowTaskQueueResponse, 1)
				go func() {
					resp, err := poll(ctx, "sticky-"+key, key, orchpb.TaskQueueKind_STICKY)
					if err != nil && ctx.Err() == nil {
						t.Errorf("sticky poll: %v", err)
					}
					ch <- resp
				}()
				for {
					var d orchpb.DescribeTaskQueueResponse
					err := iv.call(ctx, "DescribeTaskQueue", &orchpb.DescribeTaskQueueRequest{Namespace: "default", TaskQueue: "sticky-" + key}, &d)
					if err == nil && len(d.GetPollers()) > 0 {
						return ch
					}
					runtime.Gosched()
				}
			}
			normalTask := func(key string) *orchpb.PollWorkflowTaskQueueResponse {
				t.Helper()
				resp, err := poll(ctx, "orders", key, orchpb.TaskQueueKind_NORMAL)
				if err != nil || len(resp.GetTaskToken()) == 0 {
					t.Fatalf("normal poll: %v, no task: %v", err, len(resp.GetTaskToken()) == 0)
				}
				return resp
			}
			complete := func(task *orchpb.PollWorkflowTaskQueueResponse) {
				t.Helper()
				mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default",
					TaskToken: task.GetTaskToken(), Identity: "w", StickyAttributes: true}, &orchpb.RespondWorkflowTaskCompletedResponse{})
			}
			signal := func() {
				t.Helper()
				mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
					WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: "go"}, &orchpb.SignalWorkflowExecutionResponse{})
			}
			scheduledOn := func(task *orchpb.PollWorkflowTaskQueueResponse) *orchpb.TaskQueue {
				h := task.GetHistory()
				for i := len(h) - 1; i >= 0; i-- {
					if a := h[i].GetWorkflowTaskScheduledEventAttributes(); a != nil {
						return a.GetTaskQueue()
					}
				}
				t.Fatalf("no WorkflowTaskScheduled in the task's history")
				return nil
			}

			// Wrong kinds are refused.
			_, err := poll(ctx, "sticky-x", "", orchpb.TaskQueueKind_STICKY)
			wantCode(t, err, "INVALID_ARGUMENT")

			first := stickyPoll(ctx, "w1")
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
			t1 := normalTask("w1")
			if t1.GetHistory()[0].GetEventId() != 1 {
				t.Fatalf("first task: history from event %d, want the whole history", t1.GetHistory()[0].GetEventId())
			}
			complete(t1)

			// Sticky: the next task goes to w1's sticky queue, new events only.
			signal()
			t2 := <-first
			if got, want := t2.GetHistory()[0].GetEventId(), t1.GetStartedEventId()+1; got != want || t2.GetPreviousStartedEventId() != t1.GetStartedEventId() {
				t.Fatalf("sticky task: history from event %d (want %d), previous started %d", got, want, t2.GetPreviousStartedEventId())
			}
			if q := scheduledOn(t2); q.GetKind() != orchpb.TaskQueueKind_STICKY || q.GetName() != "sticky-w1" {
				t.Fatalf("sticky task scheduled on %v", q)
			}
			_, err = poll(ctx, "sticky-w1", "w1", orchpb.TaskQueueKind_NORMAL)
			wantCode(t, err, "INVALID_ARGUMENT")
			complete(t2)

			// Nobody takes it from the sticky queue: after the
			// schedule-to-start timeout it goes to the task queue.
			signal()
			s.Clock().Advance(orchfake.StickyScheduleToStartTimeout)
			t3 := normalTask("w1")
			if t3.GetHistory()[0].GetEventId() != 1 || scheduledOn(t3).GetKind() != orchpb.TaskQueueKind_NORMAL {
				t.Fatalf("after the sticky timeout: history from event %d, scheduled on %v", t3.GetHistory()[0].GetEventId(), scheduledOn(t3))
			}
			timedOut := false
			for _, ev := range t3.GetHistory() {
				if a := ev.GetWorkflowTaskTimedOutEventAttributes(); a != nil && a.GetTimeoutType() == orchpb.TimeoutType_SCHEDULE_TO_START {
					timedOut = true
				}
			}
			if !timedOut {
				t.Fatal("no WorkflowTaskTimedOut (SCHEDULE_TO_START) recorded")
			}
			complete(t3)

			// The worker shuts down: the next task goes to the task queue at once.
			mustCall(t, iv, "ShutdownWorker", &orchpb.ShutdownWorkerRequest{Namespace: "default", TaskQueue: "orders", WorkerInstanceKey: "w1"}, &orchpb.ShutdownWorkerResponse{})
			signal()
			second := stickyPoll(ctx, "w2")
			t4 := normalTask("w2")
			if t4.GetHistory()[0].GetEventId() != 1 || scheduledOn(t4).GetKind() != orchpb.TaskQueueKind_NORMAL {
				t.Fatalf("after ShutdownWorker: history from event %d, scheduled on %v", t4.GetHistory()[0].GetEventId(), scheduledOn(t4))
			}
			complete(t4)

			// w2 stops polling its sticky queue without a word (its poll
			// ends empty after MaxPollWait): past StickyPollerUnavailable
			// the next task goes to the task queue at once.
			for ended := false; !ended; {
				// Again until it ends: the poll arms its MaxPollWait timer
				// just after the fake lists it.
				s.Clock().Advance(max(orchfake.MaxPollWait, orchfake.StickyPollerUnavailable+time.Second))
				select {
				case got := <-second:
					if len(got.GetTaskToken()) != 0 {
						t.Fatal("w2's sticky poll got a task")
					}
					ended = true
				default:
					runtime.Gosched()
				}
			}
			signal()
			t5 := normalTask("w2")
			if t5.GetHistory()[0].GetEventId() != 1 || scheduledOn(t5).GetKind() != orchpb.TaskQueueKind_NORMAL {
				t.Fatalf("sticky worker gone: history from event %d, scheduled on %v", t5.GetHistory()[0].GetEventId(), scheduledOn(t5))
			}
		})
	}
}
