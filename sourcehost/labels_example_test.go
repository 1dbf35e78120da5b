package sourcehost_test

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_CreateLabel() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	project := sourcehost.ProjectID(id)

	if _, err := c.CreateLabel(ctx, project, &sourcehost.CreateLabelRequest{Name: "bug", Color: "#d9534f"}); err != nil {
		panic(err)
	}
	c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "Crash on pay", Labels: sourcehost.Labels{"bug"}})
	c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "Typo"})
	bugs, err := c.ListIssues(ctx, project, &sourcehost.ListIssuesOptions{Labels: []string{"bug"}})
	if err != nil {
		panic(err)
	}
	for _, is := range bugs.Items {
		fmt.Println(is.Title, is.Labels)
	}
	fmt.Println(sourcehost.CheckLabelName("a,b") != nil)
	// Output:
	// Crash on pay [bug]
	// true
}

func ExampleClient_CreateMilestone() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	project := sourcehost.ProjectID(id)

	m, err := c.CreateMilestone(ctx, project, &sourcehost.CreateMilestoneRequest{Title: "v1.0"})
	if err != nil {
		panic(err)
	}
	c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "Ship it", MilestoneID: &m.ID})
	for is, err := range c.AllIssues(ctx, project, &sourcehost.ListIssuesOptions{Milestone: "v1.0"}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(is.Title, is.Milestone.Title)
	}
	// Output: Ship it v1.0
}
