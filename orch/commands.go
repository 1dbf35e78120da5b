package orch

import (
	"errors"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// ActivityOptions are the settings of an activity a workflow schedules.
// At least one of ScheduleToCloseTimeout and StartToCloseTimeout is needed;
// the service fills the others as a Temporal-style service does.
type ActivityOptions struct {
	// TaskQueue is where the activity runs; empty means the workflow's own.
	TaskQueue              string
	ScheduleToCloseTimeout time.Duration
	ScheduleToStartTimeout time.Duration
	StartToCloseTimeout    time.Duration
	// HeartbeatTimeout fails an attempt whose heartbeats stop for longer.
	HeartbeatTimeout time.Duration
	// RetryPolicy says how the service retries a failed attempt (nil: its
	// default, 1 s doubling up to 100 s, unlimited attempts).
	RetryPolicy *ServerRetryPolicy
}

// ScheduleActivityCommand is the command that schedules an activity of
// activityType with input (JSON-encoded; nil for none) under activityID.
func ScheduleActivityCommand(activityID, activityType string, input any, opts *ActivityOptions) (*orchpb.Command, error) {
	var o ActivityOptions
	if opts != nil {
		o = *opts
	}
	attrs := &orchpb.ScheduleActivityTaskCommandAttributes{
		ActivityId:             activityID,
		ActivityType:           &orchpb.ActivityType{Name: activityType},
		TaskQueue:              o.TaskQueue,
		ScheduleToCloseTimeout: durationOrNil(o.ScheduleToCloseTimeout),
		ScheduleToStartTimeout: durationOrNil(o.ScheduleToStartTimeout),
		StartToCloseTimeout:    durationOrNil(o.StartToCloseTimeout),
		HeartbeatTimeout:       durationOrNil(o.HeartbeatTimeout),
		RetryPolicy:            o.RetryPolicy.proto(),
	}
	if input != nil {
		in, err := EncodePayloads(input)
		if err != nil {
			return nil, err
		}
		attrs.Input = in
	}
	return &orchpb.Command{
		CommandType: orchpb.CommandType_SCHEDULE_ACTIVITY_TASK,
		Attributes:  &orchpb.Command_ScheduleActivityTaskCommandAttributes{ScheduleActivityTaskCommandAttributes: attrs},
	}, nil
}

// CompleteWorkflowCommand is the command that completes the workflow with
// result (JSON-encoded; nil for none).
func CompleteWorkflowCommand(result any) (*orchpb.Command, error) {
	attrs := &orchpb.CompleteWorkflowExecutionCommandAttributes{}
	if result != nil {
		r, err := EncodePayloads(result)
		if err != nil {
			return nil, err
		}
		attrs.Result = r
	}
	return &orchpb.Command{
		CommandType: orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION,
		Attributes:  &orchpb.Command_CompleteWorkflowExecutionCommandAttributes{CompleteWorkflowExecutionCommandAttributes: attrs},
	}, nil
}

// FailWorkflowCommand is the command that fails the workflow with err (see
// ApplicationError for a type and a non-retryable mark).
func FailWorkflowCommand(err error) *orchpb.Command {
	return &orchpb.Command{
		CommandType: orchpb.CommandType_FAIL_WORKFLOW_EXECUTION,
		Attributes: &orchpb.Command_FailWorkflowExecutionCommandAttributes{
			FailWorkflowExecutionCommandAttributes: &orchpb.FailWorkflowExecutionCommandAttributes{Failure: failureFrom(err)},
		},
	}
}

// CancelWorkflowCommand is the command that ends the workflow as canceled
// (the answer to a cancel request).
func CancelWorkflowCommand() *orchpb.Command {
	return &orchpb.Command{
		CommandType: orchpb.CommandType_CANCEL_WORKFLOW_EXECUTION,
		Attributes: &orchpb.Command_CancelWorkflowExecutionCommandAttributes{
			CancelWorkflowExecutionCommandAttributes: &orchpb.CancelWorkflowExecutionCommandAttributes{},
		},
	}
}

// StartTimerCommand is the command that starts a timer firing after d; its
// TimerFired event wakes the workflow.
func StartTimerCommand(timerID string, d time.Duration) *orchpb.Command {
	return &orchpb.Command{
		CommandType: orchpb.CommandType_START_TIMER,
		Attributes: &orchpb.Command_StartTimerCommandAttributes{
			StartTimerCommandAttributes: &orchpb.StartTimerCommandAttributes{TimerId: timerID, StartToFireTimeout: durationOrNil(d)},
		},
	}
}

// ApplicationError is an error of an activity or a workflow with a type
// (matched against RetryPolicy.NonRetryableErrorTypes) and an optional
// non-retryable mark, which stops the service's retries whatever the
// policy says.
type ApplicationError struct {
	Message      string
	Type         string
	NonRetryable bool
	// Details travel with the failure (JSON-encoded).
	Details any
	Cause   error
}

func (e *ApplicationError) Error() string {
	if e.Cause != nil && e.Message == "" {
		return e.Cause.Error()
	}
	return e.Message
}

func (e *ApplicationError) Unwrap() error { return e.Cause }

// NonRetryable marks err so the service does not retry the activity (or
// workflow) that returned it.
func NonRetryable(err error) error {
	if err == nil {
		return nil
	}
	var app *ApplicationError
	if errors.As(err, &app) {
		cp := *app
		cp.NonRetryable = true
		if cp.Cause == nil && cp.Message == "" {
			cp.Message = err.Error()
		}
		return &cp
	}
	return &ApplicationError{Message: err.Error(), Type: "NonRetryableError", NonRetryable: true, Cause: err}
}

// sdkName is the Failure.source the worker writes.
const sdkName = "apitwin-go"

// failureFrom makes the contract's Failure of an error.
func failureFrom(err error) *orchpb.Failure {
	if err == nil {
		return nil
	}
	f := &orchpb.Failure{Message: err.Error(), Source: sdkName}
	info := &orchpb.ApplicationFailureInfo{Type: "GenericError"}
	var app *ApplicationError
	if errors.As(err, &app) {
		info.Type = app.Type
		if info.Type == "" {
			info.Type = "ApplicationError"
		}
		info.NonRetryable = app.NonRetryable
		if app.Details != nil {
			if d, derr := EncodePayloads(app.Details); derr == nil {
				info.Details = d
			}
		}
	}
	f.FailureInfo = &orchpb.Failure_ApplicationFailureInfo{ApplicationFailureInfo: info}
	return f
}

// RequestCancelActivityCommand is the command that asks the activity
// scheduled by event scheduledEventID to stop: one not started yet is
// canceled at once; a running one learns it from its next heartbeat (its
// context ends with ErrActivityCanceled) and ends canceled when it reports.
func RequestCancelActivityCommand(scheduledEventID int64) *orchpb.Command {
	return &orchpb.Command{
		CommandType: orchpb.CommandType_REQUEST_CANCEL_ACTIVITY_TASK,
		Attributes: &orchpb.Command_RequestCancelActivityTaskCommandAttributes{
			RequestCancelActivityTaskCommandAttributes: &orchpb.RequestCancelActivityTaskCommandAttributes{ScheduledEventId: scheduledEventID},
		},
	}
}

// ChildWorkflowOptions are the settings of a child workflow a workflow
// starts.
type ChildWorkflowOptions struct {
	// Namespace is the child's namespace; empty means the parent's.
	Namespace string
	// TaskQueue is where the child runs; empty means the parent's.
	TaskQueue        string
	ExecutionTimeout time.Duration
	RunTimeout       time.Duration
	TaskTimeout      time.Duration
	// ParentClosePolicy says what happens to the child when the parent
	// closes first: TERMINATE (the default), ABANDON or REQUEST_CANCEL.
	ParentClosePolicy orchpb.ParentClosePolicy
	ReusePolicy       orchpb.WorkflowIdReusePolicy
	RetryPolicy       *ServerRetryPolicy
	CronSchedule      string
	Memo              map[string]any
	SearchAttributes  map[string]any
	Header            map[string]any
	// Control is an opaque string echoed in the child's events.
	Control string
}

// StartChildWorkflowCommand is the command that starts a child workflow of
// workflowType with input (JSON-encoded; nil for none) under workflowID.
// The parent's history then holds StartChildWorkflowExecutionInitiated,
// ChildWorkflowExecutionStarted (or StartChildWorkflowExecutionFailed when
// the id is in use) and, when the child closes, ChildWorkflowExecution
// Completed, Failed, Canceled, TimedOut or Terminated with its result.
func StartChildWorkflowCommand(workflowID, workflowType string, input any, opts *ChildWorkflowOptions) (*orchpb.Command, error) {
	var o ChildWorkflowOptions
	if opts != nil {
		o = *opts
	}
	if workflowID == "" || workflowType == "" {
		return nil, errors.New("orch: a child workflow needs an id and a type")
	}
	attrs := &orchpb.StartChildWorkflowExecutionCommandAttributes{
		Namespace: o.Namespace, WorkflowId: workflowID, WorkflowType: &orchpb.WorkflowType{Name: workflowType}, TaskQueue: o.TaskQueue,
		WorkflowExecutionTimeout: durationOrNil(o.ExecutionTimeout), WorkflowRunTimeout: durationOrNil(o.RunTimeout),
		WorkflowTaskTimeout: durationOrNil(o.TaskTimeout), ParentClosePolicy: o.ParentClosePolicy, Control: o.Control,
		WorkflowIdReusePolicy: o.ReusePolicy, RetryPolicy: o.RetryPolicy.proto(), CronSchedule: o.CronSchedule,
	}
	if input != nil {
		in, err := EncodePayloads(input)
		if err != nil {
			return nil, err
		}
		attrs.Input = in
	}
	req := &orchpb.StartWorkflowExecutionRequest{}
	if err := fillMaps(req, o.Memo, o.SearchAttributes, o.Header); err != nil {
		return nil, err
	}
	attrs.Memo, attrs.SearchAttributes, attrs.Header = req.Memo, req.SearchAttributes, req.Header
	return &orchpb.Command{
		CommandType: orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION,
		Attributes:  &orchpb.Command_StartChildWorkflowExecutionCommandAttributes{StartChildWorkflowExecutionCommandAttributes: attrs},
	}, nil
}

// RequestCancelExternalWorkflowCommand is the command that asks another
// execution (runID "" for the latest run; a child, when childOnly) to
// cancel itself: it gets WorkflowExecutionCancelRequested, and this
// workflow ExternalWorkflowExecutionCancelRequested (or
// RequestCancelExternalWorkflowExecutionFailed when there is no such open
// execution).
func RequestCancelExternalWorkflowCommand(workflowID, runID string, childOnly bool, reason string) *orchpb.Command {
	return &orchpb.Command{
		CommandType: orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION,
		Attributes: &orchpb.Command_RequestCancelExternalWorkflowExecutionCommandAttributes{RequestCancelExternalWorkflowExecutionCommandAttributes: &orchpb.RequestCancelExternalWorkflowExecutionCommandAttributes{
			WorkflowId: workflowID, RunId: runID, ChildWorkflowOnly: childOnly, Reason: reason}},
	}
}
