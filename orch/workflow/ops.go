package workflow

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// activity is an activity the workflow scheduled.
type activity struct {
	id, typ     string
	scheduledID int64 // its ActivityTaskScheduled event, once known
	f           *future
}

// ExecuteActivity schedules an activity of activityType with input (JSON;
// nil for none) and the options of WithActivityOptions, and returns its
// Future: Get gives its result, or an *ActivityError when it failed or
// timed out for good (the service retries it per its retry policy before
// that) or was canceled. Canceling ctx asks the activity to stop and fails
// the future with an *ActivityError wrapping ErrCanceled at once. The
// activity's id is the workflow's next sequence number, so the same code
// gives the same ids on every replay.
func ExecuteActivity(ctx Context, activityType string, input any) Future {
	c := must(ctx)
	e := c.e
	e.readOnly("ExecuteActivity")
	f := e.newFuture()
	if c.activity == nil || (c.activity.StartToCloseTimeout <= 0 && c.activity.ScheduleToCloseTimeout <= 0) {
		f.settle(nil, fmt.Errorf("workflow: ExecuteActivity %s: the context's activity options need StartToCloseTimeout or ScheduleToCloseTimeout (WithActivityOptions)", activityType))
		return f
	}
	id := e.nextID()
	a := &activity{id: id, typ: activityType, f: f}
	if c.scope.canceled {
		f.settle(nil, &ActivityError{ActivityID: id, ActivityType: activityType, Cause: ErrCanceled})
		return f
	}
	cmd, err := orch.ScheduleActivityCommand(id, activityType, input, c.activity)
	if err != nil {
		f.settle(nil, fmt.Errorf("workflow: ExecuteActivity %s: %w", activityType, err))
		return f
	}
	sent := e.addCommand(cmd, func(ev *orchpb.HistoryEvent) {
		a.scheduledID = ev.GetEventId()
		e.activities[a.scheduledID] = a
	})
	c.scope.onCancel(func() {
		if f.ready {
			return
		}
		if a.scheduledID == 0 {
			sent.dropped = true // issued in this task: never sent
		} else {
			e.addCommand(orch.RequestCancelActivityCommand(a.scheduledID), nil)
		}
		f.settle(nil, &ActivityError{ActivityID: id, ActivityType: activityType, ScheduledEventID: a.scheduledID, Cause: ErrCanceled})
	})
	return f
}

// ActivityError is the error of an activity's Future when the activity
// failed, timed out or was canceled.
type ActivityError struct {
	ActivityID   string
	ActivityType string
	// ScheduledEventID is its ActivityTaskScheduled event (0 when it was
	// canceled before the service recorded it).
	ScheduledEventID int64
	RetryState       orchpb.RetryState
	// Cause is an *orch.ApplicationError (the activity returned an error),
	// a *TimeoutError, or ErrCanceled.
	Cause error
}

func (e *ActivityError) Error() string {
	return fmt.Sprintf("activity %s (id %s) failed: %v", e.ActivityType, e.ActivityID, e.Cause)
}

func (e *ActivityError) Unwrap() error { return e.Cause }

// TimeoutError is the cause of an activity that timed out for good.
type TimeoutError struct {
	Type    orchpb.TimeoutType
	Message string
}

func (e *TimeoutError) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return "timeout (" + e.Type.String() + ")"
}

// failureError makes the Go error of a Failure recorded in the history.
func failureError(f *orchpb.Failure) error {
	if f == nil {
		return errors.New("failed without a failure")
	}
	switch info := f.GetFailureInfo().(type) {
	case *orchpb.Failure_ApplicationFailureInfo:
		app := &orch.ApplicationError{Message: f.GetMessage(), Type: info.ApplicationFailureInfo.GetType(), NonRetryable: info.ApplicationFailureInfo.GetNonRetryable()}
		if d := info.ApplicationFailureInfo.GetDetails(); d != nil {
			app.Details = d
		}
		if f.GetCause() != nil {
			app.Cause = failureError(f.GetCause())
		}
		return app
	case *orchpb.Failure_TimeoutFailureInfo:
		return &TimeoutError{Type: info.TimeoutFailureInfo.GetTimeoutType(), Message: f.GetMessage()}
	case *orchpb.Failure_CanceledFailureInfo:
		return ErrCanceled
	}
	return errors.New(f.GetMessage())
}

func (e *execution) activityEvent(ev *orchpb.HistoryEvent) {
	var sched int64
	var result *orchpb.Payloads
	var err error
	retry := orchpb.RetryState_RETRY_STATE_UNSPECIFIED
	switch a := ev.GetAttributes().(type) {
	case *orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes:
		sched, result = a.ActivityTaskCompletedEventAttributes.GetScheduledEventId(), a.ActivityTaskCompletedEventAttributes.GetResult()
	case *orchpb.HistoryEvent_ActivityTaskFailedEventAttributes:
		sched, retry = a.ActivityTaskFailedEventAttributes.GetScheduledEventId(), a.ActivityTaskFailedEventAttributes.GetRetryState()
		err = failureError(a.ActivityTaskFailedEventAttributes.GetFailure())
	case *orchpb.HistoryEvent_ActivityTaskTimedOutEventAttributes:
		sched, retry = a.ActivityTaskTimedOutEventAttributes.GetScheduledEventId(), a.ActivityTaskTimedOutEventAttributes.GetRetryState()
		f := a.ActivityTaskTimedOutEventAttributes.GetFailure()
		te := &TimeoutError{Message: f.GetMessage(), Type: f.GetTimeoutFailureInfo().GetTimeoutType()}
		if te.Message == "" {
			te.Message = "activity timed out"
		}
		err = te
	case *orchpb.HistoryEvent_ActivityTaskCanceledEventAttributes:
		sched, err = a.ActivityTaskCanceledEventAttributes.GetScheduledEventId(), ErrCanceled
	}
	act := e.activities[sched]
	if act == nil || act.f.ready {
		return // canceled by the workflow already
	}
	if err != nil {
		err = &ActivityError{ActivityID: act.id, ActivityType: act.typ, ScheduledEventID: sched, RetryState: retry, Cause: err}
	}
	act.f.settle(result, err)
}

// timer is a timer the workflow started.
type timer struct {
	id        string
	startedID int64
	f         *future
}

// NewTimer returns a Future ready when d has passed in workflow time (a
// TimerFired event). A d of zero or less is ready at once and records
// nothing. Canceling ctx cancels the timer and fails the future with
// ErrCanceled.
func NewTimer(ctx Context, d time.Duration) Future {
	c := must(ctx)
	e := c.e
	e.readOnly("NewTimer")
	f := e.newFuture()
	if d <= 0 {
		f.settle(nil, nil)
		return f
	}
	if c.scope.canceled {
		f.settle(nil, ErrCanceled)
		return f
	}
	id := e.nextID()
	t := &timer{id: id, f: f}
	e.timers[id] = t
	sent := e.addCommand(orch.StartTimerCommand(id, d), func(ev *orchpb.HistoryEvent) { t.startedID = ev.GetEventId() })
	c.scope.onCancel(func() {
		if f.ready {
			return
		}
		if t.startedID == 0 {
			sent.dropped = true
		} else {
			e.addCommand(&orchpb.Command{
				CommandType: orchpb.CommandType_CANCEL_TIMER,
				Attributes:  &orchpb.Command_CancelTimerCommandAttributes{CancelTimerCommandAttributes: &orchpb.CancelTimerCommandAttributes{TimerId: id}},
			}, nil)
		}
		f.settle(nil, ErrCanceled)
	})
	return f
}

// Sleep blocks for d of workflow time (a durable timer: a worker restart
// does not restart it). It returns ErrCanceled when ctx is canceled first.
func Sleep(ctx Context, d time.Duration) error {
	must(ctx).e.readOnly("Sleep")
	return NewTimer(ctx, d).Get(ctx, nil)
}

// GetSignalChannel returns the channel of the signals named name: each
// signal's first payload is one value, in the order the history recorded
// them. Signals that arrived before the channel was asked for wait in it.
func GetSignalChannel(ctx Context, name string) ReceiveChannel {
	return must(ctx).e.signalChannel(name)
}

func (e *execution) signalChannel(name string) *channel {
	ch := e.signals[name]
	if ch == nil {
		ch = e.newChannel(name)
		e.signals[name] = ch
	}
	return ch
}

// SetQueryHandler answers queries of queryType with handler, which reads
// the workflow's state (it must not block or change it). Queries run after
// the history known at the time is replayed. A query is read-only: a
// handler that calls what issues a command or records in the history
// (ExecuteActivity, NewTimer, Sleep, ExecuteChildWorkflow, SideEffect, a
// GetVersion not yet decided, Go, a CancelFunc) or blocks (Get of a
// future not ready, Receive on an empty channel, …) fails the query with
// an error naming the call; nothing is recorded and no side effect runs.
func SetQueryHandler(ctx Context, queryType string, handler func() (any, error)) {
	if handler == nil {
		panic("workflow: SetQueryHandler with a nil handler")
	}
	must(ctx).e.queries[queryType] = func(*orchpb.Payloads) (any, error) { return handler() }
}

// SetQueryHandlerWithArg is SetQueryHandler for queries that carry an
// argument, decoded (JSON) into an A.
func SetQueryHandlerWithArg[A any](ctx Context, queryType string, handler func(arg A) (any, error)) {
	if handler == nil {
		panic("workflow: SetQueryHandlerWithArg with a nil handler")
	}
	must(ctx).e.queries[queryType] = func(args *orchpb.Payloads) (any, error) {
		var a A
		if len(args.GetPayloads()) > 0 {
			if err := orch.DecodePayload(args.GetPayloads()[0], &a); err != nil {
				return nil, fmt.Errorf("query %s: %w", queryType, err)
			}
		}
		return handler(a)
	}
}

// ContinueAsNewError, returned by a workflow function, ends the run and
// starts a new run of the same workflow id with Input (the way to keep a
// long-lived workflow's history short).
type ContinueAsNewError struct {
	// WorkflowType and TaskQueue are the new run's; empty keeps this run's.
	WorkflowType string
	TaskQueue    string
	Input        any
}

func (e *ContinueAsNewError) Error() string { return "continue as new" }

// NewContinueAsNewError returns the error that continues the workflow as
// a new run of the same type with input.
func NewContinueAsNewError(ctx Context, input any) error {
	return &ContinueAsNewError{WorkflowType: must(ctx).e.info.WorkflowType, Input: input}
}

// nextID is the id of the next activity or timer: a sequence shared by
// both, as the same code issues them in the same order on every replay.
func (e *execution) nextID() string {
	e.seq++
	return strconv.FormatInt(e.seq, 10)
}

// Await blocks until cond holds, re-checking it whenever other workflow
// code ran (a signal arrived, a coroutine changed state). cond must only
// read workflow state. It returns ErrCanceled when ctx is canceled first.
func Await(ctx Context, cond func() bool) error {
	c := must(ctx)
	c.co.waitUntil(func() bool { return c.scope.canceled || cond() })
	if cond() {
		return nil
	}
	return ErrCanceled
}

// AwaitWithTimeout is Await for at most d of workflow time (a timer,
// canceled when cond holds first). ok is false when d passed first.
func AwaitWithTimeout(ctx Context, d time.Duration, cond func() bool) (ok bool, err error) {
	tctx, cancel := WithCancel(ctx)
	defer cancel()
	timer := NewTimer(tctx, d)
	c := must(ctx)
	c.co.waitUntil(func() bool { return c.scope.canceled || cond() || timer.IsReady() })
	switch {
	case cond():
		return true, nil
	case c.scope.canceled:
		return false, ErrCanceled
	}
	return false, nil
}
