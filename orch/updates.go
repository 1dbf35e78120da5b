package orch

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/apitwin/apitwin/orch/orchpb"
)

func cloneUpdateRequest(r *orchpb.UpdateWorkflowExecutionRequest) *orchpb.UpdateWorkflowExecutionRequest {
	return proto.Clone(r).(*orchpb.UpdateWorkflowExecutionRequest)
}

// UpdateStage is how far an update has gone (the contract's
// UpdateWorkflowExecutionLifecycleStage).
type UpdateStage = orchpb.UpdateWorkflowExecutionLifecycleStage

// The stages an update call may wait for.
const (
	// UpdateAccepted: the workflow's validator let the update in; its
	// handler runs.
	UpdateAccepted = orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED
	// UpdateCompleted: the handler answered, or the validator rejected it.
	UpdateCompleted = orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED
)

// UpdateOptions are the optional settings of UpdateWorkflow.
type UpdateOptions struct {
	// UpdateID names the update within the run: an update sent again with
	// the same id is the same update (the same outcome; it never runs
	// twice). Empty means a random one.
	UpdateID string
	// WaitForStage is the stage UpdateWorkflow waits for: UpdateCompleted
	// (the default) or UpdateAccepted.
	WaitForStage UpdateStage
	// FirstExecutionRunID, when set, refuses a run of another chain of
	// the workflow id.
	FirstExecutionRunID string
	Header              map[string]any
}

// WorkflowUpdate is an update sent to a run: its ids, the stage it
// reached, and (once completed) its outcome.
type WorkflowUpdate struct {
	WorkflowID string
	RunID      string
	UpdateID   string
	Stage      UpdateStage
	// Run is the run updated (its Started says whether an
	// update-with-start started it).
	Run *WorkflowRun

	outcome *orchpb.UpdateOutcome
	req     *orchpb.UpdateWorkflowExecutionRequest
	c       *Client
}

// UpdateFailedError is the outcome of an update that the workflow's
// validator rejected or whose handler returned an error.
type UpdateFailedError struct {
	WorkflowID string
	UpdateID   string
	Failure    *orchpb.Failure
}

func (e *UpdateFailedError) Error() string {
	return fmt.Sprintf("orch: update %s of workflow %s failed: %s", e.UpdateID, e.WorkflowID, e.Failure.GetMessage())
}

// UpdateWorkflow sends an update named updateName with arg (JSON-encoded;
// nil for none) to a run (runID "" for the latest) and waits for
// opts.WaitForStage (UpdateCompleted by default). The workflow's
// validator may reject it: then nothing is recorded and the update's Get
// returns an *UpdateFailedError. The call waits as long as ctx allows: an
// update no worker takes ends with ctx's deadline. A run that is closed
// refuses a new update (ErrWorkflowExecutionCompleted's code).
func (c *Client) UpdateWorkflow(ctx context.Context, workflowID, runID, updateName string, arg any, opts *UpdateOptions) (*WorkflowUpdate, error) {
	req, err := c.updateRequest(workflowID, runID, updateName, arg, opts)
	if err != nil {
		return nil, err
	}
	u := &WorkflowUpdate{WorkflowID: workflowID, RunID: runID, UpdateID: req.GetRequest().GetMeta().GetUpdateId(), req: req, c: c}
	return u, u.wait(ctx, req.GetWaitPolicy().GetLifecycleStage())
}

func (c *Client) updateRequest(workflowID, runID, updateName string, arg any, opts *UpdateOptions) (*orchpb.UpdateWorkflowExecutionRequest, error) {
	var o UpdateOptions
	if opts != nil {
		o = *opts
	}
	if workflowID == "" || updateName == "" {
		return nil, errors.New("orch: an update needs a workflow id and an update name")
	}
	if o.UpdateID == "" {
		o.UpdateID = newUUID()
	}
	if o.WaitForStage == orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_UNSPECIFIED {
		o.WaitForStage = UpdateCompleted
	}
	args, err := encodeOptional(arg)
	if err != nil {
		return nil, err
	}
	in := &orchpb.UpdateInput{Name: updateName, Args: args}
	h, err := encodeMap(o.Header)
	if err != nil {
		return nil, fmt.Errorf("orch: header %w", err)
	}
	if h != nil {
		in.Header = &orchpb.Header{Fields: h}
	}
	return &orchpb.UpdateWorkflowExecutionRequest{
		Namespace:           c.namespace,
		WorkflowExecution:   execution(workflowID, runID),
		FirstExecutionRunId: o.FirstExecutionRunID,
		WaitPolicy:          &orchpb.UpdateWaitPolicy{LifecycleStage: o.WaitForStage},
		Request:             &orchpb.UpdateRequest{Meta: &orchpb.UpdateMeta{UpdateId: o.UpdateID, Identity: c.identity}, Input: in},
	}, nil
}

// wait sends the update (again: the same id is the same update) until it
// reaches stage: the service answers with the stage reached when its own
// wait runs out.
func (u *WorkflowUpdate) wait(ctx context.Context, stage UpdateStage) error {
	req := u.req
	if req.GetWaitPolicy().GetLifecycleStage() != stage {
		req = cloneUpdateRequest(req)
		req.WaitPolicy = &orchpb.UpdateWaitPolicy{LifecycleStage: stage}
	}
	for u.Stage < stage {
		resp, err := u.c.Raw().UpdateWorkflowExecution(ctx, req)
		if err != nil {
			return err
		}
		u.take(resp)
		if err := ctx.Err(); err != nil && u.Stage < stage {
			return contextError("UpdateWorkflowExecution", err)
		}
	}
	return nil
}

func (u *WorkflowUpdate) take(resp *orchpb.UpdateWorkflowExecutionResponse) {
	u.Stage, u.outcome = resp.GetStage(), resp.GetOutcome()
	if r := resp.GetUpdateRef().GetWorkflowExecution().GetRunId(); r != "" {
		u.RunID = r
		if u.Run == nil {
			u.Run = &WorkflowRun{ID: u.WorkflowID, RunID: r, c: u.c}
		}
	}
}

// Get waits for the update to complete and decodes its result into out (a
// pointer; nil to ignore it). A rejected or failed update is an
// *UpdateFailedError.
func (u *WorkflowUpdate) Get(ctx context.Context, out any) error {
	if u.Stage < UpdateCompleted {
		if err := u.wait(ctx, UpdateCompleted); err != nil {
			return err
		}
	}
	if f := u.outcome.GetFailure(); f != nil {
		return &UpdateFailedError{WorkflowID: u.WorkflowID, UpdateID: u.UpdateID, Failure: f}
	}
	if out == nil || len(u.outcome.GetSuccess().GetPayloads()) == 0 {
		return nil
	}
	return DecodePayloads(u.outcome.GetSuccess(), out)
}

// Update sends an update to the run; see Client.UpdateWorkflow.
func (r *WorkflowRun) Update(ctx context.Context, updateName string, arg any, opts *UpdateOptions) (*WorkflowUpdate, error) {
	return r.c.UpdateWorkflow(ctx, r.ID, r.RunID, updateName, arg, opts)
}

// UpdateWithStartWorkflow sends an update to the running execution of
// workflowID, or, when none runs, starts one of workflowType on taskQueue
// with input whose first workflow task carries the update, in one call
// (the service's ExecuteMultiOperation). It waits as UpdateWorkflow does;
// the update's Run says which run took it and whether this call started
// it. startOpts.ID is ignored (workflowID is the id).
func (c *Client) UpdateWithStartWorkflow(ctx context.Context, workflowID, updateName string, updateArg any, workflowType, taskQueue string, input any, startOpts *StartWorkflowOptions, opts *UpdateOptions) (*WorkflowUpdate, error) {
	var so StartWorkflowOptions
	if startOpts != nil {
		so = *startOpts
	}
	so.ID = workflowID
	start, err := c.startRequest(workflowType, taskQueue, input, &so)
	if err != nil {
		return nil, err
	}
	upd, err := c.updateRequest(workflowID, "", updateName, updateArg, opts)
	if err != nil {
		return nil, err
	}
	if upd.GetFirstExecutionRunId() != "" {
		return nil, errors.New("orch: UpdateWithStartWorkflow takes no FirstExecutionRunID")
	}
	resp, err := c.Raw().ExecuteMultiOperation(ctx, &orchpb.ExecuteMultiOperationRequest{Namespace: c.namespace, Operations: []*orchpb.ExecuteMultiOperationRequest_Operation{
		{Operation: &orchpb.ExecuteMultiOperationRequest_Operation_StartWorkflow{StartWorkflow: start}},
		{Operation: &orchpb.ExecuteMultiOperationRequest_Operation_UpdateWorkflow{UpdateWorkflow: upd}},
	}})
	if err != nil {
		return nil, err
	}
	rs := resp.GetResponses()
	if len(rs) != 2 {
		return nil, fmt.Errorf("orch: ExecuteMultiOperation answered %d responses, want 2", len(rs))
	}
	st := rs[0].GetStartWorkflow()
	u := &WorkflowUpdate{WorkflowID: workflowID, UpdateID: upd.GetRequest().GetMeta().GetUpdateId(), req: upd, c: c,
		Run: &WorkflowRun{ID: workflowID, RunID: st.GetRunId(), Started: st.GetStarted(), c: c}}
	u.take(rs[1].GetUpdateWorkflow())                      // the stage the start's answer reached: wait sends again only if short of it
	upd.WorkflowExecution = execution(workflowID, u.RunID) // the run that took it, for later waits
	return u, u.wait(ctx, upd.GetWaitPolicy().GetLifecycleStage())
}

// AcceptUpdate returns the acceptance of an update request (a protocol
// message of a workflow task) and the PROTOCOL_MESSAGE command that
// places it among the task's commands: the first things a worker sends
// for an update its validator lets in.
func AcceptUpdate(req *orchpb.ProtocolMessage) (*orchpb.ProtocolMessage, *orchpb.Command) {
	m := &orchpb.ProtocolMessage{Id: req.GetProtocolInstanceId() + "/accept", ProtocolInstanceId: req.GetProtocolInstanceId(),
		Body: &orchpb.ProtocolMessage_Acceptance{Acceptance: &orchpb.UpdateAcceptance{AcceptedRequestMessageId: req.GetId(),
			AcceptedRequestSequencingEventId: req.GetEventId(), AcceptedRequest: req.GetRequest()}}}
	return m, ProtocolMessageCommand(m.GetId())
}

// RejectUpdate returns the rejection of an update request by err (its
// validator's): nothing is recorded, and the caller gets err's message.
// A rejection takes no command.
func RejectUpdate(req *orchpb.ProtocolMessage, err error) *orchpb.ProtocolMessage {
	return &orchpb.ProtocolMessage{Id: req.GetProtocolInstanceId() + "/reject", ProtocolInstanceId: req.GetProtocolInstanceId(),
		Body: &orchpb.ProtocolMessage_Rejection{Rejection: &orchpb.UpdateRejection{RejectedRequestMessageId: req.GetId(),
			RejectedRequestSequencingEventId: req.GetEventId(), RejectedRequest: req.GetRequest(), Failure: failureFrom(err)}}}
}

// CompleteUpdate returns the response of an accepted update (updateID is
// its request's protocol_instance_id) and its PROTOCOL_MESSAGE command:
// result (JSON-encoded) when err is nil, else err as the failure.
func CompleteUpdate(updateID string, result any, err error) (*orchpb.ProtocolMessage, *orchpb.Command, error) {
	outcome := &orchpb.UpdateOutcome{}
	if err != nil {
		outcome.Value = &orchpb.UpdateOutcome_Failure{Failure: failureFrom(err)}
	} else {
		p, perr := EncodePayloads(result)
		if perr != nil {
			return nil, nil, perr
		}
		outcome.Value = &orchpb.UpdateOutcome_Success{Success: p}
	}
	m := &orchpb.ProtocolMessage{Id: updateID + "/complete", ProtocolInstanceId: updateID,
		Body: &orchpb.ProtocolMessage_Response{Response: &orchpb.UpdateResponse{Meta: &orchpb.UpdateMeta{UpdateId: updateID}, Outcome: outcome}}}
	return m, ProtocolMessageCommand(m.GetId()), nil
}

// ProtocolMessageCommand is the command that places the protocol message
// messageID (an acceptance or a response) among a task's commands.
func ProtocolMessageCommand(messageID string) *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_PROTOCOL_MESSAGE, Attributes: &orchpb.Command_ProtocolMessageCommandAttributes{
		ProtocolMessageCommandAttributes: &orchpb.ProtocolMessageCommandAttributes{MessageId: messageID}}}
}
