package orchwire

import (
	"strings"
	"testing"

	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestEveryRPCHasABindingUnderAPIV1(t *testing.T) {
	t.Parallel()
	all := Rules()
	// Every RPC of both services, counted from the contract so that a new
	// RPC needs no edit here.
	want := orchpb.File_apitwin_orch_v1_workflow_service_proto.Services().ByName("WorkflowService").Methods().Len() +
		orchpb.File_apitwin_orch_v1_admin_service_proto.Services().ByName("AdminService").Methods().Len()
	if len(all) != want || want < 32 {
		t.Errorf("rules: %d, want %d (at least 32)", len(all), want)
	}
	seen := map[string]string{}
	for name, r := range all {
		if !strings.HasPrefix(r.Path, "/api/v1/") {
			t.Errorf("%s: path %q not under /api/v1", name, r.Path)
		}
		if r.Verb == "POST" && r.Body != "*" && !strings.HasSuffix(r.Path, "/close") {
			t.Errorf("%s: POST without a body", name)
		}
		key := r.Verb + " " + r.Path
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share %s", name, other, key)
		}
		seen[key] = name
	}
}

func TestSpecPaths(t *testing.T) {
	t.Parallel()
	// A sample of the specification's table, word for word.
	want := map[string]string{
		"/apitwin.orch.v1.WorkflowService/StartWorkflowExecution":    "POST /api/v1/namespaces/{namespace}/workflows",
		"/apitwin.orch.v1.WorkflowService/GetWorkflowExecution":      "GET /api/v1/namespaces/{namespace}/workflows/{execution.workflow_id}/runs/{execution.run_id}",
		"/apitwin.orch.v1.WorkflowService/PollActivityTaskQueue":     "POST /api/v1/namespaces/{namespace}/task-queues/{task_queue}/activity-tasks/poll",
		"/apitwin.orch.v1.WorkflowService/RegisterWorker":            "POST /api/v1/namespaces/{namespace}/workers",
		"/apitwin.orch.v1.WorkflowService/CountWorkflowExecutions":   "GET /api/v1/namespaces/{namespace}/workflows/count",
		"/apitwin.orch.v1.AdminService/CloseShard":                   "POST /api/v1/shards/{shard_id}/close",
		"/apitwin.orch.v1.WorkflowService/RespondActivityTaskFailed": "POST /api/v1/namespaces/{namespace}/activities/fail",
	}
	for method, binding := range want {
		r, ok := RuleFor(method)
		if !ok {
			t.Errorf("%s: no rule", method)
			continue
		}
		if got := r.Verb + " " + r.Path; got != binding {
			t.Errorf("%s: %s, want %s", method, got, binding)
		}
	}
	r, _ := RuleFor("/apitwin.orch.v1.WorkflowService/TerminateWorkflowExecution")
	if diff := cmp.Diff([]string{"namespace", "workflow_execution.workflow_id", "workflow_execution.run_id"}, r.PathFields()); diff != "" {
		t.Errorf("path fields (-want +got):\n%s", diff)
	}
}

func TestErrorsRoundTrip(t *testing.T) {
	t.Parallel()
	detail := &orchpb.ErrorDetail{Type: DetailRateLimitExceeded, Scope: "namespace:default", Limit: 1000, Window: "1m", RetryAfter: 12}
	t.Run("grpc", func(t *testing.T) {
		t.Parallel()
		st := Status(WorkflowExecutionAlreadyStarted, "already started", detail)
		if st.Code() != codes.AlreadyExists {
			t.Errorf("grpc code %v", st.Code())
		}
		// Through the wire form, as a client sees it.
		back := status.FromProto(st.Proto())
		code, msg, details := FromStatus(back)
		if code != WorkflowExecutionAlreadyStarted || msg != "already started" {
			t.Errorf("got %s %q", code, msg)
		}
		if diff := cmp.Diff([]*orchpb.ErrorDetail{detail}, details, protocmp.Transform()); diff != "" {
			t.Errorf("details (-want +got):\n%s", diff)
		}
	})
	t.Run("grpc without ErrorInfo", func(t *testing.T) {
		t.Parallel()
		code, _, _ := FromStatus(status.New(codes.PermissionDenied, "no"))
		if code != PermissionDenied {
			t.Errorf("code %s", code)
		}
	})
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		body := HTTPBody(ResourceExhausted, "rate limit exceeded", detail)
		want := `{"error":{"code":"RESOURCE_EXHAUSTED","message":"rate limit exceeded","details":[{"type":"RateLimitExceeded","scope":"namespace:default","limit":1000,"window":"1m","retry_after":12}]}}`
		if got := strings.ReplaceAll(string(body), " ", ""); got != strings.ReplaceAll(want, " ", "") {
			t.Errorf("body\n got %s\nwant %s", body, want)
		}
		code, msg, details, ok := ParseHTTPBody(body)
		if !ok || code != ResourceExhausted || msg != "rate limit exceeded" || len(details) != 1 || details[0].GetRetryAfter() != 12 {
			t.Errorf("parsed %v %s %q %v", ok, code, msg, details)
		}
		if _, _, _, ok := ParseHTTPBody([]byte("<html>bad gateway</html>")); ok {
			t.Error("an HTML page parsed as an error body")
		}
		if got := string(HTTPBody(NotFound, "gone")); got != `{"error":{"code":"NOT_FOUND","message":"gone","details":[]}}` {
			t.Errorf("no details: %s", got)
		}
	})
}

func TestCodeMapping(t *testing.T) {
	t.Parallel()
	for code := range codeTable {
		if HTTPStatus(code) < 400 {
			t.Errorf("%s: HTTP %d", code, HTTPStatus(code))
		}
		if standard(code) && code != Canceled && FromGRPCCode(GRPCCode(code)) != code {
			t.Errorf("%s: gRPC %v names %s", code, GRPCCode(code), FromGRPCCode(GRPCCode(code)))
		}
	}
	if HTTPStatus(NotFound) != 404 || HTTPStatus(AlreadyExists) != 409 || HTTPStatus(ResourceExhausted) != 429 ||
		HTTPStatus(Unauthenticated) != 401 || HTTPStatus(PermissionDenied) != 403 || HTTPStatus(InvalidArgument) != 400 ||
		HTTPStatus(FailedPrecondition) != 400 || HTTPStatus(Unavailable) != 503 {
		t.Error("the spec README's mapping is not kept")
	}
	if FromHTTPStatus(502) != Unavailable || FromHTTPStatus(404) != NotFound || FromHTTPStatus(418) != Unknown {
		t.Error("FromHTTPStatus")
	}
}

// Every RPC of the contract's services is in the table, once, with its HTTP
// binding.
func TestRPCTableCoversTheContract(t *testing.T) {
	t.Parallel()
	want := map[string]bool{}
	for _, sd := range []protoreflect.ServiceDescriptor{
		orchpb.File_apitwin_orch_v1_workflow_service_proto.Services().ByName("WorkflowService"),
		orchpb.File_apitwin_orch_v1_admin_service_proto.Services().ByName("AdminService"),
	} {
		if sd == nil {
			t.Fatal("a service is missing from the contract")
		}
		for i := range sd.Methods().Len() {
			want["/"+string(sd.FullName())+"/"+string(sd.Methods().Get(i).Name())] = true
		}
	}
	for _, r := range RPCs() {
		if !want[r.FullMethod] {
			t.Errorf("%s is not in the contract, or twice in the table", r.FullMethod)
		}
		delete(want, r.FullMethod)
		if got, ok := LookupRPC(r.Name); !ok || got.FullMethod != r.FullMethod || r.Permission == "" {
			t.Errorf("%s: lookup %v, permission %q", r.Name, ok, r.Permission)
		}
	}
	for m := range want {
		t.Errorf("%s has no row in the table", m)
	}
}

// An overlap policy's name is the enum's without its prefix; the
// unspecified policy is the service's default, SKIP.
func TestOverlapPolicyName(t *testing.T) {
	t.Parallel()
	for p, want := range map[orchpb.ScheduleOverlapPolicy]string{
		orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_UNSPECIFIED:     "SKIP",
		orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_SKIP:            "SKIP",
		orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_BUFFER_ONE:      "BUFFER_ONE",
		orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER: "TERMINATE_OTHER",
	} {
		if got := OverlapPolicyName(p); got != want {
			t.Errorf("%v: %q, want %q", p, got, want)
		}
	}
}
