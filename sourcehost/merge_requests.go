package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"
)

// MergeRequest asks to merge a source branch into a target branch.
type MergeRequest struct {
	ID                      int64      `json:"id"`
	IID                     int64      `json:"iid"`
	ProjectID               int64      `json:"project_id"`
	Title                   string     `json:"title"`
	Description             string     `json:"description"`
	State                   string     `json:"state"` // opened, closed or merged
	SourceBranch            string     `json:"source_branch"`
	TargetBranch            string     `json:"target_branch"`
	SourceProjectID         int64      `json:"source_project_id"`
	TargetProjectID         int64      `json:"target_project_id"`
	Labels                  []string   `json:"labels"`
	Milestone               *Milestone `json:"milestone"`
	Draft                   bool       `json:"draft"`
	Author                  *User      `json:"author"`
	Assignee                *User      `json:"assignee"`
	Assignees               []*User    `json:"assignees"`
	SHA                     string     `json:"sha"`
	MergeCommitSHA          string     `json:"merge_commit_sha"`
	DetailedMergeStatus     string     `json:"detailed_merge_status"`
	ForceRemoveSourceBranch bool       `json:"force_remove_source_branch"`
	UserNotesCount          int        `json:"user_notes_count"`
	WebURL                  string     `json:"web_url"`
	CreatedAt               time.Time  `json:"created_at"`
	UpdatedAt               time.Time  `json:"updated_at"`
	MergedAt                *time.Time `json:"merged_at"`
	MergedBy                *User      `json:"merged_by"`
	ClosedAt                *time.Time `json:"closed_at"`
	ClosedBy                *User      `json:"closed_by"`
	// MergeError is why the last merge or rebase failed ("" when none);
	// GitLab sends it in the answers about one merge request, not in lists.
	MergeError string `json:"merge_error"`
}

// ListMergeRequestsOptions filters and pages a project's merge requests.
type ListMergeRequestsOptions struct {
	ListOptions
	State        string   `url:"state,omitempty"` // opened, closed, merged or all
	SourceBranch string   `url:"source_branch,omitempty"`
	TargetBranch string   `url:"target_branch,omitempty"`
	Labels       []string `url:"labels,comma,omitempty"`
	Milestone    string   `url:"milestone,omitempty"` // a title, "None" or "Any"
	Search       string   `url:"search,omitempty"`
	OrderBy      string   `url:"order_by,omitempty"`
	Sort         string   `url:"sort,omitempty"`
}

// ListMergeRequests returns one page of a project's merge requests.
//
// GitLab API: [GET /projects/{id}/merge_requests]
//
// [GET /projects/{id}/merge_requests]: https://docs.gitlab.com/api/merge_requests/#list-project-merge-requests
func (c *Client) ListMergeRequests(ctx context.Context, pid ProjectRef, opts *ListMergeRequestsOptions) (*Page[MergeRequest], error) {
	return listIn[MergeRequest](ctx, c, pid, "/merge_requests", opts)
}

// AllMergeRequests iterates a project's merge requests a page at a time.
//
// GitLab API: [GET /projects/{id}/merge_requests]
//
// [GET /projects/{id}/merge_requests]: https://docs.gitlab.com/api/merge_requests/#list-project-merge-requests
func (c *Client) AllMergeRequests(ctx context.Context, pid ProjectRef, opts *ListMergeRequestsOptions) iter.Seq2[*MergeRequest, error] {
	return allIn[MergeRequest](ctx, c, pid, "/merge_requests", opts)
}

// GetMergeRequest returns a merge request by its iid.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}]
//
// [GET /projects/{id}/merge_requests/{iid}]: https://docs.gitlab.com/api/merge_requests/#get-single-mr
func (c *Client) GetMergeRequest(ctx context.Context, pid ProjectRef, iid int64) (*MergeRequest, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d", iid))
	if err != nil {
		return nil, err
	}
	return do[MergeRequest](ctx, c, http.MethodGet, path, nil, nil)
}

// CreateMergeRequestRequest is the body of POST /projects/:id/merge_requests.
type CreateMergeRequestRequest struct {
	SourceBranch       string  `json:"source_branch"`
	TargetBranch       string  `json:"target_branch"`
	Title              string  `json:"title"`
	Description        string  `json:"description,omitempty"`
	AssigneeID         *int64  `json:"assignee_id,omitempty"`
	AssigneeIDs        []int64 `json:"assignee_ids,omitempty"`
	Labels             Labels  `json:"labels,omitempty"`
	RemoveSourceBranch *bool   `json:"remove_source_branch,omitempty"`
	MilestoneID        *int64  `json:"milestone_id,omitempty"`
}

// CreateMergeRequest opens a merge request.
//
// GitLab API: [POST /projects/{id}/merge_requests]
//
// [POST /projects/{id}/merge_requests]: https://docs.gitlab.com/api/merge_requests/#create-mr
func (c *Client) CreateMergeRequest(ctx context.Context, pid ProjectRef, req *CreateMergeRequestRequest) (*MergeRequest, error) {
	if req == nil || req.SourceBranch == "" || req.TargetBranch == "" || req.Title == "" {
		return nil, errors.New("sourcehost: CreateMergeRequest needs a source branch, a target branch and a title")
	}
	path, err := projectPath(pid, "/merge_requests")
	if err != nil {
		return nil, err
	}
	return do[MergeRequest](ctx, c, http.MethodPost, path, nil, req)
}

// UpdateMergeRequestRequest is the body of PUT
// /projects/:id/merge_requests/:iid; nil and empty fields are left as they are.
type UpdateMergeRequestRequest struct {
	Title        *string `json:"title,omitempty"`
	Description  *string `json:"description,omitempty"`
	TargetBranch string  `json:"target_branch,omitempty"`
	Labels       *Labels `json:"labels,omitempty"`
	StateEvent   string  `json:"state_event,omitempty"`  // close or reopen
	MilestoneID  *int64  `json:"milestone_id,omitempty"` // a pointer to 0 removes it
}

// UpdateMergeRequest changes a merge request; StateEvent closes or reopens it.
//
// GitLab API: [PUT /projects/{id}/merge_requests/{iid}]
//
// [PUT /projects/{id}/merge_requests/{iid}]: https://docs.gitlab.com/api/merge_requests/#update-mr
func (c *Client) UpdateMergeRequest(ctx context.Context, pid ProjectRef, iid int64, req *UpdateMergeRequestRequest) (*MergeRequest, error) {
	if req == nil {
		return nil, errors.New("sourcehost: UpdateMergeRequest needs a request")
	}
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d", iid))
	if err != nil {
		return nil, err
	}
	return do[MergeRequest](ctx, c, http.MethodPut, path, nil, req)
}

// AcceptMergeRequestRequest is the body of PUT .../merge_requests/:iid/merge.
type AcceptMergeRequestRequest struct {
	MergeCommitMessage       string `json:"merge_commit_message,omitempty"`
	ShouldRemoveSourceBranch *bool  `json:"should_remove_source_branch,omitempty"`
	// SHA, when set, must be the source branch's head, or the merge is
	// refused with 409.
	SHA string `json:"sha,omitempty"`
}

// AcceptMergeRequest merges a merge request. One that is not open is
// refused (405); one that cannot merge is refused too.
//
// GitLab API: [PUT /projects/{id}/merge_requests/{iid}/merge]
//
// [PUT /projects/{id}/merge_requests/{iid}/merge]: https://docs.gitlab.com/api/merge_requests/#merge-a-merge-request
func (c *Client) AcceptMergeRequest(ctx context.Context, pid ProjectRef, iid int64, req *AcceptMergeRequestRequest) (*MergeRequest, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d/merge", iid))
	if err != nil {
		return nil, err
	}
	if req == nil {
		req = &AcceptMergeRequestRequest{}
	}
	return do[MergeRequest](ctx, c, http.MethodPut, path, nil, req)
}

// Diff is one file's change: its unified diff (without the "---" and
// "+++" lines), or, for a file past the server's diff limits, none, with
// TooLarge set.
type Diff struct {
	OldPath       string `json:"old_path"`
	NewPath       string `json:"new_path"`
	AMode         string `json:"a_mode"`
	BMode         string `json:"b_mode"`
	Diff          string `json:"diff"`
	NewFile       bool   `json:"new_file"`
	RenamedFile   bool   `json:"renamed_file"`
	DeletedFile   bool   `json:"deleted_file"`
	GeneratedFile bool   `json:"generated_file"`
	Collapsed     bool   `json:"collapsed"`
	TooLarge      bool   `json:"too_large"`
}

// MergeRequestChanges is a merge request with the changes it brings.
type MergeRequestChanges struct {
	MergeRequest
	Changes []*Diff `json:"changes"`
	// Overflow reports that the server left files out past its limits.
	Overflow bool `json:"overflow"`
	// ChangesCount is the number of files changed, as the server writes
	// it: "3", or "1000+" past its limit.
	ChangesCount string `json:"changes_count"`
}

// GetMergeRequestChanges returns a merge request with every file it
// changes. GitLab deprecates it for ListMergeRequestDiffs, which pages
// them, but still serves it.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/changes]
//
// [GET /projects/{id}/merge_requests/{iid}/changes]: https://docs.gitlab.com/api/merge_requests/#get-single-merge-request-changes
func (c *Client) GetMergeRequestChanges(ctx context.Context, pid ProjectRef, iid int64) (*MergeRequestChanges, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d/changes", iid))
	if err != nil {
		return nil, err
	}
	return do[MergeRequestChanges](ctx, c, http.MethodGet, path, nil, nil)
}

// ListMergeRequestDiffs returns one page of the files a merge request
// changes, by path.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/diffs]
//
// [GET /projects/{id}/merge_requests/{iid}/diffs]: https://docs.gitlab.com/api/merge_requests/#list-merge-request-diffs
func (c *Client) ListMergeRequestDiffs(ctx context.Context, pid ProjectRef, iid int64, opts *ListOptions) (*Page[Diff], error) {
	return listIn[Diff](ctx, c, pid, fmt.Sprintf("/merge_requests/%d/diffs", iid), opts)
}

// AllMergeRequestDiffs iterates the files a merge request changes a page
// at a time.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/diffs]
//
// [GET /projects/{id}/merge_requests/{iid}/diffs]: https://docs.gitlab.com/api/merge_requests/#list-merge-request-diffs
func (c *Client) AllMergeRequestDiffs(ctx context.Context, pid ProjectRef, iid int64, opts *ListOptions) iter.Seq2[*Diff, error] {
	return allIn[Diff](ctx, c, pid, fmt.Sprintf("/merge_requests/%d/diffs", iid), opts)
}

// RebaseMergeRequestOptions are the options of RebaseMergeRequest.
type RebaseMergeRequestOptions struct {
	// SkipCI pushes the rebased source branch without running its pipeline.
	SkipCI bool `url:"skip_ci,omitempty"`
}

// MergeRequestRebase is where a merge request's rebase stands.
type MergeRequestRebase struct {
	// RebaseInProgress reports that the server is still rebasing.
	RebaseInProgress bool `json:"rebase_in_progress"`
	// MergeError is why the last rebase (or merge) failed, "" when it did
	// not: "Rebase failed: Rebase locally, resolve all conflicts, then push
	// the branch." for a conflict.
	MergeError string `json:"merge_error"`
}

// RebaseMergeRequest rebases a merge request's source branch onto its
// target branch's head, in the background: the answer is 202 with
// RebaseInProgress, and GetMergeRequestRebase tells when it is over and
// whether it failed. The caller must be allowed to push to the source
// branch (403 otherwise); a merge request that is not open, or already
// being rebased, is 409.
//
// GitLab API: [PUT /projects/{id}/merge_requests/{iid}/rebase]
//
// [PUT /projects/{id}/merge_requests/{iid}/rebase]: https://docs.gitlab.com/api/merge_requests/#rebase-a-merge-request
func (c *Client) RebaseMergeRequest(ctx context.Context, pid ProjectRef, iid int64, opts *RebaseMergeRequestOptions) (*MergeRequestRebase, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d/rebase", iid))
	if err != nil {
		return nil, err
	}
	var q any
	if opts != nil {
		q = opts
	}
	return do[MergeRequestRebase](ctx, c, http.MethodPut, path, q, nil)
}

// GetMergeRequestRebase reads where a merge request's rebase stands: the
// merge request with include_rebase_in_progress.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}]
//
// [GET /projects/{id}/merge_requests/{iid}]: https://docs.gitlab.com/api/merge_requests/#get-single-mr
func (c *Client) GetMergeRequestRebase(ctx context.Context, pid ProjectRef, iid int64) (*MergeRequestRebase, error) {
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d", iid))
	if err != nil {
		return nil, err
	}
	q := struct {
		Include bool `url:"include_rebase_in_progress"`
	}{true}
	return do[MergeRequestRebase](ctx, c, http.MethodGet, path, q, nil)
}
