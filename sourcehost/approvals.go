package sourcehost

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// MergeRequestApprovals is who approved a merge request, and whether the
// caller has or may.
type MergeRequestApprovals struct {
	ID                int64      `json:"id"`
	IID               int64      `json:"iid"`
	ProjectID         int64      `json:"project_id"`
	Title             string     `json:"title"`
	State             string     `json:"state"`
	Approved          bool       `json:"approved"`
	ApprovalsRequired int        `json:"approvals_required"`
	ApprovalsLeft     int        `json:"approvals_left"`
	ApprovedBy        []Approver `json:"approved_by"`
	UserHasApproved   bool       `json:"user_has_approved"`
	UserCanApprove    bool       `json:"user_can_approve"`
}

// Approver is one approval of a merge request.
type Approver struct {
	User       *User      `json:"user"`
	ApprovedAt *time.Time `json:"approved_at"`
}

// GetMergeRequestApprovals returns a merge request's approvals.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/approvals]
//
// [GET /projects/{id}/merge_requests/{iid}/approvals]: https://docs.gitlab.com/api/merge_request_approvals/#single-merge-request-approval
func (c *Client) GetMergeRequestApprovals(ctx context.Context, pid ProjectRef, iid int64) (*MergeRequestApprovals, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d/approvals", iid))
	if err != nil {
		return nil, err
	}
	return do[MergeRequestApprovals](ctx, c, http.MethodGet, path, nil, nil)
}

// ApproveMergeRequestRequest is the body of POST
// .../merge_requests/:iid/approve.
type ApproveMergeRequestRequest struct {
	// SHA, when set, must be the source branch's head, or the approval is
	// refused with 409 (ErrConflict).
	SHA string `json:"sha,omitempty"`
}

// ApproveMergeRequest approves a merge request as the caller (a developer
// or above). Approving again is ErrNotModified (GitLab's 304).
//
// GitLab API: [POST /projects/{id}/merge_requests/{iid}/approve]
//
// [POST /projects/{id}/merge_requests/{iid}/approve]: https://docs.gitlab.com/api/merge_request_approvals/#approve-merge-request
func (c *Client) ApproveMergeRequest(ctx context.Context, pid ProjectRef, iid int64, req *ApproveMergeRequestRequest) (*MergeRequestApprovals, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d/approve", iid))
	if err != nil {
		return nil, err
	}
	if req == nil {
		req = &ApproveMergeRequestRequest{}
	}
	return do[MergeRequestApprovals](ctx, c, http.MethodPost, path, nil, req)
}

// UnapproveMergeRequest takes the caller's approval back. Without one it
// is ErrNotModified (GitLab's 304).
//
// GitLab API: [POST /projects/{id}/merge_requests/{iid}/unapprove]
//
// [POST /projects/{id}/merge_requests/{iid}/unapprove]: https://docs.gitlab.com/api/merge_request_approvals/#unapprove-merge-request
func (c *Client) UnapproveMergeRequest(ctx context.Context, pid ProjectRef, iid int64) (*MergeRequestApprovals, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d/unapprove", iid))
	if err != nil {
		return nil, err
	}
	return do[MergeRequestApprovals](ctx, c, http.MethodPost, path, nil, nil)
}
