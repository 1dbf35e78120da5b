package orch

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/apitwin/apitwin/internal/orchact"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// ErrActivityCanceled is the cause of an activity's context when the
// workflow asked for the activity to be canceled (a heartbeat said so).
var ErrActivityCanceled = errors.New("orch: activity cancellation requested")

// ErrActivityResultPending, returned by an activity function (alone or
// wrapped), says the activity is not done and someone else will answer it:
// the worker reports nothing, frees the activity's slot, and the activity
// stays started on the service until [Client.CompleteActivity] (with the
// task token of [GetActivityInfo]) or [Client.CompleteActivityByID]
// answers it, or one of its timeouts ends the attempt. It is Temporal's
// activity.ErrResultPending.
var ErrActivityResultPending = errors.New("orch: activity result pending (completed from outside the worker)")

// ActivityInfo describes the activity task a function is running.
type ActivityInfo struct {
	ActivityID   string
	ActivityType string
	WorkflowID   string
	RunID        string
	WorkflowType string
	TaskQueue    string
	// Attempt counts from 1.
	Attempt          int32
	ScheduledTime    time.Time
	StartedTime      time.Time
	HeartbeatTimeout time.Duration
	TaskToken        []byte
}

type activityKey struct{}

// activityState is what RecordHeartbeat and the worker share about one
// running activity.
type activityState struct {
	w      *Worker
	task   *orchpb.PollActivityTaskQueueResponse
	info   ActivityInfo
	cancel context.CancelCauseFunc

	mu            sync.Mutex
	lastHeartbeat time.Time
	pending       *orchpb.Payloads // details a throttled heartbeat left unsent
}

// GetActivityInfo returns the info of the activity running in ctx, and
// false outside an activity.
func GetActivityInfo(ctx context.Context) (ActivityInfo, bool) {
	st, ok := ctx.Value(activityKey{}).(*activityState)
	if !ok {
		if a := orchact.From(ctx); a != nil { // run by orch/orchtest
			return ActivityInfo(a.Info), true
		}
		return ActivityInfo{}, false
	}
	return st.info, true
}

// HeartbeatDetails decodes the details of the last heartbeat of an earlier
// attempt of this activity into out (ErrNoPayload when there were none), so
// a retried attempt can resume where the last one stopped.
func HeartbeatDetails(ctx context.Context, out any) error {
	st, ok := ctx.Value(activityKey{}).(*activityState)
	if !ok {
		if a := orchact.From(ctx); a != nil {
			return DecodePayloads(a.Details, out)
		}
		return errors.New("orch: HeartbeatDetails outside an activity")
	}
	return DecodePayloads(st.task.GetHeartbeatDetails(), out)
}

// HasHeartbeatDetails reports whether an earlier attempt of the activity
// running in ctx left heartbeat details for HeartbeatDetails to read.
func HasHeartbeatDetails(ctx context.Context) bool {
	st, ok := ctx.Value(activityKey{}).(*activityState)
	if !ok {
		if a := orchact.From(ctx); a != nil {
			return len(a.Details.GetPayloads()) > 0
		}
		return false
	}
	return len(st.task.GetHeartbeatDetails().GetPayloads()) > 0
}

// RecordHeartbeat tells the service the activity running in ctx is alive,
// with details (JSON-encoded; nil for none) that a retried attempt can read
// with HeartbeatDetails. Heartbeats count against the client's limit of
// heartbeats a minute: one over the limit is not sent (its details go with
// the next that is) and RecordHeartbeat returns nil. When the service
// answers that cancellation was requested, or that the task is gone (timed
// out, execution closed), the activity's context is canceled, with
// ErrActivityCanceled or the error as its cause, and the error returned.
func RecordHeartbeat(ctx context.Context, details any) error {
	st, ok := ctx.Value(activityKey{}).(*activityState)
	a := orchact.From(ctx)
	if !ok && a == nil {
		return errors.New("orch: RecordHeartbeat outside an activity")
	}
	var payloads *orchpb.Payloads
	if details != nil {
		p, err := EncodePayloads(details)
		if err != nil {
			return err
		}
		payloads = p
	}
	if !ok {
		return a.Heartbeat(payloads)
	}
	w := st.w
	st.mu.Lock()
	if payloads == nil {
		payloads = st.pending
	}
	if !w.c.limits.heartbeatAllowed() {
		st.pending = payloads
		st.mu.Unlock()
		return nil
	}
	st.pending = nil
	st.lastHeartbeat = w.c.clk.Now()
	st.mu.Unlock()
	hctx, cancel := reportCtx()
	defer cancel()
	hctx = context.WithValue(hctx, heartbeatTokenTaken{}, true)
	resp, err := w.c.Raw().RecordActivityTaskHeartbeat(hctx, &orchpb.RecordActivityTaskHeartbeatRequest{
		Namespace: w.c.namespace, TaskToken: st.task.GetTaskToken(), Details: payloads, Identity: w.c.identity,
	})
	switch {
	case err != nil:
		var e *Error
		if errors.As(err, &e) && (e.Is(ErrNotFound) || e.Is(ErrFailedPrecondition)) {
			st.cancel(err) // the task is gone: timed out, or its execution closed
		}
		return err
	case resp.GetCancelRequested():
		st.cancel(ErrActivityCanceled)
		return ErrActivityCanceled
	}
	return nil
}

func (w *Worker) runActivity(task *orchpb.PollActivityTaskQueueResponse) {
	ctx, cancel := context.WithCancelCause(w.taskCtx)
	defer cancel(nil)
	st := &activityState{w: w, task: task, cancel: cancel, info: ActivityInfo{
		ActivityID:       task.GetActivityId(),
		ActivityType:     task.GetActivityType().GetName(),
		WorkflowID:       task.GetWorkflowExecution().GetWorkflowId(),
		RunID:            task.GetWorkflowExecution().GetRunId(),
		WorkflowType:     task.GetWorkflowType().GetName(),
		TaskQueue:        w.taskQueue,
		Attempt:          task.GetAttempt(),
		ScheduledTime:    task.GetScheduledTime().AsTime(),
		StartedTime:      task.GetStartedTime().AsTime(),
		HeartbeatTimeout: task.GetHeartbeatTimeout().AsDuration(),
		TaskToken:        task.GetTaskToken(),
	}}
	ctx = context.WithValue(ctx, activityKey{}, st)

	w.mu.Lock()
	fn, ok := w.activities[st.info.ActivityType]
	w.mu.Unlock()
	var result *orchpb.Payloads
	var err error
	if !ok {
		err = &ApplicationError{Message: "activity type " + st.info.ActivityType + " is not registered with this worker", Type: "ActivityTypeNotRegistered"}
	} else {
		result, err = safeActivity(ctx, fn, task.GetInput(), st.info.ActivityType)
	}

	if errors.Is(err, ErrActivityResultPending) {
		return // answered from outside the worker
	}
	rctx, rcancel := reportCtx()
	defer rcancel()
	if err == nil {
		_, rerr := w.c.Raw().RespondActivityTaskCompleted(rctx, &orchpb.RespondActivityTaskCompletedRequest{
			Namespace: w.c.namespace, TaskToken: task.GetTaskToken(), Result: result, Identity: w.c.identity,
		})
		w.logError("completing an activity failed", rerr)
		return
	}
	if errors.Is(context.Cause(ctx), ErrActivityCanceled) {
		// Canceled at the workflow's request: the activity ends canceled
		// (ActivityTaskCanceled), not failed.
		_, rerr := w.c.Raw().RespondActivityTaskCanceled(rctx, &orchpb.RespondActivityTaskCanceledRequest{
			Namespace: w.c.namespace, TaskToken: task.GetTaskToken(), Identity: w.c.identity,
		})
		w.logError("reporting a canceled activity failed", rerr)
		return
	}
	failure := failureFrom(err)
	if w.taskCtx.Err() != nil {
		// Canceled by the worker's stop, which the service did not ask
		// for: a failed attempt, retried per the activity's policy.
		failure.FailureInfo = &orchpb.Failure_CanceledFailureInfo{CanceledFailureInfo: &orchpb.CanceledFailureInfo{}}
	}
	req := &orchpb.RespondActivityTaskFailedRequest{
		Namespace: w.c.namespace, TaskToken: task.GetTaskToken(), Failure: failure, Identity: w.c.identity,
	}
	st.mu.Lock()
	if !st.lastHeartbeat.IsZero() {
		req.LastHeartbeatTime = st.lastHeartbeat.Unix()
	}
	st.mu.Unlock()
	_, rerr := w.c.Raw().RespondActivityTaskFailed(rctx, req)
	w.logError("reporting a failed activity failed", rerr)
}

func safeActivity(ctx context.Context, fn activityFunc, input *orchpb.Payloads, name string) (out *orchpb.Payloads, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("activity %s panicked: %v\n%s", name, r, debug.Stack())
		}
	}()
	return fn(ctx, input)
}
