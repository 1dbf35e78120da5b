package orch

import (
	"context"
	"errors"
	"strconv"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// ActivityStep is one activity of a Sequence.
type ActivityStep struct {
	ActivityType string
	Options      *ActivityOptions
}

// Sequence is the workflow of the common case: run these activities in
// order, each with the previous one's result as its input (the first with
// the workflow's input), then complete with the last result. It is written
// with the same Decide API as any workflow, from the history alone:
//
//   - activity i (from 0) is scheduled with activity id "<i>" once activity
//     i-1 completed;
//   - an activity that failed or timed out for good (the service retries
//     per its policy before that) fails the workflow with its failure;
//   - a cancel request cancels the workflow at its next task;
//   - signals are recorded in the history and otherwise ignored.
//
// Its query "progress" answers the number of activities completed.
func Sequence(steps ...ActivityStep) Workflow {
	return Workflow{
		Decide: func(_ context.Context, t *WorkflowTask) ([]*orchpb.Command, error) {
			return decideSequence(t, steps)
		},
		Query: func(_ context.Context, t *WorkflowTask, queryType string, _ *orchpb.Payloads) (any, error) {
			if queryType != "progress" {
				return nil, errors.New("unknown query type " + queryType)
			}
			s := readSequence(t)
			return s.completed, nil
		},
	}
}

type sequenceState struct {
	completed       int              // activities completed, in order
	last            *orchpb.Payloads // the last completed activity's result
	pending         bool             // an activity is scheduled and not closed
	failed          *orchpb.Failure  // an activity failed for good
	cancelRequested bool
}

func readSequence(t *WorkflowTask) sequenceState {
	var s sequenceState
	scheduled := map[int64]bool{}
	for _, ev := range t.History {
		switch a := ev.GetAttributes().(type) {
		case *orchpb.HistoryEvent_WorkflowExecutionStartedEventAttributes:
			s.last = a.WorkflowExecutionStartedEventAttributes.GetInput()
		case *orchpb.HistoryEvent_ActivityTaskScheduledEventAttributes:
			scheduled[ev.GetEventId()] = true
			s.pending = true
		case *orchpb.HistoryEvent_ActivityTaskCompletedEventAttributes:
			if scheduled[a.ActivityTaskCompletedEventAttributes.GetScheduledEventId()] {
				s.completed++
				s.last = a.ActivityTaskCompletedEventAttributes.GetResult()
				s.pending = false
			}
		case *orchpb.HistoryEvent_ActivityTaskFailedEventAttributes:
			s.failed, s.pending = a.ActivityTaskFailedEventAttributes.GetFailure(), false
		case *orchpb.HistoryEvent_ActivityTaskTimedOutEventAttributes:
			s.failed, s.pending = a.ActivityTaskTimedOutEventAttributes.GetFailure(), false
			if s.failed == nil {
				s.failed = &orchpb.Failure{Message: "activity timed out"}
			}
		case *orchpb.HistoryEvent_ActivityTaskCanceledEventAttributes:
			s.failed, s.pending = &orchpb.Failure{Message: "activity canceled"}, false
		case *orchpb.HistoryEvent_WorkflowExecutionCancelRequestedEventAttributes:
			s.cancelRequested = true
		}
	}
	return s
}

func decideSequence(t *WorkflowTask, steps []ActivityStep) ([]*orchpb.Command, error) {
	s := readSequence(t)
	switch {
	case s.cancelRequested:
		return []*orchpb.Command{CancelWorkflowCommand()}, nil
	case s.failed != nil:
		return []*orchpb.Command{{
			CommandType: orchpb.CommandType_FAIL_WORKFLOW_EXECUTION,
			Attributes: &orchpb.Command_FailWorkflowExecutionCommandAttributes{
				FailWorkflowExecutionCommandAttributes: &orchpb.FailWorkflowExecutionCommandAttributes{Failure: s.failed},
			},
		}}, nil
	case s.pending:
		return nil, nil // wait for the running activity
	case s.completed >= len(steps):
		cmd, err := CompleteWorkflowCommand(s.last)
		return []*orchpb.Command{cmd}, err
	}
	step := steps[s.completed]
	cmd, err := ScheduleActivityCommand(strconv.Itoa(s.completed), step.ActivityType, s.last, step.Options)
	if err != nil {
		return nil, err
	}
	return []*orchpb.Command{cmd}, nil
}
