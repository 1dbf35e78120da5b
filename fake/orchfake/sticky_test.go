package orchfake_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
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
				return pollKind(ctx, iv, queue, key, kind)
			}
			stickyPoll := func(ctx context.Context, key string) <-chan *orchpb.PollWorkflowTaskQueueResponse {
				return startStickyPoll(t, ctx, iv, key)
			}
			normalTask := func(key string) *orchpb.PollWorkflowTaskQueueResponse {
				t.Helper()
				return normalTask(t, ctx, iv, key)
			}
			complete := func(task *orchpb.PollWorkflowTaskQueueResponse) {
				t.Helper()
				completeSticky(t, iv, task)
			}
			signal := func() {
				t.Helper()
				signalRun(t, iv, id)
			}
			scheduledOn := func(task *orchpb.PollWorkflowTaskQueueResponse) *orchpb.TaskQueue {
				t.Helper()
				return scheduledOn(t, task)
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

// pollKind polls queue for a workflow task as worker instance key.
func pollKind(ctx context.Context, iv *invoker, queue, key string, kind orchpb.TaskQueueKind) (*orchpb.PollWorkflowTaskQueueResponse, error) {
	resp := &orchpb.PollWorkflowTaskQueueResponse{}
	own := *iv // its own: an invoker keeps the last answer's headers
	err := own.call(ctx, "PollWorkflowTaskQueue", &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: queue,
		Identity: key, WorkerInstanceKey: key, TaskQueueKind: kind}, resp)
	return resp, err
}

// startStickyPoll starts a STICKY poll of worker instance key's sticky
// queue and returns once the fake lists it as the queue's poller; the
// answer comes on the channel (nil fields if ctx ended it).
func startStickyPoll(t *testing.T, ctx context.Context, iv *invoker, key string) <-chan *orchpb.PollWorkflowTaskQueueResponse {
	ch := make(chan *orchpb.PollWorkflowTaskQueueResponse, 1)
	go func() {
		resp, err := pollKind(ctx, iv, "sticky-"+key, key, orchpb.TaskQueueKind_STICKY)
		if err != nil && ctx.Err() == nil {
			t.Errorf("sticky poll: %v", err)
		}
		ch <- resp
	}()
	waitForPoller(t, iv, "sticky-"+key, orchpb.TaskQueueType_WORKFLOW)
	return ch
}

// normalTask polls the "orders" queue as worker instance key and fails
// the test without a task.
func normalTask(t *testing.T, ctx context.Context, iv *invoker, key string) *orchpb.PollWorkflowTaskQueueResponse {
	t.Helper()
	resp, err := pollKind(ctx, iv, "orders", key, orchpb.TaskQueueKind_NORMAL)
	if err != nil || len(resp.GetTaskToken()) == 0 {
		t.Fatalf("normal poll: %v, no task: %v", err, len(resp.GetTaskToken()) == 0)
	}
	return resp
}

// completeSticky completes a workflow task with no commands, asking for
// the run's next task on the worker's sticky queue.
func completeSticky(t *testing.T, iv *invoker, task *orchpb.PollWorkflowTaskQueueResponse) {
	t.Helper()
	mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default",
		TaskToken: task.GetTaskToken(), Identity: "w", StickyAttributes: true}, &orchpb.RespondWorkflowTaskCompletedResponse{})
}

func signalRun(t *testing.T, iv *invoker, id string) {
	t.Helper()
	mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
		WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: "go"}, &orchpb.SignalWorkflowExecutionResponse{})
}

// scheduledOn is the queue the task's last WorkflowTaskScheduled names.
func scheduledOn(t *testing.T, task *orchpb.PollWorkflowTaskQueueResponse) *orchpb.TaskQueue {
	t.Helper()
	h := task.GetHistory()
	for i := len(h) - 1; i >= 0; i-- {
		if a := h[i].GetWorkflowTaskScheduledEventAttributes(); a != nil {
			return a.GetTaskQueue()
		}
	}
	t.Fatalf("no WorkflowTaskScheduled in the task's history")
	return nil
}

// TestSkippingGoesOnWhenAStickyWorkerDies: with time skipping, a run
// sticky to a worker whose poll ended (its caller went away, as when the
// worker's process dies) without ShutdownWorker gets its next task on the
// run's task queue once StickyScheduleToStartTimeout passes, and skipping
// moves the clock there itself: another worker polling the task queue gets
// the task with the whole history. (Before, skipping took the dead worker
// for alive for a second of real time after its poll began and nothing
// made it look again: the clock stayed and the task waited on the sticky
// queue for ever.)
func TestSkippingGoesOnWhenAStickyWorkerDies(t *testing.T) {
	t.Parallel()
	eachFake(t, skipping, func(t *testing.T, s *orchfake.Server, iv *invoker) {
		ctx := t.Context()
		const id = "orphaned"
		start := s.Clock().Now()
		kill := stickyWorker(t, s, iv, "w1")
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
		completeSticky(t, iv, normalTask(t, ctx, iv, "w1"))
		kill()
		signalRun(t, iv, id)
		task := normalTask(t, ctx, iv, "w2")
		if task.GetHistory()[0].GetEventId() != 1 || scheduledOn(t, task).GetKind() != orchpb.TaskQueueKind_NORMAL {
			t.Fatalf("history from event %d, scheduled on %v", task.GetHistory()[0].GetEventId(), scheduledOn(t, task))
		}
		if moved := s.Clock().Now().Sub(start); moved < orchfake.StickyScheduleToStartTimeout {
			t.Fatalf("the clock moved %v, want at least the sticky schedule-to-start timeout", moved)
		}
	})
}

// skipping are the options of the fakes these tests run on.
var skipping = []orchfake.Option{orchfake.WithTimeSkipping()}

// stickyWorker starts a STICKY poll of worker instance key's sticky queue
// (returning once the fake lists it) and returns a function that kills
// the worker: its poll's caller goes away, as when its process dies, and
// the function returns once the fake saw the poll end, the event that says
// the worker is gone. Before that, a task could still be handed to the
// poll, as to a live one.
func stickyWorker(t *testing.T, s *orchfake.Server, iv *invoker, key string) (kill func()) {
	t.Helper()
	dying, die := context.WithCancel(t.Context())
	first := startStickyPoll(t, dying, iv, key)
	return func() {
		t.Helper()
		die()
		if got := <-first; len(got.GetTaskToken()) != 0 {
			t.Fatal("the dying worker's sticky poll got a task")
		}
		for !pollEnded(s, "sticky-"+key) {
			runtime.Gosched()
		}
	}
}

// pollEnded reports whether the fake answered a workflow task poll of
// queue: a poll is logged when it ends, on either transport.
func pollEnded(s *orchfake.Server, queue string) bool {
	for _, r := range s.RequestsTo("PollWorkflowTaskQueue") {
		if strings.Contains(r.Path, "/"+queue+"/") || bytes.Contains(r.Body, []byte(`"`+queue+`"`)) {
			return true
		}
	}
	return false
}

// TestSkippingWaitsForAStickyWorkerBetweenPolls: with time skipping, a
// run's task on the sticky queue of a worker that took a task and has not
// polled again since (it is working on its answer) waits for that worker:
// skipping does not jump to the sticky schedule-to-start timeout, and the
// worker's next sticky poll gets the task with only the new events.
func TestSkippingWaitsForAStickyWorkerBetweenPolls(t *testing.T) {
	t.Parallel()
	eachFake(t, skipping, func(t *testing.T, s *orchfake.Server, iv *invoker) {
		ctx := t.Context()
		const id = "busy"
		start := s.Clock().Now()
		t2 := stickyTaskTaken(t, ctx, iv, id) // w1 is now between polls
		signalRun(t, iv, id)                  // the run's next task waits on w1's sticky queue
		completeSticky(t, iv, t2)
		t3, err := pollKind(ctx, iv, "sticky-w1", "w1", orchpb.TaskQueueKind_STICKY)
		if err != nil || len(t3.GetTaskToken()) == 0 {
			t.Fatalf("w1's next sticky poll: %v, no task: %v", err, len(t3.GetTaskToken()) == 0)
		}
		if q := scheduledOn(t, t3); q.GetKind() != orchpb.TaskQueueKind_STICKY || t3.GetHistory()[0].GetEventId() == 1 {
			t.Fatalf("history from event %d, scheduled on %v", t3.GetHistory()[0].GetEventId(), q)
		}
		if now := s.Clock().Now(); !now.Equal(start) {
			t.Fatalf("the clock moved %v while the sticky worker was between polls", now.Sub(start))
		}
	})
}

// TestSkippingWaitsForAStickyWorkerWhoseActivityPollTookATask: an
// activity poll does not pay a worker's debt. An activity poll of the
// sticky worker (the same worker_instance_key) took an activity, at once
// or after waiting for it, while the worker's workflow pollers were
// between polls; the fake took that poll for the one the worker owed, so
// once the activity was done the worker counted as gone and skipping
// jumped to the sticky task's schedule-to-start timeout (CI saw it as a
// WorkflowTaskTimedOut in TestParityChildCancellation, 5 s after the
// child's cancel request).
func TestSkippingWaitsForAStickyWorkerWhoseActivityPollTookATask(t *testing.T) {
	t.Parallel()
	for _, waits := range []bool{false, true} {
		t.Run(fmt.Sprintf("poll-waits=%v", waits), func(t *testing.T) {
			t.Parallel()
			eachFake(t, skipping, func(t *testing.T, s *orchfake.Server, iv *invoker) {
				ctx := t.Context()
				const id = "cleanup"
				start := s.Clock().Now()
				t2 := stickyTaskTaken(t, ctx, iv, id) // w1 owes its next poll
				activity := make(chan *orchpb.PollActivityTaskQueueResponse, 1)
				pollActivity := func() {
					var act orchpb.PollActivityTaskQueueResponse
					own := *iv
					if err := own.call(ctx, "PollActivityTaskQueue", &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: "orders",
						Identity: "w1", WorkerInstanceKey: "w1"}, &act); err != nil {
						t.Errorf("activity poll: %v", err)
					}
					activity <- &act
				}
				if waits {
					go pollActivity()
					waitForPoller(t, iv, "orders", orchpb.TaskQueueType_ACTIVITY)
				}
				mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default",
					TaskToken: t2.GetTaskToken(), Identity: "w1", StickyAttributes: true, Commands: []*orchpb.Command{scheduleCmd("Cleanup", nil)}},
					&orchpb.RespondWorkflowTaskCompletedResponse{})
				if !waits {
					pollActivity()
				}
				act := <-activity
				if len(act.GetTaskToken()) == 0 {
					t.Fatal("the activity poll got no task")
				}
				signalRun(t, iv, id) // the run's next task waits on w1's sticky queue
				mustCall(t, iv, "RespondActivityTaskCompleted", &orchpb.RespondActivityTaskCompletedRequest{Namespace: "default",
					TaskToken: act.GetTaskToken(), Identity: "w1"}, &orchpb.RespondActivityTaskCompletedResponse{})
				t3, err := pollKind(ctx, iv, "sticky-w1", "w1", orchpb.TaskQueueKind_STICKY)
				if err != nil || len(t3.GetTaskToken()) == 0 {
					t.Fatalf("w1's next sticky poll: %v, no task: %v", err, len(t3.GetTaskToken()) == 0)
				}
				if q := scheduledOn(t, t3); q.GetKind() != orchpb.TaskQueueKind_STICKY {
					t.Fatalf("scheduled on %v", q)
				}
				if now := s.Clock().Now(); !now.Equal(start) {
					t.Fatalf("the clock moved %v while the sticky worker was between polls", now.Sub(start))
				}
			})
		})
	}
}

// stickyTaskTaken starts run id with worker w1 polling its sticky queue,
// completes the run's first task (from the task queue) asking for
// stickiness, signals the run, and returns the task w1's sticky poll took:
// w1 is then between polls and owes its next one.
func stickyTaskTaken(t *testing.T, ctx context.Context, iv *invoker, id string) *orchpb.PollWorkflowTaskQueueResponse {
	t.Helper()
	first := startStickyPoll(t, ctx, iv, "w1")
	mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
	completeSticky(t, iv, normalTask(t, ctx, iv, "w1"))
	signalRun(t, iv, id)
	return <-first
}

// waitForPoller returns once the fake lists a poller of queue's side typ.
func waitForPoller(t *testing.T, iv *invoker, queue string, typ orchpb.TaskQueueType) {
	t.Helper()
	for {
		var d orchpb.DescribeTaskQueueResponse
		err := iv.call(t.Context(), "DescribeTaskQueue", &orchpb.DescribeTaskQueueRequest{Namespace: "default", TaskQueue: queue, TaskQueueType: typ}, &d)
		if err == nil && len(d.GetPollers()) > 0 {
			return
		}
		if t.Context().Err() != nil {
			t.Fatal("no poller listed")
		}
		runtime.Gosched()
	}
}

// TestSkippingTimesOutATaskAGoneWorkerHeld: with time skipping, a workflow
// task started by a worker that is then gone (its poll's caller left, as
// when its process dies just as the task's answer was on its way) no
// longer holds the clock for ever: skipping moves to the task's
// start-to-close timeout, which the real service would reach too, and the
// run's next task goes to another worker with the whole history. (Before,
// a started task held the clock whoever held it, and the run waited.)
func TestSkippingTimesOutATaskAGoneWorkerHeld(t *testing.T) {
	t.Parallel()
	eachFake(t, skipping, func(t *testing.T, s *orchfake.Server, iv *invoker) {
		ctx := t.Context()
		start := s.Clock().Now()
		kill := stickyWorker(t, s, iv, "w1")
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", "held"), &orchpb.StartWorkflowExecutionResponse{})
		normalTask(t, ctx, iv, "w1") // started, and never answered
		kill()
		task := normalTask(t, ctx, iv, "w2")
		timedOut := false
		for _, ev := range task.GetHistory() {
			if a := ev.GetWorkflowTaskTimedOutEventAttributes(); a != nil && a.GetTimeoutType() == orchpb.TimeoutType_START_TO_CLOSE {
				timedOut = true
			}
		}
		if !timedOut || task.GetHistory()[0].GetEventId() != 1 {
			t.Fatalf("no WorkflowTaskTimedOut (START_TO_CLOSE) in the new task's history from event %d", task.GetHistory()[0].GetEventId())
		}
		if moved := s.Clock().Now().Sub(start); moved < orchfake.DefaultWorkflowTaskTimeout {
			t.Fatalf("the clock moved %v, want at least the task's start-to-close timeout", moved)
		}
	})
}

// TestSkippingTimesOutAnActivityAGoneWorkerHeld is the same for an
// activity: its start-to-close timeout is reached, and its next attempt
// goes to another worker.
func TestSkippingTimesOutAnActivityAGoneWorkerHeld(t *testing.T) {
	t.Parallel()
	eachFake(t, skipping, func(t *testing.T, s *orchfake.Server, iv *invoker) {
		ctx := t.Context()
		start := s.Clock().Now()
		kill := stickyWorker(t, s, iv, "w1")
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", "held"), &orchpb.StartWorkflowExecutionResponse{})
		task := normalTask(t, ctx, iv, "w1")
		mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default",
			TaskToken: task.GetTaskToken(), Identity: "w1", StickyAttributes: true, Commands: []*orchpb.Command{scheduleCmd("Charge", nil)}},
			&orchpb.RespondWorkflowTaskCompletedResponse{})
		pollActivity := func(key string) *orchpb.PollActivityTaskQueueResponse {
			var act orchpb.PollActivityTaskQueueResponse
			mustCall(t, iv, "PollActivityTaskQueue", &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: "orders",
				Identity: key, WorkerInstanceKey: key}, &act)
			return &act
		}
		if pollActivity("w1").GetAttempt() != 1 { // started, and never answered
			t.Fatal("w1 got no first attempt")
		}
		kill()
		if next := pollActivity("w2"); next.GetAttempt() != 2 {
			t.Fatalf("w2 got attempt %d, want the second", next.GetAttempt())
		}
		if moved := s.Clock().Now().Sub(start); moved < time.Minute {
			t.Fatalf("the clock moved %v, want at least the activity's start-to-close timeout", moved)
		}
	})
}
