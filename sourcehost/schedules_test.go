package sourcehost_test

import (
	"errors"
	"testing"

	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

func TestPipelineSchedules(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.ciProject(t)
	me, err := tg.c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tg.c.CreatePipelineSchedule(ctx, pid(p), &sourcehost.PipelineScheduleRequest{Description: "nightly", Ref: p.DefaultBranch,
		Cron: "0 1 * * *", CronTimezone: "Europe/Paris"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Description != "nightly" || s.Cron != "0 1 * * *" || s.CronTimezone != "Europe/Paris" || !s.Active || s.Owner == nil || s.Owner.ID != me.ID {
		t.Fatalf("created %+v", s)
	}
	if err := tg.c.PlayPipelineSchedule(ctx, pid(p), s.ID); err != nil {
		t.Fatal(err)
	}
	got, err := tg.c.GetPipelineSchedule(ctx, pid(p), s.ID)
	if err != nil || got.LastPipeline == nil || got.LastPipeline.Source != "schedule" || got.LastPipeline.Ref != p.DefaultBranch {
		t.Fatalf("after play %+v %v", got, err)
	}
	up, err := tg.c.UpdatePipelineSchedule(ctx, pid(p), s.ID, &sourcehost.PipelineScheduleRequest{Cron: "@daily", Active: sourcehost.Ptr(false)})
	if err != nil || up.Cron != "@daily" || up.Active || up.Description != "nightly" {
		t.Fatalf("update %+v %v", up, err)
	}
	active, err := tg.c.ListPipelineSchedules(ctx, pid(p), &sourcehost.ListPipelineSchedulesOptions{Scope: "active"})
	if err != nil || len(active.Items) != 0 {
		t.Fatalf("active %+v %v", active, err)
	}
	var ids []int64
	for s, err := range tg.c.AllPipelineSchedules(ctx, pid(p), nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	if d := cmp.Diff([]int64{s.ID}, ids); d != "" {
		t.Fatalf("all (-want +got):\n%s", d)
	}
	if err := tg.c.DeletePipelineSchedule(ctx, pid(p), s.ID); err != nil {
		t.Fatal(err)
	}
	var e *sourcehost.Error
	if _, err := tg.c.GetPipelineSchedule(ctx, pid(p), s.ID); !errors.As(err, &e) || e.Message != "404 Pipeline Schedule Not Found" {
		t.Fatalf("a deleted schedule: %v", err)
	}
}

func TestPipelineScheduleRefusals(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.ciProject(t)
	for _, tc := range []struct {
		req   sourcehost.PipelineScheduleRequest
		field string
	}{
		{sourcehost.PipelineScheduleRequest{Description: "d", Ref: "main", Cron: "every day"}, "cron"},
		{sourcehost.PipelineScheduleRequest{Description: "d", Ref: "main", Cron: "0 1 * *"}, "cron"},
		{sourcehost.PipelineScheduleRequest{Description: "d", Ref: "main", Cron: "0 1 * * *", CronTimezone: "Mars/Olympus"}, "cron_timezone"},
	} {
		_, err := tg.c.CreatePipelineSchedule(ctx, pid(p), &tc.req)
		var e *sourcehost.Error
		if !errors.Is(err, sourcehost.ErrBadRequest) || !errors.As(err, &e) || !cmp.Equal(e.Fields[tc.field], []string{"is invalid syntax"}) {
			t.Errorf("%+v: %v", tc.req, err)
		}
	}
	if page, _ := tg.c.ListPipelineSchedules(ctx, pid(p), nil); len(page.Items) != 0 {
		t.Fatalf("a refusal made %d schedules", len(page.Items))
	}
	// A schedule on a ref that is gone: the play is refused as the
	// pipeline would be.
	s, err := tg.c.CreatePipelineSchedule(ctx, pid(p), &sourcehost.PipelineScheduleRequest{Description: "d", Ref: "gone", Cron: "@hourly"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.c.PlayPipelineSchedule(ctx, pid(p), s.ID); !errors.Is(err, sourcehost.ErrBadRequest) {
		t.Fatalf("play on a missing ref: %v", err)
	}
}
