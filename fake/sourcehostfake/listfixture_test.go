package sourcehostfake_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/sourcehostfake"
)

// listEndpoint is a list request of the list fixture.
type listEndpoint struct {
	name, target string
}

// listFixture is a fake on a fixed clock holding what the list benchmark
// and the list golden test read: 200 projects (in user and group
// namespaces, some with topics), and in the first project ("shop") 200
// issues, 200 merge requests, 200 pipelines, and an issue with 200 notes,
// with labels, assignees, milestones, closed and merged states among them,
// the clock moving between records so that their times differ. opts are
// applied after the fixture's own.
func listFixture(tb testing.TB, opts ...sourcehostfake.Option) (*sourcehostfake.Server, []listEndpoint) {
	tb.Helper()
	clk := clock.NewFake(time.Date(2026, 3, 4, 5, 6, 7, 89_000_000, time.UTC))
	srv, err := sourcehostfake.New(append([]sourcehostfake.Option{sourcehostfake.WithRateLimit(0, 0), control.WithClock(clk),
		sourcehostfake.WithPipelineTiming(3*time.Second, 10*time.Second)}, opts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	tick := func() { clk.Advance(1357 * time.Millisecond) }
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	for _, u := range []string{"alice", "bob"} {
		_, err := srv.AddUser(sourcehostfake.UserSeed{Username: u, Name: "User " + u})
		must(err)
	}
	_, err = srv.AddGroup(sourcehostfake.GroupSeed{Path: "platform", Name: "Platform Team", Visibility: "public"}) // public: it holds public projects
	must(err)
	shop, err := srv.AddProject(sourcehostfake.ProjectSeed{
		Name: "shop", Visibility: "public", Description: "The \"shop\" <front>", Topics: []string{"go", "web"},
		Files:      map[string]string{"README.md": "# Shop"},
		Milestones: []sourcehostfake.MilestoneSeed{{Title: "v1", DueDate: "2026-01-01"}, {Title: "v2", StartDate: "2026-02-01", DueDate: "2027-01-01"}},
	})
	must(err)
	for i := range 199 {
		seed := sourcehostfake.ProjectSeed{Name: fmt.Sprintf("p%03d", i), Visibility: []string{"public", "internal", "private"}[i%3]}
		switch i % 4 {
		case 1:
			seed.Group = "platform"
		case 2:
			seed.Owner = "alice"
			seed.Topics = []string{"t"}
		}
		_, err := srv.AddProject(seed)
		must(err)
		tick()
	}
	for i := range 200 {
		seed := sourcehostfake.IssueSeed{Title: fmt.Sprintf("Issue %d", i), Description: "Steps:\n1. open\n2. é"}
		if i%3 == 0 {
			seed.Labels = []string{"bug", "ui"}
		}
		if i%4 == 1 {
			seed.Assignees = []string{"alice", "bob"}
		}
		if i%5 == 2 {
			seed.State = "closed"
		}
		if i%6 == 3 {
			seed.Milestone = []string{"v1", "v2"}[i%2]
		}
		if i%7 == 4 {
			seed.Author = "bob"
		}
		_, err := srv.AddIssue(shop, seed)
		must(err)
		tick()
	}
	for i := range 200 {
		branch := fmt.Sprintf("feature-%d", i)
		_, err := srv.AddBranch(shop, sourcehostfake.BranchSeed{Name: branch, Files: map[string]string{fmt.Sprintf("f%d.txt", i): "x"}})
		must(err)
		seed := sourcehostfake.MergeRequestSeed{Title: fmt.Sprintf("MR %d", i), SourceBranch: branch, Description: "Fixes #1"}
		if i%3 == 0 {
			seed.Labels = []string{"feature"}
		}
		if i%4 == 1 {
			seed.Assignees = []string{"bob"}
		}
		switch i % 5 {
		case 2:
			seed.State = "closed"
		case 3:
			if i%2 == 1 {
				seed.State = "merged"
				seed.RemoveSourceBranch = true
			}
		}
		if i%6 == 3 {
			seed.Milestone = "v2"
		}
		_, err = srv.AddMergeRequest(shop, seed)
		must(err)
		tick()
	}
	notes := fmt.Sprintf("/api/v4/projects/%d/issues/2/notes", shop)
	for i := range 200 {
		if rec := serve(srv, "POST", notes, "application/json", fmt.Sprintf(`{"body":"note %d"}`, i)); rec.Code != http.StatusCreated {
			tb.Fatalf("note: %d %s", rec.Code, rec.Body)
		}
		tick()
	}
	for i := range 200 {
		_, err := srv.PushFile(shop, "main", sourcehostfake.CIFile, fmt.Sprintf("test: {script: [echo %d]}", i), "")
		must(err)
		switch {
		case i%7 == 5:
			must(srv.SetPipelineStatus(shop, int64(i+1), "failed"))
		case i%11 == 6:
			must(srv.SetPipelineStatus(shop, int64(i+1), "canceled"))
		}
		tick() // the last ones are still pending or running
	}
	p := fmt.Sprintf("/api/v4/projects/%d", shop)
	return srv, []listEndpoint{
		{"projects", "/api/v4/projects?page=2&per_page=20"},
		{"issues", p + "/issues?page=2&per_page=20"},
		{"merge_requests", p + "/merge_requests?page=2&per_page=20"},
		{"pipelines", p + "/pipelines?page=2&per_page=20"},
		{"notes", notes + "?page=2&per_page=20"},
	}
}

// listRequest is a GET of target as root, as the tests send it.
func listRequest(srv *sourcehostfake.Server, target string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("PRIVATE-TOKEN", srv.Token())
	return req
}
