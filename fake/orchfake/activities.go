package orchfake

import (
	"context"
	"slices"
	"time"

	"github.com/apitwin/apitwin/internal/orchsem"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// userTimer is a timer started by a StartTimer command.
type userTimer struct {
	id        string
	startedID int64
	timer     *engineTimer
}

// activity is one scheduled activity of an execution, through all its
// attempts.
type activity struct {
	e            *execution
	scheduledID  int64
	id           string
	typ          string
	queue        string
	attrs        *orchpb.ScheduleActivityTaskCommandAttributes
	retry        *orchpb.RetryPolicy
	attempt      int32
	started      bool // the current attempt was handed to a worker
	waiting      bool // between attempts (retry backoff)
	closed       bool
	scheduled    time.Time // the first attempt
	attemptSched time.Time // the current attempt
	startedTime  time.Time
	identity     string
	key          string // worker_instance_key of the poll that started it
	requestID    string
	details      *orchpb.Payloads // of the last heartbeat
	lastBeat     time.Time
	lastFailure  *orchpb.Failure
	cancelReq    bool
	cancelEvent  int64
	retryAt      time.Time // while waiting: when the next attempt is queued

	s2s, s2c, st2c, beat *engineTimer
}

func (a *activity) live() bool {
	return !a.closed && a.e.open() && !a.started && !a.waiting && a.e.eng.activities[a.scheduledID] == a
}

func (a *activity) token() []byte {
	return encodeTaskToken(taskToken{kind: tokenActivity, namespace: a.e.ns.info.Name, workflowID: a.e.id, runID: a.e.runID, scheduledID: a.scheduledID, attempt: a.attempt})
}

// scheduleActivity writes ActivityTaskScheduled and queues the first
// attempt. s.mu must be held.
func (s *Server) scheduleActivity(e *execution, c *orchpb.ScheduleActivityTaskCommandAttributes, doneID int64) {
	c = orchsem.ScheduledActivity(c, e.queue) // the task queue, timeouts and retry policy the service fills in
	ev := s.add(e, orchpb.EventType_ActivityTaskScheduled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &orchpb.ActivityTaskScheduledEventAttributes{
			ActivityId: c.GetActivityId(), ActivityType: c.GetActivityType(), TaskQueue: &orchpb.TaskQueue{Name: c.GetTaskQueue(), Kind: orchpb.TaskQueueKind_NORMAL},
			Header: c.GetHeader(), Input: c.GetInput(), ScheduleToCloseTimeout: c.GetScheduleToCloseTimeout(),
			ScheduleToStartTimeout: c.GetScheduleToStartTimeout(), StartToCloseTimeout: c.GetStartToCloseTimeout(),
			HeartbeatTimeout: c.GetHeartbeatTimeout(), WorkflowTaskCompletedEventId: doneID, RetryPolicy: c.GetRetryPolicy()}}
	})
	s.openActivity(e, c, ev.GetEventId())
}

// openActivity makes the activity its ActivityTaskScheduled event (at
// scheduledID, written already) says and queues its first attempt: for a
// new activity, and for one a reset's new run carries. s.mu must be held.
func (s *Server) openActivity(e *execution, c *orchpb.ScheduleActivityTaskCommandAttributes, scheduledID int64) {
	now := s.clk.Now()
	a := &activity{e: e, scheduledID: scheduledID, id: c.GetActivityId(), typ: c.GetActivityType().GetName(), queue: c.GetTaskQueue(),
		attrs: c, retry: c.GetRetryPolicy(), attempt: 1, scheduled: now}
	if e.eng.activities == nil {
		e.eng.activities = map[int64]*activity{}
	}
	e.eng.activities[a.scheduledID] = a
	if d := c.GetScheduleToCloseTimeout().AsDuration(); d > 0 {
		a.s2c = s.after(e, d, func() { s.activityTimedOut(a, orchpb.TimeoutType_SCHEDULE_TO_CLOSE) })
	}
	s.queueAttempt(a)
}

// queueAttempt puts the current attempt on the activity's queue. s.mu
// must be held.
func (s *Server) queueAttempt(a *activity) {
	a.waiting, a.started = false, false
	a.attemptSched = s.clk.Now()
	if d := a.attrs.GetScheduleToStartTimeout().AsDuration(); d > 0 {
		a.s2s = s.after(a.e, d, func() { s.activityTimedOut(a, orchpb.TimeoutType_SCHEDULE_TO_START) })
	}
	a.e.ns.queue(a.queue).push(sideActivity, a)
}

func (s *Server) pollActivityTask(ctx context.Context, req *orchpb.PollActivityTaskQueueRequest) (*orchpb.PollActivityTaskQueueResponse, error) {
	var resp *orchpb.PollActivityTaskQueueResponse
	got, err := s.poll(ctx, req.GetNamespace(), req.GetTaskQueue(), req.GetIdentity(), req.GetWorkerInstanceKey(), sideActivity, req.GetTaskQueueMetadata(),
		func(t task) { resp = s.startActivityTask(t.(*activity), req.GetIdentity(), req.GetWorkerInstanceKey()) })
	if err != nil || !got {
		return &orchpb.PollActivityTaskQueueResponse{}, err
	}
	s.kickSkip()
	return resp, nil
}

// startActivityTask starts an attempt of a and answers the poll that took
// it. s.mu must be held.
func (s *Server) startActivityTask(a *activity, identity, key string) *orchpb.PollActivityTaskQueueResponse {
	e := a.e
	now := s.clk.Now()
	a.started, a.startedTime, a.identity, a.key, a.requestID = true, now, identity, key, newID()
	s.cancelTimer(e, a.s2s)
	a.s2s = nil
	if d := a.attrs.GetStartToCloseTimeout().AsDuration(); d > 0 {
		a.st2c = s.after(e, d, func() { s.activityTimedOut(a, orchpb.TimeoutType_START_TO_CLOSE) })
	}
	s.resetHeartbeat(a)
	return &orchpb.PollActivityTaskQueueResponse{
		TaskToken: a.token(), WorkflowNamespace: e.ns.info.Name, WorkflowType: &orchpb.WorkflowType{Name: e.typ},
		WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID},
		ActivityType:      a.attrs.GetActivityType(), ActivityId: a.id, Header: a.attrs.GetHeader(), Input: a.attrs.GetInput(),
		HeartbeatDetails: a.details, ScheduledTime: timestamppb.New(a.scheduled), CurrentAttemptScheduledTime: timestamppb.New(a.attemptSched),
		StartedTime: timestamppb.New(now), Attempt: a.attempt,
		ScheduleToCloseTimeout: a.attrs.GetScheduleToCloseTimeout(), StartToCloseTimeout: a.attrs.GetStartToCloseTimeout(),
		HeartbeatTimeout: a.attrs.GetHeartbeatTimeout(), RetryPolicy: a.retry,
	}
}

func (s *Server) resetHeartbeat(a *activity) {
	s.cancelTimer(a.e, a.beat)
	a.beat = nil
	if d := a.attrs.GetHeartbeatTimeout().AsDuration(); d > 0 {
		a.beat = s.after(a.e, d, func() { s.activityTimedOut(a, orchpb.TimeoutType_HEARTBEAT) })
	}
}

// currentActivity finds the started attempt a token names. s.mu must be held.
func (s *Server) currentActivity(nsName string, tok []byte) (*activity, error) {
	e, tt, err := s.taskExecution(nsName, tok, tokenActivity)
	if err != nil {
		return nil, err
	}
	a := e.eng.activities[tt.scheduledID]
	if a == nil || !a.started || a.attempt != tt.attempt {
		return nil, errorf(orchwire.ActivityTaskTimeout, "activity task not found: it timed out, was canceled or was already answered (workflow_id %q, scheduled event %d, attempt %d)", e.id, tt.scheduledID, tt.attempt)
	}
	return a, nil
}

// answerByToken runs act, with s.mu held, on the started attempt a task
// token names.
func (s *Server) answerByToken(nsName string, tok []byte, act func(a *activity) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.currentActivity(nsName, tok)
	if err != nil {
		return err
	}
	return act(a)
}

func (s *Server) recordHeartbeat(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatRequest) (*orchpb.RecordActivityTaskHeartbeatResponse, error) {
	resp := &orchpb.RecordActivityTaskHeartbeatResponse{}
	return resp, s.answerByToken(req.GetNamespace(), req.GetTaskToken(), func(a *activity) error {
		resp.CancelRequested = s.heartbeat(a, req.GetDetails())
		return nil
	})
}

// heartbeat records an attempt's heartbeat and says whether cancellation
// was requested. s.mu must be held.
func (s *Server) heartbeat(a *activity, details *orchpb.Payloads) bool {
	a.details, a.lastBeat = details, s.clk.Now()
	s.resetHeartbeat(a)
	return a.cancelReq
}

// writeStarted writes ActivityTaskStarted for the attempt that closes the
// activity, and returns its id.
func (s *Server) writeStarted(a *activity) int64 {
	if !a.started {
		return 0
	}
	ev := s.add(a.e, orchpb.EventType_ActivityTaskStarted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskStartedEventAttributes{ActivityTaskStartedEventAttributes: &orchpb.ActivityTaskStartedEventAttributes{
			ScheduledEventId: a.scheduledID, Identity: a.identity, RequestId: a.requestID, Attempt: a.attempt, LastFailure: a.lastFailure}}
	})
	return ev.GetEventId()
}

// finish removes a closed activity and tells the workflow.
func (s *Server) finish(a *activity) {
	a.closed = true
	for _, t := range []*engineTimer{a.s2s, a.s2c, a.st2c, a.beat} {
		s.cancelTimer(a.e, t)
	}
	delete(a.e.eng.activities, a.scheduledID)
	s.newEventsForWorker(a.e)
}

func (s *Server) respondActivityCompleted(ctx context.Context, req *orchpb.RespondActivityTaskCompletedRequest) (*orchpb.RespondActivityTaskCompletedResponse, error) {
	defer s.kickSkip()
	return &orchpb.RespondActivityTaskCompletedResponse{}, s.answerByToken(req.GetNamespace(), req.GetTaskToken(), func(a *activity) error {
		s.activityCompleted(a, req.GetResult(), req.GetIdentity())
		return nil
	})
}

// activityCompleted ends a started attempt completed. s.mu must be held.
func (s *Server) activityCompleted(a *activity, result *orchpb.Payloads, identity string) {
	startedID := s.writeStarted(a)
	s.add(a.e, orchpb.EventType_ActivityTaskCompleted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &orchpb.ActivityTaskCompletedEventAttributes{
			Result: result, ScheduledEventId: a.scheduledID, StartedEventId: startedID, Identity: identity}}
	})
	s.finish(a)
}

func (s *Server) respondActivityFailed(ctx context.Context, req *orchpb.RespondActivityTaskFailedRequest) (*orchpb.RespondActivityTaskFailedResponse, error) {
	if req.GetFailure() == nil {
		return nil, badField("failure", "required")
	}
	defer s.kickSkip()
	return &orchpb.RespondActivityTaskFailedResponse{}, s.answerByToken(req.GetNamespace(), req.GetTaskToken(), func(a *activity) error {
		s.attemptFailed(a, req.GetFailure(), req.GetIdentity())
		return nil
	})
}

// attemptFailed ends a started attempt failed: retried per the retry
// policy, or the activity fails. A failure after the workflow asked for
// cancellation is not retried (retry state CANCEL_REQUESTED), as
// Temporal's service records it: the way to end canceled is
// RespondActivityTaskCanceled. s.mu must be held.
func (s *Server) attemptFailed(a *activity, f *orchpb.Failure, identity string) {
	if state := s.retryState(a, f); state != orchpb.RetryState_IN_PROGRESS {
		startedID := s.writeStarted(a)
		s.add(a.e, orchpb.EventType_ActivityTaskFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ActivityTaskFailedEventAttributes{ActivityTaskFailedEventAttributes: &orchpb.ActivityTaskFailedEventAttributes{
				Failure: f, ScheduledEventId: a.scheduledID, StartedEventId: startedID, Identity: identity, RetryState: state}}
		})
		s.finish(a)
		return
	}
	s.retry(a, f)
}

func (s *Server) respondActivityCanceled(ctx context.Context, req *orchpb.RespondActivityTaskCanceledRequest) (*orchpb.RespondActivityTaskCanceledResponse, error) {
	defer s.kickSkip()
	return &orchpb.RespondActivityTaskCanceledResponse{}, s.answerByToken(req.GetNamespace(), req.GetTaskToken(), func(a *activity) error {
		return s.reportCanceled(a, req.GetDetails(), req.GetIdentity())
	})
}

// reportCanceled ends a started attempt canceled, which only an activity
// the workflow asked to cancel may be. s.mu must be held.
func (s *Server) reportCanceled(a *activity, details *orchpb.Payloads, identity string) error {
	if !a.cancelReq {
		return errorf(orchwire.InvalidArgument, "unable to mark activity as canceled without activity being request canceled first (activity_id %q)", a.id)
	}
	s.activityCanceled(a, details, identity)
	return nil
}

// retryState says whether a failed attempt is retried (IN_PROGRESS) or
// why not.
func (s *Server) retryState(a *activity, f *orchpb.Failure) orchpb.RetryState {
	if a.cancelReq {
		return orchpb.RetryState_CANCEL_REQUESTED
	}
	return orchsem.ActivityRetryState(a.attrs, f, a.attempt, a.scheduled, s.clk.Now())
}

// retry ends the current attempt and queues the next after its backoff.
func (s *Server) retry(a *activity, f *orchpb.Failure) {
	e := a.e
	for _, t := range []*engineTimer{a.st2c, a.beat} {
		s.cancelTimer(e, t)
	}
	a.st2c, a.beat = nil, nil
	a.lastFailure = f
	wait := orchsem.Backoff(a.retry, a.attempt)
	a.attempt++
	a.started, a.waiting = false, true
	a.retryAt = s.clk.Now().Add(wait)
	s.after(e, wait, func() { s.attemptDue(a) })
}

// attemptDue queues an activity's next attempt once its backoff is over.
// s.mu must be held.
func (s *Server) attemptDue(a *activity) {
	// A timer of an attempt that ended meanwhile (answered by id during
	// its backoff) finds a later retryAt, or the activity no longer waiting.
	if !a.closed && a.waiting && !s.clk.Now().Before(a.retryAt) && a.e.eng.activities[a.scheduledID] == a {
		s.queueAttempt(a)
	}
}

// activityTimedOut handles each activity timeout: schedule-to-start and
// schedule-to-close end the activity; start-to-close and heartbeat fail
// the attempt, which is retried as a failure would be.
func (s *Server) activityTimedOut(a *activity, typ orchpb.TimeoutType) {
	e := a.e
	if a.closed || e.eng.activities[a.scheduledID] != a {
		return
	}
	switch typ {
	case orchpb.TimeoutType_START_TO_CLOSE, orchpb.TimeoutType_HEARTBEAT:
		if !a.started {
			return
		}
	case orchpb.TimeoutType_SCHEDULE_TO_START:
		if a.started || a.waiting {
			return
		}
	}
	f := &orchpb.Failure{Message: "activity " + typ.String() + " timeout", Source: "orchfake",
		FailureInfo: &orchpb.Failure_TimeoutFailureInfo{TimeoutFailureInfo: &orchpb.TimeoutFailureInfo{TimeoutType: typ, LastHeartbeatDetails: a.details}}}
	state := orchpb.RetryState_TIMEOUT
	if typ == orchpb.TimeoutType_START_TO_CLOSE || typ == orchpb.TimeoutType_HEARTBEAT {
		if state = s.retryState(a, f); state == orchpb.RetryState_IN_PROGRESS {
			s.retry(a, f)
			return
		}
	}
	startedID := s.writeStarted(a)
	s.add(e, orchpb.EventType_ActivityTaskTimedOut, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskTimedOutEventAttributes{ActivityTaskTimedOutEventAttributes: &orchpb.ActivityTaskTimedOutEventAttributes{
			Failure: f, ScheduledEventId: a.scheduledID, StartedEventId: startedID, RetryState: state}}
	})
	s.finish(a)
}

// requestCancelActivity: an activity not yet started is canceled at once;
// a started one is asked (its heartbeats answer cancel_requested) and ends
// canceled when its worker reports.
func (s *Server) requestCancelActivity(e *execution, scheduledID, doneID int64) {
	a := e.eng.activities[scheduledID]
	ev := s.add(e, orchpb.EventType_ActivityTaskCancelRequested, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskCancelRequestedEventAttributes{ActivityTaskCancelRequestedEventAttributes: &orchpb.ActivityTaskCancelRequestedEventAttributes{
			ScheduledEventId: scheduledID, WorkflowTaskCompletedEventId: doneID}}
	})
	a.cancelReq = true
	a.cancelEvent = ev.GetEventId()
	if !a.started {
		s.activityCanceled(a, nil, "")
	}
}

func (s *Server) activityCanceled(a *activity, details *orchpb.Payloads, identity string) {
	startedID := s.writeStarted(a)
	s.add(a.e, orchpb.EventType_ActivityTaskCanceled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ActivityTaskCanceledEventAttributes{ActivityTaskCanceledEventAttributes: &orchpb.ActivityTaskCanceledEventAttributes{
			Details: details, LatestCancelRequestedEventId: a.cancelEvent, ScheduledEventId: a.scheduledID, StartedEventId: startedID, Identity: identity}}
	})
	s.finish(a)
}

// pendingActivities lists the open activities of e. s.mu must be held.
func (s *Server) pendingActivities(e *execution) []*orchpb.PendingActivityInfo {
	ids := make([]int64, 0, len(e.eng.activities))
	for id := range e.eng.activities {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []*orchpb.PendingActivityInfo
	for _, id := range ids {
		a := e.eng.activities[id]
		p := &orchpb.PendingActivityInfo{ActivityId: a.id, ActivityType: a.attrs.GetActivityType(), HeartbeatDetails: a.details,
			Attempt: a.attempt, ScheduledTime: timestamppb.New(a.attemptSched), LastFailure: a.lastFailure}
		if !a.lastBeat.IsZero() {
			p.LastHeartbeatTime = timestamppb.New(a.lastBeat)
		}
		if a.started {
			p.LastStartedTime = timestamppb.New(a.startedTime)
		}
		out = append(out, p)
	}
	return out
}

// activityByID finds the open activity activityID of an execution's open
// run (runID "" for the latest), for the ...ById operations. An activity
// that closed, or an id never scheduled, is NOT_FOUND, as Temporal answers.
// s.mu must be held.
func (s *Server) activityByID(nsName, workflowID, runID, activityID string) (*activity, error) {
	var v violations
	v.check(workflowID != "", "workflow_id", "required")
	v.check(activityID != "", "activity_id", "required")
	if err := v.err(); err != nil {
		return nil, err
	}
	e, err := s.lookupOpen(nsName, &orchpb.WorkflowExecution{WorkflowId: workflowID, RunId: runID}, "workflow_execution")
	if err != nil {
		return nil, err
	}
	for _, a := range e.eng.activities {
		if a.id == activityID {
			return a, nil
		}
	}
	return nil, errorf(orchwire.NotFound, "cannot find pending activity with activity_id %q (workflow_id %q, run_id %q): check the execution's history", activityID, e.id, e.runID)
}

// startOutside makes the current attempt of an activity no worker took
// (queued, or waiting out its retry backoff) started by whoever answers
// it by id, as Temporal lets CompleteActivityByID and FailActivityByID
// answer such an activity. s.mu must be held.
func (s *Server) startOutside(a *activity, identity string) {
	if a.started {
		return
	}
	if !a.waiting {
		a.e.ns.queue(a.queue).withdraw(sideActivity, a)
	}
	s.cancelTimer(a.e, a.s2s)
	a.s2s = nil
	a.started, a.waiting = true, false
	a.startedTime, a.identity, a.requestID = s.clk.Now(), identity, newID()
}

// byIDRequest is what the ...ById requests share.
type byIDRequest interface {
	GetNamespace() string
	GetWorkflowId() string
	GetRunId() string
	GetActivityId() string
	GetIdentity() string
}

// answerByID runs act, with s.mu held, on the activity a ...ById request
// names. started says the operation needs an attempt a worker took (a
// heartbeat, a canceled report): an activity still queued or between
// attempts is then NOT_FOUND, as Temporal answers; otherwise such an
// activity is started by the caller (startOutside).
func (s *Server) answerByID(req byIDRequest, started bool, act func(a *activity) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.activityByID(req.GetNamespace(), req.GetWorkflowId(), req.GetRunId(), req.GetActivityId())
	switch {
	case err != nil:
		return err
	case started && !a.started:
		return errorf(orchwire.NotFound, "activity %q of workflow_id %q has no started attempt (it waits for a worker)", a.id, a.e.id)
	}
	s.startOutside(a, req.GetIdentity())
	return act(a)
}

func (s *Server) respondActivityCompletedByID(ctx context.Context, req *orchpb.RespondActivityTaskCompletedByIdRequest) (*orchpb.RespondActivityTaskCompletedByIdResponse, error) {
	defer s.kickSkip()
	return &orchpb.RespondActivityTaskCompletedByIdResponse{}, s.answerByID(req, false, func(a *activity) error {
		s.activityCompleted(a, req.GetResult(), req.GetIdentity())
		return nil
	})
}

func (s *Server) respondActivityFailedByID(ctx context.Context, req *orchpb.RespondActivityTaskFailedByIdRequest) (*orchpb.RespondActivityTaskFailedByIdResponse, error) {
	if req.GetFailure() == nil {
		return nil, badField("failure", "required")
	}
	defer s.kickSkip()
	return &orchpb.RespondActivityTaskFailedByIdResponse{}, s.answerByID(req, false, func(a *activity) error {
		if d := req.GetLastHeartbeatDetails(); d != nil {
			a.details = d
		}
		s.attemptFailed(a, req.GetFailure(), req.GetIdentity())
		return nil
	})
}

func (s *Server) recordHeartbeatByID(ctx context.Context, req *orchpb.RecordActivityTaskHeartbeatByIdRequest) (*orchpb.RecordActivityTaskHeartbeatByIdResponse, error) {
	resp := &orchpb.RecordActivityTaskHeartbeatByIdResponse{}
	return resp, s.answerByID(req, true, func(a *activity) error {
		resp.CancelRequested = s.heartbeat(a, req.GetDetails())
		return nil
	})
}

func (s *Server) respondActivityCanceledByID(ctx context.Context, req *orchpb.RespondActivityTaskCanceledByIdRequest) (*orchpb.RespondActivityTaskCanceledByIdResponse, error) {
	defer s.kickSkip()
	return &orchpb.RespondActivityTaskCanceledByIdResponse{}, s.answerByID(req, true, func(a *activity) error {
		return s.reportCanceled(a, req.GetDetails(), req.GetIdentity())
	})
}
