package sourcehost_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

// startFake serves a fake for an example; a test would use
// sourcehostfake.Start(t).
func startFake() *sourcehostfake.Server {
	srv, err := sourcehostfake.New()
	if err != nil {
		panic(err)
	}
	if _, err := srv.Listen("127.0.0.1:0"); err != nil {
		panic(err)
	}
	return srv
}

func Example() {
	srv := startFake()
	defer srv.Close()
	ctx := context.Background()

	c, err := sourcehost.New(srv.URL(), sourcehost.WithToken(srv.Token()))
	if err != nil {
		panic(err)
	}
	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "Web Shop", Visibility: sourcehost.Private})
	if err != nil {
		panic(err)
	}
	issue, err := c.CreateIssue(ctx, sourcehost.ProjectID(p.ID), &sourcehost.CreateIssueRequest{
		Title: "Checkout fails", Labels: sourcehost.Labels{"bug"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.PathWithNamespace, issue.IID, issue.State, issue.Labels)
	// Output: root/web-shop 1 opened [bug]
}

func ExampleClient_AllProjects() {
	srv := startFake()
	defer srv.Close()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		srv.AddProject(sourcehostfake.ProjectSeed{Name: name, Visibility: "public"})
	}
	c := srv.Client()
	opts := &sourcehost.ListProjectsOptions{ListOptions: sourcehost.ListOptions{PerPage: 2}, OrderBy: "name", Sort: "asc"}
	for p, err := range c.AllProjects(context.Background(), opts) {
		if err != nil {
			panic(err)
		}
		fmt.Println(p.Name)
	}
	fmt.Println("requests:", len(srv.RequestsTo("GET /api/v4/projects")))
	// Output:
	// alpha
	// beta
	// gamma
	// requests: 2
}

func ExampleError() {
	srv := startFake()
	defer srv.Close()
	_, err := srv.Client().GetProject(context.Background(), sourcehost.ProjectPath("nobody/nothing"), nil)
	var e *sourcehost.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.Message, errors.Is(err, sourcehost.ErrNotFound))
	}
	fmt.Println(err)
	// Output:
	// 404 404 Project Not Found true
	// sourcehost: GET /api/v4/projects/nobody/nothing: 404 Project Not Found
}

func ExampleRateLimitError() {
	srv := startFake()
	defer srv.Close()
	// Every answer is a 429: the client retries 3 times, waiting on the
	// fake's clock (no real time passes), then gives up.
	srv.InjectFault("GET /api/v4/projects", control.Fault{Status: http.StatusTooManyRequests})
	_, err := srv.Client().ListProjects(context.Background(), nil)
	var rle *sourcehost.RateLimitError
	if errors.As(err, &rle) {
		fmt.Println(errors.Is(err, sourcehost.ErrRateLimited), rle.Retries, rle.RetryAfter)
	}
	// Output: true 3 1m0s
}

func ExampleParseWebhook() {
	srv := startFake()
	defer srv.Close()
	got := make(chan string, 1)
	receiver := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := sourcehost.ParseWebhook(r, "s3cret")
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if is, ok := ev.(*sourcehost.IssueEvent); ok {
			got <- fmt.Sprintf("issue #%d %s: %s", is.ObjectAttributes.IID, is.ObjectAttributes.Action, is.ObjectAttributes.Title)
		}
	})}
	hooks := startReceiver(&receiver)
	defer receiver.Close()

	ctx := context.Background()
	c := srv.Client()
	id, _ := srv.AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
	c.AddProjectHook(ctx, sourcehost.ProjectID(id), &sourcehost.AddProjectHookRequest{URL: hooks, IssuesEvents: sourcehost.Ptr(true), Token: "s3cret"})
	c.CreateIssue(ctx, sourcehost.ProjectID(id), &sourcehost.CreateIssueRequest{Title: "Refund order 7"})
	fmt.Println(<-got)
	// Output: issue #1 open: Refund order 7
}
