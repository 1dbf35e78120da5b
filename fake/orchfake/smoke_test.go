package orchfake_test

import (
	"encoding/base64"
	"testing"

	"github.com/apitwin/apitwin/orch/orchpb"
)

func urlSafe(b []byte) string { return base64.URLEncoding.EncodeToString(b) }

func TestSmoke(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		var resp orchpb.StartWorkflowExecutionResponse
		mustCall(t, iv, "StartWorkflowExecution", &orchpb.StartWorkflowExecutionRequest{
			Namespace: "default", WorkflowId: "wf-" + iv.name, WorkflowType: &orchpb.WorkflowType{Name: "Order"}, TaskQueue: "orders",
		}, &resp)
		if resp.RunId == "" || !resp.Started {
			t.Fatalf("%s: %v", iv.name, &resp)
		}
		var get orchpb.GetWorkflowExecutionResponse
		mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: "wf-" + iv.name}}, &get)
		if len(get.WorkflowExecutionHistory) != 2 {
			t.Fatalf("%s: history %v", iv.name, get.WorkflowExecutionHistory)
		}
		t.Logf("%s headers %v", iv.name, iv.last)
	}
}
