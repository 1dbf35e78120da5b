package sourcehostfake_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// startExampleFake serves a fake on loopback for an example; a test would use
// sourcehostfake.Start(t).
func startExampleFake() *sourcehostfake.Server {
	srv, err := sourcehostfake.New()
	if err != nil {
		panic(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	return srv
}

// Seed a project, let the code under test open an issue through a client,
// and read the fake's state back.
func Example() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	srv.AddUser(sourcehostfake.UserSeed{Username: "alice", Name: "Alice Liddell"})
	id, err := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Owner: "alice", Visibility: "public"})
	if err != nil {
		panic(err)
	}

	// The code under test: report a failed order as an issue.
	c := srv.Client() // signed in as root, on the fake's clock
	_, err = c.CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{
		Title: "Order 7 failed", Labels: sourcehost.Labels{"orders", "bug"},
	})
	if err != nil {
		panic(err)
	}

	fmt.Println(srv.Project(id).PathWithNamespace)
	for _, is := range srv.Issues(id) {
		fmt.Println(is.IID, is.State, is.Title, is.Labels)
	}
	fmt.Println("requests:", len(srv.RequestsTo("POST /api/v4/projects/{id}/issues")))
	// Output:
	// alice/shop
	// 1 opened Order 7 failed [orders bug]
	// requests: 1
}

// An injected fault answers the next requests to a route; a POST is not sent
// twice, so the caller sees the error and nothing was created.
func ExampleServer_InjectFault() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})

	srv.InjectFault("POST /api/v4/projects/{id}/issues", control.Fault{Status: http.StatusBadGateway, Times: 1})
	_, err := srv.Client().CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "Order 7 failed"})
	var e *sourcehost.Error
	fmt.Println(errors.As(err, &e), e.StatusCode, errors.Is(err, sourcehost.ErrServer))
	fmt.Println("issues:", len(srv.Issues(id)), "requests:", len(srv.RequestsTo("POST /api/v4/projects/{id}/issues")))

	// Times: 1, so the next request goes through.
	_, err = srv.Client().CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "Order 7 failed"})
	fmt.Println(err, "issues:", len(srv.Issues(id)))
	// Output:
	// true 502 true
	// issues: 0 requests: 1
	// <nil> issues: 1
}

// A token without the api scope may read but not write: the fake answers
// 403 insufficient_scope, as the real service does.
func ExampleServer_IssueToken() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	srv.AddUser(sourcehostfake.UserSeed{Username: "bot", Name: "Read-only bot"})
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Visibility: "public"})
	token, err := srv.IssueToken("bot", "read_api")
	if err != nil {
		panic(err)
	}
	c := srv.ClientWithToken(token)

	p, err := c.GetProject(ctx, sourcehost.ProjectID(id), nil)
	fmt.Println(p.Name, err)
	_, err = c.CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "From a bot"})
	fmt.Println(err)
	fmt.Println(errors.Is(err, sourcehost.ErrInsufficientScope), errors.Is(err, sourcehost.ErrForbidden))
	fmt.Println("issues:", len(srv.Issues(id)))
	// Output:
	// shop <nil>
	// sourcehost: POST /api/v4/projects/1/issues: 403 insufficient_scope: The request requires higher privileges than provided by the access token.
	// true true
	// issues: 0
}

// Webhooks are delivered in the background, as the real service delivers
// them; WaitDeliveries waits for them (no sleeping), and Deliveries shows
// what each receiver answered.
func ExampleServer_WaitDeliveries() {
	srv := startExampleFake()
	defer srv.Close()
	ctx := context.Background()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := sourcehost.ParseWebhook(r, "s3cret")
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		fmt.Printf("receiver: %s #%d\n", r.Header.Get(sourcehost.HookEventHeader), ev.(*sourcehost.IssueEvent).ObjectAttributes.IID)
	}))
	defer receiver.Close()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop",
		Hooks: []sourcehostfake.HookSeed{{URL: receiver.URL, IssuesEvents: true, Token: "s3cret"}}})

	_, err := srv.Client().CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "Order 7 failed"})
	if err != nil {
		panic(err)
	}
	if err := srv.WaitDeliveries(ctx); err != nil {
		panic(err)
	}
	for _, d := range srv.Deliveries() {
		fmt.Println(d.Event, d.State, d.Status)
	}
	// Output:
	// receiver: Issue Hook #1
	// Issue Hook sent 200
}

// A seed holds every resource the fake keeps; Load names the entry it
// refuses.
func ExampleServer_Load() {
	srv, err := sourcehostfake.New()
	if err != nil {
		log.Fatal(err)
	}
	err = srv.Load(sourcehostfake.Seed{
		Users:  []sourcehostfake.UserSeed{{Username: "alice", Name: "Alice Liddell"}},
		Tokens: []sourcehostfake.TokenSeed{{Username: "alice", Token: "alice-token", Scopes: []string{"api"}}},
		Projects: []sourcehostfake.ProjectSeed{{
			Name: "shop", Owner: "alice",
			Files:  map[string]string{"README.md": "# Shop"},
			Issues: []sourcehostfake.IssueSeed{{Title: "Broken cart", Assignees: []string{"alice"}}},
		}},
	})
	fmt.Println(err, srv.Project(1).PathWithNamespace, srv.Issues(1)[0].Assignee.Username)

	err = srv.Load(sourcehostfake.Seed{Projects: []sourcehostfake.ProjectSeed{
		{Name: "billing"},
		{Name: "ops", Issues: []sourcehostfake.IssueSeed{{Title: "Disk full", Author: "bob"}}},
	}})
	fmt.Println(err)
	// Output:
	// <nil> alice/shop alice
	// projects[1].issues[0]: sourcehostfake: no user "bob"
}
