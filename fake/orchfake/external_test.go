package orchfake_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/apitwin/apitwin/orch/orchpb"
)

func signalCmd(ns, id, name string, childOnly bool) *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_SignalExternalWorkflowExecutionCommandAttributes{
		SignalExternalWorkflowExecutionCommandAttributes: &orchpb.SignalExternalWorkflowExecutionCommandAttributes{Namespace: ns,
			Execution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: name, Control: "c-1", ChildWorkflowOnly: childOnly,
			Input: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(`"hi"`)}}}}}}
}

func memoCmd(fields map[string]*orchpb.Payload) *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_UPSERT_WORKFLOW_PROPERTIES, Attributes: &orchpb.Command_UpsertWorkflowPropertiesCommandAttributes{
		UpsertWorkflowPropertiesCommandAttributes: &orchpb.UpsertWorkflowPropertiesCommandAttributes{UpsertedMemo: &orchpb.Memo{Fields: fields}}}}
}

// startOn starts a run of id on task queue q.
func startOn(t *testing.T, iv *invoker, id, q string) string {
	t.Helper()
	req := startReq("default", id)
	req.TaskQueue = q
	var r orchpb.StartWorkflowExecutionResponse
	mustCall(t, iv, "StartWorkflowExecution", req, &r)
	return r.GetRunId()
}

// TestSignalExternalDelivered: the target gets WorkflowExecutionSignaled
// naming the sender's run, and a workflow task; the sender gets
// ExternalWorkflowExecutionSignaled naming the target's run, and a task.
func TestSignalExternalDelivered(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		sender, target := "sender-"+iv.name, "target-"+iv.name
		senderRun := startOn(t, iv, sender, sender)
		targetRun := startOn(t, iv, target, target)
		complete(t, iv, pollWF(t, iv, target).GetTaskToken()) // the target waits
		complete(t, iv, pollWF(t, iv, sender).GetTaskToken(), signalCmd("", target, "hello", false))

		h := historyOf(t, iv, sender)
		if got := typesOf(h[4:]); got != "SignalExternalWorkflowExecutionInitiated ExternalWorkflowExecutionSignaled WorkflowTaskScheduled" {
			t.Fatalf("%s: sender %s", iv.name, typesOf(h))
		}
		wantInit := &orchpb.SignalExternalWorkflowExecutionInitiatedEventAttributes{WorkflowTaskCompletedEventId: 4, Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: target}, SignalName: "hello", Control: "c-1",
			Input: &orchpb.Payloads{Payloads: []*orchpb.Payload{{Data: []byte(`"hi"`)}}}}
		if diff := cmp.Diff(wantInit, h[4].GetSignalExternalWorkflowExecutionInitiatedEventAttributes(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: initiated (-want +got):\n%s", iv.name, diff)
		}
		wantDone := &orchpb.ExternalWorkflowExecutionSignaledEventAttributes{InitiatedEventId: 5, Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: target, RunId: targetRun}, Control: "c-1"}
		if diff := cmp.Diff(wantDone, h[5].GetExternalWorkflowExecutionSignaledEventAttributes(), protocmp.Transform()); diff != "" {
			t.Errorf("%s: signaled (-want +got):\n%s", iv.name, diff)
		}

		th := historyOf(t, iv, target)
		if got := typesOf(th[4:]); got != "WorkflowExecutionSignaled WorkflowTaskScheduled" {
			t.Fatalf("%s: target %s", iv.name, typesOf(th))
		}
		sig := th[4].GetWorkflowExecutionSignaledEventAttributes()
		if sig.GetSignalName() != "hello" || string(sig.GetInput().GetPayloads()[0].GetData()) != `"hi"` ||
			!cmp.Equal(sig.GetExternalWorkflowExecution(), &orchpb.WorkflowExecution{WorkflowId: sender, RunId: senderRun}, protocmp.Transform()) {
			t.Errorf("%s: the target's signal %v", iv.name, sig)
		}
		// Both have a task to see it.
		if tk := pollWF(t, iv, target); tk.GetWorkflowExecution().GetWorkflowId() != target {
			t.Errorf("%s: target task %v", iv.name, tk.GetWorkflowExecution())
		}
		if tk := pollWF(t, iv, sender); tk.GetWorkflowExecution().GetWorkflowId() != sender {
			t.Errorf("%s: sender task %v", iv.name, tk.GetWorkflowExecution())
		}
	}
}

// TestSignalExternalFailed: a signal to a workflow that never ran, to a
// closed one, to a non-child with child_workflow_only, or in an unknown
// namespace, records SignalExternalWorkflowExecutionFailed with its cause
// in the sender's history; the workflow task itself completes.
func TestSignalExternalFailed(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	const (
		notFound = orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND
		noNS     = orchpb.SignalExternalWorkflowExecutionFailedCause_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_FAILED_CAUSE_NAMESPACE_NOT_FOUND
	)
	for _, iv := range transports(t, s) {
		closed := "closed-" + iv.name
		startOn(t, iv, closed, closed)
		mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: closed}}, &orchpb.TerminateWorkflowExecutionResponse{})
		running := "running-" + iv.name
		startOn(t, iv, running, running)
		for _, c := range []struct {
			name string
			cmd  *orchpb.Command
			want orchpb.SignalExternalWorkflowExecutionFailedCause
		}{
			{"missing", signalCmd("", "nobody-"+iv.name, "s", false), notFound},
			{"closed", signalCmd("", closed, "s", false), notFound},
			{"not a child", signalCmd("", running, "s", true), notFound},
			{"unknown namespace", signalCmd("nowhere", running, "s", false), noNS},
		} {
			id := "failing-" + strings.ReplaceAll(c.name, " ", "-") + "-" + iv.name
			startOn(t, iv, id, id)
			complete(t, iv, pollWF(t, iv, id).GetTaskToken(), c.cmd)
			h := historyOf(t, iv, id)
			if got := typesOf(h[4:]); got != "SignalExternalWorkflowExecutionInitiated SignalExternalWorkflowExecutionFailed WorkflowTaskScheduled" {
				t.Fatalf("%s %s: %s", iv.name, c.name, typesOf(h))
			}
			f := h[5].GetSignalExternalWorkflowExecutionFailedEventAttributes()
			if f.GetCause() != c.want || f.GetInitiatedEventId() != 5 || f.GetWorkflowTaskCompletedEventId() != 4 || f.GetControl() != "c-1" {
				t.Errorf("%s %s: failed %v", iv.name, c.name, f)
			}
		}
		// The running one got none of them.
		if got := typesOf(historyOf(t, iv, running)); strings.Contains(got, "Signaled") {
			t.Errorf("%s: the running target got %s", iv.name, got)
		}
	}
}

// TestSignalExternalRefused: bad attributes fail the workflow task (the
// call is INVALID_ARGUMENT) and nothing is sent; a signal from a task that
// also closes its run is never sent, as the service drops it.
func TestSignalExternalRefused(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		target := "quiet-" + iv.name
		startOn(t, iv, target, target)
		big := signalCmd("", target, "s", false)
		big.GetSignalExternalWorkflowExecutionCommandAttributes().Input.Payloads[0].Data = bytes.Repeat([]byte("x"), 2<<20+1)
		for _, c := range []struct {
			name string
			cmd  *orchpb.Command
			want orchpb.WorkflowTaskFailedCause
		}{
			{"no signal name", signalCmd("", target, "", false), orchpb.WorkflowTaskFailedCause_BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES},
			{"no workflow id", signalCmd("", "", "s", false), orchpb.WorkflowTaskFailedCause_BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES},
			{"input too large", big, orchpb.WorkflowTaskFailedCause_BAD_SIGNAL_INPUT_SIZE},
			{"empty memo", memoCmd(nil), orchpb.WorkflowTaskFailedCause_BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES},
			{"memo field without a name", memoCmd(map[string]*orchpb.Payload{"": {Data: []byte(`1`)}}), orchpb.WorkflowTaskFailedCause_BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES},
		} {
			id := "refused-" + strings.ReplaceAll(c.name, " ", "-") + "-" + iv.name
			startOn(t, iv, id, id)
			err := iv.call(t.Context(), "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default",
				TaskToken: pollWF(t, iv, id).GetTaskToken(), Commands: []*orchpb.Command{c.cmd}}, &orchpb.RespondWorkflowTaskCompletedResponse{})
			if ae := wantCode(t, err, "INVALID_ARGUMENT"); !strings.Contains(ae.Message, c.want.String()) {
				t.Errorf("%s %s: %v", iv.name, c.name, ae)
			}
			h := historyOf(t, iv, id)
			if f := h[len(h)-1].GetWorkflowTaskFailedEventAttributes(); f.GetCause() != c.want {
				t.Errorf("%s %s: %s", iv.name, c.name, typesOf(h))
			}
		}
		closing := "closing-" + iv.name
		startOn(t, iv, closing, closing)
		complete(t, iv, pollWF(t, iv, closing).GetTaskToken(), signalCmd("", target, "s", false), completeCmd())
		if got := typesOf(historyOf(t, iv, closing)[4:]); got != "SignalExternalWorkflowExecutionInitiated WorkflowExecutionCompleted" {
			t.Errorf("%s: closing sender %s", iv.name, got)
		}
		if got := typesOf(historyOf(t, iv, target)); strings.Contains(got, "Signaled") {
			t.Errorf("%s: target got the signal of a closed sender: %s", iv.name, got)
		}
	}
}

// TestUpsertWorkflowProperties: UPSERT_WORKFLOW_PROPERTIES writes
// WorkflowPropertiesModified and changes the memo describe and list show,
// not the started event's; a null payload removes a field.
func TestUpsertWorkflowProperties(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	null := &orchpb.Payload{Metadata: map[string][]byte{"encoding": []byte("binary/null")}}
	for _, iv := range transports(t, s) {
		id := "props-" + iv.name
		req := startReq("default", id)
		req.TaskQueue = id
		req.Memo = &orchpb.Memo{Fields: map[string]*orchpb.Payload{"stage": {Data: []byte(`"new"`)}, "owner": {Data: []byte(`"ada"`)}}}
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		complete(t, iv, pollWF(t, iv, id).GetTaskToken(),
			memoCmd(map[string]*orchpb.Payload{"stage": {Data: []byte(`"paid"`)}, "owner": null, "amount": {Data: []byte(`12`)}}))
		h := historyOf(t, iv, id)
		if got := typesOf(h[4:]); got != "WorkflowPropertiesModified" {
			t.Fatalf("%s: %s", iv.name, typesOf(h))
		}
		if m := h[4].GetWorkflowPropertiesModifiedEventAttributes(); m.GetWorkflowTaskCompletedEventId() != 4 || len(m.GetUpsertedMemo().GetFields()) != 3 {
			t.Errorf("%s: event %v", iv.name, m)
		}
		want := map[string]string{"stage": `"paid"`, "amount": "12"}
		d := latest(t, iv, id)
		if diff := cmp.Diff(want, memoOf(d.GetExecutionInfo().GetMemo())); diff != "" {
			t.Errorf("%s: describe's memo (-want +got):\n%s", iv.name, diff)
		}
		if diff := cmp.Diff(map[string]string{"stage": `"new"`, "owner": `"ada"`}, memoOf(h[0].GetWorkflowExecutionStartedEventAttributes().GetMemo())); diff != "" {
			t.Errorf("%s: the started event's memo changed (-want +got):\n%s", iv.name, diff)
		}
		var list orchpb.ListWorkflowExecutionsResponse
		mustCall(t, iv, "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", Query: "WorkflowId = '" + id + "'"}, &list)
		if len(list.GetExecutions()) != 1 {
			t.Fatalf("%s: listed %d", iv.name, len(list.GetExecutions()))
		}
		if diff := cmp.Diff(want, memoOf(list.GetExecutions()[0].GetMemo())); diff != "" {
			t.Errorf("%s: list's memo (-want +got):\n%s", iv.name, diff)
		}
	}
}
