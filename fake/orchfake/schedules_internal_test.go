package orchfake

import (
	"context"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestDeletedNamespaceStopsItsSchedules: DeleteNamespace stops the
// namespace's schedules. Before, their timers went on firing on the fake
// clock and started runs in the deleted namespace, which nobody could
// see or remove: memory that grew with the clock.
func TestDeletedNamespaceStopsItsSchedules(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	ctx := context.Background()
	if _, err := s.registerNamespace(ctx, &orchpb.RegisterNamespaceRequest{Namespace: "gone", WorkflowExecutionRetentionPeriod: durationpb.New(24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	_, err := s.createSchedule(ctx, &orchpb.CreateScheduleRequest{Namespace: "gone", ScheduleId: "every-minute", Schedule: &orchpb.Schedule{
		Spec: &orchpb.ScheduleSpec{Interval: []*orchpb.IntervalSpec{{Interval: durationpb.New(time.Minute)}}},
		Action: &orchpb.ScheduleAction{Action: &orchpb.ScheduleAction_StartWorkflow{StartWorkflow: &orchpb.NewWorkflowExecutionInfo{
			WorkflowId: "wf", WorkflowType: &orchpb.WorkflowType{Name: "W"}, TaskQueue: "q"}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	ns := s.st.namespaces["gone"]
	s.mu.Unlock()
	s.Clock().Advance(time.Minute)
	s.mu.Lock()
	before := len(ns.runs)
	s.mu.Unlock()
	if before != 1 {
		t.Fatalf("%d runs after a minute, want 1", before)
	}
	if _, err := s.deleteNamespace(ctx, &orchpb.DeleteNamespaceRequest{Namespace: "gone"}); err != nil {
		t.Fatal(err)
	}
	s.Clock().Advance(10 * time.Minute)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sc := range ns.schedules {
		if sc.timer != nil {
			t.Errorf("schedule %s still armed after its namespace was deleted", sc.id)
		}
	}
	if len(ns.runs) > before {
		t.Errorf("the deleted namespace grew to %d runs", len(ns.runs))
	}
}
