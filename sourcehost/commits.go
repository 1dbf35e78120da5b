package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"
)

// ListCommitsOptions filters and pages a repository's history.
type ListCommitsOptions struct {
	ListOptions
	RefName string     `url:"ref_name,omitempty"` // a branch, tag or SHA; default the default branch
	Path    string     `url:"path,omitempty"`     // commits that changed this file or directory
	Since   *time.Time `url:"since,omitempty"`    // committed at or after
	Until   *time.Time `url:"until,omitempty"`    // committed at or before
}

// ListCommits returns one page of the commits reachable from a ref,
// newest first.
//
// GitLab API: [GET /projects/{id}/repository/commits]
//
// [GET /projects/{id}/repository/commits]: https://docs.gitlab.com/api/commits/#list-repository-commits
func (c *Client) ListCommits(ctx context.Context, pid ProjectRef, opts *ListCommitsOptions) (*Page[Commit], error) {
	return listIn[Commit](ctx, c, pid, "/repository/commits", opts)
}

// AllCommits iterates the commits reachable from a ref a page at a time.
//
// GitLab API: [GET /projects/{id}/repository/commits]
//
// [GET /projects/{id}/repository/commits]: https://docs.gitlab.com/api/commits/#list-repository-commits
func (c *Client) AllCommits(ctx context.Context, pid ProjectRef, opts *ListCommitsOptions) iter.Seq2[*Commit, error] {
	return allIn[Commit](ctx, c, pid, "/repository/commits", opts)
}

// ListMergeRequestCommits returns one page of the commits a merge request
// brings: those of its source branch that its target lacks.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/commits]
//
// [GET /projects/{id}/merge_requests/{iid}/commits]: https://docs.gitlab.com/api/merge_requests/#get-single-merge-request-commits
func (c *Client) ListMergeRequestCommits(ctx context.Context, pid ProjectRef, mrIID int64, opts *ListOptions) (*Page[Commit], error) {
	return listIn[Commit](ctx, c, pid, fmt.Sprintf("/merge_requests/%d/commits", mrIID), opts)
}

// AllMergeRequestCommits iterates what ListMergeRequestCommits pages.
//
// GitLab API: [GET /projects/{id}/merge_requests/{iid}/commits]
//
// [GET /projects/{id}/merge_requests/{iid}/commits]: https://docs.gitlab.com/api/merge_requests/#get-single-merge-request-commits
func (c *Client) AllMergeRequestCommits(ctx context.Context, pid ProjectRef, mrIID int64, opts *ListOptions) iter.Seq2[*Commit, error] {
	return allIn[Commit](ctx, c, pid, fmt.Sprintf("/merge_requests/%d/commits", mrIID), opts)
}

// UpdateFileRequest commits a new content of an existing file to a branch.
type UpdateFileRequest struct {
	Branch        string `json:"branch"`
	Content       string `json:"content"`
	CommitMessage string `json:"commit_message"`
	// Encoding is "text" (default) or "base64" for binary content.
	Encoding string `json:"encoding,omitempty"`
	// LastCommitID, when set, must be the last commit that changed the
	// file (File.LastCommitID as read), or the update is refused with 409
	// (ErrConflict): someone changed it since.
	LastCommitID string `json:"last_commit_id,omitempty"`
	AuthorName   string `json:"author_name,omitempty"`
	AuthorEmail  string `json:"author_email,omitempty"`
	StartBranch  string `json:"start_branch,omitempty"`
}

// UpdateFile commits a new content of a file (PUT
// /projects/:id/repository/files/:file_path); a file that does not exist
// is refused (400).
//
// GitLab API: [PUT /projects/{id}/repository/files/{file_path}]
//
// [PUT /projects/{id}/repository/files/{file_path}]: https://docs.gitlab.com/api/repository_files/#update-existing-file-in-repository
func (c *Client) UpdateFile(ctx context.Context, pid ProjectRef, file string, req *UpdateFileRequest) (*FileInfo, error) {
	if req == nil || req.Branch == "" || req.CommitMessage == "" {
		return nil, errors.New("sourcehost: UpdateFile needs a branch and a commit message")
	}
	path, err := filePath(pid, file)
	if err != nil {
		return nil, err
	}
	return do[FileInfo](ctx, c, http.MethodPut, path, nil, req)
}

// DeleteFileRequest commits the removal of a file from a branch.
type DeleteFileRequest struct {
	Branch        string `json:"branch"`
	CommitMessage string `json:"commit_message"`
	// LastCommitID, when set, must be the last commit that changed the
	// file, or the delete is refused with 409 (ErrConflict).
	LastCommitID string `json:"last_commit_id,omitempty"`
	AuthorName   string `json:"author_name,omitempty"`
	AuthorEmail  string `json:"author_email,omitempty"`
	StartBranch  string `json:"start_branch,omitempty"`
}

// DeleteFile commits the removal of a file (DELETE
// /projects/:id/repository/files/:file_path).
//
// GitLab API: [DELETE /projects/{id}/repository/files/{file_path}]
//
// [DELETE /projects/{id}/repository/files/{file_path}]: https://docs.gitlab.com/api/repository_files/#delete-existing-file-in-repository
func (c *Client) DeleteFile(ctx context.Context, pid ProjectRef, file string, req *DeleteFileRequest) error {
	if req == nil || req.Branch == "" || req.CommitMessage == "" {
		return errors.New("sourcehost: DeleteFile needs a branch and a commit message")
	}
	path, err := filePath(pid, file)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, req, nil)
	return err
}
