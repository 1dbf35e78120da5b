package orchfake

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// Workflow updates (UpdateWorkflowExecution, ExecuteMultiOperation), as
// Temporal runs them: the service admits an update, hands it to a worker
// in a workflow task's protocol_messages, and the worker answers in the
// task's completion with protocol messages: a rejection (the validator
// said no: nothing is written), an acceptance (WorkflowExecutionUpdateAccepted)
// and later a response (WorkflowExecutionUpdateCompleted), each of the last
// two placed among the task's events by a PROTOCOL_MESSAGE command.

const (
	// MaxInFlightUpdates bounds the updates of one run admitted or
	// accepted and not yet completed (Temporal's default); one more is
	// refused with RESOURCE_EXHAUSTED.
	MaxInFlightUpdates = 10
	// MaxUpdatesPerRun bounds the update ids one run remembers, completed
	// ones included (Temporal's default); one more is refused with
	// RESOURCE_EXHAUSTED.
	MaxUpdatesPerRun = 2000
)

const (
	stageAdmitted  = orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED
	stageAccepted  = orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED
	stageCompleted = orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED
)

// update is one update of a run, kept (by its id) for the run's life so
// that the same id sent again is the same update.
type update struct {
	e          *execution
	id         string
	req        *orchpb.UpdateRequest
	stage      orchpb.UpdateWorkflowExecutionLifecycleStage
	outcome    *orchpb.UpdateOutcome
	aborted    *apiError     // the run closed before the update completed
	task       *workflowTask // the started task that carries it; nil when none does
	msgID      string        // its request message's id
	acceptedID int64
	changed    chan struct{} // closed and replaced when stage or aborted changes
}

func (u *update) moved() {
	close(u.changed)
	u.changed = make(chan struct{})
}

func (u *update) done() bool { return u.stage == stageCompleted || u.aborted != nil }

func (u *update) answer() *orchpb.UpdateWorkflowExecutionResponse {
	resp := &orchpb.UpdateWorkflowExecutionResponse{
		UpdateRef: &orchpb.UpdateRef{WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: u.e.id, RunId: u.e.runID}, UpdateId: u.id},
		Stage:     u.stage,
	}
	if u.stage == stageCompleted {
		resp.Outcome = u.outcome
	}
	return resp
}

// checkUpdateRequest checks what UpdateWorkflowExecution's request says of
// the update itself, and returns the stage to wait for.
func checkUpdateRequest(req *orchpb.UpdateWorkflowExecutionRequest) (orchpb.UpdateWorkflowExecutionLifecycleStage, error) {
	var v violations
	checkName(&v, "request.meta.update_id", req.GetRequest().GetMeta().GetUpdateId(), true)
	checkName(&v, "request.meta.identity", req.GetRequest().GetMeta().GetIdentity(), false)
	checkName(&v, "request.input.name", req.GetRequest().GetInput().GetName(), true)
	checkName(&v, "first_execution_run_id", req.GetFirstExecutionRunId(), false)
	wait := req.GetWaitPolicy().GetLifecycleStage()
	switch wait {
	case orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_UNSPECIFIED:
		wait = stageAccepted
	case stageAccepted, stageCompleted:
	case stageAdmitted:
		v.add("wait_policy.lifecycle_stage", "waiting for ADMITTED is not supported: wait for ACCEPTED or COMPLETED")
	default:
		v.add("wait_policy.lifecycle_stage", "unknown stage %d", wait)
	}
	return wait, v.err()
}

func (s *Server) updateWorkflow(ctx context.Context, req *orchpb.UpdateWorkflowExecutionRequest) (*orchpb.UpdateWorkflowExecutionResponse, error) {
	wait, err := checkUpdateRequest(req)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	u, err := s.admitUpdate(req)
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return s.awaitUpdate(ctx, u, wait)
}

// admitUpdate finds the run and the update of its id, or admits a new
// one. s.mu must be held.
func (s *Server) admitUpdate(req *orchpb.UpdateWorkflowExecutionRequest) (*update, error) {
	e, err := s.lookup(req.GetNamespace(), req.GetWorkflowExecution(), "workflow_execution")
	if err != nil {
		return nil, err
	}
	if first := req.GetFirstExecutionRunId(); first != "" && first != e.firstRunID {
		return nil, errorf(orchwire.WorkflowExecutionNotFound, "workflow execution not found: workflow_id %q has no run of the chain first_execution_run_id %q", e.id, first)
	}
	return s.addUpdate(e, req.GetRequest(), true)
}

// addUpdate returns e's update of req's id, admitting it when e has none;
// wake schedules a workflow task for it (not for a run being started,
// whose first task is scheduled next). s.mu must be held.
func (s *Server) addUpdate(e *execution, req *orchpb.UpdateRequest, wake bool) (*update, error) {
	id := req.GetMeta().GetUpdateId()
	if u := e.updates[id]; u != nil {
		return u, nil // the same update again: the same outcome, never run twice
	}
	if !e.open() {
		return nil, completedError(e)
	}
	inFlight := 0
	for _, u := range e.updates {
		if !u.done() {
			inFlight++
		}
	}
	if inFlight >= MaxInFlightUpdates {
		return nil, errorf(orchwire.ResourceExhausted, "workflow_id %q has %d updates in flight, the most a run may have; wait for one to complete", e.id, MaxInFlightUpdates)
	}
	if len(e.updates) >= MaxUpdatesPerRun {
		return nil, errorf(orchwire.ResourceExhausted, "workflow_id %q has had %d updates, the most a run may have; continue it as new", e.id, MaxUpdatesPerRun)
	}
	if err := s.historyFull(e); err != nil {
		return nil, err
	}
	u := &update{e: e, id: id, req: proto.Clone(req).(*orchpb.UpdateRequest), stage: stageAdmitted, msgID: id + "/request", changed: make(chan struct{})}
	if e.updates == nil {
		e.updates = map[string]*update{}
	}
	e.updates[id] = u
	e.eng.admitted = append(e.eng.admitted, u)
	if h := s.updateHook.Load(); h != nil {
		(*h)()
	}
	if wake {
		s.updatesForWorker(e)
	}
	return u, nil
}

// updatesForWorker gives admitted updates a workflow task: one is
// scheduled unless one is outstanding (a scheduled one carries them when
// it starts); a running one is told that updates arrived, so it may not
// close the run (UNHANDLED_UPDATE), and the next task carries them. s.mu
// must be held.
func (s *Server) updatesForWorker(e *execution) {
	// (A started task is told by the admitted updates themselves.)
	if e.open() && !e.eng.delayed && len(e.eng.admitted) > 0 && e.eng.wft == nil {
		s.scheduleWorkflowTask(e)
	}
}

// awaitUpdate waits until u reaches wait, the run closes under it, or the
// wait runs out (MaxPollWait): then the answer is the stage u reached, and
// the caller sends the same update id again to wait on.
func (s *Server) awaitUpdate(ctx context.Context, u *update, wait orchpb.UpdateWorkflowExecutionLifecycleStage) (*orchpb.UpdateWorkflowExecutionResponse, error) {
	expired, stop := s.waitCap(ctx)
	defer stop()
	for {
		s.mu.Lock()
		resp, aborted, changed := u.answer(), u.aborted, u.changed
		gone := s.st.gone
		s.mu.Unlock()
		if aborted != nil {
			return nil, aborted
		}
		if resp.GetStage() >= wait {
			return resp, nil
		}
		select {
		case <-changed:
			continue
		case <-expired:
			return resp, nil
		case <-ctx.Done():
		case <-s.done:
		case <-gone:
		}
		if s.isClosed() {
			return nil, errorf(orchwire.Unavailable, "the fake is shut down")
		}
		return nil, errorf(orchwire.DeadlineExceeded, "context deadline exceeded: update %q reached stage %s", u.id, resp.GetStage())
	}
}

// deliverUpdates hands the run's admitted updates to the task being
// started, as its protocol messages. s.mu must be held.
func (s *Server) deliverUpdates(t *workflowTask) []*orchpb.ProtocolMessage {
	e := t.e
	if len(e.eng.admitted) == 0 {
		return nil
	}
	msgs := make([]*orchpb.ProtocolMessage, 0, len(e.eng.admitted))
	for _, u := range e.eng.admitted {
		u.task = t
		// Applied after the events before the task's WorkflowTaskStarted.
		msgs = append(msgs, &orchpb.ProtocolMessage{Id: u.msgID, ProtocolInstanceId: u.id,
			SequencingId: &orchpb.ProtocolMessage_EventId{EventId: t.startedID - 1},
			Body:         &orchpb.ProtocolMessage_Request{Request: u.req}})
	}
	t.updates = e.eng.admitted
	e.eng.admitted = nil
	return msgs
}

// undeliver puts the updates a task carried and did not answer back in
// line for the next task (the task failed or timed out, or the worker
// did not answer them). s.mu must be held.
func (s *Server) undeliver(t *workflowTask) {
	var back []*update
	for _, u := range t.updates {
		if u.task == t && u.stage == stageAdmitted && u.aborted == nil {
			u.task = nil
			back = append(back, u)
		}
	}
	t.updates = nil
	t.e.eng.admitted = append(back, t.e.eng.admitted...)
}

// abortUpdates ends the updates a closing run leaves open: their callers
// get the error of an update sent to a closed run. s.mu must be held.
func (s *Server) abortUpdates(e *execution) {
	for _, u := range e.updates {
		if !u.done() {
			u.aborted = completedError(e)
			u.task = nil
			u.moved()
		}
	}
	e.eng.admitted = nil
}

// taskMessages is a completed task's protocol messages in the order they
// apply: those a PROTOCOL_MESSAGE command names where it stands among
// the commands, the others after every command.
type taskMessages struct {
	byID    map[string]*orchpb.ProtocolMessage
	named   map[string]bool
	applied map[string]bool
}

// checkMessages refuses a task's messages the service refuses, before
// anything of the task is applied: each must name an update the task may
// answer, in an order that makes sense (accepted before answered, once
// each). s.mu must be held.
func (s *Server) checkMessages(t *workflowTask, msgs []*orchpb.ProtocolMessage, cmds []*orchpb.Command) (*taskMessages, *cmdError) {
	const cause = orchpb.WorkflowTaskFailedCause_BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE
	tm := &taskMessages{byID: map[string]*orchpb.ProtocolMessage{}, named: map[string]bool{}, applied: map[string]bool{}}
	for i, m := range msgs {
		if m.GetId() == "" || len(m.GetId()) > MaxIDLength {
			return nil, badCmd(cause, "message %d: id is required (at most %d bytes)", i, MaxIDLength)
		}
		if tm.byID[m.GetId()] != nil {
			return nil, badCmd(cause, "message %d: id %q is used twice", i, m.GetId())
		}
		tm.byID[m.GetId()] = m
	}
	var order []*orchpb.ProtocolMessage
	for i, c := range cmds {
		if c.GetCommandType() != orchpb.CommandType_PROTOCOL_MESSAGE {
			continue
		}
		id := c.GetProtocolMessageCommandAttributes().GetMessageId()
		m := tm.byID[id]
		switch {
		case m == nil:
			return nil, badCmd(cause, "command %d: no message %q in the task's messages", i, id)
		case tm.named[id]:
			return nil, badCmd(cause, "command %d: message %q is named by two commands", i, id)
		case m.GetRejection() != nil:
			return nil, badCmd(cause, "command %d: message %q is a rejection, which takes no command", i, id)
		}
		tm.named[id] = true
		order = append(order, m)
	}
	for _, m := range msgs {
		if !tm.named[m.GetId()] {
			order = append(order, m)
		}
	}
	// Walk the messages in the order they apply, with the stage each
	// update would be at.
	stage := map[string]orchpb.UpdateWorkflowExecutionLifecycleStage{}
	for _, m := range order {
		u := t.e.updates[m.GetProtocolInstanceId()]
		if u == nil || u.aborted != nil {
			return nil, badCmd(cause, "message %q: no update %q open in this run", m.GetId(), m.GetProtocolInstanceId())
		}
		st, ok := stage[u.id]
		if !ok {
			st = u.stage
		}
		switch {
		case m.GetAcceptance() != nil || m.GetRejection() != nil:
			if u.task != t || st != stageAdmitted {
				return nil, badCmd(cause, "message %q: update %q was not handed to this task, or was answered already", m.GetId(), u.id)
			}
			if r := m.GetRejection(); r != nil {
				if r.GetFailure() == nil {
					return nil, badCmd(cause, "message %q: a rejection needs a failure", m.GetId())
				}
				st = stageCompleted
			} else {
				st = stageAccepted
			}
		case m.GetResponse() != nil:
			if st != stageAccepted {
				return nil, badCmd(cause, "message %q: update %q is not accepted, so it cannot be answered", m.GetId(), u.id)
			}
			if m.GetResponse().GetOutcome().GetValue() == nil {
				return nil, badCmd(cause, "message %q: a response needs an outcome (success or failure)", m.GetId())
			}
			st = stageCompleted
		default:
			return nil, badCmd(cause, "message %q: a worker answers with an acceptance, a rejection or a response", m.GetId())
		}
		stage[u.id] = st
	}
	return tm, nil
}

// applyMessage applies one checked message of a completed task. s.mu
// must be held.
func (s *Server) applyMessage(e *execution, m *orchpb.ProtocolMessage) {
	u := e.updates[m.GetProtocolInstanceId()]
	if u == nil || u.aborted != nil || !e.open() {
		return
	}
	switch {
	case m.GetAcceptance() != nil:
		a := m.GetAcceptance()
		ev := s.add(e, orchpb.EventType_WorkflowExecutionUpdateAccepted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionUpdateAcceptedEventAttributes{WorkflowExecutionUpdateAcceptedEventAttributes: &orchpb.WorkflowExecutionUpdateAcceptedEventAttributes{
				ProtocolInstanceId: u.id, AcceptedRequestMessageId: u.msgID,
				AcceptedRequestSequencingEventId: a.GetAcceptedRequestSequencingEventId(), AcceptedRequest: u.req}}
		})
		u.stage, u.acceptedID, u.task = stageAccepted, ev.GetEventId(), nil
	case m.GetRejection() != nil:
		// As the service: a rejected update leaves no event.
		u.stage, u.task = stageCompleted, nil
		u.outcome = &orchpb.UpdateOutcome{Value: &orchpb.UpdateOutcome_Failure{Failure: m.GetRejection().GetFailure()}}
	case m.GetResponse() != nil:
		u.stage, u.outcome = stageCompleted, m.GetResponse().GetOutcome()
		s.add(e, orchpb.EventType_WorkflowExecutionUpdateCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionUpdateCompletedEventAttributes{WorkflowExecutionUpdateCompletedEventAttributes: &orchpb.WorkflowExecutionUpdateCompletedEventAttributes{
				Meta: u.req.GetMeta(), Outcome: u.outcome, AcceptedEventId: u.acceptedID}}
		})
	}
	u.moved()
}

// applyProtocolMessage applies the message a PROTOCOL_MESSAGE command
// names (PROTOCOL_MESSAGE's rule). s.mu must be held.
func (s *Server) applyProtocolMessage(e *execution, a *orchpb.ProtocolMessageCommandAttributes, _ int64, _ string) {
	tm := e.eng.messages
	if tm == nil {
		return
	}
	if m := tm.byID[a.GetMessageId()]; m != nil {
		s.applyOnce(e, tm, m)
	}
}

// applyOnce applies m unless the task applied it already. s.mu must be
// held.
func (s *Server) applyOnce(e *execution, tm *taskMessages, m *orchpb.ProtocolMessage) {
	if !tm.applied[m.GetId()] {
		tm.applied[m.GetId()] = true
		s.applyMessage(e, m)
	}
}

// applyRestOfMessages applies the messages no command named, after the
// task's commands. s.mu must be held.
func (s *Server) applyRestOfMessages(e *execution, msgs []*orchpb.ProtocolMessage) {
	tm := e.eng.messages
	e.eng.messages = nil
	if tm == nil {
		return
	}
	for _, m := range msgs {
		s.applyOnce(e, tm, m)
	}
}

// executeMultiOperation is update-with-start: the update goes to the open
// run of the workflow id, or to a run this call starts, whose first
// workflow task carries it.
func (s *Server) executeMultiOperation(ctx context.Context, req *orchpb.ExecuteMultiOperationRequest) (*orchpb.ExecuteMultiOperationResponse, error) {
	ops := req.GetOperations()
	if len(ops) != 2 || ops[0].GetStartWorkflow() == nil || ops[1].GetUpdateWorkflow() == nil {
		return nil, badField("operations", "exactly two operations: a start_workflow, then an update_workflow")
	}
	start := proto.Clone(ops[0].GetStartWorkflow()).(*orchpb.StartWorkflowExecutionRequest)
	upd := ops[1].GetUpdateWorkflow()
	var v violations
	for i, ns := range []string{start.GetNamespace(), upd.GetNamespace()} {
		v.check(ns == "" || ns == req.GetNamespace(), fmt.Sprintf("operations[%d].namespace", i), "must be empty or the request's namespace")
	}
	v.check(upd.GetWorkflowExecution().GetWorkflowId() == "" || upd.GetWorkflowExecution().GetWorkflowId() == start.GetWorkflowId(),
		"operations[1].workflow_execution.workflow_id", "must be empty or the start's workflow_id")
	v.check(upd.GetWorkflowExecution().GetRunId() == "", "operations[1].workflow_execution.run_id", "must be empty: the run is the one started or running")
	v.check(upd.GetFirstExecutionRunId() == "", "operations[1].first_execution_run_id", "must be empty")
	if err := v.err(); err != nil {
		return nil, err
	}
	wait, err := checkUpdateRequest(upd)
	if err != nil {
		return nil, err
	}
	start.Namespace = req.GetNamespace()
	s.mu.Lock()
	u, started, err := s.updateWithStart(start, upd.GetRequest())
	var runID string
	if u != nil {
		runID = u.e.runID
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	ur, err := s.awaitUpdate(ctx, u, wait)
	if err != nil {
		return nil, err
	}
	return &orchpb.ExecuteMultiOperationResponse{Responses: []*orchpb.ExecuteMultiOperationResponse_Response{
		{Response: &orchpb.ExecuteMultiOperationResponse_Response_StartWorkflow{StartWorkflow: &orchpb.StartWorkflowExecutionResponse{RunId: runID, Started: started}}},
		{Response: &orchpb.ExecuteMultiOperationResponse_Response_UpdateWorkflow{UpdateWorkflow: ur}},
	}}, nil
}

// updateWithStart admits the update on the open run of start's workflow
// id, or starts a run carrying it. s.mu must be held.
func (s *Server) updateWithStart(start *orchpb.StartWorkflowExecutionRequest, req *orchpb.UpdateRequest) (*update, bool, error) {
	ns, err := s.st.namespace(start.GetNamespace())
	if err != nil {
		return nil, false, err
	}
	if wf := ns.workflows[start.GetWorkflowId()]; wf != nil && wf.latest().open() {
		// Running: the start is checked as a start would be, then only
		// the update goes in.
		if _, err := validateStart(start, ns); err != nil {
			return nil, false, err
		}
		u, err := s.addUpdate(wf.latest(), req, true)
		return u, false, err
	}
	var u *update
	var uerr error
	e, started, err := s.startWith(start, true, runExtras{first: func(e *execution) { u, uerr = s.addUpdate(e, req, false) }})
	if err != nil {
		return nil, false, err
	}
	if u == nil && uerr == nil { // the start's request id named a run started before
		u, uerr = s.addUpdate(e, req, true)
	}
	return u, started, uerr
}
