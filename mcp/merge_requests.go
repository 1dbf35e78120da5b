package mcp

import (
	"context"
	"time"
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

// CreateMergeRequestParams are the params of create_merge_request.
type CreateMergeRequestParams struct {
	ProjectID          int64  `json:"project_id"`
	Title              string `json:"title"`
	Description        string `json:"description,omitempty"`
	SourceBranch       string `json:"source_branch"`
	TargetBranch       string `json:"target_branch"`
	AssigneeID         int64  `json:"assignee_id,omitempty"`
	RemoveSourceBranch *bool  `json:"remove_source_branch,omitempty"`
}

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

// ListMergeRequests calls list_merge_requests.
func (c *Client) ListMergeRequests(ctx context.Context, p *ListMergeRequestsParams) (*Paged[MergeRequest], error) {
	return call[Paged[MergeRequest]](ctx, c, "list_merge_requests", p)
}

// CreateMergeRequest calls create_merge_request.
func (c *Client) CreateMergeRequest(ctx context.Context, p *CreateMergeRequestParams) (*MergeRequest, error) {
	return call[MergeRequest](ctx, c, "create_merge_request", p)
}
