package orchfake

import (
	"context"
	"fmt"

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
	tm, ce := s.checkMessages(t, req.GetMessages(), req.GetCommands())
	if ce == nil {
		ce = s.checkCommands(e, req.GetCommands())
	}
	if ce == nil {
		// The namespace's activity executions a minute: a task that
		// would pass them is refused whole, before anything is written
		// or answered; the task stays started, and times out and is
		// retried as any unanswered task (see the package doc).
		if d := s.limits.takeActivities(e.ns.info.Name, scheduledActivities(req.GetCommands())); !d.Allowed {
			return nil, rateErr(d)
		}
	}
	s.answerQueries(e, req.GetQueryResults(), req.GetQueryFailures())
	if ce != nil {
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
	e.eng.sticky = nil
	if req.GetStickyAttributes() && t.key != "" {
		e.eng.sticky = e.ns.sticky[t.key] // nil until the worker's sticky queue was polled
	}
	missed := e.eng.newEvents
	e.eng.newEvents = false
	updatesArrived := len(e.eng.admitted) > 0
	e.eng.messages = tm
	if m := req.GetMemoUpdate(); m != nil {
		s.upsertMemo(e, m)
	}
	askedToCancel := false // the outcome of a cancel request is written at once: the workflow must see it
	for _, c := range req.GetCommands() {
		s.applyCommand(e, c, done.GetEventId(), req.GetIdentity())
		askedToCancel = askedToCancel || c.GetCommandType() == orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION
	}
	s.applyRestOfMessages(e, req.GetMessages())
	s.undeliver(t) // updates the worker did not answer wait for the next task
	s.startChildren(e)
	s.sendSignals(e)
	if e.open() && (len(e.history) > MaxHistoryEvents || s.eventCount() > s.maxEvents()) {
		// As the service ends a run whose history passed its count limit.
		s.terminateLocked(e, "Workflow history count exceeds limit.", nil, "orchfake")
	}
	resp := &orchpb.RespondWorkflowTaskCompletedResponse{}
	if e.open() && (missed || updatesArrived || askedToCancel || req.GetForceCreateNewWorkflowTask()) && e.eng.wft == nil {
		s.scheduleWorkflowTask(e)
	}
	if nt := e.eng.wft; req.GetReturnNewWorkflowTask() && e.open() && nt != nil && nt.live() {
		q := e.ns.queue(e.queue)
		if nt.onSticky != nil {
			q = nt.onSticky
		}
		q.sides[sideWorkflow].handed++
		resp.WorkflowTask = s.startWorkflowTask(nt, req.GetIdentity(), t.key)
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
	e.eng.sticky = nil // as the service: the next attempt goes to the run's task queue
	s.undeliver(t)
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
