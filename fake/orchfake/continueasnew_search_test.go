package orchfake_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// searchOf is a run's search attributes as name -> JSON text.
func searchOf(sa *orchpb.SearchAttributes) map[string]string {
	out := map[string]string{}
	for k, p := range sa.GetIndexedFields() {
		out[k] = string(p.GetData())
	}
	return out
}

// TestContinueAsNewTakesTheCommandsSearchAttributes: the new run of a
// continue-as-new has the search attributes its command gives, and none
// when it gives none, as the real service takes them (an SDK that carries
// the run's current ones, upserts included, puts them in the command).
func TestContinueAsNewTakesTheCommandsSearchAttributes(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, name := range []string{"CustomerId", "Stage"} {
		if err := s.RegisterSearchAttribute("default", name, orchfake.Keyword); err != nil {
			t.Fatal(err)
		}
	}
	kw := func(v string) *orchpb.Payload { return &orchpb.Payload{Data: []byte(`"` + v + `"`)} }
	upsert := &orchpb.Command{CommandType: orchpb.CommandType_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, Attributes: &orchpb.Command_UpsertWorkflowSearchAttributesCommandAttributes{
		UpsertWorkflowSearchAttributesCommandAttributes: &orchpb.UpsertWorkflowSearchAttributesCommandAttributes{
			SearchAttributes: &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"Stage": kw("paid")}}}}}
	can := func(sa *orchpb.SearchAttributes) *orchpb.Command {
		return &orchpb.Command{CommandType: orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_ContinueAsNewWorkflowExecutionCommandAttributes{
			ContinueAsNewWorkflowExecutionCommandAttributes: &orchpb.ContinueAsNewWorkflowExecutionCommandAttributes{SearchAttributes: sa}}}
	}
	for _, iv := range transports(t, s) {
		for _, c := range []struct {
			name  string
			given *orchpb.SearchAttributes
			want  map[string]string
		}{
			{"none given", nil, map[string]string{}},
			{"given", &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"Stage": kw("new")}}, map[string]string{"Stage": `"new"`}},
			{"the current ones given", &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"CustomerId": kw("acme"), "Stage": kw("paid")}},
				map[string]string{"CustomerId": `"acme"`, "Stage": `"paid"`}},
		} {
			id := "can-sa-" + iv.name + "-" + c.name
			req := startReq("default", id)
			req.TaskQueue = id
			req.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: map[string]*orchpb.Payload{"CustomerId": kw("acme")}}
			var started orchpb.StartWorkflowExecutionResponse
			mustCall(t, iv, "StartWorkflowExecution", req, &started)
			complete(t, iv, pollWF(t, iv, id).GetTaskToken(), upsert, can(c.given))

			d := latest(t, iv, id)
			if d.GetExecutionInfo().GetExecution().GetRunId() == started.GetRunId() {
				t.Fatalf("%s %s: no new run", iv.name, c.name)
			}
			if diff := cmp.Diff(c.want, searchOf(d.GetExecutionInfo().GetSearchAttributes())); diff != "" {
				t.Errorf("%s %s: the new run's search attributes (-want +got):\n%s", iv.name, c.name, diff)
			}
			st := d.GetWorkflowExecutionHistory()[0].GetWorkflowExecutionStartedEventAttributes()
			if diff := cmp.Diff(c.want, searchOf(st.GetSearchAttributes())); diff != "" {
				t.Errorf("%s %s: the new run's started event (-want +got):\n%s", iv.name, c.name, diff)
			}
			stage, ok := c.want["Stage"]
			if !ok {
				continue
			}
			stage = strings.Trim(stage, `"`)
			var list orchpb.ListWorkflowExecutionsResponse
			mustCall(t, iv, "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: "default",
				Query: "WorkflowId = '" + id + "' AND ExecutionStatus = 'Running' AND Stage = '" + stage + "'"}, &list)
			if len(list.GetExecutions()) != 1 {
				t.Errorf("%s %s: Stage = '%s' lists %d running runs, want 1", iv.name, c.name, stage, len(list.GetExecutions()))
			}
		}
	}
}
