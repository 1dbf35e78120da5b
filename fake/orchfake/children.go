package orchfake

import (
	"maps"
	"slices"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// childRef is a child workflow as its parent's engine knows it: initiated
// by a StartChildWorkflowExecution command, then started (or failed to).
type childRef struct {
	initiatedID int64
	startedID   int64 // 0 until started
	attrs       *orchpb.StartChildWorkflowExecutionCommandAttributes
	child       *execution // the run started; follows continue-as-new
}

// initiateChild writes StartChildWorkflowExecutionInitiated; the child is
// started by startChildren once every command of the task is applied, as
// the real service starts it after the task. s.mu must be held.
func (s *Server) initiateChild(e *execution, a *orchpb.StartChildWorkflowExecutionCommandAttributes, doneID int64) {
	a = proto.Clone(a).(*orchpb.StartChildWorkflowExecutionCommandAttributes)
	if a.GetNamespace() == "" {
		a.Namespace = e.ns.info.Name
	}
	if a.GetTaskQueue() == "" {
		a.TaskQueue = e.queue
	}
	ev := s.add(e, orchpb.EventType_StartChildWorkflowExecutionInitiated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_StartChildWorkflowExecutionInitiatedEventAttributes{StartChildWorkflowExecutionInitiatedEventAttributes: &orchpb.StartChildWorkflowExecutionInitiatedEventAttributes{
			Namespace: a.GetNamespace(), WorkflowId: a.GetWorkflowId(), WorkflowType: a.GetWorkflowType(),
			TaskQueue: &orchpb.TaskQueue{Name: a.GetTaskQueue(), Kind: orchpb.TaskQueueKind_NORMAL}, Input: a.GetInput(),
			WorkflowExecutionTimeout: a.GetWorkflowExecutionTimeout(), WorkflowRunTimeout: a.GetWorkflowRunTimeout(),
			WorkflowTaskTimeout: a.GetWorkflowTaskTimeout(), ParentClosePolicy: a.GetParentClosePolicy(), Control: a.GetControl(),
			WorkflowTaskCompletedEventId: doneID, WorkflowIdReusePolicy: a.GetWorkflowIdReusePolicy(), RetryPolicy: a.GetRetryPolicy(),
			CronSchedule: a.GetCronSchedule(), Header: a.GetHeader(), Memo: a.GetMemo(), SearchAttributes: a.GetSearchAttributes()}}
	})
	if e.eng.children == nil {
		e.eng.children = map[int64]*childRef{}
	}
	e.eng.children[ev.GetEventId()] = &childRef{initiatedID: ev.GetEventId(), attrs: a}
	e.eng.pendingChildren = append(e.eng.pendingChildren, ev.GetEventId())
}

// startChildren starts the children initiated by the task just completed:
// ChildWorkflowExecutionStarted, or StartChildWorkflowExecutionFailed when
// the id is in use (or the namespace unknown). s.mu must be held.
func (s *Server) startChildren(e *execution) {
	pending := e.eng.pendingChildren
	e.eng.pendingChildren = nil
	for _, id := range pending {
		ref := e.eng.children[id]
		if ref == nil || !e.open() {
			continue
		}
		a := ref.attrs
		req := &orchpb.StartWorkflowExecutionRequest{
			Namespace: a.GetNamespace(), WorkflowId: a.GetWorkflowId(), WorkflowType: a.GetWorkflowType(), TaskQueue: a.GetTaskQueue(),
			Input: a.GetInput(), WorkflowExecutionTimeout: a.GetWorkflowExecutionTimeout(), WorkflowRunTimeout: a.GetWorkflowRunTimeout(),
			WorkflowTaskTimeout: a.GetWorkflowTaskTimeout(), Identity: e.id, WorkflowIdReusePolicy: a.GetWorkflowIdReusePolicy(),
			RetryPolicy: a.GetRetryPolicy(), CronSchedule: a.GetCronSchedule(), Memo: a.GetMemo(), SearchAttributes: a.GetSearchAttributes(), Header: a.GetHeader(),
		}
		child, _, err := s.startWith(req, false, runExtras{parent: e, parentInitiated: id, parentPolicy: a.GetParentClosePolicy()})
		if err != nil {
			cause := orchpb.StartChildWorkflowExecutionFailedCause_WORKFLOW_ALREADY_EXISTS
			if ae := toAPIError(err); ae.code == "NAMESPACE_NOT_FOUND" {
				cause = orchpb.StartChildWorkflowExecutionFailedCause_CHILD_NAMESPACE_NOT_FOUND
			}
			delete(e.eng.children, id)
			s.add(e, orchpb.EventType_StartChildWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
				ev.Attributes = &orchpb.HistoryEvent_StartChildWorkflowExecutionFailedEventAttributes{StartChildWorkflowExecutionFailedEventAttributes: &orchpb.StartChildWorkflowExecutionFailedEventAttributes{
					Namespace: a.GetNamespace(), WorkflowId: a.GetWorkflowId(), WorkflowType: a.GetWorkflowType(), Cause: cause,
					Control: a.GetControl(), InitiatedEventId: id}}
			})
			s.newEventsForWorker(e)
			continue
		}
		ref.child = child
		ev := s.add(e, orchpb.EventType_ChildWorkflowExecutionStarted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionStartedEventAttributes{ChildWorkflowExecutionStartedEventAttributes: &orchpb.ChildWorkflowExecutionStartedEventAttributes{
				Namespace: a.GetNamespace(), InitiatedEventId: id, WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: child.id, RunId: child.runID},
				WorkflowType: a.GetWorkflowType(), Header: a.GetHeader()}}
		})
		ref.startedID = ev.GetEventId()
		s.newEventsForWorker(e)
	}
}

// childClosed tells the parent of a closed child (not one continued as
// new: its chain goes on) how it ended. s.mu must be held.
func (s *Server) childClosed(c *execution) {
	p := c.parent
	if p == nil || !p.open() {
		return
	}
	ref := p.eng.children[c.parentInitiated]
	if ref == nil {
		return
	}
	delete(p.eng.children, c.parentInitiated)
	last := c.history[len(c.history)-1]
	ns, we, typ := c.ns.info.Name, &orchpb.WorkflowExecution{WorkflowId: c.id, RunId: c.runID}, &orchpb.WorkflowType{Name: c.typ}
	init, started := ref.initiatedID, ref.startedID
	switch c.status {
	case orchpb.WorkflowExecutionStatus_COMPLETED:
		s.add(p, orchpb.EventType_ChildWorkflowExecutionCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionCompletedEventAttributes{ChildWorkflowExecutionCompletedEventAttributes: &orchpb.ChildWorkflowExecutionCompletedEventAttributes{
				Result: last.GetWorkflowExecutionCompletedEventAttributes().GetResult(), Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started}}
		})
	case orchpb.WorkflowExecutionStatus_FAILED:
		fa := last.GetWorkflowExecutionFailedEventAttributes()
		s.add(p, orchpb.EventType_ChildWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionFailedEventAttributes{ChildWorkflowExecutionFailedEventAttributes: &orchpb.ChildWorkflowExecutionFailedEventAttributes{
				Failure: fa.GetFailure(), Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started, RetryState: fa.GetRetryState()}}
		})
	case orchpb.WorkflowExecutionStatus_CANCELED:
		s.add(p, orchpb.EventType_ChildWorkflowExecutionCanceled, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionCanceledEventAttributes{ChildWorkflowExecutionCanceledEventAttributes: &orchpb.ChildWorkflowExecutionCanceledEventAttributes{
				Details: last.GetWorkflowExecutionCanceledEventAttributes().GetDetails(), Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started}}
		})
	case orchpb.WorkflowExecutionStatus_TIMED_OUT:
		s.add(p, orchpb.EventType_ChildWorkflowExecutionTimedOut, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionTimedOutEventAttributes{ChildWorkflowExecutionTimedOutEventAttributes: &orchpb.ChildWorkflowExecutionTimedOutEventAttributes{
				Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started,
				RetryState: last.GetWorkflowExecutionTimedOutEventAttributes().GetRetryState()}}
		})
	case orchpb.WorkflowExecutionStatus_TERMINATED:
		s.add(p, orchpb.EventType_ChildWorkflowExecutionTerminated, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_ChildWorkflowExecutionTerminatedEventAttributes{ChildWorkflowExecutionTerminatedEventAttributes: &orchpb.ChildWorkflowExecutionTerminatedEventAttributes{
				Namespace: ns, WorkflowExecution: we, WorkflowType: typ, InitiatedEventId: init, StartedEventId: started}}
		})
	default:
		return
	}
	s.newEventsForWorker(p)
}

// applyParentClosePolicies does to the open children of a closed parent
// what each one's policy says: terminate (the default), request cancel, or
// abandon (leave it running, no longer a child). s.mu must be held.
func (s *Server) applyParentClosePolicies(p *execution, children map[int64]*childRef) {
	for _, ref := range children {
		c := ref.child
		for c != nil && c.status == orchpb.WorkflowExecutionStatus_CONTINUED_AS_NEW { // follow the chain
			c = c.wf.latest()
		}
		if c == nil || !c.open() || c.parent != p {
			continue
		}
		switch c.parentPolicy {
		case orchpb.ParentClosePolicy_ABANDON:
			c.parent = nil
		case orchpb.ParentClosePolicy_REQUEST_CANCEL:
			s.cancelRequested(c, &orchpb.WorkflowExecutionCancelRequestedEventAttributes{Cause: "by parent close policy",
				ExternalNamespace: p.ns.info.Name, ExternalWorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: p.id, RunId: p.runID}})
		default:
			s.terminateLocked(c, "by parent close policy", nil, p.id)
		}
	}
}

// externalTarget is the open execution a command of e's names in
// namespace nsName (field names it in errors); with childOnly, only a
// child of e's: another is NOT_FOUND, as the service answers. s.mu must
// be held.
func (s *Server) externalTarget(e *execution, nsName string, we *orchpb.WorkflowExecution, field string, childOnly bool) (*execution, error) {
	t, err := s.lookupOpen(nsName, we, field)
	if err == nil && childOnly && t.parent != e {
		return nil, errorf(orchwire.NotFound, "not a child")
	}
	return t, err
}

// requestCancelExternal writes RequestCancelExternalWorkflowExecutionInitiated
// and delivers the request: ExternalWorkflowExecutionCancelRequested (and
// the target's WorkflowExecutionCancelRequested), or
// RequestCancelExternalWorkflowExecutionFailed. s.mu must be held.
func (s *Server) requestCancelExternal(e *execution, a *orchpb.RequestCancelExternalWorkflowExecutionCommandAttributes, doneID int64) {
	nsName := a.GetNamespace()
	if nsName == "" {
		nsName = e.ns.info.Name
	}
	target := &orchpb.WorkflowExecution{WorkflowId: a.GetWorkflowId(), RunId: a.GetRunId()}
	init := s.add(e, orchpb.EventType_RequestCancelExternalWorkflowExecutionInitiated, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionInitiatedEventAttributes{RequestCancelExternalWorkflowExecutionInitiatedEventAttributes: &orchpb.RequestCancelExternalWorkflowExecutionInitiatedEventAttributes{
			WorkflowTaskCompletedEventId: doneID, Namespace: nsName, WorkflowExecution: target, Control: a.GetControl(), ChildWorkflowOnly: a.GetChildWorkflowOnly(), Reason: a.GetReason()}}
	}).GetEventId()
	t, err := s.externalTarget(e, nsName, target, "workflow_execution", a.GetChildWorkflowOnly())
	if err != nil {
		cause := orchpb.CancelExternalWorkflowExecutionFailedCause_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND
		if toAPIError(err).code == orchwire.NamespaceNotFound {
			cause = orchpb.CancelExternalWorkflowExecutionFailedCause_EXTERNAL_NAMESPACE_NOT_FOUND
		}
		s.add(e, orchpb.EventType_RequestCancelExternalWorkflowExecutionFailed, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_RequestCancelExternalWorkflowExecutionFailedEventAttributes{RequestCancelExternalWorkflowExecutionFailedEventAttributes: &orchpb.RequestCancelExternalWorkflowExecutionFailedEventAttributes{
				Cause: cause, WorkflowTaskCompletedEventId: doneID, Namespace: nsName, WorkflowExecution: target, InitiatedEventId: init, Control: a.GetControl()}}
		})
		return
	}
	s.cancelRequested(t, &orchpb.WorkflowExecutionCancelRequestedEventAttributes{Cause: a.GetReason(), ExternalNamespace: e.ns.info.Name,
		ExternalWorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: e.id, RunId: e.runID}, ExternalInitiatedEventId: init})
	s.add(e, orchpb.EventType_ExternalWorkflowExecutionCancelRequested, func(ev *orchpb.HistoryEvent) {
		ev.Attributes = &orchpb.HistoryEvent_ExternalWorkflowExecutionCancelRequestedEventAttributes{ExternalWorkflowExecutionCancelRequestedEventAttributes: &orchpb.ExternalWorkflowExecutionCancelRequestedEventAttributes{
			InitiatedEventId: init, Namespace: nsName, WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: t.id, RunId: t.runID}}}
	})
}

// pendingChildren are e's children initiated and not yet closed, in the
// order they were initiated, as describe shows them. s.mu must be held.
func pendingChildren(e *execution) []*orchpb.PendingChildExecutionInfo {
	var out []*orchpb.PendingChildExecutionInfo
	for _, id := range slices.Sorted(maps.Keys(e.eng.children)) {
		ref := e.eng.children[id]
		p := &orchpb.PendingChildExecutionInfo{WorkflowId: ref.attrs.GetWorkflowId(), WorkflowTypeName: ref.attrs.GetWorkflowType().GetName(),
			InitiatedId: id, ParentClosePolicy: ref.attrs.GetParentClosePolicy(), Namespace: ref.attrs.GetNamespace()}
		if ref.child != nil {
			p.WorkflowId, p.RunId = ref.child.id, ref.child.runID
		}
		out = append(out, p)
	}
	return out
}
