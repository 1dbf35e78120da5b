package sourcehost_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/internal/leaktest"
	"github.com/apitwin/apitwin/sourcehost"
	"github.com/google/go-cmp/cmp"
)

func TestRetryPipelineRetriesFailedJobs(t *testing.T) {
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
	srv.Clock().Advance(time.Minute)
	plID := failed.Pipeline.ID
	if pl, err := tg.c.GetPipeline(ctx, pid(p), plID); err != nil || pl.Status != sourcehost.PipelineFailed {
		t.Fatalf("before the retry %+v %v", pl, err)
	}
	pl, err := tg.c.RetryPipeline(ctx, pid(p), plID)
	if err != nil || pl.Status != sourcehost.PipelineRunning || pl.ID != plID {
		t.Fatalf("retry %+v %v", pl, err)
	}
	jobs, err := tg.c.ListPipelineJobs(ctx, pid(p), plID, &sourcehost.ListJobsOptions{IncludeRetried: sourcehost.Ptr(true)})
	if err != nil || len(jobs.Items) != 3 {
		t.Fatalf("jobs after the retry %+v %v", jobs, err)
	}
	if again := jobs.Items[0]; again.Name != failed.Name || again.ID == failed.ID {
		t.Fatalf("the new job %+v", again)
	}
	srv.Clock().Advance(time.Minute)
	if pl, err := tg.c.GetPipeline(ctx, pid(p), plID); err != nil || pl.Status != sourcehost.PipelineSuccess {
		t.Fatalf("after the retry ran %+v %v", pl, err)
	}
	// Nothing left to retry: the pipeline is answered as it is.
	if pl, err := tg.c.RetryPipeline(ctx, pid(p), plID); err != nil || pl.Status != sourcehost.PipelineSuccess {
		t.Fatalf("retry of a green pipeline %+v %v", pl, err)
	}
	if _, err := tg.c.RetryPipeline(ctx, pid(p), plID+1000); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("retry of no pipeline: %v", err)
	}
}

func TestDeletePipelineIsTheOwners(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, twoJobsCI, "Add CI"); err != nil {
		t.Fatal(err)
	}
	page, err := tg.c.ListPipelines(ctx, pid(p), nil)
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("pipelines %+v %v", page, err)
	}
	plID := page.Items[0].ID
	clients, ids := users(t, srv, "maintainer-"+unique())
	var maint *sourcehost.Client
	for name, c := range clients {
		maint = c
		if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids[name], AccessLevel: sourcehost.MaintainerAccess}); err != nil {
			t.Fatal(err)
		}
	}
	if err := maint.DeletePipeline(ctx, pid(p), plID); !errors.Is(err, sourcehost.ErrForbidden) {
		t.Fatalf("a maintainer deleted a pipeline: %v", err)
	}
	if err := tg.c.DeletePipeline(ctx, pid(p), plID); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.c.GetPipeline(ctx, pid(p), plID); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("a deleted pipeline: %v", err)
	}
	if jobs, err := tg.c.ListJobs(ctx, pid(p), nil); err != nil || len(jobs.Items) != 0 {
		t.Fatalf("its jobs %+v %v", jobs, err)
	}
	if err := tg.c.DeletePipeline(ctx, pid(p), plID); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("deleted twice: %v", err)
	}
	// The deleted pipeline's timer is stopped: moving the clock changes nothing.
	srv.Clock().Advance(time.Hour)
	if n := len(srv.Pipelines(p.ID)); n != 0 {
		t.Fatalf("%d pipelines after the delete", n)
	}
}

func TestPipelineVariables(t *testing.T) {
	t.Parallel()
	tg := newTarget(t)
	srv := tg.needFake(t)
	p := tg.project(t, sourcehost.Private)
	if _, err := srv.PushFile(p.ID, p.DefaultBranch, sourcehostfake.CIFile, twoJobsCI, "Add CI"); err != nil {
		t.Fatal(err)
	}
	const secret = "s3cret-deploy-key"
	pl, err := tg.c.TriggerPipeline(ctx, pid(p), &sourcehost.TriggerPipelineRequest{Ref: p.DefaultBranch,
		Variables: map[string]string{"DEPLOY_KEY": secret, "ENV": "staging"}})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := tg.c.ListPipelineVariables(ctx, pid(p), pl.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []*sourcehost.PipelineVariable{
		{Key: "DEPLOY_KEY", Value: secret, VariableType: "env_var"},
		{Key: "ENV", Value: "staging", VariableType: "env_var"},
	}
	if d := cmp.Diff(want, vars); d != "" {
		t.Fatalf("variables (-want +got):\n%s", d)
	}
	leaktest.NoSecretIn(t, "a pipeline variable", vars[0], secret)
	leaktest.NoSecretIn(t, "a pipeline variable by value", *vars[0], secret)
	if s := fmt.Sprint(vars[0]); !strings.Contains(s, "DEPLOY_KEY") {
		t.Fatalf("printed %s", s)
	}

	// A reporter sees the pipeline but not its variables.
	clients, ids := users(t, srv, "reporter-"+unique())
	for name, c := range clients {
		if _, err := tg.c.AddProjectMember(ctx, pid(p), &sourcehost.AddProjectMemberRequest{UserID: ids[name], AccessLevel: sourcehost.ReporterAccess}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ListPipelineVariables(ctx, pid(p), pl.ID); !errors.Is(err, sourcehost.ErrForbidden) {
			t.Fatalf("a reporter read the variables: %v", err)
		}
	}
	// The push's pipeline has none.
	page, _ := tg.c.ListPipelines(ctx, pid(p), &sourcehost.ListPipelinesOptions{Source: "push"})
	if vars, err := tg.c.ListPipelineVariables(ctx, pid(p), page.Items[0].ID); err != nil || len(vars) != 0 {
		t.Fatalf("a push's variables %+v %v", vars, err)
	}
}
