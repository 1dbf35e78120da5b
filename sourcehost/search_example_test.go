package sourcehost_test

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_SearchProject() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	project := sourcehost.ProjectID(id)
	c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "Crash on pay"})
	c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "Typo on the pay page"})
	c.CreateIssue(ctx, project, &sourcehost.CreateIssueRequest{Title: "Slow start"})

	found, err := c.SearchProject(ctx, project, &sourcehost.SearchOptions{Search: "pay", Scope: sourcehost.SearchIssues})
	if err != nil {
		panic(err)
	}
	for _, is := range found.Issues {
		fmt.Println(is.Title)
	}
	// A scope a project's search does not have is GitLab's 400.
	_, err = c.SearchProject(ctx, project, &sourcehost.SearchOptions{Search: "pay", Scope: sourcehost.SearchProjects})
	fmt.Println(err != nil)
	// Output:
	// Typo on the pay page
	// Crash on pay
	// true
}
