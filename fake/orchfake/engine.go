package orchfake

import (
	"context"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// engineState is an execution's worker side: its workflow task and, in
// the full engine, its activities, timers and queries.
type engineState struct {
	wft           *workflowTask // scheduled or started; nil when none is outstanding
	lastStartedID int64         // started event id of the last completed workflow task
	wftAttempt    int32         // attempt of the next workflow task (after failures and timeouts)
	timers        []*clock.Timer
}

func (es *engineState) stopTimers() {
	for _, t := range es.timers {
		t.Stop()
	}
	es.timers = nil
}

// workflowTask is one workflow task of an execution.
type workflowTask struct {
	e           *execution
	scheduledID int64
	startedID   int64 // 0 until a poll starts it
	attempt     int32
	scheduled   timestamppb.Timestamp
	started     timestamppb.Timestamp
	identity    string
	token       []byte
}

func (t *workflowTask) live() bool {
	return t.e.open() && t.e.eng.wft == t && t.startedID == 0
}

// scheduleWorkflowTask appends WorkflowTaskScheduled and queues the task.
// s.mu must be held.
func (s *Server) scheduleWorkflowTask(e *execution) {
	attempt := max(e.eng.wftAttempt, 1)
	ev := s.add(e, orchpb.EventType_WorkflowTaskScheduled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskScheduledEventAttributes{
			WorkflowTaskScheduledEventAttributes: &orchpb.WorkflowTaskScheduledEventAttributes{
				TaskQueue:           &orchpb.TaskQueue{Name: e.queue, Kind: orchpb.TaskQueueKind_NORMAL},
				StartToCloseTimeout: durationpb.New(e.taskTimeout),
				Attempt:             attempt,
			},
		}
	})
	t := &workflowTask{e: e, scheduledID: ev.GetEventId(), attempt: attempt}
	t.scheduled.Seconds, t.scheduled.Nanos = ev.GetEventTime().GetSeconds(), ev.GetEventTime().GetNanos()
	e.eng.wft = t
	e.ns.queue(e.queue).push(sideWorkflow, t)
}

// newEventsForWorker is called after an event the workflow must see
// (a signal, a cancel request): a workflow task is scheduled unless one
// is already outstanding. s.mu must be held.
func (s *Server) newEventsForWorker(e *execution) {
	if e.eng.wft == nil {
		s.scheduleWorkflowTask(e)
	}
}

// engineClosed withdraws the worker side of a closed execution. s.mu must
// be held.
func (s *Server) engineClosed(e *execution) {
	e.eng.wft = nil
	e.eng.stopTimers()
}

// pendingActivities lists the open activities of e. s.mu must be held.
func (s *Server) pendingActivities(e *execution) []*orchpb.PendingActivityInfo {
	return nil
}

func (s *Server) pollWorkflowTask(ctx context.Context, req *orchpb.PollWorkflowTaskQueueRequest) (*orchpb.PollWorkflowTaskQueueResponse, error) {
	t, err := s.poll(ctx, req.GetNamespace(), req.GetTaskQueue(), req.GetIdentity(), sideWorkflow, req.GetTaskQueueMetadata())
	if err != nil || t == nil {
		return &orchpb.PollWorkflowTaskQueueResponse{}, err
	}
	defer s.mu.Unlock()
	return s.startWorkflowTask(t.(*workflowTask), req.GetIdentity()), nil
}

// startWorkflowTask appends WorkflowTaskStarted and answers the poll.
// s.mu must be held.
func (s *Server) startWorkflowTask(t *workflowTask, identity string) *orchpb.PollWorkflowTaskQueueResponse {
	e := t.e
	ev := s.add(e, orchpb.EventType_WorkflowTaskStarted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes{
			WorkflowTaskStartedEventAttributes: &orchpb.WorkflowTaskStartedEventAttributes{ScheduledEventId: t.scheduledID, Identity: identity, RequestId: newID()},
		}
	})
	t.startedID, t.identity = ev.GetEventId(), identity
	t.token = workflowTaskToken(e, t)
	q := e.ns.queue(e.queue)
	return &orchpb.PollWorkflowTaskQueueResponse{
		TaskToken:                  t.token,
		WorkflowExecution:          &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID},
		WorkflowType:               &orchpb.WorkflowType{Name: e.typ},
		PreviousStartedEventId:     e.eng.lastStartedID,
		StartedEventId:             t.startedID,
		Attempt:                    t.attempt,
		BacklogCountHint:           q.backlogCount(sideWorkflow),
		ScheduledTime:              timestamppb.New(t.scheduled.AsTime()),
		StartedTime:                ev.GetEventTime(),
		History:                    cloneEvents(e.history),
		WorkflowExecutionTaskQueue: &orchpb.TaskQueue{Name: e.queue, Kind: orchpb.TaskQueueKind_NORMAL},
		WorkflowTaskTimeout:        durationpb.New(e.taskTimeout),
	}
}

func (s *Server) pollActivityTask(ctx context.Context, req *orchpb.PollActivityTaskQueueRequest) (*orchpb.PollActivityTaskQueueResponse, error) {
	t, err := s.poll(ctx, req.GetNamespace(), req.GetTaskQueue(), req.GetIdentity(), sideActivity, req.GetTaskQueueMetadata())
	if err != nil || t == nil {
		return &orchpb.PollActivityTaskQueueResponse{}, err
	}
	s.mu.Unlock()
	return &orchpb.PollActivityTaskQueueResponse{}, nil
}

// workflowTaskToken is the task token of a started workflow task.
func workflowTaskToken(e *execution, t *workflowTask) []byte {
	return encodeTaskToken(taskToken{kind: tokenWorkflow, namespace: e.ns.info.Name, workflowID: e.id, runID: e.runID, scheduledID: t.scheduledID, attempt: t.attempt})
}
