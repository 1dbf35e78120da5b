package orchfake

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/fake/orchfake/internal/visibility"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// cmdError is a command the fake refuses: the workflow task fails with
// cause.
type cmdError struct {
	cause orchpb.WorkflowTaskFailedCause
	msg   string
}

func badCmd(cause orchpb.WorkflowTaskFailedCause, format string, args ...any) *cmdError {
	return &cmdError{cause: cause, msg: fmt.Sprintf(format, args...)}
}

func (s *Server) respondWorkflowTaskCompleted(ctx context.Context, req *orchpb.RespondWorkflowTaskCompletedRequest) (*orchpb.RespondWorkflowTaskCompletedResponse, error) {
	defer s.kickSkip()
	s.mu.Lock()
	defer s.mu.Unlock()
	if tt, err := decodeTaskToken(req.GetTaskToken()); err == nil && tt.kind == tokenQuery {
		return &orchpb.RespondWorkflowTaskCompletedResponse{}, s.answerQueryTask(req, tt)
	}
	t, err := s.currentWorkflowTask(req.GetNamespace(), req.GetTaskToken())
	if err != nil {
		return nil, err
	}
	e := t.e
	s.answerQueries(e, req.GetQueryResults(), req.GetQueryFailures())
	if ce := s.checkCommands(e, req.GetCommands()); ce != nil {
		s.failWorkflowTask(t, ce.cause, &orchpb.Failure{Message: ce.msg, Source: "orchfake"}, req.GetIdentity(), req.GetBinaryChecksum())
		return nil, &apiError{code: orchwire.InvalidArgument, msg: "workflow task failed: " + ce.cause.String() + ": " + ce.msg,
			details: []*orchpb.ErrorDetail{{Type: "FieldViolation", Field: "commands", Description: ce.msg}}}
	}
	s.cancelTimer(e, t.timeout)
	done := s.add(e, orchpb.EventType_WorkflowTaskCompleted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskCompletedEventAttributes{
			WorkflowTaskCompletedEventAttributes: &orchpb.WorkflowTaskCompletedEventAttributes{
				ScheduledEventId: t.scheduledID, StartedEventId: t.startedID, Identity: req.GetIdentity(),
				BinaryChecksum: req.GetBinaryChecksum(), SdkMetadata: req.GetSdkMetadata(),
			},
		}
	})
	e.eng.wft = nil
	e.eng.wftAttempt = 1
	e.eng.lastStartedID = t.startedID
	missed := e.eng.newEvents
	e.eng.newEvents = false
	if m := req.GetMemoUpdate(); m != nil {
		e.infoEdits++
		// A copy: the old memo is the started event's (and the start
		// request's), which must not change.
		if e.memo == nil {
			e.memo = &orchpb.Memo{}
		} else {
			e.memo = proto.Clone(e.memo).(*orchpb.Memo)
		}
		if e.memo.Fields == nil {
			e.memo.Fields = map[string]*orchpb.Payload{}
		}
		for k, v := range m.GetFields() {
			e.memo.Fields[k] = v
		}
	}
	askedToCancel := false // the outcome of a cancel request is written at once: the workflow must see it
	for _, c := range req.GetCommands() {
		s.applyCommand(e, c, done.GetEventId(), req.GetIdentity())
		askedToCancel = askedToCancel || c.GetCommandType() == orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION
	}
	s.startChildren(e)
	if e.open() && (len(e.history) > MaxHistoryEvents || s.eventCount() > s.maxEvents()) {
		// As the service ends a run whose history passed its count limit.
		s.terminateLocked(e, "Workflow history count exceeds limit.", nil, "orchfake")
	}
	resp := &orchpb.RespondWorkflowTaskCompletedResponse{}
	if e.open() && (missed || askedToCancel || req.GetForceCreateNewWorkflowTask()) && e.eng.wft == nil {
		s.scheduleWorkflowTask(e)
	}
	if req.GetReturnNewWorkflowTask() && e.open() && e.eng.wft != nil && e.eng.wft.live() {
		e.ns.queue(e.queue).sides[sideWorkflow].handed++
		resp.WorkflowTask = s.startWorkflowTask(e.eng.wft, req.GetIdentity())
	}
	return resp, nil
}

// failWorkflowTask records a failed workflow task and schedules the next
// attempt. s.mu must be held.
func (s *Server) failWorkflowTask(t *workflowTask, cause orchpb.WorkflowTaskFailedCause, f *orchpb.Failure, identity, checksum string) {
	e := t.e
	s.cancelTimer(e, t.timeout)
	if !t.transient { // a retry's failure is not written again
		s.add(e, orchpb.EventType_WorkflowTaskFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskFailedEventAttributes{
				WorkflowTaskFailedEventAttributes: &orchpb.WorkflowTaskFailedEventAttributes{
					ScheduledEventId: t.scheduledID, StartedEventId: t.startedID, Cause: cause, Failure: f,
					Identity: identity, BinaryChecksum: checksum,
				},
			}
		})
	}
	e.eng.wft = nil
	e.eng.wftAttempt = t.attempt + 1
	if cause == orchpb.WorkflowTaskFailedCause_UNHANDLED_COMMAND {
		// new events, not the worker's code, failed it: the next task is a
		// first attempt, at once
		e.eng.wftAttempt = 1
	}
	s.scheduleWorkflowTask(e)
}

func (s *Server) respondWorkflowTaskFailed(ctx context.Context, req *orchpb.RespondWorkflowTaskFailedRequest) (*orchpb.RespondWorkflowTaskFailedResponse, error) {
	if _, ok := orchpb.WorkflowTaskFailedCause_name[int32(req.GetCause())]; !ok {
		return nil, badField("cause", "unknown cause %d", req.GetCause())
	}
	defer s.kickSkip()
	s.mu.Lock()
	defer s.mu.Unlock()
	if tt, err := decodeTaskToken(req.GetTaskToken()); err == nil && tt.kind == tokenQuery {
		return &orchpb.RespondWorkflowTaskFailedResponse{}, s.answerQueryTask(&orchpb.RespondWorkflowTaskCompletedRequest{
			QueryFailures: map[string]*orchpb.Failure{queryID(tt.scheduledID): req.GetFailure()}}, tt)
	}
	t, err := s.currentWorkflowTask(req.GetNamespace(), req.GetTaskToken())
	if err != nil {
		return nil, err
	}
	cause := req.GetCause()
	if cause == orchpb.WorkflowTaskFailedCause_WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED {
		cause = orchpb.WorkflowTaskFailedCause_WORKFLOW_WORKER_UNHANDLED_FAILURE
	}
	s.failWorkflowTask(t, cause, req.GetFailure(), req.GetIdentity(), req.GetBinaryChecksum())
	return &orchpb.RespondWorkflowTaskFailedResponse{}, nil
}

func closes(c *orchpb.Command) bool {
	switch c.GetCommandType() {
	case orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION, orchpb.CommandType_FAIL_WORKFLOW_EXECUTION,
		orchpb.CommandType_CANCEL_WORKFLOW_EXECUTION, orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
		return true
	}
	return false
}

// checkCommands validates every command before any is applied.
func (s *Server) checkCommands(e *execution, cmds []*orchpb.Command) *cmdError {
	activityIDs := map[string]bool{}
	for _, a := range e.eng.activities {
		activityIDs[a.id] = true
	}
	timerIDs := map[string]bool{}
	for id := range e.eng.userTimers {
		timerIDs[id] = true
	}
	for i, c := range cmds {
		if closes(c) && i != len(cmds)-1 {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_COMMAND, "command %d closes the workflow but is not the last", i)
		}
		if closes(c) && e.eng.newEvents {
			return badCmd(orchpb.WorkflowTaskFailedCause_UNHANDLED_COMMAND, "new events arrived while the workflow task ran; handle them before closing the workflow")
		}
		if ce := s.checkCommand(e, i, c, activityIDs, timerIDs); ce != nil {
			return ce
		}
	}
	return nil
}

func (s *Server) checkCommand(e *execution, i int, c *orchpb.Command, activityIDs, timerIDs map[string]bool) *cmdError {
	mismatch := func() *cmdError {
		return badCmd(orchpb.WorkflowTaskFailedCause_BAD_COMMAND, "command %d: attributes do not match command_type %s", i, c.GetCommandType())
	}
	switch c.GetCommandType() {
	case orchpb.CommandType_SCHEDULE_ACTIVITY_TASK:
		a := c.GetScheduleActivityTaskCommandAttributes()
		if a == nil {
			return mismatch()
		}
		bad := func(format string, args ...any) *cmdError {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES, "command %d: "+format, append([]any{i}, args...)...)
		}
		var v violations
		checkName(&v, "activity_id", a.GetActivityId(), true)
		checkName(&v, "activity_type.name", a.GetActivityType().GetName(), true)
		checkName(&v, "task_queue", a.GetTaskQueue(), false)
		checkDuration(&v, "schedule_to_close_timeout", a.GetScheduleToCloseTimeout())
		checkDuration(&v, "schedule_to_start_timeout", a.GetScheduleToStartTimeout())
		checkDuration(&v, "start_to_close_timeout", a.GetStartToCloseTimeout())
		checkDuration(&v, "heartbeat_timeout", a.GetHeartbeatTimeout())
		checkRetryPolicy(&v, "retry_policy", a.GetRetryPolicy())
		if len(v.list) > 0 {
			return bad("%s: %s", v.list[0].GetField(), v.list[0].GetDescription())
		}
		if a.GetScheduleToCloseTimeout().AsDuration() <= 0 && a.GetStartToCloseTimeout().AsDuration() <= 0 {
			return bad("one of schedule_to_close_timeout and start_to_close_timeout is required")
		}
		if activityIDs[a.GetActivityId()] {
			return bad("activity_id %q is already in use", a.GetActivityId())
		}
		activityIDs[a.GetActivityId()] = true
	case orchpb.CommandType_REQUEST_CANCEL_ACTIVITY_TASK:
		a := c.GetRequestCancelActivityTaskCommandAttributes()
		if a == nil {
			return mismatch()
		}
		if e.eng.activities[a.GetScheduledEventId()] == nil {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES, "command %d: no open activity scheduled by event %d", i, a.GetScheduledEventId())
		}
	case orchpb.CommandType_START_TIMER:
		a := c.GetStartTimerCommandAttributes()
		if a == nil {
			return mismatch()
		}
		d := a.GetStartToFireTimeout()
		if a.GetTimerId() == "" || len(a.GetTimerId()) > MaxIDLength || d == nil || !d.IsValid() || d.AsDuration() <= 0 || timerIDs[a.GetTimerId()] {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_START_TIMER_ATTRIBUTES, "command %d: a timer needs a new timer_id and a positive start_to_fire_timeout", i)
		}
		timerIDs[a.GetTimerId()] = true
	case orchpb.CommandType_CANCEL_TIMER:
		a := c.GetCancelTimerCommandAttributes()
		if a == nil {
			return mismatch()
		}
		if !timerIDs[a.GetTimerId()] {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_CANCEL_TIMER_ATTRIBUTES, "command %d: no open timer %q", i, a.GetTimerId())
		}
		delete(timerIDs, a.GetTimerId())
	case orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION:
		if c.GetCompleteWorkflowExecutionCommandAttributes() == nil {
			return mismatch()
		}
	case orchpb.CommandType_FAIL_WORKFLOW_EXECUTION:
		a := c.GetFailWorkflowExecutionCommandAttributes()
		if a == nil {
			return mismatch()
		}
		if a.GetFailure() == nil {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_FAIL_WORKFLOW_EXECUTION_ATTRIBUTES, "command %d: failure is required", i)
		}
	case orchpb.CommandType_CANCEL_WORKFLOW_EXECUTION:
		if c.GetCancelWorkflowExecutionCommandAttributes() == nil {
			return mismatch()
		}
	case orchpb.CommandType_RECORD_MARKER:
		a := c.GetRecordMarkerCommandAttributes()
		if a == nil {
			return mismatch()
		}
		if a.GetMarkerName() == "" {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_RECORD_MARKER_ATTRIBUTES, "command %d: marker_name is required", i)
		}
	case orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
		a := c.GetContinueAsNewWorkflowExecutionCommandAttributes()
		if a == nil {
			return mismatch()
		}
		var v violations
		checkDuration(&v, "workflow_run_timeout", a.GetWorkflowRunTimeout())
		checkDuration(&v, "workflow_task_timeout", a.GetWorkflowTaskTimeout())
		searchValues(&v, e.ns, a.GetSearchAttributes())
		if len(v.list) > 0 {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_CONTINUE_AS_NEW_ATTRIBUTES, "command %d: %s: %s", i, v.list[0].GetField(), v.list[0].GetDescription())
		}
	case orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
		a := c.GetUpsertWorkflowSearchAttributesCommandAttributes()
		if a == nil {
			return mismatch()
		}
		var v violations
		searchValues(&v, e.ns, a.GetSearchAttributes())
		if len(v.list) > 0 || len(a.GetSearchAttributes().GetIndexedFields()) == 0 {
			msg := "no search attributes"
			if len(v.list) > 0 {
				msg = v.list[0].GetField() + ": " + v.list[0].GetDescription()
			}
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_SEARCH_ATTRIBUTES, "command %d: %s", i, msg)
		}
	case orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION:
		a := c.GetStartChildWorkflowExecutionCommandAttributes()
		if a == nil {
			return mismatch()
		}
		var v violations
		checkName(&v, "workflow_id", a.GetWorkflowId(), true)
		checkName(&v, "workflow_type.name", a.GetWorkflowType().GetName(), true)
		checkName(&v, "task_queue", a.GetTaskQueue(), false)
		checkName(&v, "namespace", a.GetNamespace(), false)
		checkDuration(&v, "workflow_execution_timeout", a.GetWorkflowExecutionTimeout())
		checkDuration(&v, "workflow_run_timeout", a.GetWorkflowRunTimeout())
		checkDuration(&v, "workflow_task_timeout", a.GetWorkflowTaskTimeout())
		checkRetryPolicy(&v, "retry_policy", a.GetRetryPolicy())
		if _, ok := orchpb.ParentClosePolicy_name[int32(a.GetParentClosePolicy())]; !ok {
			v.add("parent_close_policy", "unknown policy %d", a.GetParentClosePolicy())
		}
		if len(v.list) > 0 {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_START_CHILD_EXECUTION_ATTRIBUTES, "command %d: %s: %s", i, v.list[0].GetField(), v.list[0].GetDescription())
		}
	case orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION:
		a := c.GetRequestCancelExternalWorkflowExecutionCommandAttributes()
		if a == nil {
			return mismatch()
		}
		if a.GetWorkflowId() == "" || len(a.GetWorkflowId()) > MaxIDLength || len(a.GetReason()) > 4096 {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_ATTRIBUTES, "command %d: workflow_id is required (at most %d bytes)", i, MaxIDLength)
		}
	default:
		return badCmd(orchpb.WorkflowTaskFailedCause_BAD_COMMAND, "command %d: unknown command_type %d", i, c.GetCommandType())
	}
	return nil
}

// applyCommand writes a checked command's event and does what it says.
// s.mu must be held.
func (s *Server) applyCommand(e *execution, c *orchpb.Command, doneID int64, identity string) {
	if !e.open() {
		return
	}
	switch c.GetCommandType() {
	case orchpb.CommandType_SCHEDULE_ACTIVITY_TASK:
		s.scheduleActivity(e, c.GetScheduleActivityTaskCommandAttributes(), doneID)
	case orchpb.CommandType_REQUEST_CANCEL_ACTIVITY_TASK:
		s.requestCancelActivity(e, c.GetRequestCancelActivityTaskCommandAttributes().GetScheduledEventId(), doneID)
	case orchpb.CommandType_START_TIMER:
		a := c.GetStartTimerCommandAttributes()
		ev := s.add(e, orchpb.EventType_TimerStarted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_TimerStartedEventAttributes{TimerStartedEventAttributes: &orchpb.TimerStartedEventAttributes{
				TimerId: a.GetTimerId(), StartToFireTimeout: a.GetStartToFireTimeout(), WorkflowTaskCompletedEventId: doneID}}
		})
		ut := &userTimer{id: a.GetTimerId(), startedID: ev.GetEventId()}
		if e.eng.userTimers == nil {
			e.eng.userTimers = map[string]*userTimer{}
		}
		e.eng.userTimers[ut.id] = ut
		ut.timer = s.after(e, a.GetStartToFireTimeout().AsDuration(), func() { s.timerFired(e, ut) })
	case orchpb.CommandType_CANCEL_TIMER:
		id := c.GetCancelTimerCommandAttributes().GetTimerId()
		ut := e.eng.userTimers[id]
		delete(e.eng.userTimers, id)
		s.cancelTimer(e, ut.timer)
		s.add(e, orchpb.EventType_TimerCanceled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_TimerCanceledEventAttributes{TimerCanceledEventAttributes: &orchpb.TimerCanceledEventAttributes{
				TimerId: id, StartedEventId: ut.startedID, WorkflowTaskCompletedEventId: doneID, Identity: identity}}
		})
	case orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION:
		s.add(e, orchpb.EventType_WorkflowExecutionCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: &orchpb.WorkflowExecutionCompletedEventAttributes{
				Result: c.GetCompleteWorkflowExecutionCommandAttributes().GetResult(), WorkflowTaskCompletedEventId: doneID}}
		})
		s.closeExecution(e, orchpb.WorkflowExecutionStatus_COMPLETED)
	case orchpb.CommandType_FAIL_WORKFLOW_EXECUTION:
		s.add(e, orchpb.EventType_WorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes{WorkflowExecutionFailedEventAttributes: &orchpb.WorkflowExecutionFailedEventAttributes{
				Failure: c.GetFailWorkflowExecutionCommandAttributes().GetFailure(), RetryState: orchpb.RetryState_RETRY_POLICY_NOT_SET, WorkflowTaskCompletedEventId: doneID}}
		})
		s.closeExecution(e, orchpb.WorkflowExecutionStatus_FAILED)
	case orchpb.CommandType_CANCEL_WORKFLOW_EXECUTION:
		s.add(e, orchpb.EventType_WorkflowExecutionCanceled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes{WorkflowExecutionCanceledEventAttributes: &orchpb.WorkflowExecutionCanceledEventAttributes{
				WorkflowTaskCompletedEventId: doneID, Details: c.GetCancelWorkflowExecutionCommandAttributes().GetDetails()}}
		})
		s.closeExecution(e, orchpb.WorkflowExecutionStatus_CANCELED)
	case orchpb.CommandType_RECORD_MARKER:
		a := c.GetRecordMarkerCommandAttributes()
		s.add(e, orchpb.EventType_MarkerRecorded, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_MarkerRecordedEventAttributes{MarkerRecordedEventAttributes: &orchpb.MarkerRecordedEventAttributes{
				MarkerName: a.GetMarkerName(), Details: a.GetDetails(), WorkflowTaskCompletedEventId: doneID, Header: a.GetHeader(), Failure: a.GetFailure()}}
		})
	case orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
		a := c.GetUpsertWorkflowSearchAttributesCommandAttributes()
		var v violations
		vals := searchValues(&v, e.ns, a.GetSearchAttributes())
		e.infoEdits++ // search changes in place
		if e.search == nil {
			e.search = &orchpb.SearchAttributes{}
		} else {
			e.search = proto.Clone(e.search).(*orchpb.SearchAttributes)
		}
		if e.search.IndexedFields == nil {
			e.search.IndexedFields = map[string]*orchpb.Payload{}
		}
		if e.searchVals == nil {
			e.searchVals = map[string]visibility.Value{}
		}
		for k, p := range a.GetSearchAttributes().GetIndexedFields() {
			e.search.IndexedFields[k] = p
			e.searchVals[k] = vals[k]
		}
		s.add(e, orchpb.EventType_UpsertWorkflowSearchAttributes, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_UpsertWorkflowSearchAttributesEventAttributes{UpsertWorkflowSearchAttributesEventAttributes: &orchpb.UpsertWorkflowSearchAttributesEventAttributes{
				WorkflowTaskCompletedEventId: doneID, SearchAttributes: a.GetSearchAttributes()}}
		})
	case orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
		s.continueAsNew(e, c.GetContinueAsNewWorkflowExecutionCommandAttributes(), doneID)
	case orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION:
		s.initiateChild(e, c.GetStartChildWorkflowExecutionCommandAttributes(), doneID)
	case orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION:
		s.requestCancelExternal(e, c.GetRequestCancelExternalWorkflowExecutionCommandAttributes(), doneID)
	}
}

// timerFired writes TimerFired for a user timer still pending and gives
// the workflow a task. s.mu must be held.
func (s *Server) timerFired(e *execution, ut *userTimer) {
	if e.eng.userTimers[ut.id] != ut {
		return
	}
	delete(e.eng.userTimers, ut.id)
	s.add(e, orchpb.EventType_TimerFired, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_TimerFiredEventAttributes{TimerFiredEventAttributes: &orchpb.TimerFiredEventAttributes{TimerId: ut.id, StartedEventId: ut.startedID}}
	})
	s.newEventsForWorker(e)
}

// continueAsNew closes e and starts the next run of its workflow id.
func (s *Server) continueAsNew(e *execution, a *orchpb.ContinueAsNewWorkflowExecutionCommandAttributes, doneID int64) {
	if !s.roomForRun() {
		s.terminateLocked(e, fmt.Sprintf("continue-as-new refused: the service keeps at most %d workflow runs", s.maxRecords()), nil, "orchfake")
		return
	}
	req := proto.Clone(e.startReq).(*orchpb.StartWorkflowExecutionRequest)
	req.RequestId = ""
	if a.GetWorkflowType().GetName() != "" {
		req.WorkflowType = a.GetWorkflowType()
	}
	if a.GetTaskQueue() != "" {
		req.TaskQueue = a.GetTaskQueue()
	}
	req.Input = a.GetInput()
	if a.GetWorkflowRunTimeout() != nil {
		req.WorkflowRunTimeout = a.GetWorkflowRunTimeout()
	}
	if a.GetWorkflowTaskTimeout() != nil {
		req.WorkflowTaskTimeout = a.GetWorkflowTaskTimeout()
	}
	// The new run's header, memo, search attributes and retry policy are
	// the command's, as the service takes them: none when it gives none
	// (only the type, task queue and timeouts are inherited). An SDK
	// carries the run's own by putting them in the command, as Temporal's
	// Go SDK and orch/workflow do; a fake that carried them itself would
	// teach a hand-written worker a habit the service does not keep.
	req.Header = a.GetHeader()
	req.Memo = a.GetMemo()
	req.SearchAttributes = a.GetSearchAttributes()
	req.RetryPolicy = a.GetRetryPolicy()
	var v violations
	vals := searchValues(&v, e.ns, req.GetSearchAttributes())
	newRunID := newID()
	s.add(e, orchpb.EventType_WorkflowExecutionContinuedAsNew, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{WorkflowExecutionContinuedAsNewEventAttributes: &orchpb.WorkflowExecutionContinuedAsNewEventAttributes{
			NewExecutionRunId: newRunID, WorkflowType: req.GetWorkflowType(), TaskQueue: req.GetTaskQueue(), Input: req.GetInput(),
			WorkflowRunTimeout: req.GetWorkflowRunTimeout(), WorkflowTaskTimeout: req.GetWorkflowTaskTimeout(),
			WorkflowTaskCompletedEventId: doneID, Header: req.GetHeader(), Memo: req.GetMemo(), SearchAttributes: req.GetSearchAttributes()}}
	})
	s.closeExecution(e, orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW)
	s.newRunWithID(e.ns, e.wf, req, vals, e.runID, newRunID, runExtras{})
}
