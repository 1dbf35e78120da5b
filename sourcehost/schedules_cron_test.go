package sourcehost_test

import (
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestPipelineSchedulesRunByCron: an active schedule runs on the fake
// clock, as its owner with source "schedule", at the next_run_at GitLab
// gives it: its cron's next time in its time zone, moved to the
// schedule worker's next run (minutes 3, 13, … by default); an inactive
// one has no next_run_at and never runs.
func TestPipelineSchedulesRunByCron(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	srv.Clock().Set(time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC))
	c := srv.Client()
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "shop", InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateFile(ctx, pid(p), sourcehostfake.CIFile, &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "build:\n  script: make\n", CommitMessage: "CI"}); err != nil {
		t.Fatal(err)
	}
	hourly, err := c.CreatePipelineSchedule(ctx, pid(p), &sourcehost.PipelineScheduleRequest{Description: "hourly", Ref: p.DefaultBranch, Cron: "0 * * * *"})
	if err != nil {
		t.Fatal(err)
	}
	at := func(h, m int) time.Time { return time.Date(2026, 12, 2, h, m, 0, 0, time.UTC) }
	if hourly.NextRunAt == nil || !hourly.NextRunAt.Equal(at(10, 3)) {
		t.Fatalf("hourly next_run_at %v, want 10:03 (10:00 moved to the worker's run)", hourly.NextRunAt)
	}
	berlin, err := c.CreatePipelineSchedule(ctx, pid(p), &sourcehost.PipelineScheduleRequest{Description: "lunch", Ref: p.DefaultBranch,
		Cron: "30 12 * * *", CronTimezone: "Europe/Berlin"})
	if err != nil {
		t.Fatal(err)
	}
	if berlin.NextRunAt == nil || !berlin.NextRunAt.Equal(at(11, 33)) {
		t.Fatalf("Berlin next_run_at %v, want 11:33Z (12:30 CET, then the worker's run)", berlin.NextRunAt)
	}
	off := false
	idle, err := c.CreatePipelineSchedule(ctx, pid(p), &sourcehost.PipelineScheduleRequest{Description: "idle", Ref: p.DefaultBranch, Cron: "* * * * *", Active: &off})
	if err != nil || idle.NextRunAt != nil {
		t.Fatalf("inactive %+v %v", idle, err)
	}
	scheduled := func() []*sourcehost.Pipeline {
		var out []*sourcehost.Pipeline
		for _, pl := range srv.Pipelines(p.ID) {
			if pl.Source == "schedule" {
				out = append(out, pl)
			}
		}
		return out
	}
	srv.Clock().Set(at(10, 2))
	if n := len(scheduled()); n != 0 {
		t.Fatalf("%d scheduled pipelines before 10:03", n)
	}
	srv.Clock().Set(at(10, 3))
	runs := scheduled()
	if len(runs) != 1 || !runs[0].CreatedAt.Equal(at(10, 3)) || runs[0].User == nil || runs[0].User.Username != "root" {
		t.Fatalf("at 10:03: %+v", runs)
	}
	got, err := c.GetPipelineSchedule(ctx, pid(p), hourly.ID)
	if err != nil || got.NextRunAt == nil || !got.NextRunAt.Equal(at(11, 3)) || got.LastPipeline == nil || got.LastPipeline.ID != runs[0].ID {
		t.Fatalf("after its run %+v %v", got, err)
	}
	srv.Clock().Set(at(11, 40)) // the hourly at 11:03, Berlin's at 11:33
	if n := len(scheduled()); n != 3 {
		t.Fatalf("%d scheduled pipelines at 11:40, want 3", n)
	}
	// Deactivated, it stops.
	if _, err := c.UpdatePipelineSchedule(ctx, pid(p), hourly.ID, &sourcehost.PipelineScheduleRequest{Active: &off}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeletePipelineSchedule(ctx, pid(p), berlin.ID); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Set(at(23, 0))
	if n := len(scheduled()); n != 3 {
		t.Fatalf("%d scheduled pipelines after deactivating, want 3", n)
	}
}
