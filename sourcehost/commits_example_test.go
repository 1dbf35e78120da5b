package sourcehost_test

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// Walk the commits that changed one file, newest first, across every page.
func ExampleClient_AllCommits() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"README.md": "# Shop"}})
	project := sourcehost.ProjectID(id)
	srv.PushFile(id, "main", "README.md", "# Shop\n\nSells lamps.", "Say what the shop sells")
	srv.PushFile(id, "main", "main.go", "package main", "Add the program")

	for commit, err := range c.AllCommits(ctx, project, &sourcehost.ListCommitsOptions{Path: "README.md"}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(commit.Title)
	}
	// Output:
	// Say what the shop sells
	// Seed files
}

// Cut a tag from a branch, read it back, and delete it.
func ExampleClient_CreateTag() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Files: map[string]string{"main.go": "package main"}})
	project := sourcehost.ProjectID(id)

	tag, err := c.CreateTag(ctx, project, &sourcehost.CreateTagRequest{TagName: "v0.1.0", Ref: "main", Message: "First cut"})
	if err != nil {
		panic(err)
	}
	got, _ := c.GetTag(ctx, project, "v0.1.0")
	fmt.Println(tag.Name, got.Message, got.Commit.ID == tag.Commit.ID)
	fmt.Println(c.DeleteTag(ctx, project, "v0.1.0"))
	// Output:
	// v0.1.0 First cut true
	// <nil>
}
