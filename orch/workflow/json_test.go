package workflow_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/orch/workflow"
)

// recorded is greet's whole run, as a sim writes it.
func recorded(t testing.TB) *sim {
	s := newSim(t, workflow.New(greet), "Ed")
	s.task()
	s.activityCompleted("1", "Hello, Ed")
	s.task()
	s.signal("suffix", "!")
	s.task()
	s.timerFired("2")
	s.task()
	return s
}

func TestParseHistoryJSON(t *testing.T) {
	t.Parallel()
	s := recorded(t)
	wrapped, err := orchwire.MarshalJSON.Marshal(&orchpb.GetWorkflowExecutionHistoryResponse{History: s.events})
	if err != nil {
		t.Fatal(err)
	}
	var list []json.RawMessage
	for _, ev := range s.events {
		raw, err := orchwire.MarshalJSON.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, raw)
	}
	bare, _ := json.Marshal(list)
	for name, data := range map[string][]byte{"response": wrapped, "array": bare} {
		h, err := workflow.ParseHistoryJSON(data)
		if err != nil || len(h) != len(s.events) {
			t.Fatalf("%s: %d events, %v", name, len(h), err)
		}
		if err := workflow.Replay(h, greet); err != nil {
			t.Errorf("%s: Replay: %v", name, err)
		}
	}
	for _, bad := range []string{"", "{}", `{"history":[]}`, "[1]", `{"history":"x"}`, "nope"} {
		if _, err := workflow.ParseHistoryJSON([]byte(bad)); err == nil {
			t.Errorf("ParseHistoryJSON(%q) accepted", bad)
		}
	}
}

// FuzzReplay: any JSON history, however damaged, is parsed and replayed
// without a panic or a hang; what it says is an error or nothing.
func FuzzReplay(f *testing.F) {
	s := recorded(f)
	good, _ := orchwire.MarshalJSON.Marshal(&orchpb.GetWorkflowExecutionHistoryResponse{History: s.events})
	f.Add(good)
	f.Add([]byte(strings.Replace(string(good), `"suffix"`, `"other"`, 1)))
	f.Add([]byte(strings.Replace(string(good), `"Greet"`, `"Wave"`, 1)))
	f.Add([]byte(`[{"event_id":"1","event_type":"WorkflowExecutionStarted","workflow_execution_started_event_attributes":{}},{"event_id":"3","workflow_task_completed_event_attributes":{"started_event_id":"2"}}]`))
	f.Add([]byte(`[{"event_id":"2"},{"event_id":"1"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := workflow.ParseHistoryJSON(data)
		if err != nil {
			return
		}
		err = workflow.Replay(h, greet)
		var nde *workflow.NonDeterminismError
		if errors.As(err, &nde) && nde.Error() == "" {
			t.Fatal("empty message")
		}
		_ = workflow.Replay(h, func(ctx workflow.Context, _ any) (int, error) {
			workflow.Go(ctx, func(ctx workflow.Context) { _ = workflow.Sleep(ctx, time.Second) })
			return 0, workflow.Sleep(ctx, time.Minute)
		})
	})
}
