package mcp

import (
	"context"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

// ListMergeRequestsParams are the params of list_merge_requests.
type ListMergeRequestsParams struct {
	ProjectID    int64  `json:"project_id"`
	State        string `json:"state,omitempty"` // opened, closed, merged or all
	TargetBranch string `json:"target_branch,omitempty"`
	SourceBranch string `json:"source_branch,omitempty"`
	Page         int    `json:"page,omitempty"`
	PerPage      int    `json:"per_page,omitempty"`
	CacheOptions
}

func (p *ListMergeRequestsParams) tags() []string { return []string{projectTag(p.ProjectID)} }

// CreateMergeRequestParams are the params of create_merge_request.
type CreateMergeRequestParams struct {
	ProjectID          int64  `json:"project_id"`
	Title              string `json:"title"`
	Description        string `json:"description,omitempty"`
	SourceBranch       string `json:"source_branch"`
	TargetBranch       string `json:"target_branch"`
	AssigneeID         int64  `json:"assignee_id,omitempty"`
	RemoveSourceBranch *bool  `json:"remove_source_branch,omitempty"`
	writeCall
}

func (p *CreateMergeRequestParams) tags() []string { return []string{projectTag(p.ProjectID)} }

// MergeRequest is a merge request as list_merge_requests and
// create_merge_request show it.
type MergeRequest struct {
	ID                 int64      `json:"id"`
	IID                int64      `json:"iid"`
	ProjectID          int64      `json:"project_id"`
	Title              string     `json:"title"`
	Description        string     `json:"description"`
	State              string     `json:"state"`
	SourceBranch       string     `json:"source_branch"`
	TargetBranch       string     `json:"target_branch"`
	Author             *User      `json:"author"`
	Assignee           *User      `json:"assignee"`
	MergeStatus        string     `json:"merge_status,omitempty"`
	RemoveSourceBranch bool       `json:"remove_source_branch"`
	WebURL             string     `json:"web_url"`
	CreatedAt          time.Time  `json:"created_at"`
	MergedAt           *time.Time `json:"merged_at"`
}

func mergeRequest(m *sourcehost.MergeRequest) MergeRequest {
	return MergeRequest{
		ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title, Description: m.Description,
		State: m.State, SourceBranch: m.SourceBranch, TargetBranch: m.TargetBranch,
		Author: user(m.Author), Assignee: user(m.Assignee), MergeStatus: m.DetailedMergeStatus,
		RemoveSourceBranch: m.ForceRemoveSourceBranch, WebURL: m.WebURL, CreatedAt: m.CreatedAt, MergedAt: m.MergedAt,
	}
}

var listMergeRequestsTool = define(tool{
	name:        "list_merge_requests",
	description: "List a project's merge requests, filtered by state and branches.",
	read:        true,
	params: []param{
		projectParam,
		{name: "state", kind: kindString, enum: []string{"opened", "closed", "merged", "all"}, description: "opened, closed, merged or all (default all)."},
		{name: "target_branch", kind: kindString, description: "Only merge requests into this branch."},
		{name: "source_branch", kind: kindString, description: "Only merge requests from this branch."},
		pageParam, perPageParam,
	},
}, func(ctx context.Context, up *sourcehost.Client, p *ListMergeRequestsParams) (*Paged[MergeRequest], error) {
	page, err := up.ListMergeRequests(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListMergeRequestsOptions{
		ListOptions: listOptions(p.Page, p.PerPage),
		State:       p.State, TargetBranch: p.TargetBranch, SourceBranch: p.SourceBranch,
	})
	if err != nil {
		return nil, err
	}
	return paged(page, mergeRequest), nil
})

var createMergeRequestTool = define(tool{
	name:        "create_merge_request",
	description: "Open a merge request from one branch of a project into another.",
	params: []param{
		projectParam,
		{name: "title", kind: kindString, required: true, description: "Title of the merge request."},
		{name: "description", kind: kindString, description: "Body, in Markdown."},
		{name: "source_branch", kind: kindString, required: true, description: "Branch with the changes."},
		{name: "target_branch", kind: kindString, required: true, description: "Branch to merge into."},
		{name: "assignee_id", kind: kindInteger, min: 1, max: 1 << 62, description: "User to assign."},
		{name: "remove_source_branch", kind: kindBoolean, description: "Delete the source branch once merged."},
	},
}, func(ctx context.Context, up *sourcehost.Client, p *CreateMergeRequestParams) (*MergeRequest, error) {
	m, err := up.CreateMergeRequest(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.CreateMergeRequestRequest{
		Title: p.Title, Description: p.Description, SourceBranch: p.SourceBranch, TargetBranch: p.TargetBranch,
		AssigneeID: optInt64(p.AssigneeID), RemoveSourceBranch: p.RemoveSourceBranch,
	})
	if err != nil {
		return nil, err
	}
	out := mergeRequest(m)
	return &out, nil
})

// ListMergeRequests calls list_merge_requests.
func (c *Client) ListMergeRequests(ctx context.Context, p *ListMergeRequestsParams) (*Paged[MergeRequest], error) {
	return call[Paged[MergeRequest]](ctx, c, "list_merge_requests", p)
}

// CreateMergeRequest calls create_merge_request.
func (c *Client) CreateMergeRequest(ctx context.Context, p *CreateMergeRequestParams) (*MergeRequest, error) {
	return call[MergeRequest](ctx, c, "create_merge_request", p)
}
