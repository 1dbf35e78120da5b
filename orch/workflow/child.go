package workflow

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// ChildWorkflowOptions are the settings of a child workflow.
type ChildWorkflowOptions struct {
	// WorkflowID is the child's id; empty means "<parent run id>_<n>",
	// n being the parent's sequence number of the call.
	WorkflowID string
	// TaskQueue is where the child runs; empty means the parent's.
	TaskQueue string
	// ExecutionTimeout, RunTimeout and TaskTimeout bound the child as
	// StartWorkflowOptions does; zero leaves each to the service.
	ExecutionTimeout time.Duration
	RunTimeout       time.Duration
	TaskTimeout      time.Duration
	// ParentClosePolicy says what happens to the child when the parent
	// closes first: TERMINATE (the default), ABANDON, REQUEST_CANCEL.
	ParentClosePolicy orchpb.ParentClosePolicy
	// ReusePolicy and CronSchedule are StartWorkflowOptions'.
	ReusePolicy  orchpb.WorkflowIdReusePolicy
	CronSchedule string
	// RetryPolicy retries the child when it fails; nil: no retries.
	RetryPolicy *orch.ServerRetryPolicy
}

// Execution names a workflow run.
type Execution struct {
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
}

// ChildWorkflowFuture is the Future of a child workflow's result, with the
// Future of its start.
type ChildWorkflowFuture interface {
	Future
	// GetChildWorkflowExecution is ready once the service started the
	// child (its value an Execution) or could not (its error a
	// *ChildWorkflowError, for example an id in use).
	GetChildWorkflowExecution() Future
}

type childFuture struct {
	*future
	started *future
}

func (f childFuture) GetChildWorkflowExecution() Future { return f.started }

// ErrTerminated is the cause of a child workflow that was terminated.
var ErrTerminated = errors.New("workflow: terminated")

// ChildWorkflowError is the error of a child workflow's futures when it
// could not start, failed, timed out, was canceled or terminated.
type ChildWorkflowError struct {
	WorkflowID   string
	WorkflowType string
	// InitiatedEventID is its StartChildWorkflowExecutionInitiated event
	// (0 when it was canceled before the service recorded it).
	InitiatedEventID int64
	RetryState       orchpb.RetryState
	// Cause is an *orch.ApplicationError (the child failed), a
	// *TimeoutError, ErrCanceled, ErrTerminated, or the reason it did not
	// start.
	Cause error
}

func (e *ChildWorkflowError) Error() string {
	return fmt.Sprintf("child workflow %s (id %s) failed: %v", e.WorkflowType, e.WorkflowID, e.Cause)
}

func (e *ChildWorkflowError) Unwrap() error { return e.Cause }

// child is a child workflow the workflow started.
type child struct {
	id, typ     string
	control     string
	initiatedID int64
	f, started  *future
}

// ExecuteChildWorkflow starts a child workflow of workflowType with input
// (JSON; nil for none) and returns its future: Get waits for its result.
// Canceling ctx asks the child to cancel and fails the futures with a
// *ChildWorkflowError wrapping ErrCanceled at once.
func ExecuteChildWorkflow(ctx Context, workflowType string, input any, opts *ChildWorkflowOptions) ChildWorkflowFuture {
	c := must(ctx)
	e := c.e
	e.readOnly("ExecuteChildWorkflow")
	f := childFuture{future: e.newFuture(), started: e.newFuture()}
	var o ChildWorkflowOptions
	if opts != nil {
		o = *opts
	}
	seq := e.nextID()
	ch := &child{id: o.WorkflowID, typ: workflowType, control: seq, f: f.future, started: f.started}
	if ch.id == "" {
		ch.id = e.info.RunID + "_" + seq
	}
	fail := func(err error) ChildWorkflowFuture {
		err = &ChildWorkflowError{WorkflowID: ch.id, WorkflowType: workflowType, InitiatedEventID: ch.initiatedID, Cause: err}
		f.started.settle(nil, err)
		f.settle(nil, err)
		return f
	}
	if workflowType == "" {
		return fail(errors.New("workflow: ExecuteChildWorkflow needs a workflow type"))
	}
	if c.scope.canceled {
		return fail(ErrCanceled)
	}
	attrs := &orchpb.StartChildWorkflowExecutionCommandAttributes{
		WorkflowId: ch.id, WorkflowType: &orchpb.WorkflowType{Name: workflowType}, TaskQueue: o.TaskQueue,
		WorkflowExecutionTimeout: durationOrNil(o.ExecutionTimeout), WorkflowRunTimeout: durationOrNil(o.RunTimeout),
		WorkflowTaskTimeout: durationOrNil(o.TaskTimeout), ParentClosePolicy: o.ParentClosePolicy, Control: seq,
		WorkflowIdReusePolicy: o.ReusePolicy, CronSchedule: o.CronSchedule, RetryPolicy: retryPolicy(o.RetryPolicy),
	}
	if input != nil {
		in, err := orch.EncodePayloads(input)
		if err != nil {
			return fail(fmt.Errorf("workflow: ExecuteChildWorkflow %s: %w", workflowType, err))
		}
		attrs.Input = in
	}
	sent := e.addCommand(&orchpb.Command{
		CommandType: orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION,
		Attributes:  &orchpb.Command_StartChildWorkflowExecutionCommandAttributes{StartChildWorkflowExecutionCommandAttributes: attrs},
	}, func(ev *orchpb.HistoryEvent) {
		ch.initiatedID = ev.GetEventId()
		e.children[ch.initiatedID] = ch
		// The id the run gave it: Replay does not know the run id that
		// makes the default one.
		if id := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetWorkflowId(); id != "" {
			ch.id = id
		}
	})
	c.scope.onCancel(func() {
		if f.ready {
			return
		}
		if ch.initiatedID == 0 {
			sent.dropped = true
		} else {
			e.addCommand(&orchpb.Command{
				CommandType: orchpb.CommandType_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION,
				Attributes: &orchpb.Command_RequestCancelExternalWorkflowExecutionCommandAttributes{
					RequestCancelExternalWorkflowExecutionCommandAttributes: &orchpb.RequestCancelExternalWorkflowExecutionCommandAttributes{
						WorkflowId: ch.id, ChildWorkflowOnly: true, Control: seq,
					}},
			}, nil)
		}
		fail(ErrCanceled)
	})
	return f
}

func (e *execution) childEvent(ev *orchpb.HistoryEvent) {
	var initiated int64
	var result *orchpb.Payloads
	var err error
	retry := orchpb.RetryState_RETRY_STATE_UNSPECIFIED
	switch a := ev.GetAttributes().(type) {
	case *orchpb.HistoryEvent_StartChildWorkflowExecutionFailedEventAttributes:
		x := a.StartChildWorkflowExecutionFailedEventAttributes
		initiated, err = x.GetInitiatedEventId(), fmt.Errorf("the child could not start: %s", x.GetCause())
	case *orchpb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes:
		x := a.ChildWorkflowExecutionStartedEventAttributes
		if ch := e.children[x.GetInitiatedEventId()]; ch != nil {
			p, perr := orch.EncodePayloads(Execution{WorkflowID: x.GetWorkflowExecution().GetWorkflowId(), RunID: x.GetWorkflowExecution().GetRunId()})
			ch.started.settle(p, perr)
		}
		return
	case *orchpb.HistoryEvent_ChildWorkflowExecutionCompletedEventAttributes:
		initiated, result = a.ChildWorkflowExecutionCompletedEventAttributes.GetInitiatedEventId(), a.ChildWorkflowExecutionCompletedEventAttributes.GetResult()
	case *orchpb.HistoryEvent_ChildWorkflowExecutionFailedEventAttributes:
		x := a.ChildWorkflowExecutionFailedEventAttributes
		initiated, err, retry = x.GetInitiatedEventId(), failureError(x.GetFailure()), x.GetRetryState()
	case *orchpb.HistoryEvent_ChildWorkflowExecutionCanceledEventAttributes:
		initiated, err = a.ChildWorkflowExecutionCanceledEventAttributes.GetInitiatedEventId(), ErrCanceled
	case *orchpb.HistoryEvent_ChildWorkflowExecutionTimedOutEventAttributes:
		x := a.ChildWorkflowExecutionTimedOutEventAttributes
		initiated, err, retry = x.GetInitiatedEventId(), &TimeoutError{Message: "child workflow timed out"}, x.GetRetryState()
	case *orchpb.HistoryEvent_ChildWorkflowExecutionTerminatedEventAttributes:
		initiated, err = a.ChildWorkflowExecutionTerminatedEventAttributes.GetInitiatedEventId(), ErrTerminated
	}
	ch := e.children[initiated]
	if ch == nil || ch.f.ready {
		return
	}
	if err != nil {
		err = &ChildWorkflowError{WorkflowID: ch.id, WorkflowType: ch.typ, InitiatedEventID: initiated, RetryState: retry, Cause: err}
		ch.started.settle(nil, err) // no-op once started
	}
	ch.f.settle(result, err)
}

// retryPolicy is the contract's form of p (nil for nil).
func retryPolicy(p *orch.ServerRetryPolicy) *orchpb.RetryPolicy {
	if p == nil {
		return nil
	}
	return &orchpb.RetryPolicy{
		InitialInterval: durationOrNil(p.InitialInterval), BackoffCoefficient: p.BackoffCoefficient,
		MaximumInterval: durationOrNil(p.MaximumInterval), MaximumAttempts: p.MaximumAttempts,
		NonRetryableErrorTypes: p.NonRetryableErrorTypes,
	}
}

func durationOrNil(d time.Duration) *durationpb.Duration {
	if d == 0 {
		return nil
	}
	return durationpb.New(d)
}
