package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
)

// Discussion is a thread of notes on a merge request. A note made with
// CreateMergeRequestNote is a thread of its own (IndividualNote); one
// started with CreateMergeRequestDiscussion takes replies
// (AddMergeRequestDiscussionNote) and can be resolved
// (ResolveMergeRequestDiscussion).
type Discussion struct {
	ID             string  `json:"id"`
	IndividualNote bool    `json:"individual_note"`
	Notes          []*Note `json:"notes"`
}

// Resolved reports whether every resolvable note of the thread is
// resolved (false for a thread with none).
func (d *Discussion) Resolved() bool {
	some := false
	for _, n := range d.Notes {
		if n.Resolvable {
			if !n.Resolved {
				return false
			}
			some = true
		}
	}
	return some
}

func discussionPath(pid ProjectRef, iid int64, discussionID string) (string, error) {
	if discussionID == "" {
		return "", errors.New("sourcehost: empty discussion id")
	}
	return projectPath(pid, fmt.Sprintf("/merge_requests/%d/discussions/%s", iid, url.PathEscape(discussionID)))
}

// ListMergeRequestDiscussions returns one page of a merge request's
// threads, oldest first.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/discussions]
//
// [GET /projects/{id}/merge_requests/{iid}/discussions]: https://docs.gitlab.com/api/discussions/#list-project-merge-request-discussion-items
func (c *Client) ListMergeRequestDiscussions(ctx context.Context, pid ProjectRef, iid int64, opts *ListOptions) (*Page[Discussion], error) {
	return listIn[Discussion](ctx, c, pid, fmt.Sprintf("/merge_requests/%d/discussions", iid), opts)
}

// AllMergeRequestDiscussions iterates a merge request's threads a page at
// a time.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/discussions]
//
// [GET /projects/{id}/merge_requests/{iid}/discussions]: https://docs.gitlab.com/api/discussions/#list-project-merge-request-discussion-items
func (c *Client) AllMergeRequestDiscussions(ctx context.Context, pid ProjectRef, iid int64, opts *ListOptions) iter.Seq2[*Discussion, error] {
	return allIn[Discussion](ctx, c, pid, fmt.Sprintf("/merge_requests/%d/discussions", iid), opts)
}

// GetMergeRequestDiscussion returns one thread of a merge request.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/discussions/{discussion_id}]
//
// [GET /projects/{id}/merge_requests/{iid}/discussions/{discussion_id}]: https://docs.gitlab.com/api/discussions/#get-single-merge-request-discussion-item
func (c *Client) GetMergeRequestDiscussion(ctx context.Context, pid ProjectRef, iid int64, discussionID string) (*Discussion, error) {
	path, err := discussionPath(pid, iid, discussionID)
	if err != nil {
		return nil, err
	}
	return do[Discussion](ctx, c, http.MethodGet, path, nil, nil)
}

// CreateMergeRequestDiscussion starts a thread on a merge request with
// its first note.
//
// GitLab API: [POST /projects/{id}/merge_requests/{iid}/discussions]
//
// [POST /projects/{id}/merge_requests/{iid}/discussions]: https://docs.gitlab.com/api/discussions/#create-new-merge-request-thread
func (c *Client) CreateMergeRequestDiscussion(ctx context.Context, pid ProjectRef, iid int64, body string) (*Discussion, error) {
	if body == "" {
		return nil, errors.New("sourcehost: CreateMergeRequestDiscussion needs a body")
	}
	path, err := projectPath(pid, fmt.Sprintf("/merge_requests/%d/discussions", iid))
	if err != nil {
		return nil, err
	}
	return do[Discussion](ctx, c, http.MethodPost, path, nil, map[string]string{"body": body})
}

// AddMergeRequestDiscussionNote replies to a thread. A reply to a note of
// its own makes it a thread; a system note takes no reply
// (ErrBadRequest).
//
// GitLab API: [POST /projects/{id}/merge_requests/{iid}/discussions/{discussion_id}/notes]
//
// [POST /projects/{id}/merge_requests/{iid}/discussions/{discussion_id}/notes]: https://docs.gitlab.com/api/discussions/#add-note-to-existing-merge-request-thread
func (c *Client) AddMergeRequestDiscussionNote(ctx context.Context, pid ProjectRef, iid int64, discussionID, body string) (*Note, error) {
	if body == "" {
		return nil, errors.New("sourcehost: AddMergeRequestDiscussionNote needs a body")
	}
	path, err := discussionPath(pid, iid, discussionID)
	if err != nil {
		return nil, err
	}
	return do[Note](ctx, c, http.MethodPost, path+"/notes", nil, map[string]string{"body": body})
}

// ResolveMergeRequestDiscussion resolves a thread (resolved true) or
// reopens it. The merge request's author and developers and above may; a
// thread that cannot be resolved (a note of its own) is ErrForbidden.
//
// GitLab API: [PUT /projects/{id}/merge_requests/{iid}/discussions/{discussion_id}]
//
// [PUT /projects/{id}/merge_requests/{iid}/discussions/{discussion_id}]: https://docs.gitlab.com/api/discussions/#resolve-a-merge-request-thread
func (c *Client) ResolveMergeRequestDiscussion(ctx context.Context, pid ProjectRef, iid int64, discussionID string, resolved bool) (*Discussion, error) {
	path, err := discussionPath(pid, iid, discussionID)
	if err != nil {
		return nil, err
	}
	return do[Discussion](ctx, c, http.MethodPut, path, nil, map[string]bool{"resolved": resolved})
}
