package orchfake_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

func TestAuth(t *testing.T) {
	t.Parallel()
	s := newFake(t, orchfake.WithAuth())
	if err := s.AddNamespace(orchfake.NamespaceSeed{Name: "billing"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddAPIKey("key-123", "default", orchfake.PermWorkflow); err != nil {
		t.Fatal(err)
	}
	starter := s.IssueToken("alice", "default", orchfake.PermWorkflowStart)
	admin := s.IssueToken("root", "", orchfake.PermAll)
	reader := s.IssueToken("bob", "", "orch:namespace:*")
	other, err := orchfake.New(orchfake.WithSigningKey([]byte("other")))
	if err != nil {
		t.Fatal(err)
	}
	forged, _ := other.SignToken(orchfake.Claims{Subject: "eve", Permissions: []string{orchfake.PermAll}})
	wrongAud, _ := s.SignToken(orchfake.Claims{Subject: "eve", Audience: "else", Permissions: []string{orchfake.PermAll}})

	cases := []struct {
		name   string
		token  string
		method string
		req    proto.Message
		code   string
	}{
		{"no credentials", "", "DescribeCluster", &orchpb.DescribeClusterRequest{}, "UNAUTHENTICATED"},
		{"unknown API key", "nope", "DescribeCluster", &orchpb.DescribeClusterRequest{}, "UNAUTHENTICATED"},
		{"forged signature", forged, "DescribeCluster", &orchpb.DescribeClusterRequest{}, "UNAUTHENTICATED"},
		{"wrong audience", wrongAud, "DescribeCluster", &orchpb.DescribeClusterRequest{}, "UNAUTHENTICATED"},
		{"start allowed", starter, "StartWorkflowExecution", withRequestID(startReq("default", "a1")), ""},
		{"terminate denied", starter, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "a1"}}, "PERMISSION_DENIED"},
		{"other namespace denied", starter, "StartWorkflowExecution", startReq("billing", "a1"), "PERMISSION_DENIED"},
		{"cluster denied", starter, "DescribeCluster", &orchpb.DescribeClusterRequest{}, "PERMISSION_DENIED"},
		{"wildcard", admin, "CloseShard", &orchpb.CloseShardRequest{ShardId: 1}, ""},
		{"namespace wildcard", reader, "DescribeNamespace", &orchpb.DescribeNamespaceRequest{Namespace: "billing"}, ""},
		{"namespace wildcard no workflows", reader, "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "billing"}, "PERMISSION_DENIED"},
		{"API key", "key-123", "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "default"}, ""},
		{"API key other namespace", "key-123", "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "billing"}, "PERMISSION_DENIED"},
	}
	for _, iv := range transports(t, s) {
		for _, c := range cases {
			resp := respFor(c.method)
			err := iv.with(c.token).call(t.Context(), c.method, c.req, resp)
			if c.code == "" {
				if err != nil {
					t.Errorf("%s/%s: %v", iv.name, c.name, err)
				}
				continue
			}
			ae := wantCode(t, err, c.code)
			if c.code == "PERMISSION_DENIED" && ae.Message != "access denied" {
				t.Errorf("%s/%s: message %q", iv.name, c.name, ae.Message)
			}
		}
		// ListNamespaces shows a scoped token only its namespace.
		var list orchpb.ListNamespacesResponse
		mustCall(t, iv.with(s.IssueToken("carol", "billing", orchfake.PermNamespaceRead)), "ListNamespaces", &orchpb.ListNamespacesRequest{}, &list)
		if len(list.GetNamespaces()) != 1 || list.GetNamespaces()[0].GetNamespaceInfo().GetName() != "billing" {
			t.Errorf("%s: scoped list %v", iv.name, &list)
		}
	}
	// Tokens expire on the fake clock.
	s.Clock().Advance(orchfake.TokenTTL + time.Second)
	err = transports(t, s)[0].with(admin).call(t.Context(), "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
	if ae := wantCode(t, err, "UNAUTHENTICATED"); !strings.Contains(ae.Message, "expired") {
		t.Errorf("expired: %q", ae.Message)
	}
}

func TestRateLimitsReachedAndRecovered(t *testing.T) {
	t.Parallel()
	for _, name := range []string{orchfake.TransportGRPC, orchfake.TransportHTTP} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newFake(t, orchfake.WithLimits(orchfake.Limits{ClusterRequestsPerMinute: 5, NamespaceStartsPerMinute: 2}))
			iv := transports(t, s)[0]
			if name == orchfake.TransportHTTP {
				iv = transports(t, s)[1]
			}
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", "r1-"+iv.name), &orchpb.StartWorkflowExecutionResponse{})
			if iv.last.Get("X-RateLimit-Scope") != "namespace:default" || iv.last.Get("X-RateLimit-Limit") != "2" || iv.last.Get("X-RateLimit-Remaining") != "1" {
				t.Fatalf("headers %v", iv.last)
			}
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", "r2-"+iv.name), &orchpb.StartWorkflowExecutionResponse{})
			err := iv.call(t.Context(), "StartWorkflowExecution", startReq("default", "r3-"+iv.name), &orchpb.StartWorkflowExecutionResponse{})
			ae := wantCode(t, err, "RESOURCE_EXHAUSTED")
			d := ae.Details[0]
			if d.GetType() != "RateLimitExceeded" || d.GetScope() != "namespace:default" || d.GetLimit() != 2 || d.GetWindow() != "1m" || d.GetRetryAfter() != 60 {
				t.Fatalf("detail %v", d)
			}
			if iv.last.Get("Retry-After") != "60" || iv.last.Get("X-RateLimit-Remaining") != "0" {
				t.Fatalf("refusal headers %v", iv.last)
			}
			if iv.name == orchfake.TransportHTTP && ae.HTTP != 429 {
				t.Fatalf("status %d", ae.HTTP)
			}
			mustCall(t, iv, "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
			mustCall(t, iv, "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
			err = iv.call(t.Context(), "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
			if ae := wantCode(t, err, "RESOURCE_EXHAUSTED"); ae.Details[0].GetScope() != "cluster" {
				t.Fatalf("cluster detail %v", ae.Details)
			}
			s.Clock().Advance(time.Minute)
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", "r3-"+iv.name), &orchpb.StartWorkflowExecutionResponse{})
		})
	}
}

func TestConcurrentExecutionsLimit(t *testing.T) {
	t.Parallel()
	s := newFake(t, orchfake.WithLimits(orchfake.Limits{NamespaceConcurrentExecutions: 1}))
	iv := transports(t, s)[1]
	mustCall(t, iv, "StartWorkflowExecution", startReq("default", "c1"), &orchpb.StartWorkflowExecutionResponse{})
	err := iv.call(t.Context(), "StartWorkflowExecution", startReq("default", "c2"), &orchpb.StartWorkflowExecutionResponse{})
	wantCode(t, err, "RESOURCE_EXHAUSTED")
	mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "c1"}}, &orchpb.TerminateWorkflowExecutionResponse{})
	mustCall(t, iv, "StartWorkflowExecution", startReq("default", "c2"), &orchpb.StartWorkflowExecutionResponse{})
}

func TestHistoryEventsLimit(t *testing.T) {
	t.Parallel()
	// A start writes two events (WorkflowExecutionStarted, WorkflowTaskScheduled):
	// with room for two a minute, the next start waits for the next window.
	s := newFake(t, orchfake.WithLimits(orchfake.Limits{NamespaceHistoryEventsPerMinute: 2}))
	iv := transports(t, s)[1]
	mustCall(t, iv, "StartWorkflowExecution", startReq("default", "h1"), &orchpb.StartWorkflowExecutionResponse{})
	err := iv.call(t.Context(), "StartWorkflowExecution", startReq("default", "h2"), &orchpb.StartWorkflowExecutionResponse{})
	if ae := wantCode(t, err, "RESOURCE_EXHAUSTED"); ae.Details[0].GetScope() != "namespace:default" || ae.Details[0].GetLimit() != 2 {
		t.Fatalf("detail %v", ae.Details)
	}
	s.Clock().Advance(time.Minute)
	mustCall(t, iv, "StartWorkflowExecution", startReq("default", "h2"), &orchpb.StartWorkflowExecutionResponse{})
}

func TestVersions(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		iv.header = map[string]string{"Orch-API-Version": "v2"}
		err := iv.call(t.Context(), "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
		if ae := wantCode(t, err, "INVALID_ARGUMENT"); !strings.Contains(ae.Message, "Orch-API-Version") {
			t.Errorf("%s: %q", iv.name, ae.Message)
		}
		iv.header = map[string]string{"Orch-API-Version": "v1"}
		mustCall(t, iv, "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
	}
	status, hdr, body := rawHTTP(t, s, "GET", s.URL()+"/api/v1beta1/namespaces/default", "", nil)
	if status != 200 || hdr.Get("Deprecation") != "true" || hdr.Get("Sunset") != "Tue, 31 Dec 2024 23:59:59 GMT" || !strings.Contains(string(body), `"name":"default"`) {
		t.Fatalf("v1beta1: %d %v %s", status, hdr, body)
	}
	status, hdr, body = rawHTTP(t, s, "POST", s.URL()+"/api/v1/namespaces/default/workflows", `{"workflow_id":"x","bogus":1}`, nil)
	if status != 400 || !strings.Contains(string(body), `"code":"INVALID_ARGUMENT"`) || hdr.Get("X-RateLimit-Limit") == "" {
		t.Fatalf("unknown field: %d %v %s", status, hdr, body)
	}
	status, _, body = rawHTTP(t, s, "GET", s.URL()+"/api/v1/nothing/here", "", nil)
	if status != 404 || !strings.Contains(string(body), `"code":"NOT_FOUND"`) {
		t.Fatalf("unknown path: %d %s", status, body)
	}
	status, _, body = rawHTTP(t, s, "GET", s.URL()+"/api/v1/namespaces/nope", "", nil)
	if status != 404 || !strings.Contains(string(body), `"code":"NAMESPACE_NOT_FOUND"`) || !strings.Contains(string(body), `"details":[]`) {
		t.Fatalf("not found: %d %s", status, body)
	}
}

func TestFaultsAndRequestLog(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	if err := s.InjectFault("StartWorkflowExecution", control.Fault{Code: "UNAVAILABLE", Times: 2}); err != nil {
		t.Fatal(err)
	}
	ivs := transports(t, s)
	for i, iv := range ivs {
		err := iv.call(t.Context(), "StartWorkflowExecution", startReq("default", "f"), &orchpb.StartWorkflowExecutionResponse{})
		if ae := wantCode(t, err, "UNAVAILABLE"); iv.name == orchfake.TransportHTTP && ae.HTTP != 503 {
			t.Fatalf("%d: status %d", i, ae.HTTP)
		}
	}
	mustCall(t, ivs[0], "StartWorkflowExecution", startReq("default", "f"), &orchpb.StartWorkflowExecutionResponse{})
	calls := s.RequestsTo("StartWorkflowExecution")
	if len(calls) != 3 || calls[0].Transport != "grpc" || calls[1].Transport != "http" || calls[1].Code != "UNAVAILABLE" || !calls[1].Fault || calls[2].Code != "" || calls[2].Status != 200 ||
		!strings.Contains(string(calls[0].Body), `"namespace":"default"`) || calls[1].Path != "/api/v1/namespaces/default/workflows" {
		t.Fatalf("calls %+v", calls)
	}
	if err := s.InjectFault("Nope", control.Fault{Code: "UNAVAILABLE"}); err == nil {
		t.Fatal("unknown operation accepted")
	}

	// Latency on the fake clock: the call answers once the clock moves.
	if err := s.InjectFault("DescribeCluster", control.Fault{Latency: time.Minute, OnClock: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	before := s.Clock().Pending()
	var wg sync.WaitGroup
	wg.Go(func() {
		mustCall(t, ivs[1], "DescribeCluster", &orchpb.DescribeClusterRequest{}, &orchpb.DescribeClusterResponse{})
	})
	if err := s.Clock().WaitForTimers(t.Context(), before+1); err != nil {
		t.Fatal(err)
	}
	s.Clock().Advance(time.Minute)
	wg.Wait()
}

func withRequestID(r *orchpb.StartWorkflowExecutionRequest) *orchpb.StartWorkflowExecutionRequest {
	r.RequestId = "fixed-request"
	return r
}
