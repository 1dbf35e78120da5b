package orchfake_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

func memoOf(m *orchpb.Memo) map[string]string {
	out := map[string]string{}
	for k, p := range m.GetFields() {
		out[k] = string(p.GetData())
	}
	return out
}

// TestMemoUpdate: a task's memo_update changes the run's memo, not what
// its WorkflowExecutionStarted event recorded; a continue-as-new gives the
// new run the memo its command gives, none when it gives none, as the real
// service does.
func TestMemoUpdate(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	can := &orchpb.Command{CommandType: orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_ContinueAsNewWorkflowExecutionCommandAttributes{
		ContinueAsNewWorkflowExecutionCommandAttributes: &orchpb.ContinueAsNewWorkflowExecutionCommandAttributes{}}}
	for _, iv := range transports(t, s) {
		id := "memo-" + iv.name
		req := startReq("default", id)
		req.TaskQueue = id
		req.Memo = &orchpb.Memo{Fields: map[string]*orchpb.Payload{"a": {Data: []byte(`1`)}}}
		var started orchpb.StartWorkflowExecutionResponse
		mustCall(t, iv, "StartWorkflowExecution", req, &started)
		tok := pollWF(t, iv, id).GetTaskToken()
		mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: tok, Identity: "wf-worker",
			MemoUpdate: &orchpb.Memo{Fields: map[string]*orchpb.Payload{"b": {Data: []byte(`2`)}}}}, &orchpb.RespondWorkflowTaskCompletedResponse{})

		d := latest(t, iv, id)
		if diff := cmp.Diff(map[string]string{"a": "1", "b": "2"}, memoOf(d.GetExecutionInfo().GetMemo())); diff != "" {
			t.Errorf("%s: memo after the update (-want +got):\n%s", iv.name, diff)
		}
		st := d.GetWorkflowExecutionHistory()[0].GetWorkflowExecutionStartedEventAttributes()
		if diff := cmp.Diff(map[string]string{"a": "1"}, memoOf(st.GetMemo())); diff != "" {
			t.Errorf("%s: the started event's memo changed (-want +got):\n%s", iv.name, diff)
		}

		complete(t, iv, pollWFAfterSignal(t, iv, id), can)
		d = latest(t, iv, id)
		if d.GetExecutionInfo().GetExecution().GetRunId() == started.GetRunId() {
			t.Fatalf("%s: no new run", iv.name)
		}
		if diff := cmp.Diff(map[string]string{}, memoOf(d.GetExecutionInfo().GetMemo())); diff != "" {
			t.Errorf("%s: the new run's memo, none given (-want +got):\n%s", iv.name, diff)
		}

		given := proto.Clone(can).(*orchpb.Command)
		given.GetContinueAsNewWorkflowExecutionCommandAttributes().Memo = &orchpb.Memo{Fields: map[string]*orchpb.Payload{"c": {Data: []byte(`3`)}}}
		complete(t, iv, pollWFAfterSignal(t, iv, id), given)
		d = latest(t, iv, id)
		if diff := cmp.Diff(map[string]string{"c": "3"}, memoOf(d.GetExecutionInfo().GetMemo())); diff != "" {
			t.Errorf("%s: the new run's memo, one given (-want +got):\n%s", iv.name, diff)
		}
	}
}

// pollWFAfterSignal signals the run so it has a workflow task, and polls it.
func pollWFAfterSignal(t *testing.T, iv *invoker, id string) []byte {
	t.Helper()
	mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
		WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: "go"}, &orchpb.SignalWorkflowExecutionResponse{})
	return pollWF(t, iv, id).GetTaskToken()
}
