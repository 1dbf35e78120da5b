package gateway_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/mcp"
)

// The issue tools beyond the specification's thirteen, against the
// fake's state: get by iid, update, close and reopen (twice is once),
// comments.
func TestIssueTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	c := srv.Client()
	i, err := c.GetIssue(ctx, &mcp.GetIssueParams{ProjectID: pid, IssueIID: 2})
	if err != nil || i.Title != "Slow search" || i.State != "opened" {
		t.Fatalf("get_issue: %+v %v", i, err)
	}
	var e *mcp.Error
	if _, err := c.GetIssue(ctx, &mcp.GetIssueParams{ProjectID: pid, IssueIID: 99}); !errors.As(err, &e) || e.Status != 404 {
		t.Errorf("get_issue of a missing iid: %v, want status 404", err)
	}
	title, labels := "Search is slow", []string{"perf"}
	u, err := c.UpdateIssue(ctx, &mcp.UpdateIssueParams{ProjectID: pid, IssueIID: 2, Title: &title, Labels: &labels})
	if err != nil || u.Title != title || len(u.Labels) != 1 || u.Labels[0] != "perf" || u.Description != i.Description {
		t.Fatalf("update_issue: %+v %v", u, err)
	}
	if _, err := c.UpdateIssue(ctx, &mcp.UpdateIssueParams{ProjectID: pid, IssueIID: 2}); !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
		t.Errorf("update_issue with nothing to change: %v, want -32602", err)
	}
	for range 2 {
		if got, err := c.CloseIssue(ctx, &mcp.IssueStateParams{ProjectID: pid, IssueIID: 2}); err != nil || got.State != "closed" {
			t.Fatalf("close_issue: %+v %v", got, err)
		}
	}
	if got, err := c.ReopenIssue(ctx, &mcp.IssueStateParams{ProjectID: pid, IssueIID: 2}); err != nil || got.State != "opened" {
		t.Fatalf("reopen_issue: %+v %v", got, err)
	}
	n, err := c.CreateIssueNote(ctx, &mcp.CreateIssueNoteParams{ProjectID: pid, IssueIID: 2, Body: "Seen on **prod** too"})
	if err != nil || n.Body != "Seen on **prod** too" || n.NoteableType != "Issue" || n.Author == nil {
		t.Fatalf("create_issue_note: %+v %v", n, err)
	}
	if _, err := c.CreateIssueNote(ctx, &mcp.CreateIssueNoteParams{ProjectID: pid, IssueIID: 2, Body: "  "}); !errors.As(err, &e) || e.Param != "body" {
		t.Errorf("an empty note: %v, want -32602 on body", err)
	}
	notes, err := c.ListIssueNotes(ctx, &mcp.ListIssueNotesParams{ProjectID: pid, IssueIID: 2})
	if err != nil || len(notes.Data) == 0 || notes.Data[len(notes.Data)-1].ID != n.ID {
		t.Fatalf("list_issue_notes (oldest first, the new one last): %+v %v", notes, err)
	}
}

// The merge request tools beyond the thirteen: get by iid, its changes,
// comments, and merging, refused for a head other than the one given.
func TestMergeRequestTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	up := srv.Upstream()
	if _, err := up.PushFile(pid, "feature", "src/new.go", "package main\n", "New feature"); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	mr, err := c.CreateMergeRequest(ctx, &mcp.CreateMergeRequestParams{ProjectID: pid, Title: "Feature", SourceBranch: "feature", TargetBranch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetMergeRequest(ctx, &mcp.MergeRequestParams{ProjectID: pid, MergeRequestIID: mr.IID})
	if err != nil || got.ID != mr.ID || got.SourceBranch != "feature" {
		t.Fatalf("get_merge_request: %+v %v", got, err)
	}
	ch, err := c.GetMergeRequestChanges(ctx, &mcp.MergeRequestParams{ProjectID: pid, MergeRequestIID: mr.IID})
	if err != nil || ch.MergeRequest.IID != mr.IID || len(ch.Changes) != 1 || ch.Changes[0].NewPath != "src/new.go" || !ch.Changes[0].NewFile || !strings.Contains(ch.Changes[0].Diff, "+package main") {
		t.Fatalf("get_merge_request_changes: %+v %v", ch, err)
	}
	if _, err := c.CreateMergeRequestNote(ctx, &mcp.CreateMergeRequestNoteParams{ProjectID: pid, MergeRequestIID: mr.IID, Body: "LGTM"}); err != nil {
		t.Fatal(err)
	}
	notes, err := c.ListMergeRequestNotes(ctx, &mcp.ListMergeRequestNotesParams{ProjectID: pid, MergeRequestIID: mr.IID})
	if err != nil || len(notes.Data) == 0 || notes.Data[len(notes.Data)-1].Body != "LGTM" || notes.Data[len(notes.Data)-1].NoteableType != "MergeRequest" {
		t.Fatalf("list_merge_request_notes: %+v %v", notes, err)
	}
	var e *mcp.Error
	_, err = c.MergeMergeRequest(ctx, &mcp.MergeMergeRequestParams{ProjectID: pid, MergeRequestIID: mr.IID, SHA: strings.Repeat("0", 40)})
	if !errors.As(err, &e) || e.Status != 409 {
		t.Fatalf("merge with another head: %v, want status 409", err)
	}
	merged, err := c.MergeMergeRequest(ctx, &mcp.MergeMergeRequestParams{ProjectID: pid, MergeRequestIID: mr.IID})
	if err != nil || merged.State != "merged" || merged.MergedAt == nil {
		t.Fatalf("merge_merge_request: %+v %v", merged, err)
	}
	if _, err := c.MergeMergeRequest(ctx, &mcp.MergeMergeRequestParams{ProjectID: pid, MergeRequestIID: mr.IID}); !errors.As(err, &e) || e.Status/100 != 4 {
		t.Errorf("merging again: %v, want a 4xx", err)
	}
}

// A pipeline's jobs, and a job's log through the gateway.
func TestJobTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	up := srv.Upstream()
	if _, err := up.PushFile(pid, "main", ".sourcehost-ci.yml", "test:\n  script: go test\n", "Add CI"); err != nil {
		t.Fatal(err)
	}
	c := srv.Client()
	pl, err := c.TriggerPipeline(ctx, &mcp.TriggerPipelineParams{ProjectID: pid, Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := c.ListPipelineJobs(ctx, &mcp.ListPipelineJobsParams{ProjectID: pid, PipelineID: pl.ID})
	if err != nil || len(jobs.Data) == 0 || jobs.Data[0].PipelineID != pl.ID || jobs.Data[0].Name == "" {
		t.Fatalf("list_pipeline_jobs: %+v %v", jobs, err)
	}
	j := jobs.Data[0]
	if err := up.SetJobStatus(pid, j.ID, "failed"); err != nil {
		t.Fatal(err)
	}
	failed, err := c.ListPipelineJobs(ctx, &mcp.ListPipelineJobsParams{ProjectID: pid, PipelineID: pl.ID, Status: "failed"})
	if err != nil || len(failed.Data) != 1 || failed.Data[0].ID != j.ID {
		t.Fatalf("list_pipeline_jobs status failed: %+v %v", failed, err)
	}
	log, err := c.GetJobLog(ctx, &mcp.GetJobLogParams{ProjectID: pid, JobID: j.ID})
	if err != nil || log.Truncated || !strings.Contains(log.Content, "ERROR: Job failed") || log.Size != int64(len(log.Content)) {
		t.Fatalf("get_job_log: %+v %v", log, err)
	}
	var e *mcp.Error
	if _, err := c.GetJobLog(ctx, &mcp.GetJobLogParams{ProjectID: pid, JobID: 999999}); !errors.As(err, &e) || e.Status != 404 {
		t.Errorf("get_job_log of a missing job: %v, want status 404", err)
	}
}

// search in each kind of scope, and the scopes it refuses before asking.
func TestSearchTool(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, pid := seeded(t)
	c := srv.Client()
	r, err := c.Search(ctx, &mcp.SearchParams{Search: "checkout", Scope: mcp.SearchIssues})
	if err != nil || r.Scope != "issues" || len(r.Issues) != 1 || r.Issues[0].Title != "Checkout fails" {
		t.Fatalf("search issues: %+v %v", r, err)
	}
	r, err = c.Search(ctx, &mcp.SearchParams{Search: "shop", Scope: mcp.SearchBlobs, ProjectID: pid})
	if err != nil || len(r.Blobs) != 1 || r.Blobs[0].Path != "README.md" || r.Blobs[0].ProjectID != pid {
		t.Fatalf("search blobs: %+v %v", r, err)
	}
	r, err = c.Search(ctx, &mcp.SearchParams{Search: "sho", Scope: mcp.SearchProjects})
	if err != nil || len(r.Projects) != 1 || r.Projects[0].ID != pid {
		t.Fatalf("search projects: %+v %v", r, err)
	}
	var e *mcp.Error
	for _, bad := range []*mcp.SearchParams{
		{Search: "x", Scope: mcp.SearchBlobs},
		{Search: "x", Scope: mcp.SearchProjects, ProjectID: pid},
		{Search: "x", Scope: mcp.SearchIssues, Ref: "main"},
		{Search: "x", Scope: "wiki"},
	} {
		if _, err := c.Search(ctx, bad); !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
			t.Errorf("search %+v: %v, want -32602", bad, err)
		}
	}
}
