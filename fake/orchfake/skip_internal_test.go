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
	s := newTestServer(t, WithTimeSkipping())

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

	startSkipRun(t, s)
	if len(w.ch) != 1 {
		t.Fatal("the workflow task was not handed to the waiting poll")
	}
	if at, ok := s.nextSkip(); ok {
		t.Fatalf("time skipping would jump to %v while a workflow task is on its way to a worker", at)
	}
}

// startSkipRun starts a run on task queue skip-q whose execution times
// out in an hour: a timer for skipping to jump to.
func startSkipRun(t *testing.T, s *Server) {
	t.Helper()
	if _, err := s.StartExecution(&orchpb.StartWorkflowExecutionRequest{
		Namespace: "default", WorkflowId: "wf", WorkflowType: &orchpb.WorkflowType{Name: "W"}, TaskQueue: "skip-q",
		RequestId: "r1", WorkflowExecutionTimeout: durationpb.New(time.Hour),
	}); err != nil {
		t.Fatal(err)
	}
}

// TestSkipWaitsForATaskOnItsWayToAStickyPoll is the same on a worker's
// sticky queue, where skipping also asks whether the worker is alive: the
// poll that was handed the task is no longer among the waiters, and the
// worker owes no poll until the poll's goroutine starts the task, so the
// worker looked gone and skipping jumped to the sticky task's
// schedule-to-start timeout (CI saw it as a WorkflowTaskTimedOut in
// TestParityChildCancellation and a run never sticky in
// TestStickyCacheSameOutcome, after the activity-poll fix).
func TestSkipWaitsForATaskOnItsWayToAStickyPoll(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithTimeSkipping())
	startSkipRun(t, s)
	s.mu.Lock()
	defer s.mu.Unlock()
	ns, err := s.st.namespace("default")
	if err != nil {
		t.Fatal(err)
	}
	// The run's task leaves the task queue for worker k's sticky queue,
	// where k's poll waits, and is handed to that poll.
	var wt *workflowTask
	for _, e := range ns.runs {
		wt = e.eng.wft
	}
	ns.queue("skip-q").sides[sideWorkflow].backlog = nil
	sq := ns.queue("sticky-k")
	sq.stickyKey = "k"
	ns.sticky = map[string]*taskQueue{"k": sq}
	w := &waiter{ch: make(chan task, 1), key: "k"}
	sq.sides[sideWorkflow].waiters = append(sq.sides[sideWorkflow].waiters, w)
	sq.push(sideWorkflow, wt)
	if len(w.ch) != 1 {
		t.Fatal("the workflow task was not handed to the waiting sticky poll")
	}
	s.mu.Unlock()
	at, ok := s.nextSkip()
	s.mu.Lock()
	if ok {
		t.Fatalf("time skipping would jump to %v while a workflow task is on its way to a sticky worker", at)
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
