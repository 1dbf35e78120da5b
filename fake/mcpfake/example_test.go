package mcpfake_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
)

// A tool call goes through the real gateway to the source-hosting fake
// behind it: seed the upstream, call the tool, and check what reached the
// upstream in its state and request log.
func Example() {
	srv, err := mcpfake.New() // in memory, no port; in a test: mcpfake.Start(t)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	up := srv.Upstream()
	pid, _ := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})

	// The code under test: an agent's tool call.
	c := srv.Client() // an mcp.Client with the upstream root's token
	created, err := c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: pid, Title: "Checkout fails", Labels: []string{"bug"}})
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", created.IID, created.Title)

	for _, is := range up.Issues(pid) {
		fmt.Println("upstream has:", is.IID, is.State, is.Title, is.Labels)
	}
	for _, r := range up.RequestsTo("POST /api/v4/projects/{id}/issues") {
		fmt.Println("upstream saw:", r.Method, r.Path, r.Status)
	}
	// Output:
	// created: 1 Checkout fails
	// upstream has: 1 opened Checkout fails [bug]
	// upstream saw: POST /api/v4/projects/1/issues 201
}

// A fault injected into the upstream comes back through the gateway as a
// JSON-RPC error carrying the upstream's status.
func Example_upstreamFault() {
	srv, err := mcpfake.New() // in memory, no port; in a test: mcpfake.Start(t)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	up := srv.Upstream()
	pid, _ := up.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	up.InjectFault("POST /api/v4/projects/{id}/issues", control.Fault{Status: http.StatusForbidden, Times: 1})

	_, err = srv.Client().CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: pid, Title: "Checkout fails"})
	var e *mcp.Error
	fmt.Println(errors.As(err, &e), e.Code, e.Message, e.Status)
	fmt.Println(errors.Is(err, mcp.ErrUpstream), errors.Is(err, mcp.ErrForbidden))
	fmt.Println("issues:", len(up.Issues(pid)))
	// Output:
	// true -32000 source-hosting API Error 403
	// true true
	// issues: 0
}
