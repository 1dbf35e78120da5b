package gitlabcompat_test

import (
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// TestGitLabClientTriggerWithAJobToken: the published client runs a
// pipeline with a running job's CI_JOB_TOKEN as the trigger token, as a
// job of a multi-project pipeline does; the new one's source is
// "pipeline".
func TestGitLabClientTriggerWithAJobToken(t *testing.T) {
	t.Parallel()
	srv := sourcehostfake.Start(t)
	gl := gitlabClient(t, srv)
	pid, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gl.RepositoryFiles.CreateFile(pid, sourcehostfake.CIFile, &gitlab.CreateFileOptions{Branch: gitlab.Ptr("main"),
		Content: gitlab.Ptr("test:\n  script: go test\n"), CommitMessage: gitlab.Ptr("CI")}); err != nil {
		t.Fatal(err)
	}
	srv.Clock().Advance(5 * time.Second) // the job runs
	jobs, _, err := gl.Jobs.ListProjectJobs(pid, nil)
	if err != nil || len(jobs) != 1 || jobs[0].Status != "running" {
		t.Fatalf("jobs %+v %v", jobs, err)
	}
	secret, err := srv.JobToken(pid, int64(jobs[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	pl, _, err := gl.PipelineTriggers.RunPipelineTrigger(pid, &gitlab.RunPipelineTriggerOptions{Ref: gitlab.Ptr("main"), Token: gitlab.Ptr(secret)})
	if err != nil || pl.Source != "pipeline" || pl.User == nil || pl.User.Username != "root" {
		t.Fatalf("run with a job token %+v %v", pl, err)
	}
}
