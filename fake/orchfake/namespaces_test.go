package orchfake_test

import (
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func TestNamespaces(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			ctx := t.Context()
			name := "orders-" + iv.name
			mustCall(t, iv, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{
				Namespace: name, Description: "orders", OwnerEmail: "ops@example.com",
				WorkflowExecutionRetentionPeriod: durationpb.New(48 * 3600e9), Data: map[string]string{"team": "ops"},
			}, &orchpb.RegisterNamespaceResponse{})

			var d orchpb.DescribeNamespaceResponse
			mustCall(t, iv, "DescribeNamespace", &orchpb.DescribeNamespaceRequest{Namespace: name}, &d)
			if d.GetNamespaceInfo().GetName() != name || d.GetNamespaceInfo().GetState() != orchpb.NamespaceState_REGISTERED ||
				d.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration().Hours() != 48 || d.GetNamespaceInfo().GetId() == "" {
				t.Fatalf("describe: %v", &d)
			}
			// Usable at once.
			mustCall(t, iv, "StartWorkflowExecution", startReq(name, "w1"), &orchpb.StartWorkflowExecutionResponse{})

			err := iv.call(ctx, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{Namespace: name}, &orchpb.RegisterNamespaceResponse{})
			wantCode(t, err, "ALREADY_EXISTS")
			err = iv.call(ctx, "DescribeNamespace", &orchpb.DescribeNamespaceRequest{Namespace: "nope"}, &orchpb.DescribeNamespaceResponse{})
			wantCode(t, err, "NAMESPACE_NOT_FOUND")
			err = iv.call(ctx, "StartWorkflowExecution", startReq("nope", "w1"), &orchpb.StartWorkflowExecutionResponse{})
			wantCode(t, err, "NAMESPACE_NOT_FOUND")
		})
	}
}

func TestRegisterNamespaceValidation(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	cases := []struct {
		name  string
		req   *orchpb.RegisterNamespaceRequest
		field string
	}{
		{"short name", &orchpb.RegisterNamespaceRequest{Namespace: "a"}, "namespace"},
		{"bad char", &orchpb.RegisterNamespaceRequest{Namespace: "a b"}, "namespace"},
		{"retention under a day", &orchpb.RegisterNamespaceRequest{Namespace: "ok-ns", WorkflowExecutionRetentionPeriod: durationpb.New(3600e9)}, "workflow_execution_retention_period"},
		{"email", &orchpb.RegisterNamespaceRequest{Namespace: "ok-ns", OwnerEmail: "not an email"}, "owner_email"},
		{"cluster", &orchpb.RegisterNamespaceRequest{Namespace: "ok-ns", ActiveClusterName: "elsewhere"}, "active_cluster_name"},
		{"archival uri", &orchpb.RegisterNamespaceRequest{Namespace: "ok-ns", HistoryArchivalConfig: &orchpb.ArchivalConfig{State: orchpb.ArchivalState_ENABLED}}, "history_archival_config.uri"},
	}
	for _, iv := range transports(t, s) {
		for _, c := range cases {
			err := iv.call(t.Context(), "RegisterNamespace", c.req, &orchpb.RegisterNamespaceResponse{})
			ae := wantCode(t, err, "INVALID_ARGUMENT")
			if len(ae.Details) == 0 || ae.Details[0].GetField() != c.field || ae.Details[0].GetType() != "FieldViolation" {
				t.Errorf("%s/%s: details %v, want field %s", iv.name, c.name, ae.Details, c.field)
			}
		}
	}
}

func TestListNamespacesPages(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, n := range []string{"ns-a", "ns-b", "ns-c"} {
		if err := s.AddNamespace(orchfake.NamespaceSeed{Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	for _, iv := range transports(t, s) {
		var names []string
		var tok []byte
		for range 10 {
			var resp orchpb.ListNamespacesResponse
			mustCall(t, iv, "ListNamespaces", &orchpb.ListNamespacesRequest{PageSize: 2, NextPageToken: tok}, &resp)
			for _, d := range resp.GetNamespaces() {
				names = append(names, d.GetNamespaceInfo().GetName())
			}
			if tok = resp.GetNextPageToken(); len(tok) == 0 {
				break
			}
		}
		if got := jsonOf(names); got != `["default","ns-a","ns-b","ns-c"]` {
			t.Errorf("%s: %s", iv.name, got)
		}
		err := iv.call(t.Context(), "ListNamespaces", &orchpb.ListNamespacesRequest{NextPageToken: []byte("junk-token")}, &orchpb.ListNamespacesResponse{})
		wantCode(t, err, "INVALID_ARGUMENT")
	}
}

func startReq(ns, id string) *orchpb.StartWorkflowExecutionRequest {
	return &orchpb.StartWorkflowExecutionRequest{
		Namespace: ns, WorkflowId: id, WorkflowType: &orchpb.WorkflowType{Name: "Order"}, TaskQueue: "orders",
	}
}
