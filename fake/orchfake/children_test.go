package orchfake_test

import (
	"strings"
	"testing"

	"github.com/apitwin/apitwin/orch/orchpb"
)

func historyOf(t *testing.T, iv *invoker, id string) []*orchpb.HistoryEvent {
	t.Helper()
	var h orchpb.GetWorkflowExecutionHistoryResponse
	mustCall(t, iv, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default",
		Execution: &orchpb.WorkflowExecution{WorkflowId: id}}, &h)
	return h.GetHistory()
}

func typesOf(evs []*orchpb.HistoryEvent) string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.GetEventType().String())
	}
	return strings.Join(out, " ")
}

func signalWithStartReq(id, q, signal string, rid string) *orchpb.SignalWithStartWorkflowExecutionRequest {
	return &orchpb.SignalWithStartWorkflowExecutionRequest{Namespace: "default", WorkflowId: id, WorkflowType: &orchpb.WorkflowType{Name: "Order"},
		TaskQueue: q, SignalName: signal, SignalInput: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(`"paid"`)}}}, RequestId: rid}
}

// SignalWithStart starts a run whose first event after the start is the
// signal, or only signals the running one; a repeated request id records
// the signal once.
func TestSignalWithStart(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		id, q := "sws-"+iv.name, "sws-"+iv.name
		var r1, r2, r3 orchpb.SignalWithStartWorkflowExecutionResponse
		mustCall(t, iv, "SignalWithStartWorkflowExecution", signalWithStartReq(id, q, "pay", "r1"), &r1)
		if !r1.GetStarted() || r1.GetRunId() == "" {
			t.Fatalf("%s: first call %v", iv.name, &r1)
		}
		if got := typesOf(historyOf(t, iv, id)); got != "WorkflowExecutionStarted WorkflowExecutionSignaled WorkflowTaskScheduled" {
			t.Fatalf("%s: history %s", iv.name, got)
		}
		mustCall(t, iv, "SignalWithStartWorkflowExecution", signalWithStartReq(id, q, "ship", "r2"), &r2)
		mustCall(t, iv, "SignalWithStartWorkflowExecution", signalWithStartReq(id, q, "ship", "r2"), &r3)
		if r2.GetStarted() || r2.GetRunId() != r1.GetRunId() || r3.GetRunId() != r1.GetRunId() {
			t.Fatalf("%s: on the running run %v %v", iv.name, &r2, &r3)
		}
		h := historyOf(t, iv, id)
		if got := typesOf(h); got != "WorkflowExecutionStarted WorkflowExecutionSignaled WorkflowTaskScheduled WorkflowExecutionSignaled" {
			t.Fatalf("%s: history %s", iv.name, got)
		}
		if h[3].GetWorkflowExecutionSignaledEventAttributes().GetSignalName() != "ship" {
			t.Errorf("%s: %v", iv.name, h[3])
		}
		// A closed run: a new one starts (the reuse policy allows it).
		mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
		var r4 orchpb.SignalWithStartWorkflowExecutionResponse
		mustCall(t, iv, "SignalWithStartWorkflowExecution", signalWithStartReq(id, q, "again", "r4"), &r4)
		if !r4.GetStarted() || r4.GetRunId() == r1.GetRunId() {
			t.Errorf("%s: after close %v", iv.name, &r4)
		}
		// Bad input changes nothing.
		bad := signalWithStartReq(id+"-bad", q, "", "")
		err := iv.call(t.Context(), "SignalWithStartWorkflowExecution", bad, &orchpb.SignalWithStartWorkflowExecutionResponse{})
		wantCode(t, err, "INVALID_ARGUMENT")
	}
}

func startChildCmd(id string, policy orchpb.ParentClosePolicy) *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_START_CHILD_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_StartChildWorkflowExecutionCommandAttributes{
		StartChildWorkflowExecutionCommandAttributes: &orchpb.StartChildWorkflowExecutionCommandAttributes{WorkflowId: id, WorkflowType: &orchpb.WorkflowType{Name: "Child"},
			Input: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(`7`)}}}, ParentClosePolicy: policy}}}
}

// A child workflow: initiated and started events in the parent, the
// child's parent fields, its result delivered to the parent.
func TestChildWorkflowResultReachesParent(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		q := "kids-" + iv.name
		parent := "parent-" + iv.name
		req := startReq("default", parent)
		req.TaskQueue = q
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		complete(t, iv, pollWF(t, iv, q).GetTaskToken(), startChildCmd("child-"+iv.name, 0))
		if got := typesOf(historyOf(t, iv, parent)); !strings.HasSuffix(got, "WorkflowTaskCompleted StartChildWorkflowExecutionInitiated ChildWorkflowExecutionStarted WorkflowTaskScheduled") {
			t.Fatalf("%s: parent %s", iv.name, got)
		}
		// The child's task (the parent's task follows it in the queue).
		var childTask *orchpb.PollWorkflowTaskQueueResponse
		for range 2 {
			wt := pollWF(t, iv, q)
			if wt.GetWorkflowExecution().GetWorkflowId() == "child-"+iv.name {
				childTask = wt
				continue
			}
			complete(t, iv, wt.GetTaskToken()) // the parent waits
		}
		st := childTask.GetHistory()[0].GetWorkflowExecutionStartedEventAttributes()
		if st.GetParentWorkflowExecution().GetWorkflowId() != parent || st.GetParentInitiatedEventId() == 0 {
			t.Fatalf("%s: child started %v", iv.name, st)
		}
		complete(t, iv, childTask.GetTaskToken(), completeCmd())
		h := historyOf(t, iv, parent)
		last := h[len(h)-2]
		if last.GetEventType() != orchpb.EventType_ChildWorkflowExecutionCompleted ||
			string(last.GetChildWorkflowExecutionCompletedEventAttributes().GetResult().GetPayloads()[0].GetData()) != `"done"` {
			t.Fatalf("%s: parent %s", iv.name, typesOf(h))
		}
		// Starting a child whose id is running fails in history, not the task.
		wt := pollWF(t, iv, q)
		complete(t, iv, wt.GetTaskToken(), startChildCmd(parent, 0))
		h = historyOf(t, iv, parent)
		if f := h[len(h)-2].GetStartChildWorkflowExecutionFailedEventAttributes(); f.GetCause() != orchpb.StartChildWorkflowExecutionFailedCause_WORKFLOW_ALREADY_EXISTS {
			t.Errorf("%s: %s", iv.name, typesOf(h))
		}
	}
}

// Parent close policies: terminate (the default), abandon, request cancel.
func TestParentClosePolicies(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		q := "pcp-" + iv.name
		parent := "pcp-parent-" + iv.name
		req := startReq("default", parent)
		req.TaskQueue = q
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		complete(t, iv, pollWF(t, iv, q).GetTaskToken(),
			startChildCmd("t-"+iv.name, orchpb.ParentClosePolicy_TERMINATE),
			startChildCmd("a-"+iv.name, orchpb.ParentClosePolicy_ABANDON),
			startChildCmd("c-"+iv.name, orchpb.ParentClosePolicy_REQUEST_CANCEL))
		for {
			wt := pollWF(t, iv, q)
			if wt.GetWorkflowExecution().GetWorkflowId() == parent {
				complete(t, iv, wt.GetTaskToken(), completeCmd())
				break
			}
			complete(t, iv, wt.GetTaskToken())
		}
		var d orchpb.GetWorkflowExecutionResponse
		for id, want := range map[string]orchpb.WorkflowExecutionStatus{
			"t-" + iv.name: orchpb.WorkflowExecutionStatus_TERMINATED,
			"a-" + iv.name: orchpb.WorkflowExecutionStatus_RUNNING,
			"c-" + iv.name: orchpb.WorkflowExecutionStatus_RUNNING,
		} {
			mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id}}, &d)
			if d.GetExecutionInfo().GetStatus() != want {
				t.Errorf("%s: %s is %s, want %s", iv.name, id, d.GetExecutionInfo().GetStatus(), want)
			}
		}
		h := historyOf(t, iv, "c-"+iv.name)
		if got := typesOf(h); !strings.Contains(got, "WorkflowExecutionCancelRequested") {
			t.Errorf("%s: the REQUEST_CANCEL child: %s", iv.name, got)
		}
		if h := historyOf(t, iv, "a-"+iv.name); strings.Contains(typesOf(h), "CancelRequested") {
			t.Errorf("%s: the abandoned child: %s", iv.name, typesOf(h))
		}
	}
}
