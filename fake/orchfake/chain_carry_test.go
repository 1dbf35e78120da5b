package orchfake_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// TestRetryAndCronRunsStartFromThePreviousStart: the next run of a retry
// policy or a cron schedule starts with the memo and search attributes its
// previous run started with (what that run's WorkflowExecutionStarted
// event recorded), as the real service does; what the previous run
// upserted or put in memo_update is not carried. For a run that was
// itself continued as new, that is what the continue-as-new gave it.
func TestRetryAndCronRunsStartFromThePreviousStart(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, name := range []string{"CustomerId", "Stage"} {
		if err := s.RegisterSearchAttribute("default", name, orchfake.Keyword); err != nil {
			t.Fatal(err)
		}
	}
	kw := func(v string) *orchpb.Payload { return &orchpb.Payload{Data: []byte(`"` + v + `"`)} }
	upsert := func(stage string) *orchpb.Command {
		return &orchpb.Command{CommandType: orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, Attributes: &orchpb.Command_UpsertWorkflowSearchAttributesCommandAttributes{
			UpsertWorkflowSearchAttributesCommandAttributes: &orchpb.UpsertWorkflowSearchAttributesCommandAttributes{
				SearchAttributes: &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"Stage": kw(stage)}}}}}
	}
	// The continue-as-new carries the run's current values and its retry
	// policy in its command, as an SDK does (the service carries none of
	// its own).
	can := &orchpb.Command{CommandType: orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_ContinueAsNewWorkflowExecutionCommandAttributes{
		ContinueAsNewWorkflowExecutionCommandAttributes: &orchpb.ContinueAsNewWorkflowExecutionCommandAttributes{
			SearchAttributes: &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"CustomerId": kw("acme"), "Stage": kw("paid")}},
			Memo:             &orchpb.Memo{Fields: map[string]*orchpb.Payload{"a": {Data: []byte(`1`)}, "b": {Data: []byte(`2`)}}},
			RetryPolicy:      &orchpb.RetryPolicy{InitialInterval: durationpb.New(10 * time.Second), MaximumAttempts: 3}}}}
	startSA := map[string]string{"CustomerId": `"acme"`, "Stage": `"new"`}
	startMemo := map[string]string{"a": "1"}

	for _, iv := range transports(t, s) {
		for _, c := range []struct {
			name string
			// canFirst: the first run upserts Stage=paid, adds memo b=2
			// and continues as new; the close below happens in that run.
			canFirst bool
			retry    bool // else cron
			close    *orchpb.Command
			wantSA   map[string]string // the next run's
			wantMemo map[string]string
		}{
			{name: "retry", retry: true, close: failCmd("Flaky", false), wantSA: startSA, wantMemo: startMemo},
			{name: "cron", close: completeCmd(), wantSA: startSA, wantMemo: startMemo},
			{name: "cron-failed", close: failCmd("Flaky", false), wantSA: startSA, wantMemo: startMemo},
			{name: "can-then-retry", canFirst: true, retry: true, close: failCmd("Flaky", false),
				wantSA: map[string]string{"CustomerId": `"acme"`, "Stage": `"paid"`}, wantMemo: map[string]string{"a": "1", "b": "2"}},
		} {
			id := "carry-" + iv.name + "-" + c.name
			req := startReq("default", id)
			req.TaskQueue = id
			req.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"CustomerId": kw("acme"), "Stage": kw("new")}}
			req.Memo = &orchpb.Memo{Fields: map[string]*orchpb.Payload{"a": {Data: []byte(`1`)}}}
			if c.retry {
				req.RetryPolicy = &orchpb.RetryPolicy{InitialInterval: durationpb.New(10 * time.Second), MaximumAttempts: 3}
			} else {
				req.CronSchedule = "@every 1h"
			}
			mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})

			// task answers the run's next workflow task (after its first
			// task backoff) with a memo update and the commands.
			task := func(memo map[string]*orchpb.Payload, cmds ...*orchpb.Command) string {
				t.Helper()
				d := latest(t, iv, id)
				s.Clock().Advance(d.GetWorkflowExecutionHistory()[0].GetWorkflowExecutionStartedEventAttributes().GetFirstWorkflowTaskBackoff().AsDuration())
				mustCall(t, iv, "RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: pollWF(t, iv, id).GetTaskToken(),
					Identity: "wf-worker", Commands: cmds, MemoUpdate: &orchpb.Memo{Fields: memo}}, &orchpb.RespondWorkflowTaskCompletedResponse{})
				return d.GetExecutionInfo().GetExecution().GetRunId()
			}
			if c.canFirst {
				task(map[string]*orchpb.Payload{"b": {Data: []byte(`2`)}}, upsert("paid"), can)
			}
			prevRun := task(map[string]*orchpb.Payload{"c": {Data: []byte(`3`)}}, upsert("shipped"), c.close)

			// The closed run keeps what it had when it ended.
			var prev orchpb.GetWorkflowExecutionResponse
			mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id, RunId: prevRun}}, &prev)
			if got := searchOf(prev.GetExecutionInfo().GetSearchAttributes())["Stage"]; got != `"shipped"` {
				t.Errorf("%s %s: the closed run's Stage is %s, want \"shipped\"", iv.name, c.name, got)
			}
			if got := memoOf(prev.GetExecutionInfo().GetMemo())["c"]; got != "3" {
				t.Errorf("%s %s: the closed run's memo c is %q, want 3", iv.name, c.name, got)
			}

			d := latest(t, iv, id)
			if d.GetExecutionInfo().GetExecution().GetRunId() == prevRun || d.GetExecutionInfo().GetStatus() != orchpb.WorkflowExecutionStatus_RUNNING {
				t.Fatalf("%s %s: no next run: %v", iv.name, c.name, d.GetExecutionInfo())
			}
			st := d.GetWorkflowExecutionHistory()[0].GetWorkflowExecutionStartedEventAttributes()
			if st.GetContinuedExecutionRunId() != prevRun {
				t.Fatalf("%s %s: the next run continues %q, want %q", iv.name, c.name, st.GetContinuedExecutionRunId(), prevRun)
			}
			if diff := cmp.Diff(c.wantSA, searchOf(d.GetExecutionInfo().GetSearchAttributes())); diff != "" {
				t.Errorf("%s %s: the next run's search attributes (-want +got):\n%s", iv.name, c.name, diff)
			}
			if diff := cmp.Diff(c.wantSA, searchOf(st.GetSearchAttributes())); diff != "" {
				t.Errorf("%s %s: the next run's started event search attributes (-want +got):\n%s", iv.name, c.name, diff)
			}
			if diff := cmp.Diff(c.wantMemo, memoOf(d.GetExecutionInfo().GetMemo())); diff != "" {
				t.Errorf("%s %s: the next run's memo (-want +got):\n%s", iv.name, c.name, diff)
			}
			if diff := cmp.Diff(c.wantMemo, memoOf(st.GetMemo())); diff != "" {
				t.Errorf("%s %s: the next run's started event memo (-want +got):\n%s", iv.name, c.name, diff)
			}

			// The list sees the next run by its own values, the closed run
			// by the ones it ended with.
			for _, q := range []struct {
				query string
				want  int
			}{
				{"ExecutionStatus = 'Running' AND Stage = '" + c.wantSA["Stage"][1:len(c.wantSA["Stage"])-1] + "'", 1},
				{"ExecutionStatus = 'Running' AND Stage = 'shipped'", 0},
				{"ExecutionStatus != 'Running' AND Stage = 'shipped'", 1},
			} {
				var list orchpb.ListWorkflowExecutionsResponse
				mustCall(t, iv, "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: "default",
					Query: "WorkflowId = '" + id + "' AND " + q.query}, &list)
				if got := len(list.GetExecutions()); got != q.want {
					t.Errorf("%s %s: %s lists %d runs, want %d", iv.name, c.name, q.query, got, q.want)
				}
			}
		}
	}
}
