package orchfake_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

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

// UpdateNamespace changes what it is given and keeps the rest; data
// merges; a refused update changes nothing.
func TestUpdateNamespace(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			name := "upd-" + iv.name
			mustCall(t, iv, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{Namespace: name, Description: "before", OwnerEmail: "a@example.com",
				Data: map[string]string{"team": "ops", "tier": "1"}}, &orchpb.RegisterNamespaceResponse{})
			var r orchpb.UpdateNamespaceResponse
			mustCall(t, iv, "UpdateNamespace", &orchpb.UpdateNamespaceRequest{Namespace: name,
				UpdateInfo: &orchpb.UpdateNamespaceInfo{Description: "after", Data: map[string]string{"tier": "2", "site": "eu"}},
				Config:     &orchpb.NamespaceConfig{WorkflowExecutionRetentionTtl: durationpb.New(7 * 24 * time.Hour)}}, &r)
			var d orchpb.DescribeNamespaceResponse
			mustCall(t, iv, "DescribeNamespace", &orchpb.DescribeNamespaceRequest{Namespace: name}, &d)
			i := d.GetNamespaceInfo()
			if i.GetDescription() != "after" || i.GetOwnerEmail() != "a@example.com" || i.GetState() != orchpb.NamespaceState_REGISTERED ||
				d.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration() != 7*24*time.Hour {
				t.Errorf("after update: %v", &d)
			}
			if diff := cmp.Diff(map[string]string{"team": "ops", "tier": "2", "site": "eu"}, i.GetData()); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(d.GetNamespaceInfo(), r.GetNamespaceInfo(), protocmp.Transform()); diff != "" {
				t.Errorf("the update's answer is not the namespace (-describe +update):\n%s", diff)
			}
			for _, tc := range []struct {
				name  string
				req   *orchpb.UpdateNamespaceRequest
				code  string
				field string
			}{
				{"short retention", &orchpb.UpdateNamespaceRequest{Namespace: name, UpdateInfo: &orchpb.UpdateNamespaceInfo{Description: "x"},
					Config: &orchpb.NamespaceConfig{WorkflowExecutionRetentionTtl: durationpb.New(time.Hour)}}, "INVALID_ARGUMENT", "config.workflow_execution_retention_ttl"},
				{"bad owner", &orchpb.UpdateNamespaceRequest{Namespace: name, UpdateInfo: &orchpb.UpdateNamespaceInfo{OwnerEmail: "nobody"}}, "INVALID_ARGUMENT", "update_info.owner_email"},
				{"deleted state", &orchpb.UpdateNamespaceRequest{Namespace: name, UpdateInfo: &orchpb.UpdateNamespaceInfo{State: orchpb.NamespaceState_DELETED}}, "INVALID_ARGUMENT", "update_info.state"},
				{"archival without a URI", &orchpb.UpdateNamespaceRequest{Namespace: name, Config: &orchpb.NamespaceConfig{HistoryArchivalState: orchpb.ArchivalState_ENABLED}}, "INVALID_ARGUMENT", "config.history_archival.uri"},
				{"unknown namespace", &orchpb.UpdateNamespaceRequest{Namespace: "nowhere", UpdateInfo: &orchpb.UpdateNamespaceInfo{Description: "x"}}, "NAMESPACE_NOT_FOUND", ""},
			} {
				ae := wantCode(t, iv.call(context.Background(), "UpdateNamespace", tc.req, &orchpb.UpdateNamespaceResponse{}), tc.code)
				if tc.field != "" && (len(ae.Details) == 0 || ae.Details[0].GetField() != tc.field) {
					t.Errorf("%s: details %v", tc.name, ae.Details)
				}
			}
			var again orchpb.DescribeNamespaceResponse
			mustCall(t, iv, "DescribeNamespace", &orchpb.DescribeNamespaceRequest{Namespace: name}, &again)
			if diff := cmp.Diff(&d, &again, protocmp.Transform()); diff != "" {
				t.Errorf("a refused update changed the namespace (-before +after):\n%s", diff)
			}
		})
	}
}

// A deprecated namespace refuses new starts (its runs go on: signals
// still reach them) and cannot be registered again; a deleted one is gone
// with its runs, and its name is free.
func TestDeprecateAndDeleteNamespace(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			ctx := context.Background()
			name := "old-" + iv.name
			mustCall(t, iv, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{Namespace: name}, &orchpb.RegisterNamespaceResponse{})
			mustCall(t, iv, "StartWorkflowExecution", startReq(name, "before"), &orchpb.StartWorkflowExecutionResponse{})
			mustCall(t, iv, "DeprecateNamespace", &orchpb.DeprecateNamespaceRequest{Namespace: name}, &orchpb.DeprecateNamespaceResponse{})
			var d orchpb.DescribeNamespaceResponse
			mustCall(t, iv, "DescribeNamespace", &orchpb.DescribeNamespaceRequest{Namespace: name}, &d)
			if d.GetNamespaceInfo().GetState() != orchpb.NamespaceState_DEPRECATED {
				t.Fatalf("state %s", d.GetNamespaceInfo().GetState())
			}
			wantCode(t, iv.call(ctx, "StartWorkflowExecution", startReq(name, "after"), &orchpb.StartWorkflowExecutionResponse{}), "FAILED_PRECONDITION")
			wantCode(t, iv.call(ctx, "SignalWithStartWorkflowExecution", &orchpb.SignalWithStartWorkflowExecutionRequest{Namespace: name, WorkflowId: "after",
				WorkflowType: &orchpb.WorkflowType{Name: "Order"}, TaskQueue: "orders", SignalName: "go"}, &orchpb.SignalWithStartWorkflowExecutionResponse{}), "FAILED_PRECONDITION")
			mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: name, WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: "before"}, SignalName: "still"},
				&orchpb.SignalWorkflowExecutionResponse{})
			wantCode(t, iv.call(ctx, "UpdateNamespace", &orchpb.UpdateNamespaceRequest{Namespace: name, UpdateInfo: &orchpb.UpdateNamespaceInfo{State: orchpb.NamespaceState_REGISTERED}},
				&orchpb.UpdateNamespaceResponse{}), "INVALID_ARGUMENT")

			var del orchpb.DeleteNamespaceResponse
			mustCall(t, iv, "DeleteNamespace", &orchpb.DeleteNamespaceRequest{Namespace: name}, &del)
			if del.GetDeletedNamespace() != name {
				t.Errorf("deleted %q", del.GetDeletedNamespace())
			}
			wantCode(t, iv.call(ctx, "DescribeNamespace", &orchpb.DescribeNamespaceRequest{Namespace: name}, &orchpb.DescribeNamespaceResponse{}), "NAMESPACE_NOT_FOUND")
			wantCode(t, iv.call(ctx, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: name, Execution: &orchpb.WorkflowExecution{WorkflowId: "before"}},
				&orchpb.GetWorkflowExecutionResponse{}), "NAMESPACE_NOT_FOUND")
			wantCode(t, iv.call(ctx, "DeleteNamespace", &orchpb.DeleteNamespaceRequest{Namespace: name}, &orchpb.DeleteNamespaceResponse{}), "NAMESPACE_NOT_FOUND")
			mustCall(t, iv, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{Namespace: name}, &orchpb.RegisterNamespaceResponse{})
			var l orchpb.ListWorkflowExecutionsResponse
			mustCall(t, iv, "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: name}, &l)
			if len(l.GetExecutions()) != 0 {
				t.Errorf("the new namespace of the same name lists %v", l.GetExecutions())
			}
		})
	}
}

// A poll waiting on a namespace's task queue ends empty when the
// namespace is deleted.
func TestDeleteNamespaceEndsPolls(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	mustCall(t, iv, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{Namespace: "polled"}, &orchpb.RegisterNamespaceResponse{})
	done := make(chan error, 1)
	poller := iv.with("") // its own copy: call writes the invoker's last headers
	go func() {
		var r orchpb.PollWorkflowTaskQueueResponse
		done <- poller.call(context.Background(), "PollWorkflowTaskQueue", &orchpb.PollWorkflowTaskQueueRequest{Namespace: "polled", TaskQueue: "q", Identity: "w"}, &r)
	}()
	for polling := false; !polling; runtime.Gosched() { // the fake lists a poller as it starts waiting
		for _, q := range s.TaskQueues() {
			polling = polling || (q.Namespace == "polled" && q.WorkflowPollers == 1)
		}
	}
	mustCall(t, iv, "DeleteNamespace", &orchpb.DeleteNamespaceRequest{Namespace: "polled"}, &orchpb.DeleteNamespaceResponse{})
	if err := <-done; err != nil {
		t.Errorf("the poll ended with %v, want an empty answer", err)
	}
}
