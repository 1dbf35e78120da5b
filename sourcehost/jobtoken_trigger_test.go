package sourcehost_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestRunPipelineTriggerWithAJobToken: a running job's CI_JOB_TOKEN is
// taken as the token of POST /projects/:id/trigger/pipeline, as GitLab
// takes it: the new pipeline is the job's user's, with source "pipeline"
// (downstream of the job's); a job that is not running is 401 "Job is not
// running"; a project the token does not reach 404. Fake only: a real
// server's job tokens come from its runners.
func TestRunPipelineTriggerWithAJobToken(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t, sourcehostfake.WithPipelineTiming(5*time.Second, time.Minute))
	clients, ids := users(t, srv, "alice")
	alice := clients["alice"]
	p, err := alice.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "app", InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	other, err := alice.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "other", InitializeWithReadme: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range []*sourcehost.Project{p, other} {
		if _, err := alice.CreateFile(ctx, pid(pr), sourcehostfake.CIFile, &sourcehost.CreateFileRequest{Branch: pr.DefaultBranch,
			Content: "build:\n  script: make\n", CommitMessage: "Add CI"}); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := alice.ListJobs(ctx, pid(p), nil)
	if err != nil || len(jobs.Items) != 1 {
		t.Fatalf("jobs %+v %v", jobs, err)
	}
	secret, err := srv.JobToken(p.ID, jobs.Items[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	anon, err := sourcehost.New(srv.URL(), sourcehost.WithHTTPClient(srv.RawClient()), sourcehost.WithoutRetries())
	if err != nil {
		t.Fatal(err)
	}
	run := func(pr *sourcehost.Project) (*sourcehost.Pipeline, error) {
		return anon.RunPipelineTrigger(ctx, pid(pr), &sourcehost.RunPipelineTriggerRequest{Token: secret, Ref: pr.DefaultBranch,
			Variables: map[string]string{"UPSTREAM": "yes"}})
	}
	var e *sourcehost.Error
	if _, err := run(p); !errors.As(err, &e) || e.StatusCode != 401 || e.Message != "Job is not running" {
		t.Fatalf("a pending job's token: %v", err)
	}
	srv.Clock().Advance(5 * time.Second) // the job runs
	pl, err := run(p)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Source != "pipeline" || pl.User == nil || pl.User.ID != ids["alice"] || pl.Ref != p.DefaultBranch {
		t.Fatalf("the downstream pipeline %+v", pl)
	}
	vars, err := alice.ListPipelineVariables(ctx, pid(p), pl.ID)
	if err != nil || len(vars) != 1 || vars[0].Key != "UPSTREAM" {
		t.Fatalf("its variables %v %v", vars, err)
	}
	if _, err := run(other); !errors.Is(err, sourcehost.ErrNotFound) {
		t.Fatalf("another project, which the job token does not reach: %v", err)
	}
	if r := srv.RequestsTo("POST /api/v4/projects/{id}/trigger/pipeline"); len(r) != 3 || r[1].Caller != "alice" {
		t.Fatalf("the request log %+v", r)
	} else if bytes.Contains(r[1].Body, []byte(secret)) {
		t.Fatalf("the job token in the request log: %s", r[1].Body)
	}
	if err := srv.SetJobStatus(p.ID, jobs.Items[0].ID, "success"); err != nil {
		t.Fatal(err)
	}
	if _, err := run(p); !errors.As(err, &e) || e.StatusCode != 401 {
		t.Fatalf("a finished job's token: %v", err)
	}
}
