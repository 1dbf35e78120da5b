package orchfake_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
)

// The orch client works against the fake over each transport, with auth on.
func TestOrchClientsOverEachTransport(t *testing.T) {
	t.Parallel()
	s := newFake(t, orchfake.WithAuth())
	clients := map[string]*orch.Client{"in-memory": s.Client(), "grpc": s.GRPCClient(), "http": s.HTTPClient()}
	for name, c := range clients {
		t.Cleanup(func() { _ = c.Close() })
		run, err := c.StartWorkflow(t.Context(), "Order", "orders", map[string]int{"qty": 2}, &orch.StartWorkflowOptions{ID: "order-" + name})
		if err != nil {
			t.Fatalf("%s: start: %v", name, err)
		}
		_, err = c.StartWorkflow(t.Context(), "Order", "orders", nil, &orch.StartWorkflowOptions{ID: "order-" + name})
		var already *orch.WorkflowExecutionAlreadyStartedError
		if !errors.As(err, &already) {
			t.Fatalf("%s: second start: %v", name, err)
		}
		if err := c.TerminateWorkflow(t.Context(), "order-"+name, "", nil); err != nil {
			t.Fatalf("%s: terminate: %v", name, err)
		}
		info, err := c.DescribeWorkflow(t.Context(), "order-"+name, "")
		if err != nil || info.GetStatus().String() != "TERMINATED" {
			t.Fatalf("%s: describe: %v %v", name, info, err)
		}
		_ = run
		n, err := c.CountWorkflows(t.Context(), "WorkflowId = 'order-"+name+"'")
		if err != nil || n != 1 {
			t.Fatalf("%s: count %d %v", name, n, err)
		}
		if rl := c.RateLimit(); rl.Limit == 0 {
			t.Errorf("%s: no rate limit read: %+v", name, rl)
		}
	}
	denied := s.HTTPClient(orch.WithToken(s.IssueToken("x", "", orchfake.PermNamespaceRead)))
	defer denied.Close()
	_, err := denied.DescribeCluster(t.Context())
	if err == nil || err.Error() != "PermissionDenied: access denied" {
		t.Fatalf("denied: %v", err)
	}
}
