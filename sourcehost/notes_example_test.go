package sourcehost_test

import (
	"context"
	"fmt"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func ExampleClient_CreateIssueNote() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Issues: []sourcehostfake.IssueSeed{{Title: "Checkout fails"}}})
	project := sourcehost.ProjectID(id)

	if _, err := c.CreateIssueNote(ctx, project, 1, &sourcehost.CreateNoteRequest{Body: "Fixed in !4"}); err != nil {
		panic(err)
	}
	// Closing the issue adds a system note, as the real service does.
	if _, err := c.UpdateIssue(ctx, project, 1, &sourcehost.UpdateIssueRequest{StateEvent: sourcehost.StateEventClose}); err != nil {
		panic(err)
	}
	for n, err := range c.AllIssueNotes(ctx, project, 1, &sourcehost.ListNotesOptions{Sort: "asc"}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(n.Author.Username, n.System, n.Body)
	}
	// Output:
	// root false Fixed in !4
	// root true closed
}
