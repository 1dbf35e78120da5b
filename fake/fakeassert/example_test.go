package fakeassert_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/apitwin/apitwin/fake/fakeassert"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// openTicket is the code under test: it files an issue.
func openTicket(ctx context.Context, c *sourcehost.Client, project int64, title string) error {
	_, err := c.CreateIssue(ctx, sourcehost.ProjectID(project), &sourcehost.CreateIssueRequest{Title: title, Labels: sourcehost.Labels{"support"}})
	return err
}

// A test checks what the code sent, naming only the fields it cares about.
// (In a test, t takes the place of the recorder used here to show a
// failure's text.)
func Example() {
	srv := sourcehostfake.New()
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	p, _ := srv.Client().CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "help-desk"})

	_ = openTicket(ctx, srv.Client(), p.ID, "Printer on fire")

	t := &recorder{}
	fmt.Println(fakeassert.RequestedTimes(t, srv, "POST /api/v4/projects/{id}/issues", 1))
	fmt.Println(fakeassert.RequestedWithJSON(t, srv, "POST /api/v4/projects/{id}/issues", map[string]any{"title": "Printer on fire", "labels": "support"}))
	fmt.Println(fakeassert.NoServerErrors(t, srv))

	// A failure says what the fake did receive.
	fakeassert.Requested(t, srv, "DELETE /api/v4/projects/{id}")
	fmt.Println(strings.Contains(t.text(), "POST /api/v4/projects/1/issues → 201"))
	// Output:
	// true
	// true
	// true
	// true
}
