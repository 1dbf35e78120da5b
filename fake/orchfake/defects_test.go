package orchfake_test

// Regression tests of the defects of issue 17, each over both transports
// where both apply.

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// A workflow id with "/" works over HTTP as over gRPC: the client escapes
// it into one path segment and the gateway does not split it.
func TestWorkflowIDWithSlash(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		id := "orders/2026/" + iv.name + "?x=1#y"
		var started orchpb.StartWorkflowExecutionResponse
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &started)
		var got orchpb.GetWorkflowExecutionResponse
		mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default",
			Execution: &orchpb.WorkflowExecution{WorkflowId: id}}, &got)
		if got.GetExecutionInfo().GetExecution().GetWorkflowId() != id {
			t.Errorf("%s: got %q", iv.name, got.GetExecutionInfo().GetExecution().GetWorkflowId())
		}
		mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id, RunId: started.GetRunId()}, SignalName: "go"}, &orchpb.SignalWorkflowExecutionResponse{})
		var hist orchpb.GetWorkflowExecutionHistoryResponse
		mustCall(t, iv, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default",
			Execution: &orchpb.WorkflowExecution{WorkflowId: id}}, &hist)
		if n := len(hist.GetHistory()); n != 3 {
			t.Errorf("%s: %d events, want 3", iv.name, n)
		}
		mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
	}
	// The same segment escaped by hand, as curl users write it.
	status, _, body := rawHTTP(t, s, "GET", s.URL()+"/api/v1/namespaces/default/workflows/orders%2F2026%2Fgrpc%3Fx=1%23y/runs/-", "", nil)
	if status != http.StatusOK {
		t.Errorf("escaped by hand: %d %s", status, body)
	}
}

// A token scoped to one namespace cannot answer another namespace's tasks
// by leaving the request's namespace empty (the task token names it).
func TestScopedTokenCannotAnswerOtherNamespacesTasks(t *testing.T) {
	t.Parallel()
	s := newFake(t, orchfake.WithAuth())
	if err := s.AddNamespace(orchfake.NamespaceSeed{Name: "billing"}); err != nil {
		t.Fatal(err)
	}
	admin := s.IssueToken("root", "", orchfake.PermAll)
	billing := s.IssueToken("mallory", "billing", orchfake.PermAll)
	for _, iv := range transports(t, s) {
		a := iv.with(admin)
		q := "scoped-" + iv.name
		req := startReq("default", "victim-"+iv.name)
		req.TaskQueue = q
		mustCall(t, a, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		task := pollWF(t, a, q)
		m := iv.with(billing)
		for _, c := range []struct {
			method string
			req    proto.Message
		}{
			{"RespondWorkflowTaskCompleted", &orchpb.RespondWorkflowTaskCompletedRequest{TaskToken: task.GetTaskToken(), Commands: []*orchpb.Command{completeCmd()}}},
			{"RespondWorkflowTaskFailed", &orchpb.RespondWorkflowTaskFailedRequest{TaskToken: task.GetTaskToken()}},
		} {
			if iv.name == orchfake.TransportHTTP { // the path needs a namespace: the attacker names theirs
				switch r := c.req.(type) {
				case *orchpb.RespondWorkflowTaskCompletedRequest:
					r.Namespace = "billing"
				case *orchpb.RespondWorkflowTaskFailedRequest:
					r.Namespace = "billing"
				}
			}
			err := m.call(t.Context(), c.method, c.req, respFor(c.method))
			if err == nil {
				t.Fatalf("%s: %s with another namespace's task token succeeded", iv.name, c.method)
			}
		}
		// The task is still the owner's to answer.
		complete(t, a, task.GetTaskToken(), completeCmd())
	}
}

// A workflow task that keeps failing is retried with its attempt counted,
// later failures are not written to history again, and from the third
// attempt on it waits out a backoff on the fake clock.
func TestFailingWorkflowTaskBacksOff(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		q := "failing-" + iv.name
		req := startReq("default", "fails-"+iv.name)
		req.TaskQueue = q
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		fail := func(tok []byte) {
			t.Helper()
			mustCall(t, iv, "RespondWorkflowTaskFailed", &orchpb.RespondWorkflowTaskFailedRequest{Namespace: "default", TaskToken: tok,
				Cause: orchpb.WorkflowTaskFailedCause_WORKFLOW_WORKER_UNHANDLED_FAILURE, Failure: &orchpb.Failure{Message: "panic: nil map"}}, &orchpb.RespondWorkflowTaskFailedResponse{})
		}
		for attempt := int32(1); attempt <= 6; attempt++ {
			if attempt >= 3 {
				if n := backlog(t, iv, q); n != 0 {
					t.Fatalf("%s: attempt %d queued at once (backlog %d), want a backoff", iv.name, attempt, n)
				}
				s.Clock().Advance(orchfake.WorkflowTaskRetryDelay(attempt))
			}
			task := pollWF(t, iv, q)
			if task.GetAttempt() != attempt {
				t.Fatalf("%s: attempt %d, want %d", iv.name, task.GetAttempt(), attempt)
			}
			// The poll shows the current attempt's scheduled and started events.
			h := task.GetHistory()
			if n := len(h); h[n-1].GetEventType() != orchpb.EventType_WorkflowTaskStarted || h[n-1].GetEventId() != task.GetStartedEventId() {
				t.Fatalf("%s: attempt %d: history ends %v, started id %d", iv.name, attempt, h[n-1], task.GetStartedEventId())
			}
			if attempt == 6 {
				complete(t, iv, task.GetTaskToken(), completeCmd())
				break
			}
			fail(task.GetTaskToken())
		}
		var hist orchpb.GetWorkflowExecutionHistoryResponse
		mustCall(t, iv, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default",
			Execution: &orchpb.WorkflowExecution{WorkflowId: "fails-" + iv.name}}, &hist)
		var types []string
		for _, ev := range hist.GetHistory() {
			types = append(types, ev.GetEventType().String())
		}
		want := "WorkflowExecutionStarted WorkflowTaskScheduled WorkflowTaskStarted WorkflowTaskFailed WorkflowTaskScheduled WorkflowTaskStarted WorkflowTaskCompleted WorkflowExecutionCompleted"
		if got := strings.Join(types, " "); got != want {
			t.Errorf("%s: history\n%s\nwant\n%s", iv.name, got, want)
		}
		if a := hist.GetHistory()[4].GetWorkflowTaskScheduledEventAttributes().GetAttempt(); a != 6 {
			t.Errorf("%s: the completed task's attempt %d, want 6", iv.name, a)
		}
	}
}

func backlog(t *testing.T, iv *invoker, q string) int64 {
	t.Helper()
	var d orchpb.DescribeTaskQueueResponse
	mustCall(t, iv, "DescribeTaskQueue", &orchpb.DescribeTaskQueueRequest{Namespace: "default", TaskQueue: q, IncludeTaskQueueStatus: true}, &d)
	return d.GetTaskQueueStatus().GetBacklogCountHint()
}

// Non-finite and negative numbers of a retry policy are INVALID_ARGUMENT
// naming the field, on the start and on an activity's command.
func TestRetryPolicyRejectsNonFiniteNumbers(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	cases := []struct {
		field string
		p     *orchpb.RetryPolicy
	}{
		{"retry_policy.backoff_coefficient", &orchpb.RetryPolicy{BackoffCoefficient: math.NaN()}},
		{"retry_policy.backoff_coefficient", &orchpb.RetryPolicy{BackoffCoefficient: math.Inf(1)}},
		{"retry_policy.backoff_coefficient", &orchpb.RetryPolicy{BackoffCoefficient: -2}},
		{"retry_policy.initial_interval", &orchpb.RetryPolicy{InitialInterval: durationpb.New(-time.Second)}},
		{"retry_policy.maximum_interval", &orchpb.RetryPolicy{MaximumInterval: durationpb.New(-time.Minute)}},
		{"retry_policy.maximum_attempts", &orchpb.RetryPolicy{MaximumAttempts: -1}},
	}
	for _, iv := range transports(t, s) {
		for i, c := range cases {
			req := startReq("default", fmt.Sprintf("nan-%s-%d", iv.name, i))
			req.RetryPolicy = c.p
			err := iv.call(t.Context(), "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
			ae := wantCode(t, err, "INVALID_ARGUMENT")
			if len(ae.Details) == 0 || ae.Details[0].GetField() != c.field {
				t.Errorf("%s: case %d: details %v, want field %s", iv.name, i, ae.Details, c.field)
			}
		}
	}
	// Over HTTP the JSON forms of the same numbers.
	for _, v := range []string{`"NaN"`, `"Infinity"`, `"-Infinity"`} {
		status, _, body := rawHTTP(t, s, "POST", s.URL()+"/api/v1/namespaces/default/workflows",
			`{"workflow_id":"nan-json","workflow_type":{"name":"W"},"task_queue":"q","retry_policy":{"backoff_coefficient":`+v+`}}`, nil)
		if status != http.StatusBadRequest || !strings.Contains(string(body), "retry_policy.backoff_coefficient") {
			t.Errorf("%s: %d %s", v, status, body)
		}
	}
}

// A query with no deadline ends, empty-handed, after MaxPollWait on the
// fake clock when no worker answers; so does a history long poll.
func TestQueryAndHistoryWaitWithoutDeadlineEnd(t *testing.T) {
	t.Parallel()
	for _, name := range []string{orchfake.TransportGRPC, orchfake.TransportHTTP} {
		s := newFake(t)
		iv := transports(t, s)[0]
		if name == orchfake.TransportHTTP {
			iv = transports(t, s)[1]
		}
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", "q-1"), &orchpb.StartWorkflowExecutionResponse{})
		before := s.Clock().Pending()
		queried := make(chan error, 1)
		go func() {
			queried <- iv.call(context.Background(), "QueryWorkflow", &orchpb.QueryWorkflowRequest{Namespace: "default",
				Execution: &orchpb.WorkflowExecution{WorkflowId: "q-1"}, Query: &orchpb.WorkflowQuery{QueryType: "state"}}, &orchpb.QueryWorkflowResponse{})
		}()
		if err := s.Clock().WaitForTimers(t.Context(), before+1); err != nil {
			t.Fatal(err)
		}
		s.Clock().Advance(orchfake.MaxPollWait)
		wantCode(t, <-queried, "DEADLINE_EXCEEDED")

		before = s.Clock().Pending()
		waited := make(chan error, 1)
		var hist orchpb.GetWorkflowExecutionHistoryResponse
		go func() {
			waited <- iv.call(context.Background(), "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default",
				Execution: &orchpb.WorkflowExecution{WorkflowId: "q-1"}, WaitNewEvent: true, HistoryEventFilterType: orchpb.HistoryEventFilterType_CLOSE_EVENT}, &hist)
		}()
		if err := s.Clock().WaitForTimers(t.Context(), before+1); err != nil {
			t.Fatal(err)
		}
		s.Clock().Advance(orchfake.MaxPollWait)
		if err := <-waited; err != nil || len(hist.GetHistory()) != 0 {
			t.Errorf("%s: history wait: %v, %v", name, err, &hist)
		}
	}
}

// Continue-as-new keeps what is left of the execution timeout: the chain
// times out when the whole execution's time is up.
func TestContinueAsNewKeepsExecutionTimeout(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		q := "can-" + iv.name
		req := startReq("default", "chain-"+iv.name)
		req.TaskQueue = q
		req.WorkflowExecutionTimeout = durationpb.New(10 * time.Minute)
		t0 := s.Clock().Now()
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		s.Clock().Advance(4 * time.Minute)
		task := pollWF(t, iv, q)
		complete(t, iv, task.GetTaskToken(), &orchpb.Command{CommandType: orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
			Attributes: &orchpb.Command_ContinueAsNewWorkflowExecutionCommandAttributes{ContinueAsNewWorkflowExecutionCommandAttributes: &orchpb.ContinueAsNewWorkflowExecutionCommandAttributes{}}})
		var got orchpb.GetWorkflowExecutionResponse
		mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: "chain-" + iv.name}}, &got)
		started := got.GetWorkflowExecutionHistory()[0].GetWorkflowExecutionStartedEventAttributes()
		if exp := started.GetWorkflowExecutionExpirationTime().AsTime(); !exp.Equal(t0.Add(10 * time.Minute)) {
			t.Errorf("%s: the new run expires at %v, want %v", iv.name, exp, t0.Add(10*time.Minute))
		}
		if d := started.GetWorkflowExecutionTimeout().AsDuration(); d != 10*time.Minute {
			t.Errorf("%s: the new run's execution timeout %v", iv.name, d)
		}
		s.Clock().Advance(6 * time.Minute)
		mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: "chain-" + iv.name}}, &got)
		if st := got.GetExecutionInfo().GetStatus(); st != orchpb.WorkflowExecutionStatus_TIMED_OUT {
			t.Errorf("%s: the continued run is %s 10 minutes after the start, want TIMED_OUT", iv.name, st)
		}
		s.Reset()
	}
}

// A namespace or task queue name with control characters is
// INVALID_ARGUMENT, never echoed into a header.
func TestControlCharactersInNamesAreRefused(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		for _, ns := range []string{"bad\nname", "bad\x00name", "tab\tname", "del\x7f"} {
			err := iv.call(t.Context(), "StartWorkflowExecution", startReq(ns, "w"), &orchpb.StartWorkflowExecutionResponse{})
			ae := wantCode(t, err, "INVALID_ARGUMENT")
			if len(ae.Details) == 0 || ae.Details[0].GetField() != "namespace" {
				t.Errorf("%s: %q: %v", iv.name, ns, ae)
			}
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := iv.call(ctx, "PollActivityTaskQueue", &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: "q\r\nX-Evil: 1"}, &orchpb.PollActivityTaskQueueResponse{})
		cancel()
		wantCode(t, err, "INVALID_ARGUMENT")
	}
}

// A signal to a closed run is NOT_FOUND, "workflow execution already
// completed", as the real service answers.
func TestSignalToClosedRunIsNotFound(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		id := "closed-" + iv.name
		mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
		mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
		err := iv.call(t.Context(), "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
			WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: "late"}, &orchpb.SignalWorkflowExecutionResponse{})
		ae := wantCode(t, err, "WORKFLOW_EXECUTION_COMPLETED")
		if !strings.Contains(ae.Message, "workflow execution already completed") {
			t.Errorf("%s: message %q", iv.name, ae.Message)
		}
		if iv.name == orchfake.TransportHTTP && ae.HTTP != http.StatusNotFound {
			t.Errorf("HTTP status %d, want 404", ae.HTTP)
		}
		if iv.name == orchfake.TransportGRPC {
			err := s.Conn().Invoke(t.Context(), "/apitwin.orch.v1.WorkflowService/SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default",
				WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}, SignalName: "late"}, &orchpb.SignalWorkflowExecutionResponse{})
			if status.Code(err) != codes.NotFound {
				t.Errorf("gRPC status %v, want NotFound", status.Code(err))
			}
		}
	}
}

// A body the JSON parser refuses gets a message naming the problem, not the
// parser's raw text; a body over the limit is RESOURCE_EXHAUSTED (413); the
// v1beta1 paths answer with Deprecation and Sunset headers.
func TestHTTPBodyErrorsAndDeprecation(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	url := s.URL() + "/api/v1/namespaces/default/workflows"
	for _, c := range []struct{ body, want string }{
		{`{"workflow_id": 5}`, "workflow_id"},
		{`{"no_such_field": 1}`, "no_such_field"},
		{`{"workflow_id": "a",`, "not valid JSON"},
	} {
		status, _, body := rawHTTP(t, s, "POST", url, c.body, nil)
		code, msg, _, _ := orchwire.ParseHTTPBody(body)
		if status != http.StatusBadRequest || code != "INVALID_ARGUMENT" || !strings.Contains(msg, c.want) ||
			strings.Contains(msg, "proto:") || strings.Contains(msg, "syntax error") || strings.Contains(msg, "workflowId") {
			t.Errorf("%s: %d %s", c.body, status, body)
		}
	}
	big := `{"workflow_id":"big","workflow_type":{"name":"W"},"task_queue":"q","memo":{"fields":{"x":{"data":"` + strings.Repeat("A", orchfake.DefaultMaxBody) + `"}}}}`
	status, _, body := rawHTTP(t, s, "POST", url, big, nil)
	if code, _, _, _ := orchwire.ParseHTTPBody(body); status != http.StatusRequestEntityTooLarge || code != "RESOURCE_EXHAUSTED" {
		t.Errorf("4 MiB body: %d %s", status, body[:min(len(body), 300)])
	}
	// The same without Content-Length (chunked): cut off at the limit.
	req, _ := http.NewRequest("POST", url, io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	r, err := s.RawClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(r.Body)
	r.Body.Close()
	if code, _, _, _ := orchwire.ParseHTTPBody(body); r.StatusCode != http.StatusRequestEntityTooLarge || code != "RESOURCE_EXHAUSTED" {
		t.Errorf("4 MiB chunked body: %d %s", r.StatusCode, body[:min(len(body), 300)])
	}
	status, hdr, body := rawHTTP(t, s, "GET", s.URL()+"/api/v1beta1/namespaces/default", "", nil)
	if status != http.StatusOK || hdr.Get("Deprecation") == "" || hdr.Get("Sunset") == "" {
		t.Errorf("v1beta1: %d %v %s", status, hdr, body)
	}
	// An error answer on a v1beta1 path carries them too.
	_, hdr, _ = rawHTTP(t, s, "GET", s.URL()+"/api/v1beta1/namespaces/nope", "", nil)
	if hdr.Get("Deprecation") == "" {
		t.Errorf("v1beta1 error: %v", hdr)
	}
	// So does a /api/v1 path asked for with Orch-API-Version: v1beta1, as
	// gRPC metadata does.
	_, hdr, _ = rawHTTP(t, s, "GET", s.URL()+"/api/v1/namespaces/default", "", map[string]string{"Orch-API-Version": "v1beta1"})
	if hdr.Get("Deprecation") == "" || hdr.Get("Sunset") == "" {
		t.Errorf("Orch-API-Version v1beta1: %v", hdr)
	}
}
