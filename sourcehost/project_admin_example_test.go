package sourcehost_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_ForkProject() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	srv.AddGroup(sourcehostfake.GroupSeed{Path: "platform"})
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# shop\n"}})

	fork, err := c.ForkProject(ctx, sourcehost.ProjectID(id), &sourcehost.ForkProjectRequest{NamespacePath: "platform"})
	if err != nil {
		panic(err)
	}
	fmt.Println(fork.PathWithNamespace, "forked from", fork.ForkedFromProject.PathWithNamespace)
	readme, _ := c.GetFile(ctx, sourcehost.ProjectID(fork.ID), "README.md", fork.DefaultBranch)
	content, _ := readme.Decode()
	fmt.Print(string(content))
	// Output:
	// platform/shop forked from root/shop
	// # shop
}

func ExampleClient_ArchiveProject() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	project := sourcehost.ProjectID(id)

	c.ArchiveProject(ctx, project)
	_, err := c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "bug"})
	fmt.Println("archived, an issue:", errors.Is(err, sourcehost.ErrForbidden))
	c.UnarchiveProject(ctx, project)
	_, err = c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "bug"})
	fmt.Println("unarchived, an issue:", err == nil)

	if err := c.DeleteProject(ctx, project); err != nil {
		panic(err)
	}
	_, err = c.GetProject(ctx, project, nil)
	fmt.Println("deleted:", errors.Is(err, sourcehost.ErrNotFound))
	// Output:
	// archived, an issue: true
	// unarchived, an issue: true
	// deleted: true
}
