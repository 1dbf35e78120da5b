package orchtest

import (
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// signalOut is a signal a workflow task's command initiated, sent once
// every command of the task is applied (as orchfake sends it).
type signalOut struct {
	initiatedID, done int64
	ns                string
	attrs             *orchpb.SignalExternalWorkflowExecutionCommandAttributes
}

// initiateSignal writes SignalExternalWorkflowExecutionInitiated; the
// signal goes out after the task's other commands (sendSignals).
func (r *run) initiateSignal(a *orchpb.SignalExternalWorkflowExecutionCommandAttributes, done int64) {
	ns := a.GetNamespace()
	if ns == "" {
		ns = r.env.opts.Namespace
	}
	init := r.add(orchpb.EventType_SignalExternalWorkflowExecutionInitiated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_SignalExternalWorkflowExecutionInitiatedEventAttributes{SignalExternalWorkflowExecutionInitiatedEventAttributes: &orchpb.SignalExternalWorkflowExecutionInitiatedEventAttributes{
			WorkflowTaskCompletedEventId: done, Namespace: ns, WorkflowExecution: a.GetExecution(), SignalName: a.GetSignalName(),
			Input: a.GetInput(), Control: a.GetControl(), ChildWorkflowOnly: a.GetChildWorkflowOnly(), Header: a.GetHeader()}}
	}).GetEventId()
	r.signalsOut = append(r.signalsOut, signalOut{initiatedID: init, done: done, ns: ns, attrs: a})
}

// sendSignals delivers the signals the task just completed initiated, as
// orchfake does: to an open run of the env (WorkflowExecutionSignaled
// naming the sender, ExternalWorkflowExecutionSignaled for the sender),
// or SignalExternalWorkflowExecutionFailed (no such open run, not a child
// under child_workflow_only, another namespace). A mocked child takes the
// signal and does nothing with it. A sender the task closed sends none.
func (r *run) sendSignals() {
	out := r.signalsOut
	r.signalsOut = nil
	e := r.env
	for _, s := range out {
		if r.closed {
			return
		}
		a := s.attrs
		id, runID := a.GetExecution().GetWorkflowId(), a.GetExecution().GetRunId()
		cause := orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_UNSPECIFIED
		t := e.open[id]
		if t != nil && (runID != "" && t.runID != runID || a.GetChildWorkflowOnly() && t.parent != r) {
			t = nil
		}
		gotID := ""
		switch {
		case s.ns != e.opts.Namespace:
			cause = orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_NAMESPACE_NOT_FOUND
		case t != nil:
			gotID = t.runID
		default:
			for _, ref := range r.children {
				if ref.mockID != "" && ref.attrs.GetWorkflowId() == id && (runID == "" || runID == ref.mockID) {
					gotID = ref.mockID
				}
			}
			if gotID == "" {
				cause = orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND
			}
		}
		if cause != orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_UNSPECIFIED {
			r.add(orchpb.EventType_SignalExternalWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_SignalExternalWorkflowExecutionFailedEventAttributes{SignalExternalWorkflowExecutionFailedEventAttributes: &orchpb.SignalExternalWorkflowExecutionFailedEventAttributes{
					Cause: cause, WorkflowTaskCompletedEventId: s.done, Namespace: s.ns, WorkflowExecution: a.GetExecution(),
					InitiatedEventId: s.initiatedID, Control: a.GetControl()}}
			})
			r.newEvents()
			continue
		}
		if t != nil {
			t.add(orchpb.EventType_WorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &orchpb.WorkflowExecutionSignaledEventAttributes{
					SignalName: a.GetSignalName(), Input: a.GetInput(), Header: a.GetHeader(),
					ExternalWorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: r.id, RunId: r.runID}}}
			})
			t.newEvents()
		}
		r.add(orchpb.EventType_ExternalWorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ExternalWorkflowExecutionSignaledEventAttributes{ExternalWorkflowExecutionSignaledEventAttributes: &orchpb.ExternalWorkflowExecutionSignaledEventAttributes{
				InitiatedEventId: s.initiatedID, Namespace: s.ns, WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id, RunId: gotID}, Control: a.GetControl()}}
		})
		r.newEvents()
	}
}

// upsertProperties changes the run's memo (UPSERT_WORKFLOW_PROPERTIES) as
// orchfake does: a field replaces the one of its name, a null payload
// removes it.
func (r *run) upsertProperties(a *orchpb.UpsertWorkflowPropertiesCommandAttributes, done int64) {
	merged := map[string]*orchpb.Payload{}
	for k, v := range r.memo.GetFields() {
		merged[k] = v
	}
	for k, v := range a.GetUpsertedMemo().GetFields() {
		if len(v.GetData()) == 0 && len(v.GetMetadata()) == 0 || string(v.GetMetadata()[orch.MetadataEncoding]) == orch.EncodingNull {
			delete(merged, k)
			continue
		}
		merged[k] = v
	}
	r.memo = nil
	if len(merged) > 0 {
		r.memo = &orchpb.Memo{Fields: merged}
	}
	r.add(orchpb.EventType_WorkflowPropertiesModified, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowPropertiesModifiedEventAttributes{WorkflowPropertiesModifiedEventAttributes: &orchpb.WorkflowPropertiesModifiedEventAttributes{
			WorkflowTaskCompletedEventId: done, UpsertedMemo: a.GetUpsertedMemo()}}
	})
}
