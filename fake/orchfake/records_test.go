package orchfake_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestRecordsAreBounded holds runs, namespaces and task queues to a bound
// of 2, over both transports: the next one is RESOURCE_EXHAUSTED and
// changes nothing; runs past their retention make room, as the service
// deletes them. Before the bound (issue 38), every run was kept for ever,
// retention only hid it.
func TestRecordsAreBounded(t *testing.T) {
	t.Parallel()
	for _, tr := range []string{orchfake.TransportGRPC, orchfake.TransportHTTP} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			s := newFake(t, control.WithMaxRecords(2))
			iv := &invoker{name: tr, s: s}
			ctx := context.Background()
			start := func(id string) error {
				return iv.call(ctx, "StartWorkflowExecution", &orchpb.StartWorkflowExecutionRequest{Namespace: "default", WorkflowId: id,
					WorkflowType: &orchpb.WorkflowType{Name: "w"}, TaskQueue: "q", RequestId: id}, &orchpb.StartWorkflowExecutionResponse{})
			}
			for _, id := range []string{"a", "b"} {
				if err := start(id); err != nil {
					t.Fatal(err)
				}
			}
			e := wantCode(t, start("c"), "RESOURCE_EXHAUSTED")
			if !strings.Contains(e.Message, "at most 2 workflow runs") {
				t.Fatalf("message %q", e.Message)
			}
			if _, ok := s.Execution("default", "c", ""); ok {
				t.Fatal("the refused run was started")
			}
			// Closed and past the retention (72 h), a run makes room.
			for _, id := range []string{"a", "b"} {
				mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default",
					WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
			}
			wantCode(t, start("c"), "RESOURCE_EXHAUSTED") // closed, but kept for the retention
			s.Clock().Advance(orchfake.DefaultRetention + time.Second)
			if err := start("c"); err != nil {
				t.Fatalf("after the retention: %v", err)
			}

			// Namespaces: "default" and one more.
			reg := func(name string) error {
				return iv.call(ctx, "RegisterNamespace", &orchpb.RegisterNamespaceRequest{Namespace: name,
					WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)}, &orchpb.RegisterNamespaceResponse{})
			}
			if err := reg("shop"); err != nil {
				t.Fatal(err)
			}
			wantCode(t, reg("more"), "RESOURCE_EXHAUSTED")

			// Task queues: "q" (the runs') and one more.
			worker := func(q string) error {
				return iv.call(ctx, "RegisterWorker", &orchpb.RegisterWorkerRequest{Namespace: "default", TaskQueue: q, Identity: "w1"},
					&orchpb.RegisterWorkerResponse{})
			}
			if err := worker("other"); err != nil {
				t.Fatal(err)
			}
			if err := worker("q"); err != nil { // a queue that exists needs no room
				t.Fatal(err)
			}
			wantCode(t, worker("third"), "RESOURCE_EXHAUSTED")
		})
	}
}
