package orchfake

import (
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// MaxSignalInputSize bounds the input of a signal a workflow sends
// (SignalExternalWorkflowExecution), in bytes of payload data and
// metadata: Temporal's blob size limit (2 MiB). A larger one fails the
// workflow task with BAD_SIGNAL_INPUT_SIZE.
const MaxSignalInputSize = 2 << 20

// pendingSignal is a signal a workflow task's command initiated, sent
// once every command of the task is applied.
type pendingSignal struct {
	initiatedID int64
	doneID      int64 // the task's WorkflowTaskCompleted
	nsName      string
	attrs       *orchpb.SignalExternalWorkflowExecutionCommandAttributes
}

func checkSignalExternal(c *checking, a *orchpb.SignalExternalWorkflowExecutionCommandAttributes) *cmdError {
	var v violations
	checkName(&v, "execution.workflow_id", a.GetExecution().GetWorkflowId(), true)
	checkName(&v, "execution.run_id", a.GetExecution().GetRunId(), false)
	checkName(&v, "signal_name", a.GetSignalName(), true)
	checkName(&v, "namespace", a.GetNamespace(), false)
	checkName(&v, "control", a.GetControl(), false)
	if ce := c.firstViolation(orchpb.WorkflowTaskFailedCause_BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES, &v); ce != nil {
		return ce
	}
	if n := payloadsSize(a.GetInput()); n > MaxSignalInputSize {
		return c.bad(orchpb.WorkflowTaskFailedCause_BAD_SIGNAL_INPUT_SIZE, "input is %d bytes, more than %d", n, MaxSignalInputSize)
	}
	return nil
}

// payloadsSize is the bytes of data and metadata of ps.
func payloadsSize(ps *orchpb.Payloads) int {
	n := 0
	for _, p := range ps.GetPayloads() {
		n += len(p.GetData())
		for k, v := range p.GetMetadata() {
			n += len(k) + len(v)
		}
	}
	return n
}

// initiateSignal writes SignalExternalWorkflowExecutionInitiated; the
// signal goes out once every command of the task is applied
// (sendSignals), as the real service sends it after the task. s.mu must
// be held.
func (s *Server) initiateSignal(e *execution, a *orchpb.SignalExternalWorkflowExecutionCommandAttributes, doneID int64, _ string) {
	nsName := a.GetNamespace()
	if nsName == "" {
		nsName = e.ns.info.Name
	}
	ev := s.add(e, orchpb.EventType_SignalExternalWorkflowExecutionInitiated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_SignalExternalWorkflowExecutionInitiatedEventAttributes{SignalExternalWorkflowExecutionInitiatedEventAttributes: &orchpb.SignalExternalWorkflowExecutionInitiatedEventAttributes{
			WorkflowTaskCompletedEventId: doneID, Namespace: nsName, WorkflowExecution: a.GetExecution(), SignalName: a.GetSignalName(),
			Input: a.GetInput(), Control: a.GetControl(), ChildWorkflowOnly: a.GetChildWorkflowOnly(), Header: a.GetHeader()}}
	})
	e.eng.pendingSignals = append(e.eng.pendingSignals, pendingSignal{initiatedID: ev.GetEventId(), doneID: doneID, nsName: nsName, attrs: a})
}

// sendSignals delivers the signals the task just completed initiated: the
// target gets WorkflowExecutionSignaled naming the sender, the sender
// ExternalWorkflowExecutionSignaled; or the sender gets
// SignalExternalWorkflowExecutionFailed with its cause (no such open
// execution, not a child when child_workflow_only, an unknown namespace,
// a target whose history is full). A sender the task closed sends
// nothing, as the service drops the transfer of a closed run. s.mu must
// be held.
func (s *Server) sendSignals(e *execution) {
	pending := e.eng.pendingSignals
	e.eng.pendingSignals = nil
	for _, p := range pending {
		if !e.open() {
			return
		}
		a := p.attrs
		t, err := s.externalTarget(e, p.nsName, a.GetExecution(), "execution", a.GetChildWorkflowOnly())
		if err == nil {
			if full := s.historyFull(t); full != nil {
				t, err = nil, full
			}
		}
		if err != nil {
			cause := orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND
			switch toAPIError(err).code {
			case orchwire.NamespaceNotFound:
				cause = orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_NAMESPACE_NOT_FOUND
			case orchwire.InvalidArgument, orchwire.ResourceExhausted: // historyFull's
				cause = orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_SIGNAL_COUNT_LIMIT_EXCEEDED
			}
			s.add(e, orchpb.EventType_SignalExternalWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_SignalExternalWorkflowExecutionFailedEventAttributes{SignalExternalWorkflowExecutionFailedEventAttributes: &orchpb.SignalExternalWorkflowExecutionFailedEventAttributes{
					Cause: cause, WorkflowTaskCompletedEventId: p.doneID, Namespace: p.nsName, WorkflowExecution: a.GetExecution(),
					InitiatedEventId: p.initiatedID, Control: a.GetControl()}}
			})
			s.newEventsForWorker(e)
			continue
		}
		s.add(t, orchpb.EventType_WorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &orchpb.WorkflowExecutionSignaledEventAttributes{
				SignalName: a.GetSignalName(), Input: a.GetInput(), Header: a.GetHeader(),
				ExternalWorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID}}}
		})
		s.newEventsForWorker(t)
		s.add(e, orchpb.EventType_ExternalWorkflowExecutionSignaled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ExternalWorkflowExecutionSignaledEventAttributes{ExternalWorkflowExecutionSignaledEventAttributes: &orchpb.ExternalWorkflowExecutionSignaledEventAttributes{
				InitiatedEventId: p.initiatedID, Namespace: p.nsName, WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: t.id, RunId: t.runID}, Control: a.GetControl()}}
		})
		s.newEventsForWorker(e)
	}
}

func checkUpsertProperties(c *checking, a *orchpb.UpsertWorkflowPropertiesCommandAttributes) *cmdError {
	const cause = orchpb.WorkflowTaskFailedCause_BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES
	if len(a.GetUpsertedMemo().GetFields()) == 0 {
		return c.bad(cause, "upserted_memo has no fields")
	}
	for k := range a.GetUpsertedMemo().GetFields() {
		var v violations
		checkName(&v, "upserted_memo.fields key", k, true)
		if ce := c.firstViolation(cause, &v); ce != nil {
			return ce
		}
	}
	return nil
}

// upsertProperties changes the run's memo (UPSERT_WORKFLOW_PROPERTIES):
// WorkflowPropertiesModified, and describe and list show the new memo.
// s.mu must be held.
func (s *Server) upsertProperties(e *execution, a *orchpb.UpsertWorkflowPropertiesCommandAttributes, doneID int64, _ string) {
	s.upsertMemo(e, a.GetUpsertedMemo())
	s.add(e, orchpb.EventType_WorkflowPropertiesModified, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_WorkflowPropertiesModifiedEventAttributes{WorkflowPropertiesModifiedEventAttributes: &orchpb.WorkflowPropertiesModifiedEventAttributes{
			WorkflowTaskCompletedEventId: doneID, UpsertedMemo: a.GetUpsertedMemo()}}
	})
}

// upsertMemo merges m into the run's memo: a field replaces the one of its
// name, a null or empty payload removes it (as Temporal merges memos). The
// memo is copied: the old one is the started event's (and the start
// request's), which must not change. s.mu must be held.
func (s *Server) upsertMemo(e *execution, m *orchpb.Memo) {
	e.infoEdits++
	if e.memo == nil {
		e.memo = &orchpb.Memo{}
	} else {
		e.memo = proto.Clone(e.memo).(*orchpb.Memo)
	}
	if e.memo.Fields == nil {
		e.memo.Fields = map[string]*orchpb.Payload{}
	}
	for k, v := range m.GetFields() {
		if nullPayload(v) {
			delete(e.memo.Fields, k)
			continue
		}
		e.memo.Fields[k] = v
	}
	if len(e.memo.Fields) == 0 {
		e.memo = nil
	}
}

// nullPayload: a payload that encodes nothing (nil, or no data nor
// metadata) or null.
func nullPayload(p *orchpb.Payload) bool {
	return (len(p.GetData()) == 0 && len(p.GetMetadata()) == 0) || string(p.GetMetadata()[orch.MetadataEncoding]) == orch.EncodingNull
}
