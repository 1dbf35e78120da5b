package orchfake_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
)

// newExampleFake makes a fake on a clock set to 1 March 2026, 12:00 UTC; a test
// would use orchfake.Start(t).
func newExampleFake() *orchfake.Server {
	srv, err := orchfake.New(control.WithClock(clock.NewFake(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))))
	if err != nil {
		panic(err)
	}
	return srv
}

// Start workflows through clients of the fake, over its in-memory gRPC
// connection and over HTTP/JSON, and read the fake's state back.
func Example() {
	srv := newExampleFake()
	if err := srv.Listen("127.0.0.1:0", "127.0.0.1:0"); err != nil { // for HTTPClient
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()

	c := srv.Client() // gRPC over an in-memory connection, on the fake's clock
	defer c.Close()
	if _, err := c.StartWorkflow(ctx, "OrderWorkflow", "orders", map[string]any{"order": "o-1"}, &orch.StartWorkflowOptions{ID: "order-o-1"}); err != nil {
		panic(err)
	}
	h := srv.HTTPClient() // the same service over HTTP/JSON
	if _, err := h.StartWorkflow(ctx, "OrderWorkflow", "orders", nil, &orch.StartWorkflowOptions{ID: "order-o-2"}); err != nil {
		panic(err)
	}

	for _, id := range []string{"order-o-1", "order-o-2"} {
		ex, ok := srv.Execution("default", id, "")
		fmt.Println(id, ok, ex.Info.GetStatus(), len(ex.History))
	}
	for _, call := range srv.RequestsTo("StartWorkflowExecution") {
		fmt.Println(call.Transport, call.Path, call.Status)
	}
	// Output:
	// order-o-1 true RUNNING 2
	// order-o-2 true RUNNING 2
	// grpc /apitwin.orch.v1.WorkflowService/StartWorkflowExecution 200
	// http /api/v1/namespaces/default/workflows 200
}

// An injected fault makes the next calls of an operation answer an error
// code, on both transports. A refusal comes back to the caller with its
// sentinel; UNAVAILABLE is transient, and the client's retry gets through.
func ExampleServer_InjectFault() {
	srv := newExampleFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	defer c.Close()

	srv.InjectFault("StartWorkflowExecution", control.Fault{Code: "PERMISSION_DENIED", Message: "access denied", Times: 1})
	_, err := c.StartWorkflow(ctx, "OrderWorkflow", "orders", nil, &orch.StartWorkflowOptions{ID: "order-o-1"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, orch.ErrPermissionDenied))
	_, ok := srv.Execution("default", "order-o-1", "")
	fmt.Println("started:", ok)

	srv.InjectFault("StartWorkflowExecution", control.Fault{Code: "UNAVAILABLE", Times: 1})
	_, err = c.StartWorkflow(ctx, "OrderWorkflow", "orders", nil, &orch.StartWorkflowOptions{ID: "order-o-1"})
	fmt.Println(err)
	for _, call := range srv.RequestsTo("StartWorkflowExecution") {
		fmt.Printf("code=%q fault=%v\n", call.Code, call.Fault)
	}
	// Output:
	// PermissionDenied: access denied
	// true
	// started: false
	// <nil>
	// code="PERMISSION_DENIED" fault=true
	// code="UNAVAILABLE" fault=true
	// code="" fault=false
}

// Load executions in any state, then check what the code under test finds
// with a visibility query.
func ExampleServer_Load() {
	srv := newExampleFake()
	defer srv.Close()
	ctx := context.Background()
	order := func(id, customer, status string) orchfake.ExecutionSeed {
		return orchfake.ExecutionSeed{WorkflowID: id, WorkflowType: "OrderWorkflow", Status: status,
			SearchAttributes: map[string]any{"CustomerId": customer}}
	}
	err := srv.Load(orchfake.Seed{
		Namespaces: []orchfake.NamespaceSeed{{Name: "default", SearchAttributes: map[string]orchfake.SearchAttributeType{"CustomerId": orchfake.Keyword}}},
		Executions: []orchfake.ExecutionSeed{
			order("order-1", "acme", "RUNNING"),
			order("order-2", "acme", "FAILED"),
			order("order-3", "acme", "COMPLETED"),
			order("order-4", "globex", "FAILED"),
		},
	})
	if err != nil {
		panic(err)
	}

	c := srv.Client()
	defer c.Close()
	for _, q := range []string{
		"",
		"ExecutionStatus = 'Failed'",
		"CustomerId = 'acme' AND ExecutionStatus != 'Running'",
	} {
		n, err := c.CountWorkflows(ctx, q)
		fmt.Printf("%d %v %q\n", n, err, q)
	}
	_, err = c.CountWorkflows(ctx, "CustomerId = ")
	fmt.Println(errors.Is(err, orch.ErrInvalidArgument))
	// Output:
	// 4 <nil> ""
	// 2 <nil> "ExecutionStatus = 'Failed'"
	// 2 <nil> "CustomerId = 'acme' AND ExecutionStatus != 'Running'"
	// true
}
