package orchfake

import (
	"time"

	"github.com/apitwin/apitwin/internal/orchsem"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// The commands a workflow task completes with, one rule per command type:
// what the service refuses (checked for every command of the task before
// any is applied, so that a refused task changes nothing) and what the
// command does (its events, timers, runs). A command type is added here,
// and only here; TestEveryCommandTypeHasARule holds the table to the
// contract's CommandType.

// commandRule is what the fake does with one command type.
type commandRule struct {
	// check refuses a command the service refuses.
	check func(c *checking, cmd *orchpb.Command) *cmdError
	// apply writes a checked command's events and does what it says.
	// s.mu is held.
	apply func(s *Server, e *execution, cmd *orchpb.Command, doneID int64, identity string)
}

// rule is the commandRule of a command whose attributes attrs reads: a
// command without them is refused (BAD_COMMAND) before check runs, and
// check and apply are given them.
func rule[A proto.Message](attrs func(*orchpb.Command) A,
	check func(c *checking, a A) *cmdError,
	apply func(s *Server, e *execution, a A, doneID int64, identity string)) commandRule {
	return commandRule{
		check: func(c *checking, cmd *orchpb.Command) *cmdError {
			a := attrs(cmd)
			if !a.ProtoReflect().IsValid() { // nil: the attributes of another type, or none
				return badCmd(orchpb.WorkflowTaskFailedCause_BAD_COMMAND, "command %d: attributes do not match command_type %s", c.i, cmd.GetCommandType())
			}
			if check == nil {
				return nil
			}
			return check(c, a)
		},
		apply: func(s *Server, e *execution, cmd *orchpb.Command, doneID int64, identity string) {
			apply(s, e, attrs(cmd), doneID, identity)
		},
	}
}

// checking is what checking a task's commands keeps from one to the next:
// the ids in use once the earlier commands are applied.
type checking struct {
	e           *execution
	i           int // the command's index in the task
	activityIDs map[string]bool
	timerIDs    map[string]bool
}

// bad is the refusal of command c.i, with cause.
func (c *checking) bad(cause orchpb.WorkflowTaskFailedCause, format string, args ...any) *cmdError {
	return badCmd(cause, "command %d: "+format, append([]any{c.i}, args...)...)
}

// firstViolation is the refusal of the first of v, with cause; nil when v
// holds none.
func (c *checking) firstViolation(cause orchpb.WorkflowTaskFailedCause, v *violations) *cmdError {
	if len(v.list) == 0 {
		return nil
	}
	return c.bad(cause, "%s: %s", v.list[0].GetField(), v.list[0].GetDescription())
}

// commandRules are the rules by command type: the table both the check
// and the apply of a workflow task read.
var commandRules = map[orchpb.CommandType]commandRule{
	orchpb.CommandType_SCHEDULE_ACTIVITY_TASK: rule((*orchpb.Command).GetScheduleActivityTaskCommandAttributes,
		func(c *checking, a *orchpb.ScheduleActivityTaskCommandAttributes) *cmdError {
			const cause = orchpb.WorkflowTaskFailedCause_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES
			var v violations
			checkName(&v, "activity_id", a.GetActivityId(), true)
			checkName(&v, "activity_type.name", a.GetActivityType().GetName(), true)
			checkName(&v, "task_queue", a.GetTaskQueue(), false)
			checkDuration(&v, "schedule_to_close_timeout", a.GetScheduleToCloseTimeout())
			checkDuration(&v, "schedule_to_start_timeout", a.GetScheduleToStartTimeout())
			checkDuration(&v, "start_to_close_timeout", a.GetStartToCloseTimeout())
			checkDuration(&v, "heartbeat_timeout", a.GetHeartbeatTimeout())
			checkRetryPolicy(&v, "retry_policy", a.GetRetryPolicy())
			if ce := c.firstViolation(cause, &v); ce != nil {
				return ce
			}
			if a.GetScheduleToCloseTimeout().AsDuration() <= 0 && a.GetStartToCloseTimeout().AsDuration() <= 0 {
				return c.bad(cause, "one of schedule_to_close_timeout and start_to_close_timeout is required")
			}
			if c.activityIDs[a.GetActivityId()] {
				return c.bad(cause, "activity_id %q is already in use", a.GetActivityId())
			}
			c.activityIDs[a.GetActivityId()] = true
			return nil
		},
		func(s *Server, e *execution, a *orchpb.ScheduleActivityTaskCommandAttributes, doneID int64, _ string) {
			s.scheduleActivity(e, a, doneID)
		}),

	orchpb.CommandType_REQUEST_CANCEL_ACTIVITY_TASK: rule((*orchpb.Command).GetRequestCancelActivityTaskCommandAttributes,
		func(c *checking, a *orchpb.RequestCancelActivityTaskCommandAttributes) *cmdError {
			if c.e.eng.activities[a.GetScheduledEventId()] == nil {
				return c.bad(orchpb.WorkflowTaskFailedCause_BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES, "no open activity scheduled by event %d", a.GetScheduledEventId())
			}
			return nil
		},
		func(s *Server, e *execution, a *orchpb.RequestCancelActivityTaskCommandAttributes, doneID int64, _ string) {
			s.requestCancelActivity(e, a.GetScheduledEventId(), doneID)
		}),

	orchpb.CommandType_START_TIMER: rule((*orchpb.Command).GetStartTimerCommandAttributes,
		func(c *checking, a *orchpb.StartTimerCommandAttributes) *cmdError {
			d := a.GetStartToFireTimeout()
			if a.GetTimerId() == "" || len(a.GetTimerId()) > MaxIDLength || d == nil || !d.IsValid() || d.AsDuration() <= 0 || c.timerIDs[a.GetTimerId()] {
				return c.bad(orchpb.WorkflowTaskFailedCause_BAD_START_TIMER_ATTRIBUTES, "a timer needs a new timer_id and a positive start_to_fire_timeout")
			}
			c.timerIDs[a.GetTimerId()] = true
			return nil
		},
		(*Server).startTimer),

	orchpb.CommandType_CANCEL_TIMER: rule((*orchpb.Command).GetCancelTimerCommandAttributes,
		func(c *checking, a *orchpb.CancelTimerCommandAttributes) *cmdError {
			if !c.timerIDs[a.GetTimerId()] {
				return c.bad(orchpb.WorkflowTaskFailedCause_BAD_CANCEL_TIMER_ATTRIBUTES, "no open timer %q", a.GetTimerId())
			}
			delete(c.timerIDs, a.GetTimerId())
			return nil
		},
		(*Server).cancelUserTimer),

	orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION: rule((*orchpb.Command).GetCompleteWorkflowExecutionCommandAttributes, nil,
		func(s *Server, e *execution, a *orchpb.CompleteWorkflowExecutionCommandAttributes, doneID int64, _ string) {
			s.add(e, orchpb.EventType_WorkflowExecutionCompleted, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes{WorkflowExecutionCompletedEventAttributes: &orchpb.WorkflowExecutionCompletedEventAttributes{
					Result: a.GetResult(), WorkflowTaskCompletedEventId: doneID}}
			})
			s.closeExecution(e, orchpb.WorkflowExecutionStatus_COMPLETED)
		}),

	orchpb.CommandType_FAIL_WORKFLOW_EXECUTION: rule((*orchpb.Command).GetFailWorkflowExecutionCommandAttributes,
		func(c *checking, a *orchpb.FailWorkflowExecutionCommandAttributes) *cmdError {
			if a.GetFailure() == nil {
				return c.bad(orchpb.WorkflowTaskFailedCause_BAD_FAIL_WORKFLOW_EXECUTION_ATTRIBUTES, "failure is required")
			}
			return nil
		},
		func(s *Server, e *execution, a *orchpb.FailWorkflowExecutionCommandAttributes, doneID int64, _ string) {
			s.add(e, orchpb.EventType_WorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes{WorkflowExecutionFailedEventAttributes: &orchpb.WorkflowExecutionFailedEventAttributes{
					Failure: a.GetFailure(), RetryState: orchpb.RetryState_RETRY_POLICY_NOT_SET, WorkflowTaskCompletedEventId: doneID}}
			})
			s.closeExecution(e, orchpb.WorkflowExecutionStatus_FAILED)
		}),

	orchpb.CommandType_CANCEL_WORKFLOW_EXECUTION: rule((*orchpb.Command).GetCancelWorkflowExecutionCommandAttributes, nil,
		func(s *Server, e *execution, a *orchpb.CancelWorkflowExecutionCommandAttributes, doneID int64, _ string) {
			s.add(e, orchpb.EventType_WorkflowExecutionCanceled, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionCanceledEventAttributes{WorkflowExecutionCanceledEventAttributes: &orchpb.WorkflowExecutionCanceledEventAttributes{
					WorkflowTaskCompletedEventId: doneID, Details: a.GetDetails()}}
			})
			s.closeExecution(e, orchpb.WorkflowExecutionStatus_CANCELED)
		}),

	orchpb.CommandType_RECORD_MARKER: rule((*orchpb.Command).GetRecordMarkerCommandAttributes,
		func(c *checking, a *orchpb.RecordMarkerCommandAttributes) *cmdError {
			if a.GetMarkerName() == "" {
				return c.bad(orchpb.WorkflowTaskFailedCause_BAD_RECORD_MARKER_ATTRIBUTES, "marker_name is required")
			}
			return nil
		},
		func(s *Server, e *execution, a *orchpb.RecordMarkerCommandAttributes, doneID int64, _ string) {
			s.add(e, orchpb.EventType_MarkerRecorded, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_MarkerRecordedEventAttributes{MarkerRecordedEventAttributes: &orchpb.MarkerRecordedEventAttributes{
					MarkerName: a.GetMarkerName(), Details: a.GetDetails(), WorkflowTaskCompletedEventId: doneID, Header: a.GetHeader(), Failure: a.GetFailure()}}
			})
		}),

	orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION: rule((*orchpb.Command).GetContinueAsNewWorkflowExecutionCommandAttributes,
		func(c *checking, a *orchpb.ContinueAsNewWorkflowExecutionCommandAttributes) *cmdError {
			var v violations
			checkDuration(&v, "workflow_run_timeout", a.GetWorkflowRunTimeout())
			checkDuration(&v, "workflow_task_timeout", a.GetWorkflowTaskTimeout())
			searchValues(&v, c.e.ns, a.GetSearchAttributes())
			return c.firstViolation(orchpb.WorkflowTaskFailedCause_BAD_CONTINUE_AS_NEW_ATTRIBUTES, &v)
		},
		func(s *Server, e *execution, a *orchpb.ContinueAsNewWorkflowExecutionCommandAttributes, doneID int64, _ string) {
			s.continueAsNew(e, a, doneID)
		}),

	orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: rule((*orchpb.Command).GetUpsertWorkflowSearchAttributesCommandAttributes,
		func(c *checking, a *orchpb.UpsertWorkflowSearchAttributesCommandAttributes) *cmdError {
			const cause = orchpb.WorkflowTaskFailedCause_BAD_SEARCH_ATTRIBUTES
			var v violations
			searchValues(&v, c.e.ns, a.GetSearchAttributes())
			if ce := c.firstViolation(cause, &v); ce != nil {
				return ce
			}
			if len(a.GetSearchAttributes().GetIndexedFields()) == 0 {
				return c.bad(cause, "no search attributes")
			}
			return nil
		},
		(*Server).upsertSearchAttributes),

	orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION: rule((*orchpb.Command).GetStartChildWorkflowExecutionCommandAttributes,
		func(c *checking, a *orchpb.StartChildWorkflowExecutionCommandAttributes) *cmdError {
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
			return c.firstViolation(orchpb.WorkflowTaskFailedCause_BAD_START_CHILD_EXECUTION_ATTRIBUTES, &v)
		},
		func(s *Server, e *execution, a *orchpb.StartChildWorkflowExecutionCommandAttributes, doneID int64, _ string) {
			s.initiateChild(e, a, doneID)
		}),

	orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION: rule((*orchpb.Command).GetRequestCancelExternalWorkflowExecutionCommandAttributes,
		func(c *checking, a *orchpb.RequestCancelExternalWorkflowExecutionCommandAttributes) *cmdError {
			if a.GetWorkflowId() == "" || len(a.GetWorkflowId()) > MaxIDLength || len(a.GetReason()) > 4096 {
				return c.bad(orchpb.WorkflowTaskFailedCause_BAD_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_ATTRIBUTES, "workflow_id is required (at most %d bytes)", MaxIDLength)
			}
			return nil
		},
		func(s *Server, e *execution, a *orchpb.RequestCancelExternalWorkflowExecutionCommandAttributes, doneID int64, _ string) {
			s.requestCancelExternal(e, a, doneID)
		}),

	// The message it names was checked with the task's messages
	// (checkMessages); applying it writes the update's event.
	orchpb.CommandType_PROTOCOL_MESSAGE: rule((*orchpb.Command).GetProtocolMessageCommandAttributes, nil,
		(*Server).applyProtocolMessage),

	orchpb.CommandType_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION: rule((*orchpb.Command).GetSignalExternalWorkflowExecutionCommandAttributes,
		checkSignalExternal, (*Server).initiateSignal),

	orchpb.CommandType_UPSERT_WORKFLOW_PROPERTIES: rule((*orchpb.Command).GetUpsertWorkflowPropertiesCommandAttributes,
		checkUpsertProperties, (*Server).upsertProperties),
}

// checkCommands validates every command before any is applied.
func (s *Server) checkCommands(e *execution, cmds []*orchpb.Command) *cmdError {
	c := &checking{e: e, activityIDs: map[string]bool{}, timerIDs: map[string]bool{}}
	for _, a := range e.eng.activities {
		c.activityIDs[a.id] = true
	}
	for id := range e.eng.userTimers {
		c.timerIDs[id] = true
	}
	for i, cmd := range cmds {
		c.i = i
		r, ok := commandRules[cmd.GetCommandType()]
		if !ok {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_COMMAND, "command %d: unknown command_type %d", i, cmd.GetCommandType())
		}
		closes := orchsem.ClosesRun(cmd.GetCommandType()) // it must be the task's last
		if closes && i != len(cmds)-1 {
			return badCmd(orchpb.WorkflowTaskFailedCause_BAD_COMMAND, "command %d closes the workflow but is not the last", i)
		}
		if closes && e.eng.newEvents {
			return badCmd(orchpb.WorkflowTaskFailedCause_UNHANDLED_COMMAND, "new events arrived while the workflow task ran; handle them before closing the workflow")
		}
		if closes && len(e.eng.admitted) > 0 { // updates came while the task ran: every task start takes those admitted before it
			return badCmd(orchpb.WorkflowTaskFailedCause_UNHANDLED_UPDATE, "updates arrived while the workflow task ran; handle them before closing the workflow")
		}
		if ce := r.check(c, cmd); ce != nil {
			return ce
		}
	}
	return nil
}

// applyCommand writes a checked command's events and does what it says.
// s.mu must be held.
func (s *Server) applyCommand(e *execution, cmd *orchpb.Command, doneID int64, identity string) {
	if !e.open() {
		return
	}
	commandRules[cmd.GetCommandType()].apply(s, e, cmd, doneID, identity)
}

// startTimer starts a user timer (START_TIMER). s.mu must be held.
func (s *Server) startTimer(e *execution, a *orchpb.StartTimerCommandAttributes, doneID int64, _ string) {
	ev := s.add(e, orchpb.EventType_TimerStarted, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_TimerStartedEventAttributes{TimerStartedEventAttributes: &orchpb.TimerStartedEventAttributes{
			TimerId: a.GetTimerId(), StartToFireTimeout: a.GetStartToFireTimeout(), WorkflowTaskCompletedEventId: doneID}}
	})
	s.openTimer(e, a.GetTimerId(), ev.GetEventId(), a.GetStartToFireTimeout().AsDuration())
}

// openTimer starts the user timer its TimerStarted event (at startedID,
// written already) says, to fire in d: for a new timer, and for one a
// reset's new run carries. s.mu must be held.
func (s *Server) openTimer(e *execution, id string, startedID int64, d time.Duration) {
	ut := &userTimer{id: id, startedID: startedID}
	if e.eng.userTimers == nil {
		e.eng.userTimers = map[string]*userTimer{}
	}
	e.eng.userTimers[ut.id] = ut
	ut.timer = s.after(e, d, func() { s.timerFired(e, ut) })
}

// cancelUserTimer cancels a user timer (CANCEL_TIMER). s.mu must be held.
func (s *Server) cancelUserTimer(e *execution, a *orchpb.CancelTimerCommandAttributes, doneID int64, identity string) {
	id := a.GetTimerId()
	ut := e.eng.userTimers[id]
	delete(e.eng.userTimers, id)
	s.cancelTimer(e, ut.timer)
	s.add(e, orchpb.EventType_TimerCanceled, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_TimerCanceledEventAttributes{TimerCanceledEventAttributes: &orchpb.TimerCanceledEventAttributes{
			TimerId: id, StartedEventId: ut.startedID, WorkflowTaskCompletedEventId: doneID, Identity: identity}}
	})
}

// upsertSearchAttributes changes the run's search attributes
// (UPSERT_WORKFLOW_SEARCH_ATTRIBUTES). s.mu must be held.
func (s *Server) upsertSearchAttributes(e *execution, a *orchpb.UpsertWorkflowSearchAttributesCommandAttributes, doneID int64, _ string) {
	var v violations
	e.mergeSearch(a.GetSearchAttributes().GetIndexedFields(), searchValues(&v, e.ns, a.GetSearchAttributes()))
	s.add(e, orchpb.EventType_UpsertWorkflowSearchAttributes, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_UpsertWorkflowSearchAttributesEventAttributes{UpsertWorkflowSearchAttributesEventAttributes: &orchpb.UpsertWorkflowSearchAttributesEventAttributes{
			WorkflowTaskCompletedEventId: doneID, SearchAttributes: a.GetSearchAttributes()}}
	})
}
