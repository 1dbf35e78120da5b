package orch_test

import (
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The schedule methods over both transports: create, describe, pause,
// trigger, backfill, update with a conflict token, list, delete.
func TestSchedules(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, e *env) {
		ctx := t.Context()
		c := e.client(t)
		id := uid("sched")
		action, err := orch.ScheduleWorkflow(id, "Report", uid("q"), map[string]any{"kind": "daily"})
		if err != nil {
			t.Fatal(err)
		}
		sch := &orchpb.Schedule{
			Spec:     &orchpb.ScheduleSpec{Interval: []*orchpb.IntervalSpec{{Interval: durationpb.New(time.Hour)}}},
			Action:   action,
			Policies: &orchpb.SchedulePolicies{OverlapPolicy: orchpb.ScheduleOverlapPolicy_SCHEDULE_OVERLAP_POLICY_ALLOW_ALL},
		}
		token, err := c.CreateSchedule(ctx, id, sch, &orch.CreateScheduleOptions{Memo: map[string]any{"owner": "ops"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateSchedule(ctx, id, sch, nil); !errors.Is(err, orch.ErrAlreadyExists) {
			t.Errorf("second create: %v, want ErrAlreadyExists", err)
		}
		if err := c.PauseSchedule(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
		if err := c.TriggerSchedule(ctx, id, 0); err != nil {
			t.Fatal(err)
		}
		d, err := c.DescribeSchedule(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !d.GetSchedule().GetState().GetPaused() || d.GetInfo().GetActionCount() != 1 {
			t.Errorf("state %v, actions %d: want paused with the triggered action", d.GetSchedule().GetState(), d.GetInfo().GetActionCount())
		}
		// the pause changed the schedule: the create's token is stale
		sch.Spec.Interval[0].Interval = durationpb.New(2 * time.Hour)
		if err := c.UpdateSchedule(ctx, id, sch, &orch.UpdateScheduleOptions{ConflictToken: token}); !errors.Is(err, orch.ErrFailedPrecondition) {
			t.Errorf("update with a stale token: %v, want ErrFailedPrecondition", err)
		}
		if err := c.UpdateSchedule(ctx, id, sch, &orch.UpdateScheduleOptions{ConflictToken: d.GetConflictToken()}); err != nil {
			t.Fatal(err)
		}
		if err := c.UnpauseSchedule(ctx, id, ""); err != nil {
			t.Fatal(err)
		}
		now := e.fake(t).Clock().Now()
		if err := c.BackfillSchedule(ctx, id, now.Add(-6*time.Hour), now.Add(-time.Hour), 0); err != nil {
			t.Fatal(err)
		}
		var listed []string
		for entry, err := range c.AllSchedules(ctx, &orch.ListOptions{PageSize: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, entry.GetScheduleId()+" "+entry.GetInfo().GetWorkflowType().GetName())
		}
		if diff := cmp.Diff([]string{id + " Report"}, listed); diff != "" {
			t.Errorf("listed (-want +got):\n%s", diff)
		}
		d, err = c.DescribeSchedule(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		// every 2 hours from the epoch: -6h, -4h, -2h backfilled
		if got := d.GetInfo().GetActionCount(); got != 4 {
			t.Errorf("%d actions, want 4", got)
		}
		if err := c.DeleteSchedule(ctx, id); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DescribeSchedule(ctx, id); !errors.Is(err, orch.ErrNotFound) {
			t.Errorf("describe after delete: %v, want ErrNotFound", err)
		}
	})
}
