package sourcehost

import (
	"context"
	"errors"
	"iter"
	"net/http"
)

// This file holds what a project's owners and maintainers do to the
// project itself: change it, archive it, move it, fork it, delete it; and
// what any user does, unstar it.

// UpdateProjectRequest is the body of PUT /projects/{id}: the settings to
// change, nil (or "") for those to leave as they are.
type UpdateProjectRequest struct {
	Name        *string    `json:"name,omitempty"`
	Path        *string    `json:"path,omitempty"`
	Description *string    `json:"description,omitempty"`
	Visibility  Visibility `json:"visibility,omitempty"`
	// DefaultBranch must be a branch of the repository.
	DefaultBranch *string `json:"default_branch,omitempty"`
	// Topics replaces the topics; a pointer to an empty list clears them.
	Topics *[]string `json:"topics,omitempty"`
}

// UpdateProject changes a project's settings, for its maintainers.
//
// GitLab API: [PUT /projects/{id}]
//
// [PUT /projects/{id}]: https://docs.gitlab.com/api/projects/#edit-a-project
func (c *Client) UpdateProject(ctx context.Context, pid ProjectRef, req *UpdateProjectRequest) (*Project, error) {
	if req == nil || *req == (UpdateProjectRequest{}) {
		return nil, errors.New("sourcehost: UpdateProject needs a setting to change")
	}
	path, err := projectPath(pid, "")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodPut, path, nil, req)
}

// DeleteProject deletes a project and everything it holds, for its
// owners. The server accepts it (202) and deletes it, at once or, where
// delayed deletion is on, after the days it keeps it marked for deletion.
//
// GitLab API: [DELETE /projects/{id}]
//
// [DELETE /projects/{id}]: https://docs.gitlab.com/api/projects/#delete-a-project
func (c *Client) DeleteProject(ctx context.Context, pid ProjectRef) error {
	path, err := projectPath(pid, "")
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// DeleteProjectPermanently deletes at once a project that delayed
// deletion has marked for deletion (its MarkedForDeletionOn is set).
// fullPath must be its path with namespace as it is now, marked (GitLab's
// check that the caller means this project): another is 400, as is a
// project not marked.
//
// GitLab API: [DELETE /projects/{id}]
//
// [DELETE /projects/{id}]: https://docs.gitlab.com/api/projects/#delete-a-project
func (c *Client) DeleteProjectPermanently(ctx context.Context, pid ProjectRef, fullPath string) error {
	if fullPath == "" {
		return errors.New("sourcehost: DeleteProjectPermanently needs the project's full path")
	}
	path, err := projectPath(pid, "")
	if err != nil {
		return err
	}
	q := struct {
		Permanently bool   `url:"permanently_remove"`
		FullPath    string `url:"full_path"`
	}{true, fullPath}
	_, err = c.call(ctx, http.MethodDelete, path, q, nil, nil)
	return err
}

// RestoreProject takes a project marked for deletion off the list: it is
// no longer archived and has its name and path back. A project that is
// not marked is 400.
//
// GitLab API: [POST /projects/{id}/restore]
//
// [POST /projects/{id}/restore]: https://docs.gitlab.com/api/projects/#restore-a-project-marked-for-deletion
func (c *Client) RestoreProject(ctx context.Context, pid ProjectRef) (*Project, error) {
	path, err := projectPath(pid, "/restore")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodPost, path, nil, nil)
}

// UnstarProject takes the caller's star off a project. A project the
// caller has not starred is an *Error matching ErrNotModified (304).
//
// GitLab API: [POST /projects/{id}/unstar]
//
// [POST /projects/{id}/unstar]: https://docs.gitlab.com/api/project_starring/#unstar-a-project
func (c *Client) UnstarProject(ctx context.Context, pid ProjectRef) (*Project, error) {
	path, err := projectPath(pid, "/unstar")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodPost, path, nil, nil)
}

// ArchiveProject makes a project read-only, for its owners: its issues,
// merge requests, repository and pipelines take no more changes until it
// is unarchived.
//
// GitLab API: [POST /projects/{id}/archive]
//
// [POST /projects/{id}/archive]: https://docs.gitlab.com/api/projects/#archive-a-project
func (c *Client) ArchiveProject(ctx context.Context, pid ProjectRef) (*Project, error) {
	path, err := projectPath(pid, "/archive")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodPost, path, nil, nil)
}

// UnarchiveProject makes an archived project writable again.
//
// GitLab API: [POST /projects/{id}/unarchive]
//
// [POST /projects/{id}/unarchive]: https://docs.gitlab.com/api/projects/#unarchive-a-project
func (c *Client) UnarchiveProject(ctx context.Context, pid ProjectRef) (*Project, error) {
	path, err := projectPath(pid, "/unarchive")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodPost, path, nil, nil)
}

// TransferProject moves a project to another namespace, named by its id
// or its full path ("platform/tools"), for the project's owners who may
// create projects there.
//
// GitLab API: [PUT /projects/{id}/transfer]
//
// [PUT /projects/{id}/transfer]: https://docs.gitlab.com/api/projects/#transfer-a-project-to-a-new-namespace
func (c *Client) TransferProject(ctx context.Context, pid ProjectRef, namespace string) (*Project, error) {
	if namespace == "" {
		return nil, errors.New("sourcehost: TransferProject needs a namespace")
	}
	path, err := projectPath(pid, "/transfer")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodPut, path, transferQuery{namespace}, nil)
}

// transferQuery is the query of PUT /projects/{id}/transfer.
type transferQuery struct {
	Namespace string `url:"namespace"`
}

// ForkProjectRequest is the body of POST /projects/{id}/fork; every field
// is optional. The fork goes to the caller's namespace unless NamespaceID
// or NamespacePath names another, and takes the project's name, path and
// description unless given others; its visibility is at most the
// project's.
type ForkProjectRequest struct {
	NamespaceID   int64      `json:"namespace_id,omitempty"`
	NamespacePath string     `json:"namespace_path,omitempty"`
	Name          string     `json:"name,omitempty"`
	Path          string     `json:"path,omitempty"`
	Description   string     `json:"description,omitempty"`
	Visibility    Visibility `json:"visibility,omitempty"`
}

// ForkProject forks a project: a new project holding a copy of its
// repository, whose ForkedFromProject names it.
//
// GitLab API: [POST /projects/{id}/fork]
//
// [POST /projects/{id}/fork]: https://docs.gitlab.com/api/project_forks/#fork-a-project
func (c *Client) ForkProject(ctx context.Context, pid ProjectRef, req *ForkProjectRequest) (*Project, error) {
	path, err := projectPath(pid, "/fork")
	if err != nil {
		return nil, err
	}
	if req == nil {
		req = &ForkProjectRequest{}
	}
	return do[Project](ctx, c, http.MethodPost, path, nil, req)
}

// ListProjectForks returns one page of the forks of a project that the
// caller can see, filtered as ListProjects filters.
//
// GitLab API: [GET /projects/{id}/forks]
//
// [GET /projects/{id}/forks]: https://docs.gitlab.com/api/project_forks/#list-forks-of-a-project
func (c *Client) ListProjectForks(ctx context.Context, pid ProjectRef, opts *ListProjectsOptions) (*Page[Project], error) {
	path, err := projectPath(pid, "/forks")
	if err != nil {
		return nil, err
	}
	return list[Project](ctx, c, path, opts)
}

// AllProjectForks iterates every fork ListProjectForks would return,
// fetching a page at a time as the loop goes.
//
// GitLab API: [GET /projects/{id}/forks]
//
// [GET /projects/{id}/forks]: https://docs.gitlab.com/api/project_forks/#list-forks-of-a-project
func (c *Client) AllProjectForks(ctx context.Context, pid ProjectRef, opts *ListProjectsOptions) iter.Seq2[*Project, error] {
	return allIn[Project](ctx, c, pid, "/forks", opts)
}
