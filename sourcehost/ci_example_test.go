package sourcehost_test

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_CreateVariable() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	project := sourcehost.ProjectID(id)

	v, err := c.CreateVariable(ctx, project, &sourcehost.CreateVariableRequest{Key: "DEPLOY_TOKEN", Value: "dG9rZW4tdmFsdWU=",
		Masked: sourcehost.Ptr(true)})
	if err != nil {
		panic(err)
	}
	fmt.Println(v) // a variable prints without its value
	// A value the server could not find in a job's log cannot be masked.
	_, err = c.CreateVariable(ctx, project, &sourcehost.CreateVariableRequest{Key: "PIN", Value: "1234", Masked: sourcehost.Ptr(true)})
	fmt.Println(err)
	// Output:
	// sourcehost.Variable{Key:"DEPLOY_TOKEN", Value:[REDACTED], VariableType:"env_var", Protected:false, Masked:true, Hidden:false, Raw:false, EnvironmentScope:"*"}
	// sourcehost: POST /api/v4/projects/1/variables: 400 value is invalid
}

func ExampleClient_RunPipelineTrigger() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{
		sourcehostfake.CIFile: "deploy:\n  stage: deploy\n  script: ./deploy\n"}})
	project := sourcehost.ProjectID(id)
	trigger, err := srv.Client().CreatePipelineTrigger(ctx, project, "deploys from the release job")
	if err != nil {
		panic(err)
	}

	// Whoever holds the token runs pipelines, without credentials of
	// their own.
	anyone, _ := sourcehost.New(srv.URL())
	pl, err := anyone.RunPipelineTrigger(ctx, project, &sourcehost.RunPipelineTriggerRequest{Token: trigger.Token, Ref: "main",
		Variables: map[string]string{"TARGET": "staging"}})
	if err != nil {
		panic(err)
	}
	vars, _ := srv.Client().ListPipelineVariables(ctx, project, pl.ID)
	fmt.Println(pl.Source, pl.Ref, pl.Status, vars[0].Key)
	// Output: trigger main pending TARGET
}
