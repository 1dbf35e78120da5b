package orchfake_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// Over HTTP, payloads may be sent as plain JSON values (as well as the
// base64 wrapper) and, with Orch-Payloads: json, come back as plain JSON.
func TestPlainJSONPayloadsOverHTTP(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	base := s.URL() + "/api/v1/namespaces/default/workflows"
	status, _, body := rawHTTP(t, s, "POST", base, `{"workflow_id":"plain-1","workflow_type":{"name":"Order"},"task_queue":"q",
		"input":{"order":"o-1","total":42.5},"memo":{"fields":{"note":"rush"}},"header":{"fields":{"trace":[1,2]}}}`, nil)
	if status != http.StatusOK {
		t.Fatalf("start: %d %s", status, body)
	}
	status, _, body = rawHTTP(t, s, "POST", base+"/plain-1/runs/-/signal", `{"signal_name":"pay","input":[10,"EUR"]}`, nil)
	if status != http.StatusOK {
		t.Fatalf("signal: %d %s", status, body)
	}
	// The base64 wrapper still works.
	status, _, body = rawHTTP(t, s, "POST", base+"/plain-1/runs/-/signal", `{"signal_name":"pay","input":{"payloads":[{"metadata":{"encoding":"anNvbi9wbGFpbg=="},"data":"Mw=="}]}}`, nil)
	if status != http.StatusOK {
		t.Fatalf("signal with the wrapper: %d %s", status, body)
	}
	// Stored as json/plain payloads, whichever form came in.
	iv := transports(t, s)[0]
	h := historyOf(t, iv, "plain-1")
	in := h[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	if len(in) != 1 || string(in[0].GetData()) != `{"order":"o-1","total":42.5}` || string(in[0].GetMetadata()["encoding"]) != "json/plain" {
		t.Fatalf("input %v", in)
	}
	sig := h[2].GetWorkflowExecutionSignaledEventAttributes().GetInput().GetPayloads()
	if len(sig) != 2 || string(sig[0].GetData()) != "10" || string(sig[1].GetData()) != `"EUR"` {
		t.Fatalf("signal input %v", sig)
	}
	if string(h[3].GetWorkflowExecutionSignaledEventAttributes().GetInput().GetPayloads()[0].GetData()) != "3" {
		t.Fatalf("wrapped signal %v", h[3])
	}
	// Read back as plain JSON.
	status, _, body = rawHTTP(t, s, "GET", base+"/plain-1/runs/-/history", "", map[string]string{"Orch-Payloads": "json"})
	if status != http.StatusOK {
		t.Fatalf("history: %d %s", status, body)
	}
	var hist struct {
		History []map[string]json.RawMessage `json:"history"`
	}
	if err := json.Unmarshal(body, &hist); err != nil {
		t.Fatal(err)
	}
	started := string(hist.History[0]["workflow_execution_started_event_attributes"])
	for _, want := range []string{`"input":[{"order":"o-1","total":42.5}]`, `"note":"rush"`, `"trace":[1,2]`} {
		if !strings.Contains(started, want) {
			t.Errorf("plain answer lacks %s: %s", want, started)
		}
	}
	if signaled := string(hist.History[2]["workflow_execution_signaled_event_attributes"]); !strings.Contains(signaled, `"input":[10,"EUR"]`) {
		t.Errorf("signal: %s", signaled)
	}
	// Without the header the answer keeps the wrapper, as the SDK reads it.
	_, _, body = rawHTTP(t, s, "GET", base+"/plain-1/runs/-/history", "", nil)
	if !strings.Contains(string(body), `"payloads":[{"metadata":{"encoding":"anNvbi9wbGFpbg=="}`) {
		t.Errorf("default answer: %.300s", body)
	}
	var resp orchpb.GetWorkflowExecutionHistoryResponse
	mustCall(t, transports(t, s)[1], "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: "plain-1"}}, &resp)
}
