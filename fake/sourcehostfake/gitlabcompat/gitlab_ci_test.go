package gitlabcompat_test

import (
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// TestGitLabClientCI: the published client manages a project's CI/CD
// variables, retries, reads the variables of and deletes a pipeline, runs
// one with a trigger token, and plays a schedule.
func TestGitLabClientCI(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{sourcehostfake.CIFile: "test:\n  stage: test\n  script: go test\n"}})
	if err != nil {
		t.Fatal(err)
	}

	for _, scope := range []string{"production", "review/*"} {
		if _, _, err := gl.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{Key: gitlab.Ptr("URL"),
			Value: gitlab.Ptr("https://" + scope), EnvironmentScope: gitlab.Ptr(scope), Masked: gitlab.Ptr(false)}); err != nil {
			t.Fatal(err)
		}
	}
	v, _, err := gl.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{Key: gitlab.Ptr("TOKEN"),
		Value: gitlab.Ptr("s3cret-t0ken-value"), Masked: gitlab.Ptr(true), Protected: gitlab.Ptr(true)})
	if err != nil || !v.Masked || !v.Protected || v.EnvironmentScope != "*" {
		t.Fatalf("create %+v %v", v, err)
	}
	if _, resp, err := gl.ProjectVariables.CreateVariable(pid, &gitlab.CreateProjectVariableOptions{Key: gitlab.Ptr("SHORT"),
		Value: gitlab.Ptr("short"), Masked: gitlab.Ptr(true)}); err == nil || resp.StatusCode != 400 {
		t.Fatalf("a value that cannot be masked: %v", err)
	}
	filter := &gitlab.VariableFilter{EnvironmentScope: "review/*"}
	got, _, err := gl.ProjectVariables.GetVariable(pid, "URL", &gitlab.GetProjectVariableOptions{Filter: filter})
	if err != nil || got.Value != "https://review/*" {
		t.Fatalf("get filtered %+v %v", got, err)
	}
	if up, _, err := gl.ProjectVariables.UpdateVariable(pid, "URL", &gitlab.UpdateProjectVariableOptions{Value: gitlab.Ptr("r2"), Filter: filter}); err != nil || up.Value != "r2" || up.EnvironmentScope != "review/*" {
		t.Fatalf("update filtered %+v %v", up, err)
	}
	if _, err := gl.ProjectVariables.RemoveVariable(pid, "URL", &gitlab.RemoveProjectVariableOptions{Filter: filter}); err != nil {
		t.Fatal(err)
	}
	vars, _, err := gl.ProjectVariables.ListVariables(pid, nil)
	if err != nil || len(vars) != 2 {
		t.Fatalf("list %+v %v", vars, err)
	}

	tr, _, err := gl.PipelineTriggers.AddPipelineTrigger(pid, &gitlab.AddPipelineTriggerOptions{Description: gitlab.Ptr("deploy")})
	if err != nil || tr.Token == "" {
		t.Fatalf("trigger %+v %v", tr, err)
	}
	pl, _, err := gl.PipelineTriggers.RunPipelineTrigger(pid, &gitlab.RunPipelineTriggerOptions{Ref: gitlab.Ptr("main"), Token: gitlab.Ptr(tr.Token),
		Variables: map[string]string{"TARGET": "staging"}})
	if err != nil || pl.Source != "trigger" {
		t.Fatalf("run trigger %+v %v", pl, err)
	}
	pvars, _, err := gl.Pipelines.GetPipelineVariables(pid, pl.ID)
	if err != nil || len(pvars) != 1 || pvars[0].Key != "TARGET" || pvars[0].Value != "staging" {
		t.Fatalf("pipeline variables %+v %v", pvars, err)
	}
	if err := srv.SetPipelineStatus(pid, pl.ID, "failed"); err != nil {
		t.Fatal(err)
	}
	again, _, err := gl.Pipelines.RetryPipelineBuild(pid, pl.ID)
	if err != nil || again.Status != "running" {
		t.Fatalf("retry %+v %v", again, err)
	}
	if _, err := gl.Pipelines.DeletePipeline(pid, pl.ID); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := gl.Pipelines.GetPipeline(pid, pl.ID); err == nil || resp.StatusCode != 404 {
		t.Fatalf("a deleted pipeline: %v", err)
	}

	s, _, err := gl.PipelineSchedules.CreatePipelineSchedule(pid, &gitlab.CreatePipelineScheduleOptions{Description: gitlab.Ptr("nightly"),
		Ref: gitlab.Ptr("main"), Cron: gitlab.Ptr("0 1 * * *")})
	if err != nil || s.CronTimezone != "UTC" || !s.Active {
		t.Fatalf("schedule %+v %v", s, err)
	}
	if _, err := gl.PipelineSchedules.RunPipelineSchedule(pid, s.ID); err != nil {
		t.Fatal(err)
	}
	s, _, err = gl.PipelineSchedules.GetPipelineSchedule(pid, s.ID)
	if err != nil || s.LastPipeline == nil || s.LastPipeline.ID == 0 {
		t.Fatalf("after run %+v %v", s, err)
	}

	// Keyset pagination of jobs, as the client's own pager follows it.
	jobs, resp, err := gl.Jobs.ListProjectJobs(pid, &gitlab.ListJobsOptions{ListOptions: gitlab.ListOptions{Pagination: "keyset", PerPage: 1}})
	if err != nil || len(jobs) != 1 || resp.NextLink == "" {
		t.Fatalf("keyset jobs %d %+v %v", len(jobs), resp, err)
	}
}
