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

// MergeRequestParams name one merge request by its project and iid: the
// params of get_merge_request and get_merge_request_changes.
type MergeRequestParams struct {
	ProjectID       int64 `json:"project_id"`
	MergeRequestIID int64 `json:"merge_request_iid"`
	CacheOptions
}

// FileChange is one file a merge request changes, with its unified diff.
type FileChange struct {
	OldPath     string `json:"old_path"`
	NewPath     string `json:"new_path"`
	Diff        string `json:"diff"`
	NewFile     bool   `json:"new_file"`
	RenamedFile bool   `json:"renamed_file"`
	DeletedFile bool   `json:"deleted_file"`
	TooLarge    bool   `json:"too_large"` // the server left this file's diff out
}

// MergeRequestChanges is the result of get_merge_request_changes.
type MergeRequestChanges struct {
	MergeRequest MergeRequest `json:"merge_request"`
	Changes      []FileChange `json:"changes"`
	// Overflow says the server left files out past its limits.
	Overflow bool `json:"overflow"`
}

// MergeMergeRequestParams are the params of merge_merge_request. SHA,
// when given, must be the source branch's head (else -32000 with status
// 409): the merge is of what the caller reviewed.
type MergeMergeRequestParams struct {
	ProjectID                int64  `json:"project_id"`
	MergeRequestIID          int64  `json:"merge_request_iid"`
	SHA                      string `json:"sha,omitempty"`
	MergeCommitMessage       string `json:"merge_commit_message,omitempty"`
	ShouldRemoveSourceBranch *bool  `json:"should_remove_source_branch,omitempty"`
}

// GetMergeRequest calls get_merge_request.
func (c *Client) GetMergeRequest(ctx context.Context, p *MergeRequestParams) (*MergeRequest, error) {
	return call[MergeRequest](ctx, c, "get_merge_request", p)
}

// GetMergeRequestChanges calls get_merge_request_changes.
func (c *Client) GetMergeRequestChanges(ctx context.Context, p *MergeRequestParams) (*MergeRequestChanges, error) {
	return call[MergeRequestChanges](ctx, c, "get_merge_request_changes", p)
}

// MergeMergeRequest calls merge_merge_request.
func (c *Client) MergeMergeRequest(ctx context.Context, p *MergeMergeRequestParams) (*MergeRequest, error) {
	return call[MergeRequest](ctx, c, "merge_merge_request", p)
}
