package sourcehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"
)

// Issue states, and the filter value that matches both.
const (
	StateOpened = "opened"
	StateClosed = "closed"
	StateMerged = "merged" // merge requests only
	StateAll    = "all"    // a filter, never a state
)

// Issue is a project's issue.
type Issue struct {
	ID             int64      `json:"id"`
	IID            int64      `json:"iid"` // the number within its project
	ProjectID      int64      `json:"project_id"`
	Title          string     `json:"title"`
	Description    string     `json:"description"`
	State          string     `json:"state"` // opened or closed
	Labels         []string   `json:"labels"`
	Milestone      *Milestone `json:"milestone"`
	Author         *User      `json:"author"`
	Assignee       *User      `json:"assignee"`
	Assignees      []*User    `json:"assignees"`
	Confidential   bool       `json:"confidential"`
	UserNotesCount int        `json:"user_notes_count"`
	WebURL         string     `json:"web_url"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	ClosedAt       *time.Time `json:"closed_at"`
	ClosedBy       *User      `json:"closed_by"`
}

// ListIssuesOptions filters and pages a list of issues.
type ListIssuesOptions struct {
	ListOptions
	State      string   `url:"state,omitempty"`        // opened, closed or all (default all)
	Labels     []string `url:"labels,comma,omitempty"` // issues carrying every label named
	AssigneeID *int64   `url:"assignee_id,omitempty"`
	AuthorID   *int64   `url:"author_id,omitempty"`
	Search     string   `url:"search,omitempty"` // in title and description
	// Milestone is a milestone's title, or "None" or "Any".
	Milestone string `url:"milestone,omitempty"`
	OrderBy   string `url:"order_by,omitempty"` // created_at (default) or updated_at
	Sort      string `url:"sort,omitempty"`     // asc or desc (default)
	// Scope applies to ListAllIssues only: created_by_me (the server's
	// default), assigned_to_me or all.
	Scope string `url:"scope,omitempty"`
}

// ListIssues returns one page of a project's issues.
//
// GitLab API: [GET /projects/{id}/issues]
//
// [GET /projects/{id}/issues]: https://docs.gitlab.com/api/issues/#list-project-issues
func (c *Client) ListIssues(ctx context.Context, pid ProjectRef, opts *ListIssuesOptions) (*Page[Issue], error) {
	return listIn[Issue](ctx, c, pid, "/issues", opts)
}

// AllIssues iterates a project's issues a page at a time.
//
// GitLab API: [GET /projects/{id}/issues]
//
// [GET /projects/{id}/issues]: https://docs.gitlab.com/api/issues/#list-project-issues
func (c *Client) AllIssues(ctx context.Context, pid ProjectRef, opts *ListIssuesOptions) iter.Seq2[*Issue, error] {
	return allIn[Issue](ctx, c, pid, "/issues", opts)
}

// ListAllIssues returns one page of the issues the caller can see across
// projects; set Scope to "all" for more than the caller's own.
//
// GitLab API: [GET /issues]
//
// [GET /issues]: https://docs.gitlab.com/api/issues/#list-issues
func (c *Client) ListAllIssues(ctx context.Context, opts *ListIssuesOptions) (*Page[Issue], error) {
	return list[Issue](ctx, c, "/issues", opts)
}

// GetIssue returns a project's issue by its iid.
//
// GitLab API: [GET /projects/{id}/issues/{iid}]
//
// [GET /projects/{id}/issues/{iid}]: https://docs.gitlab.com/api/issues/#single-project-issue
func (c *Client) GetIssue(ctx context.Context, pid ProjectRef, iid int64) (*Issue, error) {
	path, err := projectPath(pid, fmt.Sprintf("/issues/%d", iid))
	if err != nil {
		return nil, err
	}
	return do[Issue](ctx, c, http.MethodGet, path, nil, nil)
}

// Labels is a set of label names; a request sends it as one comma-separated
// string, as the API wants.
type Labels []string

// MarshalJSON writes "bug,backend".
func (l Labels) MarshalJSON() ([]byte, error) { return json.Marshal(strings.Join(l, ",")) }

// CreateIssueRequest is the body of POST /projects/:id/issues.
type CreateIssueRequest struct {
	Title        string  `json:"title"`
	Description  string  `json:"description,omitempty"`
	Labels       Labels  `json:"labels,omitempty"`
	AssigneeID   *int64  `json:"assignee_id,omitempty"`
	AssigneeIDs  []int64 `json:"assignee_ids,omitempty"`
	Confidential bool    `json:"confidential,omitempty"`
	MilestoneID  *int64  `json:"milestone_id,omitempty"`
}

// CreateIssue opens an issue in a project.
//
// GitLab API: [POST /projects/{id}/issues]
//
// [POST /projects/{id}/issues]: https://docs.gitlab.com/api/issues/#new-issue
func (c *Client) CreateIssue(ctx context.Context, pid ProjectRef, req *CreateIssueRequest) (*Issue, error) {
	if req == nil || strings.TrimSpace(req.Title) == "" {
		return nil, errors.New("sourcehost: CreateIssue needs a title")
	}
	path, err := projectPath(pid, "/issues")
	if err != nil {
		return nil, err
	}
	return do[Issue](ctx, c, http.MethodPost, path, nil, req)
}

// State events for UpdateIssue and UpdateMergeRequest.
const (
	StateEventClose  = "close"
	StateEventReopen = "reopen"
)

// UpdateIssueRequest is the body of PUT /projects/:id/issues/:iid; nil and
// empty fields are left as they are.
type UpdateIssueRequest struct {
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
	Labels      *Labels `json:"labels,omitempty"`
	AssigneeIDs []int64 `json:"assignee_ids,omitempty"`
	StateEvent  string  `json:"state_event,omitempty"` // close or reopen
	// MilestoneID sets the milestone; a pointer to 0 removes it.
	MilestoneID *int64 `json:"milestone_id,omitempty"`
}

// UpdateIssue changes an issue; StateEvent closes or reopens it.
//
// GitLab API: [PUT /projects/{id}/issues/{iid}]
//
// [PUT /projects/{id}/issues/{iid}]: https://docs.gitlab.com/api/issues/#edit-an-issue
func (c *Client) UpdateIssue(ctx context.Context, pid ProjectRef, iid int64, req *UpdateIssueRequest) (*Issue, error) {
	if req == nil {
		return nil, errors.New("sourcehost: UpdateIssue needs a request")
	}
	path, err := projectPath(pid, fmt.Sprintf("/issues/%d", iid))
	if err != nil {
		return nil, err
	}
	return do[Issue](ctx, c, http.MethodPut, path, nil, req)
}
