// Command sourcehost runs a short, realistic story through the sourcehost
// client (projects, a webhook, files, issues, a merge request, pipelines)
// and prints each step.
//
// With no setup it starts the embedded fakes on loopback ports. Set
// SOURCEHOST_URL and SOURCEHOST_TOKEN (a token with the api scope) to run
// the same story against a real source-hosting server instead.
//
//	go run ./examples/sourcehost
package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/sourcehost"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "sourcehost example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	c, fake, err := sourcehostClient()
	if err != nil {
		return err
	}
	if fake != nil {
		defer fake.Close()
		fmt.Printf("sourcehost: embedded fake at %s\n", fake.URL())
	} else {
		fmt.Printf("sourcehost: real server at %s\n", c.BaseURL())
	}

	me, err := c.CurrentUser(ctx)
	if err != nil {
		return err
	}
	tok, err := c.CurrentToken(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("signed in as %s (token scopes: %s)\n", me.Username, strings.Join(tok.Scopes, ", "))

	p, err := c.CreateProject(ctx, &sourcehost.CreateProjectRequest{
		Name: fmt.Sprintf("example-shop-%d", time.Now().Unix()), Description: "apitwin example",
		Visibility: sourcehost.Private, InitializeWithReadme: true,
	})
	if err != nil {
		return err
	}
	pid := sourcehost.ProjectID(p.ID)
	fmt.Printf("created project %s (id %d, default branch %s)\n", p.PathWithNamespace, p.ID, p.DefaultBranch)

	// A webhook receiver, as a user's service would run one.
	rc := newReceiver("example-secret")
	defer rc.Close()
	if _, err := c.AddProjectHook(ctx, pid, &sourcehost.AddProjectHookRequest{
		URL: rc.URL, IssuesEvents: sourcehost.Ptr(true), MergeRequestsEvents: sourcehost.Ptr(true),
		PipelineEvents: sourcehost.Ptr(true), Token: "example-secret",
	}); err != nil {
		return err
	}
	fmt.Println("registered a webhook for push, issue, merge request and pipeline events")

	if _, err := c.CreateFile(ctx, pid, ".sourcehost-ci.yml", &sourcehost.CreateFileRequest{
		Branch: p.DefaultBranch, Content: "test:\n  script: go test ./...\n", CommitMessage: "Add CI",
	}); err != nil {
		return err
	}
	fmt.Println("committed the CI definition: the push starts a pipeline")

	issue, err := c.CreateIssue(ctx, pid, &sourcehost.CreateIssueRequest{
		Title: "Ship order #1001", Description: "Customer ACME, 3 items", Labels: sourcehost.Labels{"shipping", "priority"},
	})
	if err != nil {
		return err
	}
	fmt.Printf("opened issue #%d %q labels %v\n", issue.IID, issue.Title, issue.Labels)

	if _, err := c.CreateBranch(ctx, pid, "feature/shipping-label", p.DefaultBranch); err != nil {
		return err
	}
	if _, err := c.CreateFile(ctx, pid, "shipping/label.go", &sourcehost.CreateFileRequest{
		Branch: "feature/shipping-label", Content: "package shipping\n", CommitMessage: "Print shipping labels",
	}); err != nil {
		return err
	}
	mr, err := c.CreateMergeRequest(ctx, pid, &sourcehost.CreateMergeRequestRequest{
		SourceBranch: "feature/shipping-label", TargetBranch: p.DefaultBranch, Title: "Print shipping labels",
	})
	if err != nil {
		return err
	}
	merged, err := c.AcceptMergeRequest(ctx, pid, mr.IID, &sourcehost.AcceptMergeRequestRequest{ShouldRemoveSourceBranch: sourcehost.Ptr(true)})
	if err != nil {
		return err
	}
	fmt.Printf("merged !%d into %s (merge commit %.8s)\n", merged.IID, merged.TargetBranch, merged.MergeCommitSHA)

	if _, err := c.UpdateIssue(ctx, pid, issue.IID, &sourcehost.UpdateIssueRequest{StateEvent: sourcehost.StateEventClose}); err != nil {
		return err
	}
	fmt.Printf("closed issue #%d\n", issue.IID)

	if fake != nil {
		// Pipelines run on the fake's clock: move it on instead of waiting.
		fake.Clock().Advance(2 * time.Minute)
		fmt.Println("advanced the fake clock by 2m")
	}
	for pl, err := range c.AllPipelines(ctx, pid, &sourcehost.ListPipelinesOptions{Sort: "asc"}) {
		if err != nil {
			return err
		}
		fmt.Printf("pipeline %d on %s (%s): %s\n", pl.ID, pl.Ref, pl.Source, pl.Status)
	}

	f, err := c.GetFile(ctx, pid, "shipping/label.go", p.DefaultBranch)
	if err != nil {
		return err
	}
	content, err := f.Decode()
	if err != nil {
		return err
	}
	fmt.Printf("read %s at %s: %q\n", f.FilePath, p.DefaultBranch, content)

	n := 0
	for _, err := range c.AllProjects(ctx, &sourcehost.ListProjectsOptions{Owned: sourcehost.Ptr(true)}) {
		if err != nil {
			return err
		}
		n++
	}
	fmt.Printf("you own %d project(s)\n", n)

	if fake != nil {
		// The fake delivers webhooks in the background, as the real service
		// does; wait for them before reading what the receiver got.
		if err := fake.WaitDeliveries(ctx); err != nil {
			return err
		}
	}
	fmt.Printf("webhook receiver got: %s\n", strings.Join(rc.Events(), ", "))
	rl := c.RateLimit()
	fmt.Printf("rate limit: %d of %d left, window resets at %s\n", rl.Remaining, rl.Limit, rl.Reset.UTC().Format(time.TimeOnly))
	fmt.Println("done")
	return nil
}

// sourcehostClient connects to the real server named in the environment,
// or starts the embedded fake.
func sourcehostClient() (*sourcehost.Client, *sourcehostfake.Server, error) {
	if url, token := os.Getenv("SOURCEHOST_URL"), os.Getenv("SOURCEHOST_TOKEN"); url != "" && token != "" {
		c, err := sourcehost.New(url, sourcehost.WithToken(token), sourcehost.WithUserAgent("apitwin-example"))
		return c, nil, err
	}
	fake, err := sourcehostfake.New()
	if err != nil {
		return nil, nil, err
	}
	if _, err := fake.Listen("127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	return fake.Client(), fake, nil
}

// receiver collects the webhook events delivered to it.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	events []string
}

func newReceiver(secret string) *receiver {
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := sourcehost.ParseWebhook(r, secret)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var name string
		switch e := ev.(type) {
		case *sourcehost.PushEvent:
			name = "push " + strings.TrimPrefix(e.Ref, "refs/heads/")
		case *sourcehost.IssueEvent:
			name = fmt.Sprintf("issue #%d %s", e.ObjectAttributes.IID, e.ObjectAttributes.Action)
		case *sourcehost.MergeRequestEvent:
			name = fmt.Sprintf("merge request !%d %s", e.ObjectAttributes.IID, e.ObjectAttributes.Action)
		case *sourcehost.PipelineEvent:
			name = fmt.Sprintf("pipeline %d %s", e.ObjectAttributes.ID, e.ObjectAttributes.Status)
		default:
			name = fmt.Sprintf("%T", ev)
		}
		rc.mu.Lock()
		rc.events = append(rc.events, name)
		rc.mu.Unlock()
	}))
	return rc
}

// Events returns the events received so far.
func (rc *receiver) Events() []string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]string(nil), rc.events...)
}
