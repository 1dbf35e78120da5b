package sourcehost_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_CreateRelease() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"main.go": "package main"}})
	project := sourcehost.ProjectID(id)

	// Cut a tag from main and release it in one call.
	rel, err := c.CreateRelease(ctx, project, &sourcehost.CreateReleaseRequest{TagName: "v1.0.0", Ref: "main", Description: "First release"})
	if err != nil {
		panic(err)
	}
	tag, err := c.GetTag(ctx, project, "v1.0.0")
	if err != nil {
		panic(err)
	}
	fmt.Println(rel.Name, tag.Commit.ID == rel.Commit.ID, tag.Release.Description)
	// Output: v1.0.0 true First release
}

func ExampleClient_DeleteBranch() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"main.go": "package main"}})
	project := sourcehost.ProjectID(id)
	c.CreateBranch(ctx, project, "release/1", "main")
	c.ProtectBranch(ctx, project, &sourcehost.ProtectBranchRequest{Name: "release/*"})

	err := c.DeleteBranch(ctx, project, "release/1")
	fmt.Println(errors.Is(err, sourcehost.ErrMethodNotAllowed))
	c.UnprotectBranch(ctx, project, "release/*")
	fmt.Println(c.DeleteBranch(ctx, project, "release/1"))
	// Output:
	// true
	// <nil>
}
