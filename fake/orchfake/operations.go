package orchfake

import (
	"context"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// Operations on runs from outside their workflow: reset and delete (see
// doc.go, "Reset and delete").

// resetIdentity is the identity of the events a reset writes when the
// request names none.
const resetIdentity = "orchfake-reset"

func (s *Server) resetWorkflow(ctx context.Context, req *orchpb.ResetWorkflowExecutionRequest) (*orchpb.ResetWorkflowExecutionResponse, error) {
	var v violations
	checkName(&v, "identity", req.GetIdentity(), false)
	checkName(&v, "request_id", req.GetRequestId(), false)
	v.check(len(req.GetReason()) <= 4096, "reason", "longer than 4096 bytes")
	if _, ok := orchpb.ResetReapplyType_name[int32(req.GetResetReapplyType())]; !ok {
		v.add("reset_reapply_type", "unknown type %d", req.GetResetReapplyType())
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	identity := req.GetIdentity()
	if identity == "" {
		identity = resetIdentity
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	base, err := s.lookup(req.GetNamespace(), req.GetWorkflowExecution(), "workflow_execution")
	if err != nil {
		return nil, err
	}
	cur := base.wf.latest()
	if rid := req.GetRequestId(); rid != "" && cur.resetBy == rid {
		return &orchpb.ResetWorkflowExecutionResponse{RunId: cur.runID}, nil // a retried reset: the run it made
	}
	fin := req.GetWorkflowTaskFinishEventId()
	if fin <= 1 || fin > int64(len(base.history)) {
		return nil, badField("workflow_task_finish_event_id", "must be > 1 and <= the run's last event id (%d)", len(base.history))
	}
	if started := base.history[fin-2]; started.GetEventType() != orchpb.EventType_WorkflowTaskStarted {
		return nil, badField("workflow_task_finish_event_id", "event %d must follow a WorkflowTaskStarted (the finish event of a workflow task: WorkflowTaskCompleted, -Failed or -TimedOut); event %d is %s",
			fin, fin-1, started.GetEventType())
	}
	prefix := cloneEvents(base.history[:fin-1])
	if id, open := openChildAt(prefix); open {
		return nil, badField("workflow_task_finish_event_id", "the run has a pending child workflow at that point (initiated by event %d): a reset cannot go back to it", id)
	}
	var signals []*orchpb.WorkflowExecutionSignaledEventAttributes
	if req.GetResetReapplyType() != orchpb.ResetReapplyType_RESET_REAPPLY_TYPE_NONE {
		for _, ev := range base.history[fin-1:] {
			if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil {
				signals = append(signals, proto.Clone(a).(*orchpb.WorkflowExecutionSignaledEventAttributes))
			}
		}
	}
	if !s.roomForRun() {
		return nil, s.full("workflow runs")
	}
	if err := s.eventsFull(); err != nil {
		return nil, err
	}
	if cur.open() {
		s.terminateLocked(cur, req.GetReason(), nil, identity)
	}
	e := s.forkRun(base, prefix)
	e.resetBy = req.GetRequestId()
	started := prefix[len(prefix)-1]
	s.add(e, orchpb.EventType_WorkflowTaskFailed, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskFailedEventAttributes{WorkflowTaskFailedEventAttributes: &orchpb.WorkflowTaskFailedEventAttributes{
			ScheduledEventId: started.GetWorkflowTaskStartedEventAttributes().GetScheduledEventId(), StartedEventId: started.GetEventId(),
			Cause: orchpb.WorkflowTaskFailedCause_RESET_WORKFLOW, Failure: &orchpb.Failure{Message: req.GetReason(), Source: "orchfake"},
			Identity: identity, BaseRunId: base.runID, NewRunId: e.runID}}
	})
	for _, a := range signals {
		s.add(e, orchpb.EventType_WorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: a}
		})
	}
	s.scheduleWorkflowTask(e)
	return &orchpb.ResetWorkflowExecutionResponse{RunId: e.runID}, nil
}

// openChildAt reports a child a history initiated and has not closed, by
// its initiated event id.
func openChildAt(history []*orchpb.HistoryEvent) (int64, bool) {
	open := map[int64]bool{}
	for _, ev := range history {
		switch {
		case ev.GetEventType() == orchpb.EventType_StartChildWorkflowExecutionInitiated:
			open[ev.GetEventId()] = true
		case ev.GetStartChildWorkflowExecutionFailedEventAttributes() != nil:
			delete(open, ev.GetStartChildWorkflowExecutionFailedEventAttributes().GetInitiatedEventId())
		case ev.GetChildWorkflowExecutionCompletedEventAttributes() != nil:
			delete(open, ev.GetChildWorkflowExecutionCompletedEventAttributes().GetInitiatedEventId())
		case ev.GetChildWorkflowExecutionFailedEventAttributes() != nil:
			delete(open, ev.GetChildWorkflowExecutionFailedEventAttributes().GetInitiatedEventId())
		case ev.GetChildWorkflowExecutionCanceledEventAttributes() != nil:
			delete(open, ev.GetChildWorkflowExecutionCanceledEventAttributes().GetInitiatedEventId())
		case ev.GetChildWorkflowExecutionTimedOutEventAttributes() != nil:
			delete(open, ev.GetChildWorkflowExecutionTimedOutEventAttributes().GetInitiatedEventId())
		case ev.GetChildWorkflowExecutionTerminatedEventAttributes() != nil:
			delete(open, ev.GetChildWorkflowExecutionTerminatedEventAttributes().GetInitiatedEventId())
		}
	}
	for id := range open {
		return id, true
	}
	return 0, false
}

// forkRun makes the new run of a reset of base: a running run of the same
// workflow id, type, task queue and start request, with history (the
// base's up to the reset point) and what that history leaves open: its
// activities (queued again from their first attempt), its timers (due
// when they were), its search attributes. It becomes the workflow id's
// current run. s.mu must be held.
func (s *Server) forkRun(base *execution, history []*orchpb.HistoryEvent) *execution {
	ns, now := base.ns, s.clk.Now()
	e := &execution{
		ns: ns, wf: base.wf, id: base.id, runID: newID(), firstRunID: base.firstRunID,
		typ: base.typ, queue: base.queue, status: orchpb.WorkflowExecutionStatus_RUNNING, start: now, execTime: now,
		startReq: base.startReq, memo: base.startReq.GetMemo(),
		signals: map[string]bool{}, cancels: map[string]bool{}, wake: make(chan struct{}),
		taskTimeout: base.taskTimeout, parent: base.parent, parentInitiated: base.parentInitiated, parentPolicy: base.parentPolicy,
		attempt: base.attempt, expiry: base.expiry,
	}
	e.wf.runs = append(e.wf.runs, e)
	ns.runs[e.runID] = e
	ns.unfiled = append(ns.unfiled, e)
	ns.running++
	s.st.shardFor(ns, e.id).executions++
	for _, ev := range history {
		s.appendEvent(e, ev)
	}

	search := proto.Clone(base.startReq.GetSearchAttributes()).(*orchpb.SearchAttributes)
	activities := map[int64]*orchpb.ActivityTaskScheduledEventAttributes{}
	timers := map[int64]*orchpb.HistoryEvent{}
	for _, ev := range history {
		switch ev.GetEventType() {
		case orchpb.EventType_WorkflowTaskCompleted:
			e.eng.lastStartedID = ev.GetWorkflowTaskCompletedEventAttributes().GetStartedEventId()
		case orchpb.EventType_ActivityTaskScheduled:
			activities[ev.GetEventId()] = ev.GetActivityTaskScheduledEventAttributes()
		case orchpb.EventType_ActivityTaskCompleted:
			delete(activities, ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId())
		case orchpb.EventType_ActivityTaskFailed:
			delete(activities, ev.GetActivityTaskFailedEventAttributes().GetScheduledEventId())
		case orchpb.EventType_ActivityTaskTimedOut:
			delete(activities, ev.GetActivityTaskTimedOutEventAttributes().GetScheduledEventId())
		case orchpb.EventType_ActivityTaskCanceled:
			delete(activities, ev.GetActivityTaskCanceledEventAttributes().GetScheduledEventId())
		case orchpb.EventType_TimerStarted:
			timers[ev.GetEventId()] = ev
		case orchpb.EventType_TimerFired:
			delete(timers, ev.GetTimerFiredEventAttributes().GetStartedEventId())
		case orchpb.EventType_TimerCanceled:
			delete(timers, ev.GetTimerCanceledEventAttributes().GetStartedEventId())
		case orchpb.EventType_UpsertWorkflowSearchAttributes:
			if search == nil {
				search = &orchpb.SearchAttributes{}
			}
			if search.IndexedFields == nil {
				search.IndexedFields = map[string]*orchpb.Payload{}
			}
			for k, p := range ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields() {
				search.IndexedFields[k] = p
			}
		}
	}
	e.search, e.searchVals = search, runSearchValues(ns, search) // an attribute removed since is left out of the index

	for id, a := range activities {
		s.openActivity(e, &orchpb.ScheduleActivityTaskCommandAttributes{
			ActivityId: a.GetActivityId(), ActivityType: a.GetActivityType(), TaskQueue: a.GetTaskQueue().GetName(), Header: a.GetHeader(),
			Input: a.GetInput(), ScheduleToCloseTimeout: a.GetScheduleToCloseTimeout(), ScheduleToStartTimeout: a.GetScheduleToStartTimeout(),
			StartToCloseTimeout: a.GetStartToCloseTimeout(), HeartbeatTimeout: a.GetHeartbeatTimeout(), RetryPolicy: a.GetRetryPolicy(),
		}, id)
	}
	for id, ev := range timers {
		a := ev.GetTimerStartedEventAttributes()
		due := ev.GetEventTime().AsTime().Add(a.GetStartToFireTimeout().AsDuration())
		s.openTimer(e, a.GetTimerId(), id, max(due.Sub(now), 0))
	}
	if d := base.startReq.GetWorkflowRunTimeout().AsDuration(); d > 0 {
		s.after(e, d, func() { s.timeOut(e) })
	}
	if !e.expiry.IsZero() {
		s.after(e, max(e.expiry.Sub(now), 0), func() { s.timeOut(e) })
	}
	return e
}

func (s *Server) deleteWorkflow(ctx context.Context, req *orchpb.DeleteWorkflowExecutionRequest) (*orchpb.DeleteWorkflowExecutionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.lookup(req.GetNamespace(), req.GetWorkflowExecution(), "workflow_execution")
	if err != nil {
		return nil, err
	}
	if e.open() {
		// As the service: a running run is terminated, then deleted (its
		// parent, if any, learns of the termination; its children meet
		// their parent close policy).
		s.terminateLocked(e, "deleted by DeleteWorkflowExecution", nil, "orchfake")
	}
	s.dropRun(e)
	return &orchpb.DeleteWorkflowExecutionResponse{}, nil
}
