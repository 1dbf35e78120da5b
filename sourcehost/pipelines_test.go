package sourcehost_test

import (
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func TestTriggerPipelineNeedsCIFile(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	_, err := tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: p.DefaultBranch})
	var e *sourcehost.Error
	if !errors.Is(err, sourcehost.ErrBadRequest) || !errors.As(err, &e) || e.Message != "Missing CI config file" {
		t.Fatalf("no CI file: %v", err)
	}
	_, err = tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: "no-such-branch"})
	if !errors.As(err, &e) || e.Message != "Reference not found" {
		t.Fatalf("bad ref: %v", err)
	}
}

func TestPipelineRunsOnTheClock(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, sourcehostfake.WithPipelineTiming(10*time.Second, time.Minute))
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	rc := newReceiver(t, "")
	tg.c.AddProjectHook(ctx, pid(p), &sourcehost.AddProjectHookRequest{URL: rc.srv.URL, PushEvents: sourcehost.Ptr(false), PipelineEvents: sourcehost.Ptr(true)})
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, "test:\n  script: go test ./...\n", "Add CI"); err != nil {
		t.Fatal(err)
	}
	// The push started one pipeline; trigger another through the API.
	pl, err := tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: p.DefaultBranch, Variables: map[string]string{"DEPLOY": "no"}})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Status != sourcehost.PipelinePending || pl.Source != "api" || pl.Ref != p.DefaultBranch || pl.SHA == "" {
		t.Fatalf("triggered %+v", pl)
	}
	status := func() sourcehost.PipelineStatus {
		got, err := tg.c.GetPipeline(ctx, pid(p), pl.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got.Status
	}
	srv.Clock().Advance(10 * time.Second)
	if s := status(); s != sourcehost.PipelineRunning {
		t.Fatalf("after 10s: %s", s)
	}
	srv.Clock().Advance(time.Minute)
	done, _ := tg.c.GetPipeline(ctx, pid(p), pl.ID)
	if done.Status != sourcehost.PipelineSuccess || done.Duration == nil || *done.Duration != 60 || !done.Status.Finished() {
		t.Fatalf("after 70s: %+v", done)
	}

	list, err := tg.c.ListPipelines(ctx, pid(p), &sourcehost.ListPipelinesOptions{Source: "push"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("push pipelines %+v %v", list, err)
	}
	if err := srv.SetPipelineStatus(p.ID, list.Items[0].ID, "failed"); err != nil {
		t.Fatal(err)
	}
	failed, _ := tg.c.ListPipelines(ctx, pid(p), &sourcehost.ListPipelinesOptions{Status: sourcehost.PipelineFailed})
	if len(failed.Items) != 1 {
		t.Fatalf("failed pipelines %+v", failed.Items)
	}

	if err := srv.WaitDeliveries(ctx); err != nil {
		t.Fatal(err)
	}
	events, _ := rc.got()
	var statuses []sourcehost.PipelineStatus
	for _, ev := range events {
		if pe, ok := ev.(*sourcehost.PipelineEvent); ok && pe.ObjectAttributes.ID == pl.ID {
			statuses = append(statuses, pe.ObjectAttributes.Status)
		}
	}
	if want := []sourcehost.PipelineStatus{"pending", "running", "success"}; len(statuses) != 3 || statuses[0] != want[0] || statuses[1] != want[1] || statuses[2] != want[2] {
		t.Fatalf("pipeline hook statuses %v", statuses)
	}
}

func TestCancelPipeline(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := tg.c.CreateFile(ctx, pid(p), sourcehostfake.CIFile, &sourcehost.CreateFileRequest{Branch: p.DefaultBranch, Content: "x: 1\n", CommitMessage: "CI"}); err != nil {
		t.Fatal(err)
	}
	page, err := tg.c.ListPipelines(ctx, pid(p), nil)
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("push pipeline %+v %v", page, err)
	}
	got, err := tg.c.CancelPipeline(ctx, pid(p), page.Items[0].ID)
	if err != nil || got.Status != sourcehost.PipelineCanceled {
		t.Fatalf("cancel %+v %v", got, err)
	}
	if _, err := tg.c.GetPipeline(ctx, pid(p), 123456); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("missing pipeline: %v", err)
	}
}

// A pipeline runs on a tag as on a branch, marked "tag": true, as the
// real service runs one (it was 400 "Reference not found"); a ref that
// names both a branch and a tag is ambiguous.
func TestTriggerPipelineOnATag(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, "test:\n  script: go test ./...\n", "Add CI"); err != nil {
		t.Fatal(err)
	}
	tag, err := tg.c.CreateTag(ctx, pid(p), &sourcehost.CreateTagRequest{TagName: "v1.0.0", Ref: p.DefaultBranch})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: "v1.0.0"})
	if err != nil || pl.Ref != "v1.0.0" || !pl.Tag || pl.SHA != tag.Commit.ID {
		t.Fatalf("a pipeline on a tag: %+v %v", pl, err)
	}
	jobs, err := tg.c.ListPipelineJobs(ctx, pid(p), pl.ID, nil)
	if err != nil || len(jobs.Items) != 1 || !jobs.Items[0].Tag {
		t.Fatalf("its jobs: %+v %v", jobs, err)
	}
	onBranch, err := tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: p.DefaultBranch})
	if err != nil || onBranch.Tag {
		t.Fatalf("a pipeline on a branch: %+v %v", onBranch, err)
	}
	if _, err := tg.c.CreateBranch(ctx, pid(p), "v1.0.0", p.DefaultBranch); err != nil {
		t.Fatal(err)
	}
	var e *sourcehost.Error
	if _, err := tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: "v1.0.0"}); !errors.As(err, &e) || e.StatusCode != 400 || e.Message != "Ref is ambiguous" {
		t.Fatalf("a branch and a tag of one name: %v", err)
	}
}
