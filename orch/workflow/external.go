package workflow

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// external is a request the workflow sent another execution, a signal or
// a cancel request, whose future its outcome event settles.
type external struct {
	op          string // "signal" or "cancel"
	workflowID  string
	runID       string
	initiatedID int64 // its ...Initiated event, once known
	f           *future
}

// ErrUnknownExternalWorkflowExecution is the cause of an *ExternalWorkflowError
// when no open execution has the id (none ever, a closed one, or not a
// child when only children may be named).
var ErrUnknownExternalWorkflowExecution = errors.New("workflow: unknown external workflow execution")

// ExternalWorkflowError is the error of SignalExternalWorkflow's or
// RequestCancelExternalWorkflow's future when the service could not
// deliver the request.
type ExternalWorkflowError struct {
	// Op is "signal" or "cancel".
	Op         string
	WorkflowID string
	RunID      string
	// InitiatedEventID is the request's ...Initiated event.
	InitiatedEventID int64
	// Cause is ErrUnknownExternalWorkflowExecution, or an error naming
	// the service's cause (an unknown namespace, a full history).
	Cause error
}

func (e *ExternalWorkflowError) Error() string {
	return fmt.Sprintf("workflow: %s of workflow %s failed: %v", e.Op, e.WorkflowID, e.Cause)
}

func (e *ExternalWorkflowError) Unwrap() error { return e.Cause }

// SignalExternalWorkflow sends the signal signalName with arg (JSON; nil
// for none) to the workflow workflowID (runID "" for its latest run), in
// the workflow's namespace, and returns a Future ready once the service
// delivered it (ExternalWorkflowExecutionSignaled), or failed with an
// *ExternalWorkflowError (SignalExternalWorkflowExecutionFailed: no such
// open execution, for example). The target's WorkflowExecutionSignaled
// names this run as its sender. A workflow may signal itself. Canceling
// ctx before the task that sends it ends drops the signal and fails the
// future with ErrCanceled; a signal sent cannot be called back.
func SignalExternalWorkflow(ctx Context, workflowID, runID, signalName string, arg any) Future {
	c := must(ctx)
	e := c.e
	e.readOnly("SignalExternalWorkflow")
	f := e.newFuture()
	x := &external{op: "signal", workflowID: workflowID, runID: runID, f: f}
	fail := func(err error) Future {
		f.settle(nil, &ExternalWorkflowError{Op: x.op, WorkflowID: workflowID, RunID: runID, Cause: err})
		return f
	}
	if workflowID == "" || signalName == "" {
		return fail(errors.New("SignalExternalWorkflow needs a workflow id and a signal name"))
	}
	if c.scope.canceled {
		return fail(ErrCanceled)
	}
	attrs := &orchpb.SignalExternalWorkflowExecutionCommandAttributes{
		Execution: &orchpb.WorkflowExecution{WorkflowId: workflowID, RunId: runID}, SignalName: signalName, Control: e.nextID(),
	}
	if arg != nil {
		in, err := orch.EncodePayloads(arg)
		if err != nil {
			return fail(fmt.Errorf("signal %s: %w", signalName, err))
		}
		attrs.Input = in
	}
	return e.sendExternal(c, x, &orchpb.Command{
		CommandType: orchpb.CommandType_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION,
		Attributes:  &orchpb.Command_SignalExternalWorkflowExecutionCommandAttributes{SignalExternalWorkflowExecutionCommandAttributes: attrs},
	})
}

// RequestCancelExternalWorkflow asks the workflow workflowID (runID "" for
// its latest run), in the workflow's namespace, to cancel itself: it gets
// WorkflowExecutionCancelRequested and decides what to do. The Future is
// ready once the service delivered the request
// (ExternalWorkflowExecutionCancelRequested), or failed with an
// *ExternalWorkflowError (RequestCancelExternalWorkflowExecutionFailed).
// Canceling ctx before the task that sends it ends drops the request and
// fails the future with ErrCanceled. (Canceling a child's context asks a
// child to cancel; this names any workflow.)
func RequestCancelExternalWorkflow(ctx Context, workflowID, runID string) Future {
	c := must(ctx)
	e := c.e
	e.readOnly("RequestCancelExternalWorkflow")
	f := e.newFuture()
	x := &external{op: "cancel", workflowID: workflowID, runID: runID, f: f}
	if workflowID == "" || c.scope.canceled {
		err := ErrCanceled
		if workflowID == "" {
			err = errors.New("RequestCancelExternalWorkflow needs a workflow id")
		}
		f.settle(nil, &ExternalWorkflowError{Op: x.op, WorkflowID: workflowID, RunID: runID, Cause: err})
		return f
	}
	cmd := orch.RequestCancelExternalWorkflowCommand(workflowID, runID, false, "")
	cmd.GetRequestCancelExternalWorkflowExecutionCommandAttributes().Control = e.nextID()
	return e.sendExternal(c, x, cmd)
}

// sendExternal issues the command of x and wires its future to the
// outcome event (and to ctx's cancellation until it is sent).
func (e *execution) sendExternal(c *wctx, x *external, cmd *orchpb.Command) Future {
	sent := e.addCommand(cmd, func(ev *orchpb.HistoryEvent) {
		x.initiatedID = ev.GetEventId()
		e.externals[x.initiatedID] = x
	})
	c.scope.onCancel(func() {
		if x.f.ready || x.initiatedID != 0 {
			return // sent: its outcome settles it
		}
		sent.dropped = true
		x.f.settle(nil, &ExternalWorkflowError{Op: x.op, WorkflowID: x.workflowID, RunID: x.runID, Cause: ErrCanceled})
	})
	return x.f
}

// externalEvent settles the future of a signal or cancel request with its
// outcome.
func (e *execution) externalEvent(ev *orchpb.HistoryEvent) {
	var init int64
	var cause error
	switch a := ev.GetAttributes().(type) {
	case *orchpb.HistoryEvent_ExternalWorkflowExecutionSignaledEventAttributes:
		init = a.ExternalWorkflowExecutionSignaledEventAttributes.GetInitiatedEventId()
	case *orchpb.HistoryEvent_ExternalWorkflowExecutionCancelRequestedEventAttributes:
		init = a.ExternalWorkflowExecutionCancelRequestedEventAttributes.GetInitiatedEventId()
	case *orchpb.HistoryEvent_SignalExternalWorkflowExecutionFailedEventAttributes:
		x := a.SignalExternalWorkflowExecutionFailedEventAttributes
		init, cause = x.GetInitiatedEventId(), errors.New(x.GetCause().String())
		if x.GetCause() == orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND {
			cause = ErrUnknownExternalWorkflowExecution
		}
	case *orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionFailedEventAttributes:
		x := a.RequestCancelExternalWorkflowExecutionFailedEventAttributes
		init, cause = x.GetInitiatedEventId(), errors.New(x.GetCause().String())
		if x.GetCause() == orchpb.CancelExternalWorkflowExecutionFailedCause_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND {
			cause = ErrUnknownExternalWorkflowExecution
		}
	}
	x := e.externals[init]
	if x == nil || x.f.ready {
		return // a child's cancel request, or settled already
	}
	delete(e.externals, init)
	var err error
	if cause != nil {
		err = &ExternalWorkflowError{Op: x.op, WorkflowID: x.workflowID, RunID: x.runID, InitiatedEventID: init, Cause: cause}
	}
	x.f.settle(nil, err)
}

// UpsertSearchAttributes changes the run's search attributes (JSON
// values; the namespace must have them registered): an
// UpsertWorkflowSearchAttributes event, and List, Scan and Count see the
// new values. A ContinueAsNewError's next run keeps them. The service
// checks the values when the task completes; a bad one fails the task.
func UpsertSearchAttributes(ctx Context, attributes map[string]any) error {
	e := must(ctx).e
	e.readOnly("UpsertSearchAttributes")
	fields, err := encodeFields("UpsertSearchAttributes", attributes)
	if err != nil {
		return err
	}
	e.search = mergeFields(e.search.GetIndexedFields(), fields, false, func(m map[string]*orchpb.Payload) *orchpb.SearchAttributes {
		return &orchpb.SearchAttributes{IndexedFields: m}
	})
	e.addCommand(&orchpb.Command{
		CommandType: orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
		Attributes: &orchpb.Command_UpsertWorkflowSearchAttributesCommandAttributes{UpsertWorkflowSearchAttributesCommandAttributes: &orchpb.UpsertWorkflowSearchAttributesCommandAttributes{
			SearchAttributes: &orchpb.SearchAttributes{IndexedFields: fields}}},
	}, nil)
	return nil
}

// UpsertMemo changes the run's memo (JSON values; a nil value removes the
// field): a WorkflowPropertiesModified event, and describe and list show
// the new memo. A ContinueAsNewError's next run keeps it.
func UpsertMemo(ctx Context, memo map[string]any) error {
	e := must(ctx).e
	e.readOnly("UpsertMemo")
	fields, err := encodeFields("UpsertMemo", memo)
	if err != nil {
		return err
	}
	e.memo = mergeFields(e.memo.GetFields(), fields, true, func(m map[string]*orchpb.Payload) *orchpb.Memo { return &orchpb.Memo{Fields: m} })
	e.addCommand(&orchpb.Command{
		CommandType: orchpb.CommandType_UPSERT_WORKFLOW_PROPERTIES,
		Attributes: &orchpb.Command_UpsertWorkflowPropertiesCommandAttributes{UpsertWorkflowPropertiesCommandAttributes: &orchpb.UpsertWorkflowPropertiesCommandAttributes{
			UpsertedMemo: &orchpb.Memo{Fields: fields}}},
	}, nil)
	return nil
}

func encodeFields(call string, values map[string]any) (map[string]*orchpb.Payload, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("workflow: %s needs at least one field", call)
	}
	out := make(map[string]*orchpb.Payload, len(values))
	for k, v := range values {
		if k == "" {
			return nil, fmt.Errorf("workflow: %s: a field has no name", call)
		}
		p, err := orch.EncodePayload(v)
		if err != nil {
			return nil, fmt.Errorf("workflow: %s %s: %w", call, k, err)
		}
		out[k] = p
	}
	return out, nil
}

// mergeFields is old with fields upserted, as the service merges them
// (with removeNull, a memo's, a null payload removes a field), wrapped by
// wrap; nil when none is left.
func mergeFields[M proto.Message](old, fields map[string]*orchpb.Payload, removeNull bool, wrap func(map[string]*orchpb.Payload) M) M {
	merged := make(map[string]*orchpb.Payload, len(old)+len(fields))
	for k, v := range old {
		merged[k] = v
	}
	for k, v := range fields {
		if removeNull && string(v.GetMetadata()[orch.MetadataEncoding]) == orch.EncodingNull {
			delete(merged, k)
			continue
		}
		merged[k] = v
	}
	if len(merged) == 0 {
		var zero M
		return zero
	}
	return wrap(merged)
}
