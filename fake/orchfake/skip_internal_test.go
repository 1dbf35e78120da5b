package orchfake

import (
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestSkipWaitsForATaskOnItsWayToAPoll holds the moment between a task
// being handed to a waiting poll and the poll's goroutine taking it: the
// task is then neither in the backlog nor started, and time skipping once
// jumped over it to the execution's timeout.
func TestSkipWaitsForATaskOnItsWayToAPoll(t *testing.T) {
	t.Parallel()
	s, err := New(WithTimeSkipping())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)

	// A poll that waits, but whose goroutine has not yet taken its task.
	w := &waiter{ch: make(chan task, 1)}
	s.mu.Lock()
	ns, err := s.st.namespace("default")
	if err != nil {
		s.mu.Unlock()
		t.Fatal(err)
	}
	q := ns.queue("skip-q")
	q.sides[sideWorkflow].waiters = append(q.sides[sideWorkflow].waiters, w)
	s.mu.Unlock()

	if _, err := s.StartExecution(&orchpb.StartWorkflowExecutionRequest{
		Namespace: "default", WorkflowId: "wf", WorkflowType: &orchpb.WorkflowType{Name: "W"}, TaskQueue: "skip-q",
		RequestId: "r1", WorkflowExecutionTimeout: durationpb.New(time.Hour),
	}); err != nil {
		t.Fatal(err)
	}
	if len(w.ch) != 1 {
		t.Fatal("the workflow task was not handed to the waiting poll")
	}
	if at, ok := s.nextSkip(); ok {
		t.Fatalf("time skipping would jump to %v while a workflow task is on its way to a worker", at)
	}
}

// The permissions the fake documents are those the contract's operation
// table asks for.
func TestPermissionsAreTheTables(t *testing.T) {
	documented := map[string]bool{}
	for _, p := range []string{PermAll, PermCluster, PermClusterRead, PermClusterWrite, PermNamespace, PermNamespaceCreate,
		PermNamespaceRead, PermNamespaceUpdate, PermNamespaceDelete, PermWorkflow, PermWorkflowStart, PermWorkflowSignal,
		PermWorkflowQuery, PermWorkflowRead, PermWorkflowList, PermWorkflowTerminate, PermWorkflowCancel, PermWorkflowWorker, PermWorkflowUpdate,
		PermWorkflowSchedule} {
		documented[p] = true
	}
	for _, r := range orchwire.RPCs() {
		if !documented[r.Permission] {
			t.Errorf("%s needs %q, which the fake does not document", r.Name, r.Permission)
		}
	}
}
