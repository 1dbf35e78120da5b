package sourcehost_test

import (
	"context"
	"fmt"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_AllPipelineJobs() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	// Pushing a CI definition starts a pipeline with its jobs.
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{
		sourcehostfake.CIFile: "test:\n  stage: test\n  script: go test ./...\n"}})
	project := sourcehost.ProjectID(id)
	pipelines, err := c.ListPipelines(ctx, project, nil)
	if err != nil {
		panic(err)
	}
	pl := pipelines.Items[0]

	// The fake's jobs move on its clock: pending, running after 5 s,
	// success a minute later.
	srv.Clock().Advance(65 * time.Second)
	for j, err := range c.AllPipelineJobs(ctx, project, pl.ID, nil) {
		if err != nil {
			panic(err)
		}
		trace, _ := c.JobTrace(ctx, project, j.ID)
		fmt.Println(j.Name, j.Stage, j.Status, len(trace) > 0)
	}
	// Output: test test success true
}
