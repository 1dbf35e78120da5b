package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"strings"
	"time"
)

// Milestone states, and the state events of UpdateMilestone.
const (
	MilestoneActive   = "active"
	MilestoneClosed   = "closed"
	MilestoneClose    = "close"
	MilestoneActivate = "activate"
)

// Milestone is a project's milestone.
type Milestone struct {
	ID          int64     `json:"id"`
	IID         int64     `json:"iid"`
	ProjectID   int64     `json:"project_id"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	State       string    `json:"state"` // active or closed
	DueDate     *Date     `json:"due_date"`
	StartDate   *Date     `json:"start_date"`
	Expired     bool      `json:"expired"` // due before today
	WebURL      string    `json:"web_url"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// ListMilestonesOptions filters and pages a project's milestones.
type ListMilestonesOptions struct {
	ListOptions
	State  string  `url:"state,omitempty"` // active or closed
	Title  string  `url:"title,omitempty"` // exactly this title
	Search string  `url:"search,omitempty"`
	IIDs   []int64 `url:"iids[],omitempty"`
}

// ListMilestones returns one page of a project's milestones, soonest due
// first.
//
// GitLab API: [GET /projects/{id}/milestones]
//
// [GET /projects/{id}/milestones]: https://docs.gitlab.com/api/milestones/#list-project-milestones
func (c *Client) ListMilestones(ctx context.Context, pid ProjectRef, opts *ListMilestonesOptions) (*Page[Milestone], error) {
	return listIn[Milestone](ctx, c, pid, "/milestones", opts)
}

// AllMilestones iterates a project's milestones a page at a time.
//
// GitLab API: [GET /projects/{id}/milestones]
//
// [GET /projects/{id}/milestones]: https://docs.gitlab.com/api/milestones/#list-project-milestones
func (c *Client) AllMilestones(ctx context.Context, pid ProjectRef, opts *ListMilestonesOptions) iter.Seq2[*Milestone, error] {
	return allIn[Milestone](ctx, c, pid, "/milestones", opts)
}

// GetMilestone returns a milestone by its id (not its iid).
//
// GitLab API: [GET /projects/{id}/milestones/{milestone_id}]
//
// [GET /projects/{id}/milestones/{milestone_id}]: https://docs.gitlab.com/api/milestones/#get-single-milestone
func (c *Client) GetMilestone(ctx context.Context, pid ProjectRef, milestoneID int64) (*Milestone, error) {
	path, err := projectPath(pid, fmt.Sprintf("/milestones/%d", milestoneID))
	if err != nil {
		return nil, err
	}
	return do[Milestone](ctx, c, http.MethodGet, path, nil, nil)
}

// CreateMilestoneRequest is the body of POST /projects/:id/milestones.
type CreateMilestoneRequest struct {
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	DueDate     *Date  `json:"due_date,omitempty"`
	StartDate   *Date  `json:"start_date,omitempty"`
}

// CreateMilestone adds a milestone to a project; a title the project uses
// already is refused (400).
//
// GitLab API: [POST /projects/{id}/milestones]
//
// [POST /projects/{id}/milestones]: https://docs.gitlab.com/api/milestones/#create-new-milestone
func (c *Client) CreateMilestone(ctx context.Context, pid ProjectRef, req *CreateMilestoneRequest) (*Milestone, error) {
	if req == nil || strings.TrimSpace(req.Title) == "" {
		return nil, errors.New("sourcehost: CreateMilestone needs a title")
	}
	path, err := projectPath(pid, "/milestones")
	if err != nil {
		return nil, err
	}
	return do[Milestone](ctx, c, http.MethodPost, path, nil, req)
}

// UpdateMilestoneRequest is the body of PUT
// /projects/:id/milestones/:milestone_id; nil fields are left as they are.
type UpdateMilestoneRequest struct {
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
	DueDate     *Date   `json:"due_date,omitempty"`
	StartDate   *Date   `json:"start_date,omitempty"`
	StateEvent  string  `json:"state_event,omitempty"` // close or activate
}

// UpdateMilestone changes a milestone; StateEvent closes or reopens it.
//
// GitLab API: [PUT /projects/{id}/milestones/{milestone_id}]
//
// [PUT /projects/{id}/milestones/{milestone_id}]: https://docs.gitlab.com/api/milestones/#edit-milestone
func (c *Client) UpdateMilestone(ctx context.Context, pid ProjectRef, milestoneID int64, req *UpdateMilestoneRequest) (*Milestone, error) {
	if req == nil {
		return nil, errors.New("sourcehost: UpdateMilestone needs a request")
	}
	path, err := projectPath(pid, fmt.Sprintf("/milestones/%d", milestoneID))
	if err != nil {
		return nil, err
	}
	return do[Milestone](ctx, c, http.MethodPut, path, nil, req)
}

// DeleteMilestone removes a milestone; its issues and merge requests lose
// it.
//
// GitLab API: [DELETE /projects/{id}/milestones/{milestone_id}]
//
// [DELETE /projects/{id}/milestones/{milestone_id}]: https://docs.gitlab.com/api/milestones/#delete-project-milestone
func (c *Client) DeleteMilestone(ctx context.Context, pid ProjectRef, milestoneID int64) error {
	path, err := projectPath(pid, fmt.Sprintf("/milestones/%d", milestoneID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// ListMilestoneIssues returns one page of the issues of a milestone.
//
// GitLab API: [GET /projects/{id}/milestones/{milestone_id}/issues]
//
// [GET /projects/{id}/milestones/{milestone_id}/issues]: https://docs.gitlab.com/api/milestones/#get-all-issues-assigned-to-a-single-milestone
func (c *Client) ListMilestoneIssues(ctx context.Context, pid ProjectRef, milestoneID int64, opts *ListOptions) (*Page[Issue], error) {
	return listIn[Issue](ctx, c, pid, fmt.Sprintf("/milestones/%d/issues", milestoneID), opts)
}

// ListMilestoneMergeRequests returns one page of the merge requests of a
// milestone.
//
// GitLab API: [GET /projects/{id}/milestones/{milestone_id}/merge_requests]
//
// [GET /projects/{id}/milestones/{milestone_id}/merge_requests]: https://docs.gitlab.com/api/milestones/#get-all-merge-requests-assigned-to-a-single-milestone
func (c *Client) ListMilestoneMergeRequests(ctx context.Context, pid ProjectRef, milestoneID int64, opts *ListOptions) (*Page[MergeRequest], error) {
	return listIn[MergeRequest](ctx, c, pid, fmt.Sprintf("/milestones/%d/merge_requests", milestoneID), opts)
}
