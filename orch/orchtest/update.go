package orchtest

import (
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Update is an update sent with Env.UpdateWorkflow: what became of it as
// the env ran. Read it once ExecuteWorkflow returned (or from a later
// callback).
type Update struct {
	id      string
	run     *run
	req     *orchpb.UpdateRequest
	stage   orch.UpdateStage
	outcome *orchpb.UpdateOutcome
	aborted error
	accept  int64 // its WorkflowExecutionUpdateAccepted event
}

// ID is the update's id.
func (u *Update) ID() string { return u.id }

// Accepted reports whether the workflow accepted the update (its
// validator let it in); a rejected update is completed, not accepted.
func (u *Update) Accepted() bool { return u.accept > 0 }

// Completed reports whether the update has its outcome: its handler
// answered, or its validator rejected it.
func (u *Update) Completed() bool { return u.stage == orch.UpdateCompleted }

// Get decodes the update's result into out (a pointer; nil to ignore
// it), as orch.WorkflowUpdate's Get: a rejected or failed update is an
// *orch.UpdateFailedError; one not completed yet, or ended by the run's
// close, an error saying so.
func (u *Update) Get(out any) error {
	switch {
	case u.aborted != nil:
		return u.aborted
	case !u.Completed():
		return fmt.Errorf("orchtest: update %s has not completed", u.id)
	}
	if f := u.outcome.GetFailure(); f != nil {
		return &orch.UpdateFailedError{WorkflowID: u.run.id, UpdateID: u.id, Failure: f}
	}
	if out == nil || len(u.outcome.GetSuccess().GetPayloads()) == 0 {
		return nil
	}
	return orch.DecodePayloads(u.outcome.GetSuccess(), out)
}

// UpdateWorkflow sends the update updateName with arg (nil: none) to the
// executed workflow's latest run (from a callback of After), under
// updateID ("": a new id). It returns at once: the run's next workflow
// task takes the update, as a worker takes it from the service. An
// update id the run had already is that update (never run twice); a
// closed run refuses a new one.
func (e *Env) UpdateWorkflow(updateName, updateID string, arg any) (*Update, error) {
	if e.root == nil {
		return nil, errors.New("orchtest: UpdateWorkflow before ExecuteWorkflow: send it from a callback (After)")
	}
	return e.UpdateWorkflowByID(e.root.id, updateName, updateID, arg)
}

// UpdateWorkflowByID is UpdateWorkflow to the latest run of workflowID.
func (e *Env) UpdateWorkflowByID(workflowID, updateName, updateID string, arg any) (*Update, error) {
	var r *run
	for _, x := range e.runs {
		if x.id == workflowID {
			r = x
		}
	}
	if r == nil {
		return nil, e.notOpen(workflowID)
	}
	if updateName == "" {
		return nil, errors.New("orchtest: an update needs a name")
	}
	if updateID == "" {
		e.updateSeq++
		updateID = fmt.Sprintf("orchtest-update-%d", e.updateSeq)
	}
	if u := r.updates[updateID]; u != nil {
		return u, nil
	}
	if r.closed {
		return nil, e.notOpen(workflowID)
	}
	in := &orchpb.UpdateInput{Name: updateName}
	if arg != nil {
		p, err := orch.EncodePayloads(arg)
		if err != nil {
			return nil, err
		}
		in.Args = p
	}
	u := &Update{id: updateID, run: r, stage: orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED,
		req: &orchpb.UpdateRequest{Meta: &orchpb.UpdateMeta{UpdateId: updateID, Identity: Identity}, Input: in}}
	if r.updates == nil {
		r.updates = map[string]*Update{}
	}
	r.updates[updateID] = u
	r.admitted = append(r.admitted, u)
	r.newEvents()
	return u, nil
}

// deliverUpdates are the update requests of the task started at
// startedID: the run's admitted updates.
func (r *run) deliverUpdates(startedID int64) []*orchpb.ProtocolMessage {
	var msgs []*orchpb.ProtocolMessage
	for _, u := range r.admitted {
		msgs = append(msgs, &orchpb.ProtocolMessage{Id: u.id + "/request", ProtocolInstanceId: u.id,
			SequencingId: &orchpb.ProtocolMessage_EventId{EventId: startedID - 1},
			Body:         &orchpb.ProtocolMessage_Request{Request: u.req}})
	}
	r.admitted = nil
	return msgs
}

// checkMessages refuses what the service refuses of a task's messages
// and PROTOCOL_MESSAGE commands (see orchfake): a command naming no
// message, a message about no open update or out of order.
func checkMessages(r *run, msgs []*orchpb.ProtocolMessage, cmds []*orchpb.Command) error {
	byID := map[string]*orchpb.ProtocolMessage{}
	for _, m := range msgs {
		byID[m.GetId()] = m
	}
	for i, c := range cmds {
		if c.GetCommandType() == orchpb.CommandType_PROTOCOL_MESSAGE && byID[c.GetProtocolMessageCommandAttributes().GetMessageId()] == nil {
			return fmt.Errorf("command %d: BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE: no message %q in the task's messages", i, c.GetProtocolMessageCommandAttributes().GetMessageId())
		}
	}
	for _, m := range msgs {
		if u := r.updates[m.GetProtocolInstanceId()]; u == nil || u.aborted != nil || u.Completed() {
			return fmt.Errorf("BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE: message %q: no update %q open in this run", m.GetId(), m.GetProtocolInstanceId())
		}
	}
	return nil
}

// applyMessage applies one message of a completed task: the events and
// the outcome, as orchfake does.
func (r *run) applyMessage(m *orchpb.ProtocolMessage) {
	u := r.updates[m.GetProtocolInstanceId()]
	if u == nil || r.closed || u.aborted != nil {
		return
	}
	switch {
	case m.GetAcceptance() != nil:
		u.accept = r.add(orchpb.EventType_WorkflowExecutionUpdateAccepted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionUpdateAcceptedEventAttributes{WorkflowExecutionUpdateAcceptedEventAttributes: &orchpb.WorkflowExecutionUpdateAcceptedEventAttributes{
				ProtocolInstanceId: u.id, AcceptedRequestMessageId: u.id + "/request",
				AcceptedRequestSequencingEventId: m.GetAcceptance().GetAcceptedRequestSequencingEventId(), AcceptedRequest: u.req}}
		}).GetEventId()
		u.stage = orch.UpdateAccepted
	case m.GetRejection() != nil:
		u.stage = orch.UpdateCompleted
		u.outcome = &orchpb.UpdateOutcome{Value: &orchpb.UpdateOutcome_Failure{Failure: m.GetRejection().GetFailure()}}
	case m.GetResponse() != nil:
		u.stage, u.outcome = orch.UpdateCompleted, m.GetResponse().GetOutcome()
		r.add(orchpb.EventType_WorkflowExecutionUpdateCompleted, func(ev *orchpb.HistoryEvent) {
			ev.Attributes = &orchpb.HistoryEvent_WorkflowExecutionUpdateCompletedEventAttributes{WorkflowExecutionUpdateCompletedEventAttributes: &orchpb.WorkflowExecutionUpdateCompletedEventAttributes{
				Meta: u.req.GetMeta(), Outcome: u.outcome, AcceptedEventId: u.accept}}
		})
	}
}

// abortUpdates ends the updates a closing run leaves open.
func (r *run) abortUpdates() {
	for _, u := range r.updates {
		if !u.Completed() && u.aborted == nil {
			u.aborted = fmt.Errorf("orchtest: update %s: workflow %s: workflow execution already completed", u.id, r.id)
		}
	}
	r.admitted = nil
}
