package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// seedTools are the specification's thirteen tools, which keep their
// names and params; addedTools are the gateway's own beyond them.
var (
	seedTools = []string{"list_projects", "get_project", "list_issues", "create_issue",
		"list_merge_requests", "create_merge_request", "list_pipelines", "trigger_pipeline",
		"get_file_content", "list_repository_files", "search_projects", "search_issues", "configure_webhook"}
	addedTools = []string{"list_hooks", "delete_hook",
		"get_issue", "update_issue", "close_issue", "reopen_issue", "list_issue_notes", "create_issue_note",
		"get_merge_request", "get_merge_request_changes", "merge_merge_request", "list_merge_request_notes", "create_merge_request_note",
		"list_pipeline_jobs", "get_job_log", "search"}
)

// toolCalls are, for each tool, calls that succeed against the test's
// fake (as JSON arguments, $PID the project, $HOOK its first webhook,
// $PIPELINE its first pipeline and $JOB that one's first job), in an order where each finds what the ones before made.
var toolCalls = []struct{ tool, args string }{
	{"list_projects", `{}`},
	{"get_project", `{"project_id":$PID}`},
	{"search_projects", `{"search":"sho"}`},
	{"list_issues", `{"project_id":$PID}`},
	{"create_issue", `{"project_id":$PID,"title":"Refund button","labels":["bug"]}`},
	{"search_issues", `{"search":"refund"}`},
	{"list_merge_requests", `{"project_id":$PID}`},
	{"create_merge_request", `{"project_id":$PID,"title":"Feature","source_branch":"feature","target_branch":"main"}`},
	{"list_pipelines", `{"project_id":$PID}`},
	{"trigger_pipeline", `{"project_id":$PID,"ref":"main"}`},
	{"get_file_content", `{"project_id":$PID,"file_path":"README.md"}`},
	{"list_repository_files", `{"project_id":$PID,"recursive":true}`},
	{"configure_webhook", `{"project_id":$PID,"url":"http://localhost:9/x","events":["issues"]}`},
	{"configure_webhook", `{"project_id":$PID,"url":"http://localhost:9/x","events":["issues"]}`}, // found, not made
	{"list_hooks", `{"project_id":$PID}`},
	{"delete_hook", `{"project_id":$PID,"hook_id":$HOOK}`},
	{"get_issue", `{"project_id":$PID,"issue_iid":1}`},
	{"update_issue", `{"project_id":$PID,"issue_iid":1,"title":"Checkout fails on Safari"}`},
	{"close_issue", `{"project_id":$PID,"issue_iid":1}`},
	{"reopen_issue", `{"project_id":$PID,"issue_iid":1}`},
	{"create_issue_note", `{"project_id":$PID,"issue_iid":1,"body":"Seen again"}`},
	{"list_issue_notes", `{"project_id":$PID,"issue_iid":1}`},
	{"get_merge_request", `{"project_id":$PID,"merge_request_iid":1}`},
	{"get_merge_request_changes", `{"project_id":$PID,"merge_request_iid":1}`},
	{"create_merge_request_note", `{"project_id":$PID,"merge_request_iid":1,"body":"LGTM"}`},
	{"list_merge_request_notes", `{"project_id":$PID,"merge_request_iid":1}`},
	{"merge_merge_request", `{"project_id":$PID,"merge_request_iid":1}`},
	{"list_pipeline_jobs", `{"project_id":$PID,"pipeline_id":$PIPELINE}`},
	{"get_job_log", `{"project_id":$PID,"job_id":$JOB}`},
	{"search", `{"search":"refund","scope":"issues"}`},
	{"search", `{"search":"shop","scope":"blobs","project_id":$PID}`},
	{"search", `{"search":"Add","scope":"commits","project_id":$PID}`},
}

// Every tool has a title, annotations and an output schema, and every
// answer it gives (a result, and a failure, whose structuredContent is
// {"error": …}) validates against that schema: each tool is called
// against the fake and its real answers are checked with a JSON Schema
// validator. On the old gateway tools/list had none of them.
func TestToolsDescribeTheirAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	up := srv.Upstream()
	if _, err := up.PushFiles(pid, "main", map[string][]byte{".sourcehost-ci.yml": []byte("test:\n  script: go test\n")}, "Add CI"); err != nil {
		t.Fatal(err)
	}
	if _, err := up.PushFile(pid, "feature", "src/new.go", "package main\n", "New feature"); err != nil {
		t.Fatal(err)
	}
	session := connect(t, srv)
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, tl := range list.Tools {
		if tl.Title == "" {
			t.Errorf("%s: no title", tl.Name)
		}
		if a := tl.Annotations; a == nil || a.Title != tl.Title || a.OpenWorldHint == nil || (!a.ReadOnlyHint && a.DestructiveHint == nil) {
			t.Errorf("%s: annotations %+v: want every hint stated", tl.Name, a)
		}
		if tl.OutputSchema == nil {
			t.Errorf("%s: no outputSchema", tl.Name)
			continue
		}
		b, _ := json.Marshal(tl.OutputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: outputSchema %s: %v", tl.Name, b, err)
		}
		if s.Type != "object" {
			t.Errorf("%s: outputSchema type %q, want object", tl.Name, s.Type)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: outputSchema %s: %v", tl.Name, b, err)
		}
		schemas[tl.Name] = rs
	}
	check := func(name string, res *mcpsdk.CallToolResult) {
		t.Helper()
		var v any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &v); err != nil || v == nil {
			t.Errorf("%s: structuredContent %s", name, b)
			return
		}
		if rs := schemas[name]; rs != nil {
			if err := rs.Validate(v); err != nil {
				t.Errorf("%s: answer %s does not validate against its outputSchema: %v", name, b, err)
			}
		}
	}
	called := map[string]bool{}
	for _, c := range toolCalls {
		vars := []string{"$PID", strconv.FormatInt(pid, 10)}
		if hooks := up.Hooks(pid); len(hooks) > 0 {
			vars = append(vars, "$HOOK", strconv.FormatInt(hooks[0].ID, 10))
		}
		if pls := up.Pipelines(pid); len(pls) > 0 {
			vars = append(vars, "$PIPELINE", strconv.FormatInt(pls[0].ID, 10))
			if jobs := up.Jobs(pid, pls[0].ID); len(jobs) > 0 {
				vars = append(vars, "$JOB", strconv.FormatInt(jobs[0].ID, 10))
			}
		}
		args := json.RawMessage(strings.NewReplacer(vars...).Replace(c.args))
		res, err := session.CallTool(ctx, &mcpsdk.CallToolParams{Name: c.tool, Arguments: args})
		if err != nil || res.IsError {
			b, _ := json.Marshal(res)
			t.Fatalf("%s %s: %v %s", c.tool, args, err, b)
		}
		called[c.tool] = true
		check(c.tool, res)
		// A failure's answer validates too: the project does not exist.
		var bad map[string]any
		_ = json.Unmarshal(args, &bad)
		if _, ok := bad["project_id"]; ok {
			bad["project_id"] = 999999
			res, err := session.CallTool(ctx, &mcpsdk.CallToolParams{Name: c.tool, Arguments: bad})
			if err != nil || !res.IsError {
				t.Errorf("%s on a missing project: %v %+v", c.tool, err, res)
			} else {
				check(c.tool, res)
			}
		}
	}
	for name := range schemas {
		if !called[name] {
			t.Errorf("%s: not called by this test: add it to toolCalls", name)
		}
	}
}

// tools/list is the same bytes every time (built once), and cheap.
func TestToolListStable(t *testing.T) {
	t.Parallel()
	srv, _ := seeded(t)
	const req = `{"jsonrpc":"2.0","method":"tools/list","id":1}`
	_, _, first := post(t, srv, req, "Accept", "application/json, text/event-stream")
	if !bytes.Contains([]byte(first), []byte(`"outputSchema"`)) {
		t.Fatalf("tools/list: %s", first)
	}
	for range 3 {
		if _, _, again := post(t, srv, req, "Accept", "application/json, text/event-stream"); again != first {
			t.Fatalf("tools/list changed between calls:\n%s\n%s", first, again)
		}
	}
}
