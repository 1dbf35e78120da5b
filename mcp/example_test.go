package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
)

func Example() {
	ctx := context.Background()
	srv, err := mcpfake.New() // in memory, no port; in a test: mcpfake.Start(t)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	pid, _ := srv.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "shop"})

	c := srv.Client() // an mcp.Client with a token of the upstream fake
	created, err := c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: pid, Title: "Checkout fails", Labels: []string{"bug"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	list, _ := c.ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: pid, State: "opened"})
	fmt.Println(created.IID, list.TotalCount, list.Issues[0].Title, list.Issues[0].Labels)

	_, err = c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: 404})
	var e *mcp.Error
	fmt.Println(errors.Is(err, mcp.ErrNotFound), errors.As(err, &e), e.Code, e.Message)
	// Output:
	// 1 1 Checkout fails [bug]
	// true true -32000 source-hosting API Error
}

func ExampleClient_NewBatch() {
	ctx := context.Background()
	srv, err := mcpfake.New() // in memory, no port; in a test: mcpfake.Start(t)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	pid, _ := srv.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "shop"})

	b := srv.Client().NewBatch()
	project := b.Call("get_project", &mcp.GetProjectParams{ProjectID: pid})
	unknown := b.Call("delete_everything", nil)
	b.Notify("create_issue", &mcp.CreateIssueParams{ProjectID: pid, Title: "From a notification"})
	if err := b.Send(ctx); err != nil {
		fmt.Println(err)
		return
	}
	var p mcp.ProjectDetail
	fmt.Println(project.Decode(&p), p.Name)
	fmt.Println(unknown.Err())
	// Output:
	// <nil> shop
	// mcp: -32601 Method not found
}
