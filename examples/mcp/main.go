// Command mcp runs a short, realistic story through the tool gateway's
// JSON-RPC client (projects, an issue created through the gateway, a search,
// a batch, a cached read, the typed errors, the rate limit) and prints each
// step.
//
// With no setup it starts the embedded gateway, with a source-hosting fake
// behind it, on loopback ports. Set MCP_URL (the gateway's root URL or its
// /mcp endpoint) and MCP_TOKEN (a source-hosting token with the api,
// read_user and read_repository scopes) to run the same story against a real
// gateway instead; it opens an issue in MCP_PROJECT_ID, or in the first
// project the token owns.
//
//	go run ./examples/mcp
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/fake/mcpfake"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "mcp example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	c, fake, err := mcpClient()
	if err != nil {
		return err
	}
	pid, err := envProjectID()
	if err != nil {
		return err
	}
	if fake != nil {
		defer fake.Close()
		fmt.Printf("mcp: embedded gateway at %s\n", c.Endpoint())
		up := fake.Upstream()
		if _, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "billing"}); err != nil {
			return err
		}
		if pid, err = up.AddProject(sourcehostfake.ProjectSeed{Name: "shop", Description: "apitwin example"}); err != nil {
			return err
		}
	} else {
		fmt.Printf("mcp: real gateway at %s\n", c.Endpoint())
	}

	projects, err := c.ListProjects(ctx, &mcp.ListProjectsParams{Owned: mcp.Ptr(true)})
	if err != nil {
		return err
	}
	fmt.Printf("list_projects: you own %d project(s)\n", projects.TotalCount)
	for _, p := range projects.Projects {
		fmt.Printf("  %d %s/%s (%s)\n", p.ID, p.Namespace, p.Path, p.Visibility)
	}
	if pid == 0 && len(projects.Projects) > 0 {
		pid = projects.Projects[0].ID
	} else if pid == 0 {
		return errors.New("the token owns no project; set MCP_PROJECT_ID")
	}

	// A read kept in the gateway's cache for 30 s; a write to the project drops it.
	cached := &mcp.ListIssuesParams{ProjectID: pid, State: "opened", CacheOptions: mcp.CacheOptions{CacheTTL: 30}}
	if _, err := c.ListIssues(ctx, cached); err != nil {
		return err
	}
	before, err := c.ListIssues(ctx, cached)
	if err != nil {
		return err
	}
	fmt.Printf("list_issues twice (cache_ttl 30): %d open issue(s) in project %d\n", before.TotalCount, pid)
	if fake != nil {
		n := len(fake.Upstream().RequestsTo("GET /api/v4/projects/{id}/issues"))
		fmt.Printf("  the source-hosting fake saw %d issues request(s): the second answer came from the cache\n", n)
	}

	title := "Checkout fails on Safari " + time.Now().Format("150405")
	issue, err := c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: pid, Title: title,
		Description: "Card payment never returns", Labels: []string{"bug", "checkout"}})
	if err != nil {
		return err
	}
	fmt.Printf("create_issue: #%d %q at %s\n", issue.IID, issue.Title, issue.WebURL)

	after, err := c.ListIssues(ctx, cached)
	if err != nil {
		return err
	}
	fmt.Printf("list_issues again: %d open issue(s); the write dropped the cached answer\n", after.TotalCount)

	found, err := c.SearchIssues(ctx, &mcp.SearchIssuesParams{Search: "Safari", State: "opened"})
	if err != nil {
		return err
	}
	fmt.Printf("search_issues \"Safari\": %d hit(s)\n", found.Pagination.Total)
	for _, is := range found.Data {
		fmt.Printf("  project %d #%d %q %v\n", is.ProjectID, is.IID, is.Title, is.Labels)
	}

	// One HTTP request, three calls: the answers come back matched by id.
	b := c.NewBatch()
	project := b.Call("get_project", &mcp.GetProjectParams{ProjectID: pid})
	pipelines := b.Call("list_pipelines", &mcp.ListPipelinesParams{ProjectID: pid})
	unknown := b.Call("delete_project", &mcp.GetProjectParams{ProjectID: pid})
	if err := b.Send(ctx); err != nil {
		return err
	}
	var detail mcp.ProjectDetail
	if err := project.Decode(&detail); err != nil {
		return err
	}
	var pls mcp.Paged[mcp.Pipeline]
	if err := pipelines.Decode(&pls); err != nil {
		return err
	}
	fmt.Printf("batch of %d calls in one request, answers matched by id:\n", b.Len())
	fmt.Printf("  get_project → %s, default branch %s\n", detail.PathWithNamespace, detail.DefaultBranch)
	fmt.Printf("  list_pipelines → %d pipeline(s)\n", pls.Pagination.Total)
	fmt.Printf("  delete_project → %v (errors.Is(err, mcp.ErrMethodNotFound) = %t)\n", unknown.Err(), errors.Is(unknown.Err(), mcp.ErrMethodNotFound))

	_, err = c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: 999999999})
	var e *mcp.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("want an *mcp.Error for a missing project, got %v", err)
	}
	fmt.Printf("get_project 999999999: errors.Is(err, mcp.ErrNotFound) = %t (code %d %q, upstream status %d)\n",
		errors.Is(err, mcp.ErrNotFound), e.Code, e.Message, e.Status)

	// Call reaches any method; a misspelt param is refused, not ignored.
	if err = c.Call(ctx, "list_issues", map[string]any{"project": pid}, nil); !errors.As(err, &e) {
		return fmt.Errorf("want an *mcp.Error for a misspelt param, got %v", err)
	}
	fmt.Printf("list_issues with a misspelt param: errors.Is(err, mcp.ErrInvalidParams) = %t (param %q: %s)\n",
		errors.Is(err, mcp.ErrInvalidParams), e.Param, e.Reason)

	rl := c.RateLimit()
	fmt.Printf("rate limit: %d request(s) would pass now, %d a minute sustained, bucket full again at %s\n",
		rl.Remaining, rl.Limit, rl.Reset.UTC().Format(time.TimeOnly))
	fmt.Println("done")
	return nil
}

// envProjectID reads MCP_PROJECT_ID, the project to work in on a real gateway.
func envProjectID() (int64, error) {
	s := os.Getenv("MCP_PROJECT_ID")
	if s == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("MCP_PROJECT_ID: %w", err)
	}
	return id, nil
}

// mcpClient connects to the real gateway named in the environment, or
// starts the embedded one.
func mcpClient() (*mcp.Client, *mcpfake.Server, error) {
	if url, token := os.Getenv("MCP_URL"), os.Getenv("MCP_TOKEN"); url != "" && token != "" {
		c, err := mcp.New(url, mcp.WithToken(token), mcp.WithUserAgent("apitwin-example"))
		return c, nil, err
	}
	fake, err := mcpfake.New()
	if err != nil {
		return nil, nil, err
	}
	if _, err := fake.Listen("127.0.0.1:0"); err != nil {
		return nil, nil, err
	}
	return fake.Client(), fake, nil
}
