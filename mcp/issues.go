package mcp

import (
	"context"
	"time"
)

// ListIssuesParams are the params of list_issues.
type ListIssuesParams struct {
	ProjectID  int64    `json:"project_id"`
	State      string   `json:"state,omitempty"`  // opened, closed or all
	Labels     []string `json:"labels,omitempty"` // all must match; none empty, none with a comma
	AssigneeID int64    `json:"assignee_id,omitempty"`
	Page       int      `json:"page,omitempty"`
	PerPage    int      `json:"per_page,omitempty"`
	CacheOptions
}

// CreateIssueParams are the params of create_issue.
type CreateIssueParams struct {
	ProjectID   int64    `json:"project_id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	AssigneeID  int64    `json:"assignee_id,omitempty"`
	Labels      []string `json:"labels,omitempty"` // none empty, none with a comma
}

// SearchIssuesParams are the params of search_issues. Without ProjectID the
// search spans every project the caller can see.
type SearchIssuesParams struct {
	Search    string `json:"search"` // in titles and descriptions
	ProjectID int64  `json:"project_id,omitempty"`
	State     string `json:"state,omitempty"`
	Page      int    `json:"page,omitempty"`
	PerPage   int    `json:"per_page,omitempty"`
	CacheOptions
}

// Issue is an issue as list_issues and search_issues show it.
type Issue struct {
	ID          int64     `json:"id"`
	IID         int64     `json:"iid"`
	ProjectID   int64     `json:"project_id"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	State       string    `json:"state"`
	Labels      []string  `json:"labels"`
	CreatedAt   time.Time `json:"created_at"`
	Assignee    *User     `json:"assignee"`
	WebURL      string    `json:"web_url"`
}

// IssueList is the result of list_issues.
type IssueList struct {
	Issues     []Issue `json:"issues"`
	TotalCount int     `json:"total_count"` // -1 when the upstream did not count
}

// CreatedIssue is the result of create_issue.
type CreatedIssue struct {
	ID     int64  `json:"id"`
	IID    int64  `json:"iid"`
	Title  string `json:"title"`
	WebURL string `json:"web_url"`
}

// ListIssues calls list_issues.
func (c *Client) ListIssues(ctx context.Context, p *ListIssuesParams) (*IssueList, error) {
	return call[IssueList](ctx, c, "list_issues", p)
}

// CreateIssue calls create_issue.
func (c *Client) CreateIssue(ctx context.Context, p *CreateIssueParams) (*CreatedIssue, error) {
	return call[CreatedIssue](ctx, c, "create_issue", p)
}

// SearchIssues calls search_issues.
func (c *Client) SearchIssues(ctx context.Context, p *SearchIssuesParams) (*Paged[Issue], error) {
	return call[Paged[Issue]](ctx, c, "search_issues", p)
}

// GetIssueParams are the params of get_issue.
type GetIssueParams struct {
	ProjectID int64 `json:"project_id"`
	IssueIID  int64 `json:"issue_iid"` // the number the project gives it, as in its web URL
	CacheOptions
}

// IssueStateParams name the issue close_issue or reopen_issue acts on.
type IssueStateParams struct {
	ProjectID int64 `json:"project_id"`
	IssueIID  int64 `json:"issue_iid"`
}

// UpdateIssueParams are the params of update_issue: the fields given are
// set, the others kept. Labels, when given, replace every label (an
// empty list removes them all); AssigneeID 0 keeps the assignee.
type UpdateIssueParams struct {
	ProjectID   int64     `json:"project_id"`
	IssueIID    int64     `json:"issue_iid"`
	Title       *string   `json:"title,omitempty"`
	Description *string   `json:"description,omitempty"`
	Labels      *[]string `json:"labels,omitempty"`
	AssigneeID  int64     `json:"assignee_id,omitempty"`
}

// GetIssue calls get_issue.
func (c *Client) GetIssue(ctx context.Context, p *GetIssueParams) (*Issue, error) {
	return call[Issue](ctx, c, "get_issue", p)
}

// CloseIssue calls close_issue. Closing a closed issue changes nothing.
func (c *Client) CloseIssue(ctx context.Context, p *IssueStateParams) (*Issue, error) {
	return call[Issue](ctx, c, "close_issue", p)
}

// ReopenIssue calls reopen_issue. Reopening an open issue changes nothing.
func (c *Client) ReopenIssue(ctx context.Context, p *IssueStateParams) (*Issue, error) {
	return call[Issue](ctx, c, "reopen_issue", p)
}

// UpdateIssue calls update_issue.
func (c *Client) UpdateIssue(ctx context.Context, p *UpdateIssueParams) (*Issue, error) {
	return call[Issue](ctx, c, "update_issue", p)
}
