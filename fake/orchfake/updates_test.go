package orchfake_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
)

const (
	waitAccepted  = orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ACCEPTED
	waitCompleted = orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED
)

type updateResult struct {
	resp *orchpb.UpdateWorkflowExecutionResponse
	err  error
}

func updateReq(wfID, updateID, name string, wait orchpb.UpdateWorkflowExecutionLifecycleStage) *orchpb.UpdateWorkflowExecutionRequest {
	return &orchpb.UpdateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: wfID},
		WaitPolicy: &orchpb.UpdateWaitPolicy{LifecycleStage: wait},
		Request: &orchpb.UpdateRequest{Meta: &orchpb.UpdateMeta{UpdateId: updateID, Identity: "caller"},
			Input: &orchpb.UpdateInput{Name: name, Args: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(`5`)}}}}}}
}

// sendUpdate sends an update in the background: the call waits for a
// worker, which the test plays.
func sendUpdate(iv *invoker, req *orchpb.UpdateWorkflowExecutionRequest) <-chan updateResult {
	ch := make(chan updateResult, 1)
	own := *iv // call writes the invoker's last headers
	go func() {
		var resp orchpb.UpdateWorkflowExecutionResponse
		err := own.call(context.Background(), "UpdateWorkflowExecution", req, &resp)
		ch <- updateResult{&resp, err}
	}()
	return ch
}

// idleRun starts a run and completes its first task with no command, so
// the run waits with no workflow task outstanding.
func idleRun(t *testing.T, iv *invoker, id string) {
	t.Helper()
	req := startReq("default", id)
	req.TaskQueue = id
	mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	complete(t, iv, pollWF(t, iv, id).GetTaskToken())
}

func acceptMsg(req *orchpb.ProtocolMessage) *orchpb.ProtocolMessage {
	return &orchpb.ProtocolMessage{Id: req.GetProtocolInstanceId() + "/accept", ProtocolInstanceId: req.GetProtocolInstanceId(),
		Body: &orchpb.ProtocolMessage_Acceptance{Acceptance: &orchpb.UpdateAcceptance{AcceptedRequestMessageId: req.GetId(),
			AcceptedRequestSequencingEventId: req.GetEventId(), AcceptedRequest: req.GetRequest()}}}
}

func rejectMsg(req *orchpb.ProtocolMessage, why string) *orchpb.ProtocolMessage {
	return &orchpb.ProtocolMessage{Id: req.GetProtocolInstanceId() + "/reject", ProtocolInstanceId: req.GetProtocolInstanceId(),
		Body: &orchpb.ProtocolMessage_Rejection{Rejection: &orchpb.UpdateRejection{RejectedRequestMessageId: req.GetId(),
			RejectedRequest: req.GetRequest(), Failure: &orchpb.Failure{Message: why}}}}
}

func respondMsg(req *orchpb.ProtocolMessage, outcome *orchpb.UpdateOutcome) *orchpb.ProtocolMessage {
	return &orchpb.ProtocolMessage{Id: req.GetProtocolInstanceId() + "/respond", ProtocolInstanceId: req.GetProtocolInstanceId(),
		Body: &orchpb.ProtocolMessage_Response{Response: &orchpb.UpdateResponse{Meta: req.GetRequest().GetMeta(), Outcome: outcome}}}
}

func success(data string) *orchpb.UpdateOutcome {
	return &orchpb.UpdateOutcome{Value: &orchpb.UpdateOutcome_Success{Success: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(data)}}}}}
}

func protoCmd(m *orchpb.ProtocolMessage) *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_PROTOCOL_MESSAGE, Attributes: &orchpb.Command_ProtocolMessageCommandAttributes{
		ProtocolMessageCommandAttributes: &orchpb.ProtocolMessageCommandAttributes{MessageId: m.GetId()}}}
}

func answerTask(iv *invoker, tok []byte, msgs []*orchpb.ProtocolMessage, cmds ...*orchpb.Command) error {
	return iv.call(context.Background(), "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: tok,
		Commands: cmds, Messages: msgs, Identity: "wf-worker"}, &orchpb.RespondWorkflowTaskCompletedResponse{})
}

// updateRequestOf is the single update request a task carries.
func updateRequestOf(t *testing.T, wt *orchpb.PollWorkflowTaskQueueResponse) *orchpb.ProtocolMessage {
	t.Helper()
	if len(wt.GetProtocolMessages()) != 1 || wt.GetProtocolMessages()[0].GetRequest() == nil {
		t.Fatalf("task messages %v, want one update request", wt.GetProtocolMessages())
	}
	m := wt.GetProtocolMessages()[0]
	if m.GetEventId() != wt.GetStartedEventId()-1 {
		t.Fatalf("request sequenced after event %d, want %d", m.GetEventId(), wt.GetStartedEventId()-1)
	}
	return m
}

// An accepted update runs to its response: the caller waiting for
// COMPLETED gets the outcome, and the history records the acceptance and
// the completion where the commands placed them.
func TestUpdateAcceptedAndCompleted(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "upd-done-" + iv.name
			idleRun(t, iv, id)
			res := sendUpdate(iv, updateReq(id, "u1", "add", waitCompleted))
			wt := pollWF(t, iv, id)
			req := updateRequestOf(t, wt)
			if req.GetRequest().GetInput().GetName() != "add" || req.GetProtocolInstanceId() != "u1" {
				t.Fatalf("request %v", req)
			}
			acc, done := acceptMsg(req), respondMsg(req, success(`6`))
			if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{acc, done}, protoCmd(acc), protoCmd(done)); err != nil {
				t.Fatal(err)
			}
			r := <-res
			if r.err != nil {
				t.Fatal(r.err)
			}
			want := &orchpb.UpdateWorkflowExecutionResponse{UpdateRef: &orchpb.UpdateRef{WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id, RunId: r.resp.GetUpdateRef().GetWorkflowExecution().GetRunId()}, UpdateId: "u1"},
				Outcome: success(`6`), Stage: waitCompleted}
			if d := cmp.Diff(want, r.resp, protocmp.Transform()); d != "" {
				t.Fatalf("answer (-want +got)\n%s", d)
			}
			h := historyOf(t, iv, id)
			wantTypes := "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted," +
				"WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted,WorkflowExecutionUpdateAccepted,WorkflowExecutionUpdateCompleted"
			if got := eventTypes(h); got != wantTypes {
				t.Fatalf("history\n got %s\nwant %s", got, wantTypes)
			}
			a, c := h[7].GetWorkflowExecutionUpdateAcceptedEventAttributes(), h[8].GetWorkflowExecutionUpdateCompletedEventAttributes()
			if a.GetProtocolInstanceId() != "u1" || a.GetAcceptedRequest().GetInput().GetName() != "add" || c.GetAcceptedEventId() != 8 || c.GetMeta().GetUpdateId() != "u1" {
				t.Fatalf("events %v / %v", a, c)
			}
		})
	}
}

// The validator's rejection writes nothing but the workflow task; the
// caller gets the rejection as the outcome's failure.
func TestUpdateRejectedLeavesNoEvent(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "upd-rej-" + iv.name
			idleRun(t, iv, id)
			res := sendUpdate(iv, updateReq(id, "u1", "add", waitAccepted))
			wt := pollWF(t, iv, id)
			if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{rejectMsg(updateRequestOf(t, wt), "negative amounts are refused")}); err != nil {
				t.Fatal(err)
			}
			r := <-res
			if r.err != nil {
				t.Fatal(r.err)
			}
			if r.resp.GetStage() != waitCompleted || r.resp.GetOutcome().GetFailure().GetMessage() != "negative amounts are refused" {
				t.Fatalf("answer %v", r.resp)
			}
			if got := eventTypes(historyOf(t, iv, id)); strings.Contains(got, "Update") {
				t.Fatalf("history %s records the rejected update", got)
			}
		})
	}
}

// A retried update (its id again) is the first one: the same outcome,
// at once, with no new workflow task; on a closed run too. A new update on
// a closed run is refused.
func TestUpdateSameIDAndClosedRun(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "upd-dup-" + iv.name
			idleRun(t, iv, id)
			res := sendUpdate(iv, updateReq(id, "u1", "add", waitCompleted))
			wt := pollWF(t, iv, id)
			req := updateRequestOf(t, wt)
			// The handler failed: the failure is the outcome, recorded.
			acc := acceptMsg(req)
			failed := respondMsg(req, &orchpb.UpdateOutcome{Value: &orchpb.UpdateOutcome_Failure{Failure: &orchpb.Failure{Message: "out of stock"}}})
			if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{acc, failed}, protoCmd(acc)); err != nil {
				t.Fatal(err)
			}
			first := <-res
			if first.err != nil || first.resp.GetOutcome().GetFailure().GetMessage() != "out of stock" {
				t.Fatalf("first: %v %v", first.resp, first.err)
			}
			n := len(historyOf(t, iv, id))
			again := <-sendUpdate(iv, updateReq(id, "u1", "add", waitCompleted))
			if again.err != nil {
				t.Fatal(again.err)
			}
			if d := cmp.Diff(first.resp, again.resp, protocmp.Transform()); d != "" {
				t.Fatalf("retried update (-first +again)\n%s", d)
			}
			if m := len(historyOf(t, iv, id)); m != n {
				t.Fatalf("the retried update changed the history: %d events, then %d", n, m)
			}
			mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
			if r := <-sendUpdate(iv, updateReq(id, "u1", "add", waitCompleted)); r.err != nil || r.resp.GetOutcome().GetFailure().GetMessage() != "out of stock" {
				t.Fatalf("the same id on the closed run: %v %v", r.resp, r.err)
			}
			r := <-sendUpdate(iv, updateReq(id, "u2", "add", waitCompleted))
			wantCode(t, r.err, "WORKFLOW_EXECUTION_COMPLETED")
		})
	}
}

// Requests the service refuses before admitting anything.
func TestUpdateRequestRefused(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	idleRun(t, iv, "upd-bad")
	admitted := orchpb.UpdateWorkflowExecutionLifecycleStage_UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_ADMITTED
	for _, tc := range []struct {
		name string
		edit func(r *orchpb.UpdateWorkflowExecutionRequest)
		code string
	}{
		{"no update id", func(r *orchpb.UpdateWorkflowExecutionRequest) { r.Request.Meta.UpdateId = "" }, "INVALID_ARGUMENT"},
		{"no name", func(r *orchpb.UpdateWorkflowExecutionRequest) { r.Request.Input.Name = "" }, "INVALID_ARGUMENT"},
		{"long name", func(r *orchpb.UpdateWorkflowExecutionRequest) { r.Request.Input.Name = strings.Repeat("n", 1001) }, "INVALID_ARGUMENT"},
		{"wait for admitted", func(r *orchpb.UpdateWorkflowExecutionRequest) { r.WaitPolicy.LifecycleStage = admitted }, "INVALID_ARGUMENT"},
		{"unknown workflow", func(r *orchpb.UpdateWorkflowExecutionRequest) { r.WorkflowExecution.WorkflowId = "nobody" }, "WORKFLOW_EXECUTION_NOT_FOUND"},
		{"another chain", func(r *orchpb.UpdateWorkflowExecutionRequest) { r.FirstExecutionRunId = "not-the-first-run" }, "WORKFLOW_EXECUTION_NOT_FOUND"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := updateReq("upd-bad", "u-"+tc.name, "add", waitCompleted)
			tc.edit(req)
			wantCode(t, iv.call(t.Context(), "UpdateWorkflowExecution", req, &orchpb.UpdateWorkflowExecutionResponse{}), tc.code)
		})
	}
	if got := eventTypes(historyOf(t, iv, "upd-bad")); got != "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted" {
		t.Fatalf("a refused update changed the history: %s", got)
	}
}

// Answers the service refuses fail the workflow task
// (BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE) and change nothing else; the
// update is handed to the next task again.
func TestUpdateBadMessagesFailTheTask(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[1]
	for _, tc := range []struct {
		name string
		msgs func(req *orchpb.ProtocolMessage) ([]*orchpb.ProtocolMessage, []*orchpb.Command)
	}{
		{"response before acceptance", func(req *orchpb.ProtocolMessage) ([]*orchpb.ProtocolMessage, []*orchpb.Command) {
			return []*orchpb.ProtocolMessage{respondMsg(req, success(`1`))}, nil
		}},
		{"unknown update", func(req *orchpb.ProtocolMessage) ([]*orchpb.ProtocolMessage, []*orchpb.Command) {
			m := acceptMsg(req)
			m.ProtocolInstanceId = "someone-else"
			return []*orchpb.ProtocolMessage{m}, nil
		}},
		{"command names no message", func(req *orchpb.ProtocolMessage) ([]*orchpb.ProtocolMessage, []*orchpb.Command) {
			return nil, []*orchpb.Command{protoCmd(&orchpb.ProtocolMessage{Id: "missing"})}
		}},
		{"rejection with a command", func(req *orchpb.ProtocolMessage) ([]*orchpb.ProtocolMessage, []*orchpb.Command) {
			m := rejectMsg(req, "no")
			return []*orchpb.ProtocolMessage{m}, []*orchpb.Command{protoCmd(m)}
		}},
		{"accepted twice", func(req *orchpb.ProtocolMessage) ([]*orchpb.ProtocolMessage, []*orchpb.Command) {
			a, b := acceptMsg(req), acceptMsg(req)
			b.Id = "again"
			return []*orchpb.ProtocolMessage{a, b}, nil
		}},
		{"rejection without failure", func(req *orchpb.ProtocolMessage) ([]*orchpb.ProtocolMessage, []*orchpb.Command) {
			m := rejectMsg(req, "")
			m.GetRejection().Failure = nil
			return []*orchpb.ProtocolMessage{m}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "upd-badmsg-" + strings.ReplaceAll(tc.name, " ", "-")
			idleRun(t, iv, id)
			res := sendUpdate(iv, updateReq(id, "u1", "add", waitAccepted))
			wt := pollWF(t, iv, id)
			msgs, cmds := tc.msgs(updateRequestOf(t, wt))
			wantCode(t, answerTask(iv, wt.GetTaskToken(), msgs, cmds...), "INVALID_ARGUMENT")
			h := historyOf(t, iv, id)
			last := h[len(h)-1].GetWorkflowTaskFailedEventAttributes()
			if last.GetCause() != orchpb.WorkflowTaskFailedCause_BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE {
				t.Fatalf("history %s, last %v", eventTypes(h), last)
			}
			// The next attempt carries the update again; accepting it ends the wait.
			wt = pollWF(t, iv, id)
			acc := acceptMsg(updateRequestOf(t, wt))
			if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{acc}, protoCmd(acc)); err != nil {
				t.Fatal(err)
			}
			if r := <-res; r.err != nil || r.resp.GetStage() != waitAccepted || r.resp.GetOutcome() != nil {
				t.Fatalf("answer %v %v", r.resp, r.err)
			}
		})
	}
}

// An update that arrives while a task runs keeps that task from closing
// the run (UNHANDLED_UPDATE); the next task carries it.
func TestUpdateArrivingDuringTaskBlocksClose(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	req := startReq("default", "upd-unhandled")
	req.TaskQueue = "upd-unhandled"
	mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
	wt := pollWF(t, iv, "upd-unhandled")
	if len(wt.GetProtocolMessages()) != 0 {
		t.Fatalf("messages %v", wt.GetProtocolMessages())
	}
	admitted := make(chan struct{}, 1)
	orchfake.SetUpdateHook(s, func() { admitted <- struct{}{} })
	res := sendUpdate(iv, updateReq("upd-unhandled", "u1", "add", waitCompleted))
	<-admitted
	wantCode(t, answerTask(iv, wt.GetTaskToken(), nil, completeCmd()), "INVALID_ARGUMENT")
	h := historyOf(t, iv, "upd-unhandled")
	if c := h[len(h)-1].GetWorkflowTaskFailedEventAttributes().GetCause(); c != orchpb.WorkflowTaskFailedCause_UNHANDLED_UPDATE {
		t.Fatalf("history %s, cause %v", eventTypes(h), c)
	}
	wt = pollWF(t, iv, "upd-unhandled")
	req2 := updateRequestOf(t, wt)
	acc, done := acceptMsg(req2), respondMsg(req2, success(`"ok"`))
	if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{acc, done}, protoCmd(acc), protoCmd(done), completeCmd()); err != nil {
		t.Fatal(err)
	}
	if r := <-res; r.err != nil || string(r.resp.GetOutcome().GetSuccess().GetPayloads()[0].GetData()) != `"ok"` {
		t.Fatalf("answer %v %v", r.resp, r.err)
	}
}

// Update-with-start: no run of the id, so one starts and its first task
// carries the update; a second call with the run open only updates it.
func TestUpdateWithStart(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "uws-" + iv.name
			multi := func(updateID string) <-chan *orchpb.ExecuteMultiOperationResponse {
				start := startReq("", id)
				start.TaskQueue = id
				upd := updateReq("", updateID, "add", waitCompleted)
				upd.Namespace, upd.WorkflowExecution = "", nil
				ch := make(chan *orchpb.ExecuteMultiOperationResponse, 1)
				own := *iv
				go func() {
					var resp orchpb.ExecuteMultiOperationResponse
					if err := own.call(context.Background(), "ExecuteMultiOperation", &orchpb.ExecuteMultiOperationRequest{Namespace: "default", Operations: []*orchpb.ExecuteMultiOperationRequest_Operation{
						{Operation: &orchpb.ExecuteMultiOperationRequest_Operation_StartWorkflow{StartWorkflow: start}},
						{Operation: &orchpb.ExecuteMultiOperationRequest_Operation_UpdateWorkflow{UpdateWorkflow: upd}},
					}}, &resp); err != nil {
						t.Error(err)
					}
					ch <- &resp
				}()
				return ch
			}
			serve := func() {
				wt := pollWF(t, iv, id)
				req := updateRequestOf(t, wt)
				acc, done := acceptMsg(req), respondMsg(req, success(`"`+req.GetProtocolInstanceId()+`"`))
				if err := answerTask(iv, wt.GetTaskToken(), []*orchpb.ProtocolMessage{acc, done}, protoCmd(acc), protoCmd(done)); err != nil {
					t.Fatal(err)
				}
			}
			first := multi("u1")
			serve()
			r := <-first
			if len(r.GetResponses()) != 2 || !r.GetResponses()[0].GetStartWorkflow().GetStarted() ||
				string(r.GetResponses()[1].GetUpdateWorkflow().GetOutcome().GetSuccess().GetPayloads()[0].GetData()) != `"u1"` {
				t.Fatalf("first %v", r)
			}
			second := multi("u2")
			serve()
			r2 := <-second
			if r2.GetResponses()[0].GetStartWorkflow().GetStarted() || r2.GetResponses()[0].GetStartWorkflow().GetRunId() != r.GetResponses()[0].GetStartWorkflow().GetRunId() {
				t.Fatalf("second started a run: %v", r2)
			}
		})
	}
}

func TestUpdateWithStartRefusesOtherShapes(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[1]
	start := &orchpb.ExecuteMultiOperationRequest_Operation{Operation: &orchpb.ExecuteMultiOperationRequest_Operation_StartWorkflow{StartWorkflow: startReq("", "uws-bad")}}
	upd := updateReq("other-id", "u1", "add", waitCompleted)
	upd.Namespace = ""
	other := &orchpb.ExecuteMultiOperationRequest_Operation{Operation: &orchpb.ExecuteMultiOperationRequest_Operation_UpdateWorkflow{UpdateWorkflow: upd}}
	for name, ops := range map[string][]*orchpb.ExecuteMultiOperationRequest_Operation{
		"none": nil, "start only": {start}, "update first": {other, start}, "another workflow id": {start, other},
	} {
		err := iv.call(t.Context(), "ExecuteMultiOperation", &orchpb.ExecuteMultiOperationRequest{Namespace: "default", Operations: ops}, &orchpb.ExecuteMultiOperationResponse{})
		if ae := wantCode(t, err, "INVALID_ARGUMENT"); ae == nil {
			t.Fatal(name)
		}
	}
	if _, ok := s.Execution("default", "uws-bad", ""); ok {
		t.Fatal("a refused update-with-start started a run")
	}
}
