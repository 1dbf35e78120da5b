package gateway_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/fake/sourcehostfake"
	"github.com/apitwin/apitwin/mcp"
)

// Each of the thirteen methods through the typed client, checked against
// the upstream fake's state.
func TestMethods(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	up := srv.Upstream()
	c := srv.Client()
	if _, err := up.PushFiles(pid, "main", map[string][]byte{
		".sourcehost-ci.yml": []byte("test:\n  script: go test\n"),
		"src/main.go":        []byte("package main\n"),
	}, "Add CI and code"); err != nil {
		t.Fatal(err)
	}
	if _, err := up.PushFile(pid, "feature", "src/new.go", "package main\n", "New feature"); err != nil {
		t.Fatal(err)
	}
	if _, err := up.AddProject(sourcehostfake.ProjectSeed{Name: "docs", Visibility: "public"}); err != nil {
		t.Fatal(err)
	}

	t.Run("list_projects", func(t *testing.T) {
		l, err := c.ListProjects(ctx, &mcp.ListProjectsParams{Visibility: "public"})
		if err != nil || l.TotalCount != 1 || l.Projects[0].Name != "docs" || l.Projects[0].Namespace != "root" || l.Projects[0].Visibility != "public" {
			t.Errorf("%+v %v", l, err)
		}
	})
	t.Run("get_project", func(t *testing.T) {
		p, err := c.GetProject(ctx, &mcp.GetProjectParams{ProjectID: pid})
		if err != nil || p.Name != "shop" || p.Description != "the shop" || p.DefaultBranch != "main" || p.Statistics.CommitCount != 2 || p.CreatedAt.IsZero() {
			t.Errorf("%+v %v", p, err)
		}
	})
	t.Run("search_projects", func(t *testing.T) {
		l, err := c.SearchProjects(ctx, &mcp.SearchProjectsParams{Search: "sho"})
		want := mcp.Pagination{Page: 1, PerPage: 20, Total: 1, TotalPages: 1}
		if err != nil || len(l.Data) != 1 || l.Data[0].ID != pid || l.Pagination != want {
			t.Errorf("%+v %v", l, err)
		}
	})
	t.Run("create_issue, list_issues, search_issues", func(t *testing.T) {
		created, err := c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: pid, Title: "Refund button", Description: "missing", Labels: []string{"bug", "ui"}})
		if err != nil || created.IID != 3 || created.WebURL == "" {
			t.Fatalf("%+v %v", created, err)
		}
		l, err := c.ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: pid, Labels: []string{"bug"}, State: "opened"})
		if err != nil || l.TotalCount != 1 || l.Issues[0].Title != "Refund button" || !cmp.Equal(l.Issues[0].Labels, []string{"bug", "ui"}) {
			t.Errorf("%+v %v", l, err)
		}
		s, err := c.SearchIssues(ctx, &mcp.SearchIssuesParams{Search: "refund"})
		if err != nil || len(s.Data) != 1 || s.Data[0].ID != created.ID {
			t.Errorf("search across projects: %+v %v", s, err)
		}
		s, err = c.SearchIssues(ctx, &mcp.SearchIssuesParams{Search: "search", ProjectID: pid, PerPage: 1})
		if err != nil || len(s.Data) != 1 || s.Data[0].Title != "Slow search" {
			t.Errorf("search in project: %+v %v", s, err)
		}
	})
	t.Run("create_merge_request, list_merge_requests", func(t *testing.T) {
		mr, err := c.CreateMergeRequest(ctx, &mcp.CreateMergeRequestParams{ProjectID: pid, Title: "Feature", SourceBranch: "feature", TargetBranch: "main", RemoveSourceBranch: mcp.Ptr(true)})
		if err != nil || mr.State != "opened" || mr.SourceBranch != "feature" || !mr.RemoveSourceBranch {
			t.Fatalf("%+v %v", mr, err)
		}
		l, err := c.ListMergeRequests(ctx, &mcp.ListMergeRequestsParams{ProjectID: pid, State: "opened", TargetBranch: "main"})
		if err != nil || len(l.Data) != 1 || l.Data[0].IID != mr.IID || l.Pagination.Total != 1 {
			t.Errorf("%+v %v", l, err)
		}
		if _, err := c.CreateMergeRequest(ctx, &mcp.CreateMergeRequestParams{ProjectID: pid, Title: "x", SourceBranch: "nope", TargetBranch: "main"}); err == nil {
			t.Error("merge request from a missing branch accepted")
		}
	})
	t.Run("trigger_pipeline, list_pipelines", func(t *testing.T) {
		p, err := c.TriggerPipeline(ctx, &mcp.TriggerPipelineParams{ProjectID: pid, Ref: "main", Variables: map[string]string{"DEPLOY": "1"}})
		if err != nil || p.Ref != "main" || p.Status == "" {
			t.Fatalf("%+v %v", p, err)
		}
		l, err := c.ListPipelines(ctx, &mcp.ListPipelinesParams{ProjectID: pid, Ref: "main"})
		if err != nil || len(l.Data) == 0 || l.Data[0].ID != p.ID {
			t.Errorf("%+v %v", l, err)
		}
		if _, err := c.TriggerPipeline(ctx, &mcp.TriggerPipelineParams{ProjectID: pid, Ref: "main", Variables: map[string]string{"BAD NAME": "1"}}); err == nil {
			t.Error("variable with a space accepted")
		}
	})
	t.Run("get_file_content", func(t *testing.T) {
		f, err := c.GetFileContent(ctx, &mcp.GetFileContentParams{ProjectID: pid, FilePath: "README.md"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := f.Decode()
		if err != nil || string(b) != "# shop\n" || f.Encoding != "base64" || f.Size != 7 || f.Ref != "main" ||
			f.LastCommit.Message != "Add README" || f.LastCommit.AuthorName == "" || f.LastCommit.ID == "" {
			t.Errorf("%+v %q %v", f, b, err)
		}
	})
	t.Run("list_repository_files", func(t *testing.T) {
		l, err := c.ListRepositoryFiles(ctx, &mcp.ListRepositoryFilesParams{ProjectID: pid, Recursive: mcp.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range l.Data {
			paths = append(paths, f.Path)
		}
		if d := cmp.Diff([]string{"src", ".sourcehost-ci.yml", "README.md", "src/main.go"}, paths); d != "" {
			t.Errorf("paths (-want +got):\n%s", d)
		}
	})
	t.Run("configure_webhook", func(t *testing.T) {
		h, err := c.ConfigureWebhook(ctx, &mcp.ConfigureWebhookParams{ProjectID: pid, URL: "http://localhost:9/x", Events: []string{mcp.EventIssues, mcp.EventPipelines}})
		if err != nil || h.PushEvents || !h.IssuesEvents || !h.PipelineEvents || h.MergeRequestsEvents || h.WikiPageEvents {
			t.Fatalf("%+v %v", h, err)
		}
		hooks := up.Hooks(pid)
		if len(hooks) != 1 || hooks[0].URL != "http://localhost:9/x" || hooks[0].PushEvents || !hooks[0].IssuesEvents {
			t.Errorf("upstream hooks %+v", hooks)
		}
		for _, bad := range []*mcp.ConfigureWebhookParams{
			{ProjectID: pid, URL: "ftp://x"},
			{ProjectID: pid, URL: "https://x", Events: []string{"tags"}},
		} {
			if _, err := c.ConfigureWebhook(ctx, bad); err == nil {
				t.Errorf("%+v accepted", bad)
			}
		}
	})
}
