package workflow_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sim is a history written by hand as the service would write it, for
// driving a workflow's Decide and Query without a server: the test says
// what happens (a signal, an activity's result, time passing), runs a
// workflow task, and the commands are recorded as the service records them.
type sim struct {
	t      testing.TB
	wf     orch.Workflow
	events []*orchpb.HistoryEvent
	now    time.Time
	// lastCompleted is the started event of the last completed task.
	lastCompleted int64
}

func newSim(t testing.TB, wf orch.Workflow, input any) *sim {
	t.Helper()
	return newSimAfter(t, wf, input, nil)
}

// newSimAfter is newSim for a run that follows one that completed with
// last (a cron schedule's next run), nil for none.
func newSimAfter(t testing.TB, wf orch.Workflow, input, last any) *sim {
	t.Helper()
	s := &sim{t: t, wf: wf, now: epoch}
	p, err := orch.EncodePayloads(input)
	if err != nil {
		t.Fatal(err)
	}
	var lp *orchpb.Payloads
	if last != nil {
		if lp, err = orch.EncodePayloads(last); err != nil {
			t.Fatal(err)
		}
	}
	s.add(orchpb.EventType_WorkflowExecutionStarted, &orchpb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
		WorkflowExecutionStartedEventAttributes: &orchpb.WorkflowExecutionStartedEventAttributes{
			WorkflowType: &orchpb.WorkflowType{Name: "Test"}, TaskQueue: "q", Input: p, Attempt: 1, LastCompletionResult: lp}})
	return s
}

func (s *sim) add(t orchpb.EventType, attrs any) *orchpb.HistoryEvent {
	ev := &orchpb.HistoryEvent{EventId: int64(len(s.events) + 1), EventTime: timestamppb.New(s.now), EventType: t}
	switch a := attrs.(type) {
	case *orchpb.HistoryEvent_WorkflowExecutionStartedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowTaskCompletedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowTaskFailedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_ActivityTaskFailedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_ActivityTaskCancelRequestedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_TimerStartedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_TimerFiredEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_TimerCanceledEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowExecutionCancelRequestedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_MarkerRecordedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionFailedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_ChildWorkflowExecutionCompletedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_ChildWorkflowExecutionFailedEventAttributes:
		ev.Attributes = a
	case *orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionInitiatedEventAttributes:
		ev.Attributes = a
	case nil:
	default:
		s.t.Fatalf("sim: attributes %T", attrs)
	}
	s.events = append(s.events, ev)
	return ev
}

// startTask writes WorkflowTaskScheduled and WorkflowTaskStarted and
// returns the task as the worker would see it.
func (s *sim) startTask() *orch.WorkflowTask {
	sched := s.add(orchpb.EventType_WorkflowTaskScheduled, nil)
	started := s.add(orchpb.EventType_WorkflowTaskStarted, &orchpb.HistoryEvent_WorkflowTaskStartedEventAttributes{
		WorkflowTaskStartedEventAttributes: &orchpb.WorkflowTaskStartedEventAttributes{ScheduledEventId: sched.GetEventId()}})
	return &orch.WorkflowTask{
		WorkflowID: "wf", RunID: "run", WorkflowType: "Test", History: append([]*orchpb.HistoryEvent(nil), s.events...),
		PreviousStartedEventID: s.lastCompleted,
		Raw:                    &orchpb.PollWorkflowTaskQueueResponse{StartedEventId: started.GetEventId(), PreviousStartedEventId: s.lastCompleted},
	}
}

// task runs one workflow task through Decide and records its commands
// as the service does; it fails the test when Decide fails.
func (s *sim) task() []*orchpb.Command {
	s.t.Helper()
	cmds, err := s.try()
	if err != nil {
		s.t.Fatalf("Decide: %v", err)
	}
	return cmds
}

// try runs one workflow task; an error is recorded as a failed task.
func (s *sim) try() ([]*orchpb.Command, error) {
	t := s.startTask()
	started := t.Raw.GetStartedEventId()
	cmds, err := s.wf.Decide(context.Background(), t)
	if err != nil {
		s.add(orchpb.EventType_WorkflowTaskFailed, &orchpb.HistoryEvent_WorkflowTaskFailedEventAttributes{
			WorkflowTaskFailedEventAttributes: &orchpb.WorkflowTaskFailedEventAttributes{StartedEventId: started, Failure: &orchpb.Failure{Message: err.Error()}}})
		return nil, err
	}
	s.complete(started, cmds)
	return cmds, nil
}

// complete records a completed task and its commands.
func (s *sim) complete(started int64, cmds []*orchpb.Command) {
	done := s.add(orchpb.EventType_WorkflowTaskCompleted, &orchpb.HistoryEvent_WorkflowTaskCompletedEventAttributes{
		WorkflowTaskCompletedEventAttributes: &orchpb.WorkflowTaskCompletedEventAttributes{StartedEventId: started}}).GetEventId()
	s.lastCompleted = started
	for _, c := range cmds {
		switch a := c.GetAttributes().(type) {
		case *orchpb.Command_ScheduleActivityTaskCommandAttributes:
			x := a.ScheduleActivityTaskCommandAttributes
			s.add(orchpb.EventType_ActivityTaskScheduled, &orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &orchpb.ActivityTaskScheduledEventAttributes{
				ActivityId: x.GetActivityId(), ActivityType: x.GetActivityType(), Input: x.GetInput(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_RequestCancelActivityTaskCommandAttributes:
			s.add(orchpb.EventType_ActivityTaskCancelRequested, &orchpb.HistoryEvent_ActivityTaskCancelRequestedEventAttributes{ActivityTaskCancelRequestedEventAttributes: &orchpb.ActivityTaskCancelRequestedEventAttributes{
				ScheduledEventId: a.RequestCancelActivityTaskCommandAttributes.GetScheduledEventId(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_StartTimerCommandAttributes:
			x := a.StartTimerCommandAttributes
			s.add(orchpb.EventType_TimerStarted, &orchpb.HistoryEvent_TimerStartedEventAttributes{TimerStartedEventAttributes: &orchpb.TimerStartedEventAttributes{
				TimerId: x.GetTimerId(), StartToFireTimeout: x.GetStartToFireTimeout(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_CancelTimerCommandAttributes:
			s.add(orchpb.EventType_TimerCanceled, &orchpb.HistoryEvent_TimerCanceledEventAttributes{TimerCanceledEventAttributes: &orchpb.TimerCanceledEventAttributes{
				TimerId: a.CancelTimerCommandAttributes.GetTimerId(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_CompleteWorkflowExecutionCommandAttributes:
			s.add(orchpb.EventType_WorkflowExecutionCompleted, &orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: &orchpb.WorkflowExecutionCompletedEventAttributes{
				Result: a.CompleteWorkflowExecutionCommandAttributes.GetResult(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_FailWorkflowExecutionCommandAttributes:
			s.add(orchpb.EventType_WorkflowExecutionFailed, &orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes{WorkflowExecutionFailedEventAttributes: &orchpb.WorkflowExecutionFailedEventAttributes{
				Failure: a.FailWorkflowExecutionCommandAttributes.GetFailure(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_CancelWorkflowExecutionCommandAttributes:
			s.add(orchpb.EventType_WorkflowExecutionCanceled, &orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes{WorkflowExecutionCanceledEventAttributes: &orchpb.WorkflowExecutionCanceledEventAttributes{
				WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_ContinueAsNewWorkflowExecutionCommandAttributes:
			s.add(orchpb.EventType_WorkflowExecutionContinuedAsNew, &orchpb.HistoryEvent_WorkflowExecutionContinuedAsNewEventAttributes{WorkflowExecutionContinuedAsNewEventAttributes: &orchpb.WorkflowExecutionContinuedAsNewEventAttributes{
				Input: a.ContinueAsNewWorkflowExecutionCommandAttributes.GetInput(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_RecordMarkerCommandAttributes:
			s.add(orchpb.EventType_MarkerRecorded, &orchpb.HistoryEvent_MarkerRecordedEventAttributes{MarkerRecordedEventAttributes: &orchpb.MarkerRecordedEventAttributes{
				MarkerName: a.RecordMarkerCommandAttributes.GetMarkerName(), Details: a.RecordMarkerCommandAttributes.GetDetails(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_StartChildWorkflowExecutionCommandAttributes:
			x := a.StartChildWorkflowExecutionCommandAttributes
			s.add(orchpb.EventType_StartChildWorkflowExecutionInitiated, &orchpb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes{StartChildWorkflowExecutionInitiatedEventAttributes: &orchpb.StartChildWorkflowExecutionInitiatedEventAttributes{
				WorkflowId: x.GetWorkflowId(), WorkflowType: x.GetWorkflowType(), Input: x.GetInput(), Control: x.GetControl(), ParentClosePolicy: x.GetParentClosePolicy(), WorkflowTaskCompletedEventId: done}})
		case *orchpb.Command_RequestCancelExternalWorkflowExecutionCommandAttributes:
			x := a.RequestCancelExternalWorkflowExecutionCommandAttributes
			s.add(orchpb.EventType_RequestCancelExternalWorkflowExecutionInitiated, &orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionInitiatedEventAttributes{RequestCancelExternalWorkflowExecutionInitiatedEventAttributes: &orchpb.RequestCancelExternalWorkflowExecutionInitiatedEventAttributes{
				WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: x.GetWorkflowId()}, ChildWorkflowOnly: x.GetChildWorkflowOnly(), WorkflowTaskCompletedEventId: done}})
		default:
			s.t.Fatalf("sim: command %v", c.GetCommandType())
		}
	}
}

// scheduled returns the ActivityTaskScheduled event of activity id.
func (s *sim) scheduled(id string) int64 {
	for _, ev := range s.events {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityId() == id {
			return ev.GetEventId()
		}
	}
	s.t.Fatalf("sim: no activity %s scheduled", id)
	return 0
}

// initiated returns the StartChildWorkflowExecutionInitiated event of the
// child workflowID.
func (s *sim) initiated(workflowID string) int64 {
	for _, ev := range s.events {
		if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil && a.GetWorkflowId() == workflowID {
			return ev.GetEventId()
		}
	}
	s.t.Fatalf("sim: no child %s initiated", workflowID)
	return 0
}

func (s *sim) childStarted(workflowID, runID string) {
	s.add(orchpb.EventType_ChildWorkflowExecutionStarted, &orchpb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes{ChildWorkflowExecutionStartedEventAttributes: &orchpb.ChildWorkflowExecutionStartedEventAttributes{
		InitiatedEventId: s.initiated(workflowID), WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: workflowID, RunId: runID}}})
}

func (s *sim) childCompleted(workflowID string, result any) {
	p, err := orch.EncodePayloads(result)
	if err != nil {
		s.t.Fatal(err)
	}
	s.add(orchpb.EventType_ChildWorkflowExecutionCompleted, &orchpb.HistoryEvent_ChildWorkflowExecutionCompletedEventAttributes{ChildWorkflowExecutionCompletedEventAttributes: &orchpb.ChildWorkflowExecutionCompletedEventAttributes{
		InitiatedEventId: s.initiated(workflowID), Result: p}})
}

func (s *sim) childFailed(workflowID string, f *orchpb.Failure) {
	s.add(orchpb.EventType_ChildWorkflowExecutionFailed, &orchpb.HistoryEvent_ChildWorkflowExecutionFailedEventAttributes{ChildWorkflowExecutionFailedEventAttributes: &orchpb.ChildWorkflowExecutionFailedEventAttributes{
		InitiatedEventId: s.initiated(workflowID), Failure: f}})
}

func (s *sim) childStartFailed(workflowID string) {
	s.add(orchpb.EventType_StartChildWorkflowExecutionFailed, &orchpb.HistoryEvent_StartChildWorkflowExecutionFailedEventAttributes{StartChildWorkflowExecutionFailedEventAttributes: &orchpb.StartChildWorkflowExecutionFailedEventAttributes{
		InitiatedEventId: s.initiated(workflowID), WorkflowId: workflowID, Cause: orchpb.StartChildWorkflowExecutionFailedCause_WORKFLOW_ALREADY_EXISTS, WorkflowTaskCompletedEventId: s.lastCompleted + 1}})
}

func (s *sim) activityCompleted(id string, result any) {
	p, err := orch.EncodePayloads(result)
	if err != nil {
		s.t.Fatal(err)
	}
	s.add(orchpb.EventType_ActivityTaskCompleted, &orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &orchpb.ActivityTaskCompletedEventAttributes{
		ScheduledEventId: s.scheduled(id), Result: p}})
}

func (s *sim) activityFailed(id string, f *orchpb.Failure) {
	s.add(orchpb.EventType_ActivityTaskFailed, &orchpb.HistoryEvent_ActivityTaskFailedEventAttributes{ActivityTaskFailedEventAttributes: &orchpb.ActivityTaskFailedEventAttributes{
		ScheduledEventId: s.scheduled(id), Failure: f, RetryState: orchpb.RetryState_NON_RETRYABLE_FAILURE}})
}

func (s *sim) timerFired(id string) {
	s.add(orchpb.EventType_TimerFired, &orchpb.HistoryEvent_TimerFiredEventAttributes{TimerFiredEventAttributes: &orchpb.TimerFiredEventAttributes{TimerId: id}})
}

func (s *sim) signal(name string, v any) {
	p, err := orch.EncodePayloads(v)
	if err != nil {
		s.t.Fatal(err)
	}
	s.add(orchpb.EventType_WorkflowExecutionSignaled, &orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &orchpb.WorkflowExecutionSignaledEventAttributes{
		SignalName: name, Input: p}})
}

func (s *sim) cancelRequested() {
	s.add(orchpb.EventType_WorkflowExecutionCancelRequested, &orchpb.HistoryEvent_WorkflowExecutionCancelRequestedEventAttributes{WorkflowExecutionCancelRequestedEventAttributes: &orchpb.WorkflowExecutionCancelRequestedEventAttributes{}})
}

func (s *sim) query(queryType string, arg any) (any, error) {
	var args *orchpb.Payloads
	if arg != nil {
		p, err := orch.EncodePayloads(arg)
		if err != nil {
			s.t.Fatal(err)
		}
		args = p
	}
	return s.wf.Query(context.Background(), &orch.WorkflowTask{WorkflowID: "wf", RunID: "run", WorkflowType: "Test", History: s.events}, queryType, args)
}

// kinds lists command types, short.
func kinds(cmds []*orchpb.Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.GetCommandType().String()
		switch a := c.GetAttributes().(type) {
		case *orchpb.Command_ScheduleActivityTaskCommandAttributes:
			out[i] += " " + a.ScheduleActivityTaskCommandAttributes.GetActivityType().GetName() + "#" + a.ScheduleActivityTaskCommandAttributes.GetActivityId()
		case *orchpb.Command_StartTimerCommandAttributes:
			out[i] += " #" + a.StartTimerCommandAttributes.GetTimerId() + " " + a.StartTimerCommandAttributes.GetStartToFireTimeout().AsDuration().String()
		case *orchpb.Command_CancelTimerCommandAttributes:
			out[i] += " #" + a.CancelTimerCommandAttributes.GetTimerId()
		case *orchpb.Command_StartChildWorkflowExecutionCommandAttributes:
			out[i] += " " + a.StartChildWorkflowExecutionCommandAttributes.GetWorkflowType().GetName() + " " + a.StartChildWorkflowExecutionCommandAttributes.GetWorkflowId()
		case *orchpb.Command_RequestCancelExternalWorkflowExecutionCommandAttributes:
			out[i] += " " + a.RequestCancelExternalWorkflowExecutionCommandAttributes.GetWorkflowId()
		}
	}
	return out
}
