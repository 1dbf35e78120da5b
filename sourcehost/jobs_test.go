package sourcehost_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

const twoJobsCI = "stages: [build, test]\n\nbuild:\n  stage: build\n  script: go build ./...\n\ntest:\n  stage: test\n  script: go test ./...\n\n.hidden:\n  script: nothing\n"

func TestJobsMoveOnTheClock(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, sourcehostfake.WithPipelineTiming(5*time.Second, time.Minute))
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, twoJobsCI, "Add CI"); err != nil {
		t.Fatal(err)
	}
	pls, err := tg.c.ListPipelines(ctx, pid(p), nil)
	if err != nil || len(pls.Items) != 1 {
		t.Fatalf("pipelines %+v %v", pls, err)
	}
	pl := pls.Items[0]
	jobs := func(opts *sourcehost.ListJobsOptions) map[string]sourcehost.PipelineStatus {
		t.Helper()
		out := map[string]sourcehost.PipelineStatus{}
		for j, err := range tg.c.AllPipelineJobs(ctx, pid(p), pl.ID, opts) {
			if err != nil {
				t.Fatal(err)
			}
			if j.Pipeline.ID != pl.ID || j.Ref != p.DefaultBranch || j.Commit == nil {
				t.Fatalf("job %+v", j)
			}
			out[j.Name+"@"+j.Stage] += j.Status + " "
		}
		return out
	}
	if got := jobs(nil); len(got) != 2 || got["build@build"] != "pending " || got["test@test"] != "pending " {
		t.Fatalf("new pipeline's jobs %v", got)
	}
	srv.Clock().Advance(5 * time.Second)
	page, err := tg.c.ListJobs(ctx, pid(p), &sourcehost.ListJobsOptions{Scope: []sourcehost.PipelineStatus{sourcehost.PipelineRunning}})
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("running jobs %+v %v", page, err)
	}
	var build, test *sourcehost.Job
	for _, j := range page.Items {
		switch j.Name {
		case "build":
			build = j
		case "test":
			test = j
		}
	}
	trace, err := tg.c.JobTrace(ctx, pid(p), test.ID)
	if err != nil || !strings.Contains(string(trace), "$ run test") {
		t.Fatalf("trace %q %v", trace, err)
	}
	canceled, err := tg.c.CancelJob(ctx, pid(p), build.ID)
	if err != nil || canceled.Status != sourcehost.PipelineCanceled || canceled.FinishedAt == nil {
		t.Fatalf("canceled %+v %v", canceled, err)
	}
	if _, err := tg.c.RetryJob(ctx, pid(p), test.ID); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("retrying a running job: %v", err)
	}
	srv.Clock().Advance(time.Minute)
	done, err := tg.c.GetJob(ctx, pid(p), test.ID)
	if err != nil || done.Status != sourcehost.PipelineSuccess || done.Duration == nil || *done.Duration != 60 {
		t.Fatalf("after a minute %+v %v", done, err)
	}
	if trace, _ = tg.c.JobTrace(ctx, pid(p), test.ID); !strings.HasSuffix(string(trace), "Job succeeded\n") {
		t.Fatalf("finished trace %q", trace)
	}
	// Retrying the canceled job runs the pipeline again.
	again, err := tg.c.RetryJob(ctx, pid(p), build.ID)
	if err != nil || again.ID == build.ID || again.Name != "build" {
		t.Fatalf("retried %+v %v", again, err)
	}
	if got, _ := tg.c.GetPipeline(ctx, pid(p), pl.ID); got.Status != sourcehost.PipelineRunning {
		t.Fatalf("pipeline after a retry: %s", got.Status)
	}
	srv.Clock().Advance(time.Minute)
	if got := jobs(nil); got["build@build"] != "success " || got["test@test"] != "success " {
		t.Fatalf("jobs after the retry %v", got)
	}
	withRetried := jobs(&sourcehost.ListJobsOptions{IncludeRetried: sourcehost.Ptr(true)})
	if parts := strings.Fields(string(withRetried["build@build"])); !slices.Equal(parts, []string{"success", "canceled"}) {
		t.Fatalf("with retried %v", withRetried)
	}
	if all := srv.Jobs(p.ID, pl.ID); len(all) != 3 || all[2].Name != "build" || all[2].Status != sourcehost.PipelineSuccess {
		t.Fatalf("read back %+v", all)
	}
	if _, err := tg.c.GetJob(ctx, pid(p), 999999); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("missing job: %v", err)
	}
}

func TestCancelingEveryJobCancelsThePipeline(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, "lint:\n  script: vet\n", "Add CI"); err != nil {
		t.Fatal(err)
	}
	page, err := tg.c.ListJobs(ctx, pid(p), nil)
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("jobs %+v %v", page, err)
	}
	if _, err := tg.c.CancelJob(ctx, pid(p), page.Items[0].ID); err != nil {
		t.Fatal(err)
	}
	pl, err := tg.c.GetPipeline(ctx, pid(p), page.Items[0].Pipeline.ID)
	if err != nil || pl.Status != sourcehost.PipelineCanceled {
		t.Fatalf("pipeline %+v %v", pl, err)
	}
	// Canceling the pipeline cancels what still runs; a finished job is
	// answered as it is.
	again, err := tg.c.CancelJob(ctx, pid(p), page.Items[0].ID)
	if err != nil || again.Status != sourcehost.PipelineCanceled {
		t.Fatalf("cancel twice %+v %v", again, err)
	}
}

func TestAFailedJobFailsItsPipeline(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, sourcehostfake.WithPipelineTiming(5*time.Second, time.Minute))
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, twoJobsCI, "Add CI"); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(5 * time.Second)
	page, err := tg.c.ListJobs(ctx, pid(p), nil)
	if err != nil || len(page.Items) != 2 {
		t.Fatalf("jobs %+v %v", page, err)
	}
	failed := page.Items[0]
	if err := srv.SetJobStatus(p.ID, failed.ID, "failed"); err != nil {
		t.Fatal(err)
	}
	if err := srv.SetJobStatus(p.ID, failed.ID, "exploded"); err == nil {
		t.Fatal("an unknown status was taken")
	}
	srv.Clock().Advance(time.Minute)
	pl, err := tg.c.GetPipeline(ctx, pid(p), failed.Pipeline.ID)
	if err != nil || pl.Status != sourcehost.PipelineFailed {
		t.Fatalf("pipeline %+v %v", pl, err)
	}
	j, err := tg.c.GetJob(ctx, pid(p), failed.ID)
	if err != nil || j.Status != sourcehost.PipelineFailed || j.FailureReason != "script_failure" {
		t.Fatalf("job %+v %v", j, err)
	}
	if trace, _ := tg.c.JobTrace(ctx, pid(p), failed.ID); !strings.Contains(string(trace), "ERROR: Job failed") {
		t.Fatalf("trace %q", trace)
	}
	other, err := tg.c.GetJob(ctx, pid(p), page.Items[1].ID)
	if err != nil || other.Status != sourcehost.PipelineSuccess {
		t.Fatalf("the other job %+v %v", other, err)
	}
}
