package sourcehost

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/url"
)

// AllBranches iterates a repository's branches a page at a time.
//
// GitLab API: [GET /projects/{id}/repository/branches]
//
// [GET /projects/{id}/repository/branches]: https://docs.gitlab.com/api/branches/#list-repository-branches
func (c *Client) AllBranches(ctx context.Context, pid ProjectRef, opts *ListBranchesOptions) iter.Seq2[*Branch, error] {
	return allIn[Branch](ctx, c, pid, "/repository/branches", opts)
}

func branchPath(pid ProjectRef, branch string) (string, error) {
	if branch == "" {
		return "", errors.New("sourcehost: empty branch name")
	}
	return projectPath(pid, "/repository/branches/"+url.PathEscape(branch))
}

// GetBranch returns one branch with its head commit.
//
// GitLab API: [GET /projects/{id}/repository/branches/{branch}]
//
// [GET /projects/{id}/repository/branches/{branch}]: https://docs.gitlab.com/api/branches/#get-single-repository-branch
func (c *Client) GetBranch(ctx context.Context, pid ProjectRef, branch string) (*Branch, error) {
	path, err := branchPath(pid, branch)
	if err != nil {
		return nil, err
	}
	return do[Branch](ctx, c, http.MethodGet, path, nil, nil)
}

// DeleteBranch deletes a branch. The default branch and protected branches
// are refused with 405 (ErrMethodNotAllowed); unprotect one first.
//
// GitLab API: [DELETE /projects/{id}/repository/branches/{branch}]
//
// [DELETE /projects/{id}/repository/branches/{branch}]: https://docs.gitlab.com/api/branches/#delete-repository-branch
func (c *Client) DeleteBranch(ctx context.Context, pid ProjectRef, branch string) error {
	path, err := branchPath(pid, branch)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// BranchAccess is one access level of a protected branch's rule.
type BranchAccess struct {
	ID                     int64       `json:"id"`
	AccessLevel            AccessLevel `json:"access_level"`
	AccessLevelDescription string      `json:"access_level_description"`
}

// ProtectedBranch is a rule protecting a branch, or every branch a
// wildcard ("release/*") matches: who may push and merge to it. A
// protected branch cannot be deleted.
type ProtectedBranch struct {
	ID                int64           `json:"id"`
	Name              string          `json:"name"`
	PushAccessLevels  []*BranchAccess `json:"push_access_levels"`
	MergeAccessLevels []*BranchAccess `json:"merge_access_levels"`
	AllowForcePush    bool            `json:"allow_force_push"`
}

// ListProtectedBranches returns one page of a project's protected
// branches (for maintainers).
//
// GitLab API: [GET /projects/{id}/protected_branches]
//
// [GET /projects/{id}/protected_branches]: https://docs.gitlab.com/api/protected_branches/#list-protected-branches
func (c *Client) ListProtectedBranches(ctx context.Context, pid ProjectRef, opts *ListOptions) (*Page[ProtectedBranch], error) {
	return listIn[ProtectedBranch](ctx, c, pid, "/protected_branches", opts)
}

// GetProtectedBranch returns the rule of a protected branch by its name
// (or wildcard).
//
// GitLab API: [GET /projects/{id}/protected_branches/{name}]
//
// [GET /projects/{id}/protected_branches/{name}]: https://docs.gitlab.com/api/protected_branches/#get-a-single-protected-branch-or-wildcard-protected-branch
func (c *Client) GetProtectedBranch(ctx context.Context, pid ProjectRef, name string) (*ProtectedBranch, error) {
	if name == "" {
		return nil, errors.New("sourcehost: GetProtectedBranch needs a name")
	}
	path, err := projectPath(pid, "/protected_branches/"+url.PathEscape(name))
	if err != nil {
		return nil, err
	}
	return do[ProtectedBranch](ctx, c, http.MethodGet, path, nil, nil)
}

// ProtectBranchRequest is the body of POST /projects/:id/protected_branches.
// Levels left nil are the server's default, MaintainerAccess; NoAccess
// means no one.
type ProtectBranchRequest struct {
	Name             string       `json:"name"` // a branch name or a wildcard
	PushAccessLevel  *AccessLevel `json:"push_access_level,omitempty"`
	MergeAccessLevel *AccessLevel `json:"merge_access_level,omitempty"`
	AllowForcePush   bool         `json:"allow_force_push,omitempty"`
}

// ProtectBranch protects a branch (or the branches a wildcard matches).
// A name protected already is refused with 409 (ErrConflict).
//
// GitLab API: [POST /projects/{id}/protected_branches]
//
// [POST /projects/{id}/protected_branches]: https://docs.gitlab.com/api/protected_branches/#protect-repository-branches
func (c *Client) ProtectBranch(ctx context.Context, pid ProjectRef, req *ProtectBranchRequest) (*ProtectedBranch, error) {
	if req == nil || req.Name == "" {
		return nil, errors.New("sourcehost: ProtectBranch needs a name")
	}
	path, err := projectPath(pid, "/protected_branches")
	if err != nil {
		return nil, err
	}
	return do[ProtectedBranch](ctx, c, http.MethodPost, path, nil, req)
}

// UnprotectBranch removes a branch's protection.
//
// GitLab API: [DELETE /projects/{id}/protected_branches/{name}]
//
// [DELETE /projects/{id}/protected_branches/{name}]: https://docs.gitlab.com/api/protected_branches/#unprotect-repository-branches
func (c *Client) UnprotectBranch(ctx context.Context, pid ProjectRef, name string) error {
	if name == "" {
		return errors.New("sourcehost: UnprotectBranch needs a name")
	}
	path, err := projectPath(pid, "/protected_branches/"+url.PathEscape(name))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}
