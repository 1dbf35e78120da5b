package orch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// answerNextTask plays a worker by hand: it polls taskQueue for a workflow
// task and answers it with cmds.
func answerNextTask(t *testing.T, c *orch.Client, taskQueue string, cmds ...*orchpb.Command) {
	t.Helper()
	task, err := c.Raw().PollWorkflowTaskQueue(t.Context(), &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: taskQueue, Identity: "test"})
	must(t, err)
	if len(task.GetTaskToken()) == 0 {
		t.Fatal("no workflow task")
	}
	_, err = c.Raw().RespondWorkflowTaskCompleted(t.Context(), &orchpb.RespondWorkflowTaskCompletedRequest{TaskToken: task.GetTaskToken(), Commands: cmds})
	must(t, err)
}

// asyncActivity starts a workflow on a queue of its own whose first task
// schedules activity "a1" (type Approve), and returns the run and queue.
func asyncActivity(t *testing.T, c *orch.Client, opts *orch.ActivityOptions) (*orch.WorkflowRun, string) {
	t.Helper()
	q := uid("async")
	run, err := c.StartWorkflow(t.Context(), "Approval", q, nil, &orch.StartWorkflowOptions{ID: uid("approval")})
	must(t, err)
	if opts == nil {
		opts = &orch.ActivityOptions{StartToCloseTimeout: time.Hour}
	}
	cmd, err := orch.ScheduleActivityCommand("a1", "Approve", "order-1", opts)
	must(t, err)
	answerNextTask(t, c, q, cmd)
	return run, q
}

// takeActivity polls the activity task of q.
func takeActivity(t *testing.T, c *orch.Client, q string) *orchpb.PollActivityTaskQueueResponse {
	t.Helper()
	task, err := c.Raw().PollActivityTaskQueue(t.Context(), &orchpb.PollActivityTaskQueueRequest{TaskQueue: q, Identity: "worker"})
	must(t, err)
	if len(task.GetTaskToken()) == 0 {
		t.Fatal("no activity task")
	}
	return task
}

// activityEnd is the run's last activity event: its type and attributes.
func activityEnd(t *testing.T, c *orch.Client, run *orch.WorkflowRun) *orchpb.HistoryEvent {
	t.Helper()
	var last *orchpb.HistoryEvent
	for ev, err := range run.History(t.Context(), nil) {
		must(t, err)
		switch ev.GetEventType() {
		case orchpb.EventType_ActivityTaskCompleted, orchpb.EventType_ActivityTaskFailed, orchpb.EventType_ActivityTaskCanceled, orchpb.EventType_ActivityTaskTimedOut:
			last = ev
		}
	}
	if last == nil {
		t.Fatal("the activity did not end")
	}
	return last
}

// wantCode checks that err is an *orch.Error with code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	var e *orch.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: got %v, want code %s", what, err, code)
	}
}

// TestCompleteActivityByToken: whoever holds a started attempt's token
// completes it; the token then answers nothing more.
func TestCompleteActivityByToken(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		run, q := asyncActivity(t, c, nil)
		task := takeActivity(t, c, q)
		must(t, c.CompleteActivity(t.Context(), task.GetTaskToken(), "approved", nil))
		ev := activityEnd(t, c, run)
		var got string
		must(t, orch.DecodePayloads(ev.GetActivityTaskCompletedEventAttributes().GetResult(), &got))
		if ev.GetEventType() != orchpb.EventType_ActivityTaskCompleted || got != "approved" {
			t.Errorf("activity ended %v with %q", ev.GetEventType(), got)
		}
		err := c.CompleteActivity(t.Context(), task.GetTaskToken(), "again", nil)
		wantCode(t, "a second answer", err, orch.CodeActivityTaskTimeout)
		if !errors.Is(err, orch.ErrNotFound) {
			t.Errorf("a second answer is not ErrNotFound: %v", err)
		}
		if err := c.CompleteActivity(t.Context(), nil, "x", nil); err == nil {
			t.Error("CompleteActivity without a token succeeded")
		}
	})
}

// TestCompleteActivityByID: an activity no worker took is completed by its
// workflow id and activity id (the service writes its started event);
// refusals name what was wrong.
func TestCompleteActivityByID(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		run, _ := asyncActivity(t, c, nil)

		for _, tc := range []struct {
			name                   string
			workflowID, activityID string
			code                   string
		}{
			{"unknown activity id", run.ID, "a2", orch.CodeNotFound},
			{"unknown workflow id", uid("nobody"), "a1", orch.CodeWorkflowExecutionNotFound},
			{"no activity id", run.ID, "", orch.CodeInvalidArgument},
			{"no workflow id", "", "a1", orch.CodeInvalidArgument},
		} {
			err := c.CompleteActivityByID(t.Context(), tc.workflowID, "", tc.activityID, "x", nil)
			wantCode(t, tc.name, err, tc.code)
		}
		// Nothing to heartbeat yet: no worker took the activity.
		wantCode(t, "a heartbeat before any attempt started", c.RecordActivityHeartbeatByID(t.Context(), run.ID, "", "a1", nil), orch.CodeNotFound)

		must(t, c.CompleteActivityByID(t.Context(), run.ID, run.RunID, "a1", "approved", nil))
		var types []orchpb.EventType
		for _, typ := range eventTypes(t, c, run.ID, run.RunID) {
			if typ >= orchpb.EventType_ActivityTaskScheduled && typ <= orchpb.EventType_ActivityTaskCanceled {
				types = append(types, typ)
			}
		}
		want := []orchpb.EventType{orchpb.EventType_ActivityTaskScheduled, orchpb.EventType_ActivityTaskStarted, orchpb.EventType_ActivityTaskCompleted}
		if diff := cmp.Diff(want, types); diff != "" {
			t.Errorf("activity events (-want +got):\n%s", diff)
		}
		wantCode(t, "completing a closed activity", c.CompleteActivityByID(t.Context(), run.ID, "", "a1", "again", nil), orch.CodeNotFound)

		// A closed execution answers for all its activities.
		run2, _ := asyncActivity(t, c, nil)
		must(t, run2.Terminate(t.Context(), nil))
		wantCode(t, "an activity of a closed run", c.CompleteActivityByID(t.Context(), run2.ID, "", "a1", nil, nil), orch.CodeWorkflowExecutionCompleted)
	})
}

// TestFailActivityFromOutside: a failure reported by id is retried per the
// retry policy; the next attempt carries the last heartbeat's details,
// and the earlier attempt's token is stale.
func TestFailActivityFromOutside(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		srv := e.fake(t)
		c := e.client(t)
		run, q := asyncActivity(t, c, nil)
		first := takeActivity(t, c, q)
		if first.GetHeartbeatDetails() != nil {
			t.Errorf("first attempt has details %v", first.GetHeartbeatDetails())
		}
		must(t, c.RecordActivityHeartbeatByID(t.Context(), run.ID, "", "a1", map[string]int{"page": 7}))
		must(t, c.CompleteActivityByID(t.Context(), run.ID, "", "a1", nil, errors.New("reviewer away")))

		srv.Clock().Advance(time.Second) // the default retry policy's first backoff
		second := takeActivity(t, c, q)
		var details map[string]int
		must(t, orch.DecodePayloads(second.GetHeartbeatDetails(), &details))
		if second.GetAttempt() != 2 || details["page"] != 7 {
			t.Errorf("second attempt %d, details %v", second.GetAttempt(), details)
		}
		wantCode(t, "the first attempt's token", c.CompleteActivity(t.Context(), first.GetTaskToken(), "late", nil), orch.CodeActivityTaskTimeout)

		// A non-retryable failure ends the activity.
		must(t, c.CompleteActivity(t.Context(), second.GetTaskToken(), nil, orch.NonRetryable(errors.New("rejected"))))
		ev := activityEnd(t, c, run)
		attrs := ev.GetActivityTaskFailedEventAttributes()
		if ev.GetEventType() != orchpb.EventType_ActivityTaskFailed || attrs.GetFailure().GetMessage() != "rejected" || attrs.GetRetryState() != orchpb.RetryState_NON_RETRYABLE_FAILURE {
			t.Errorf("activity ended with %v", ev)
		}
	})
}

// TestCancelActivityFromOutside: only an activity the workflow asked to
// cancel may end canceled; a heartbeat tells the one answering it, which
// then reports the cancellation with details.
func TestCancelActivityFromOutside(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		run, q := asyncActivity(t, c, nil)
		task := takeActivity(t, c, q)
		wantCode(t, "canceled before the workflow asked", c.CompleteActivity(t.Context(), task.GetTaskToken(), nil, orch.ErrActivityCanceled), orch.CodeInvalidArgument)
		must(t, c.RecordActivityHeartbeat(t.Context(), task.GetTaskToken(), "working"))

		// The workflow asks for the activity to be canceled.
		must(t, run.Signal(t.Context(), "stop", nil, nil))
		answerNextTask(t, c, q, orch.RequestCancelActivityCommand(5)) // 5: ActivityTaskScheduled

		if err := c.RecordActivityHeartbeatByID(t.Context(), run.ID, "", "a1", nil); !errors.Is(err, orch.ErrActivityCanceled) {
			t.Fatalf("heartbeat by id after the cancel request: %v", err)
		}
		if err := c.RecordActivityHeartbeat(t.Context(), task.GetTaskToken(), nil); !errors.Is(err, orch.ErrActivityCanceled) {
			t.Fatalf("heartbeat by token after the cancel request: %v", err)
		}
		must(t, c.CompleteActivityByID(t.Context(), run.ID, "", "a1", "stopped at page 3", orch.ErrActivityCanceled))
		ev := activityEnd(t, c, run)
		attrs := ev.GetActivityTaskCanceledEventAttributes()
		var details string
		must(t, orch.DecodePayloads(attrs.GetDetails(), &details))
		if ev.GetEventType() != orchpb.EventType_ActivityTaskCanceled || details != "stopped at page 3" || attrs.GetLatestCancelRequestedEventId() == 0 || attrs.GetScheduledEventId() != 5 {
			t.Errorf("activity ended with %v", ev)
		}
	})
}

// TestFailureAfterCancelRequestIsNotRetried: a failure reported after the
// workflow asked for cancellation ends the activity failed with retry
// state CANCEL_REQUESTED, as Temporal records it (the way to end canceled
// is RespondActivityTaskCanceled).
func TestFailureAfterCancelRequestIsNotRetried(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := e.client(t)
		run, q := asyncActivity(t, c, nil)
		task := takeActivity(t, c, q)
		must(t, run.Signal(t.Context(), "stop", nil, nil))
		answerNextTask(t, c, q, orch.RequestCancelActivityCommand(5))
		must(t, c.CompleteActivity(t.Context(), task.GetTaskToken(), nil, errors.New("interrupted")))
		ev := activityEnd(t, c, run)
		want := &orchpb.ActivityTaskFailedEventAttributes{ScheduledEventId: 5, RetryState: orchpb.RetryState_CANCEL_REQUESTED}
		if diff := cmp.Diff(want, ev.GetActivityTaskFailedEventAttributes(), protocmp.Transform(),
			protocmp.IgnoreFields(&orchpb.ActivityTaskFailedEventAttributes{}, "failure", "started_event_id", "identity")); diff != "" {
			t.Errorf("ActivityTaskFailed (-want +got):\n%s", diff)
		}
	})
}

// TestActivityResultPending: an activity that returns
// ErrActivityResultPending is not answered by its worker; the workflow
// waits until someone completes it with its task token.
func TestActivityResultPending(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		c := workerClient(t, e)
		q := uid("pending")
		tokens := make(chan []byte, 1)
		startWorker(t, c, q, func(w *orch.Worker) {
			must(t, orch.RegisterActivity(w, "AskHuman", func(ctx context.Context, question string) (string, error) {
				info, _ := orch.GetActivityInfo(ctx)
				tokens <- info.TaskToken
				return "", orch.ErrActivityResultPending
			}))
			must(t, w.RegisterWorkflow("Ask", orch.Sequence(orch.ActivityStep{ActivityType: "AskHuman", Options: &orch.ActivityOptions{StartToCloseTimeout: time.Hour}})))
		})
		run, err := c.StartWorkflow(t.Context(), "Ask", q, "ship it?", nil)
		must(t, err)
		token := <-tokens
		must(t, c.RecordActivityHeartbeat(t.Context(), token, "asked"))
		must(t, c.CompleteActivity(t.Context(), token, "yes", nil))
		var got string
		must(t, run.Get(t.Context(), &got))
		if got != "yes" {
			t.Errorf("result %q", got)
		}
		for _, typ := range eventTypes(t, c, run.ID, run.RunID) {
			if typ == orchpb.EventType_ActivityTaskFailed {
				t.Error("the worker answered the pending activity")
			}
		}
	})
}
