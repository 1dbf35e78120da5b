package sourcehost

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"
)

// Visibility is who can see a project.
type Visibility string

// The visibility levels.
const (
	Private  Visibility = "private"
	Internal Visibility = "internal" // any signed-in user
	Public   Visibility = "public"
)

// Project is a repository with its issues, merge requests and pipelines.
type Project struct {
	ID                int64      `json:"id"`
	Name              string     `json:"name"`
	NameWithNamespace string     `json:"name_with_namespace"`
	Path              string     `json:"path"`
	PathWithNamespace string     `json:"path_with_namespace"`
	Description       string     `json:"description"`
	Visibility        Visibility `json:"visibility"`
	DefaultBranch     string     `json:"default_branch"`
	WebURL            string     `json:"web_url"`
	HTTPURLToRepo     string     `json:"http_url_to_repo"`
	// SSHURLToRepo is git@host:namespace/path.git, or
	// ssh://git@host:port/namespace/path.git on a port other than 22.
	SSHURLToRepo    string     `json:"ssh_url_to_repo"`
	Namespace       *Namespace `json:"namespace"`
	Owner           *User      `json:"owner,omitempty"` // for projects in a user's namespace
	Topics          []string   `json:"topics"`
	StarCount       int        `json:"star_count"`
	ForksCount      int        `json:"forks_count"`
	OpenIssuesCount int        `json:"open_issues_count"`
	Archived        bool       `json:"archived"`
	// MarkedForDeletionOn is the day the project was marked for deletion,
	// where delayed deletion is on (it is then archived, and its name and
	// path end in "-deletion_scheduled-<id>"); nil when it is not marked.
	MarkedForDeletionOn *Date `json:"marked_for_deletion_on"`
	// ForkedFromProject is the project this one was forked from, when it
	// was and the caller may see that one.
	ForkedFromProject *ForkedFrom        `json:"forked_from_project,omitempty"`
	CreatedAt         time.Time          `json:"created_at"`
	LastActivityAt    time.Time          `json:"last_activity_at"`
	Statistics        *ProjectStatistics `json:"statistics,omitempty"` // only when asked for
}

// ForkedFrom is the project a fork was made from, as a fork shows it.
type ForkedFrom struct {
	ID                int64  `json:"id"`
	Name              string `json:"name"`
	NameWithNamespace string `json:"name_with_namespace"`
	Path              string `json:"path"`
	PathWithNamespace string `json:"path_with_namespace"`
	DefaultBranch     string `json:"default_branch"`
	WebURL            string `json:"web_url"`
	HTTPURLToRepo     string `json:"http_url_to_repo"`
	SSHURLToRepo      string `json:"ssh_url_to_repo"`
	ForksCount        int    `json:"forks_count"`
	StarCount         int    `json:"star_count"`
}

// Namespace is the user or group a project lives in.
type Namespace struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Path     string `json:"path"`
	Kind     string `json:"kind"` // "user" or "group"
	FullPath string `json:"full_path"`
	WebURL   string `json:"web_url"`
}

// ProjectStatistics are a project's counts, returned when asked for.
type ProjectStatistics struct {
	CommitCount    int64 `json:"commit_count"`
	StorageSize    int64 `json:"storage_size"`
	RepositorySize int64 `json:"repository_size"`
}

// ListProjectsOptions filters and pages GET /projects.
type ListProjectsOptions struct {
	ListOptions
	Visibility Visibility `url:"visibility,omitempty"`
	Owned      *bool      `url:"owned,omitempty"`   // only projects the caller owns
	Starred    *bool      `url:"starred,omitempty"` // only projects the caller starred
	Membership *bool      `url:"membership,omitempty"`
	Search     string     `url:"search,omitempty"`   // in name and path
	Archived   *bool      `url:"archived,omitempty"` // only archived projects, or only those not
	OrderBy    string     `url:"order_by,omitempty"` // id, name, path, created_at, updated_at, last_activity_at
	Sort       string     `url:"sort,omitempty"`     // asc or desc
	Statistics *bool      `url:"statistics,omitempty"`
}

// ListProjects returns one page of the projects the caller can see.
//
// GitLab API: [GET /projects]
//
// [GET /projects]: https://docs.gitlab.com/api/projects/#list-all-projects
func (c *Client) ListProjects(ctx context.Context, opts *ListProjectsOptions) (*Page[Project], error) {
	return list[Project](ctx, c, "/projects", opts)
}

// AllProjects iterates every project ListProjects would return, fetching a
// page at a time as the loop goes. opts is copied; Page sets where to start.
//
// GitLab API: [GET /projects]
//
// [GET /projects]: https://docs.gitlab.com/api/projects/#list-all-projects
func (c *Client) AllProjects(ctx context.Context, opts *ListProjectsOptions) iter.Seq2[*Project, error] {
	return all[Project](ctx, c, "/projects", opts)
}

// GetProjectOptions asks for more of a project.
type GetProjectOptions struct {
	Statistics *bool `url:"statistics,omitempty"`
}

// GetProject returns one project.
//
// GitLab API: [GET /projects/{id}]
//
// [GET /projects/{id}]: https://docs.gitlab.com/api/projects/#get-a-single-project
func (c *Client) GetProject(ctx context.Context, pid ProjectRef, opts *GetProjectOptions) (*Project, error) {
	path, err := projectPath(pid, "")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodGet, path, opts, nil)
}

// CreateProjectRequest is the body of POST /projects. Name or Path is
// required; the other is derived from it.
type CreateProjectRequest struct {
	Name          string     `json:"name,omitempty"`
	Path          string     `json:"path,omitempty"`
	NamespaceID   int64      `json:"namespace_id,omitempty"` // a group; default the caller's own namespace
	Description   string     `json:"description,omitempty"`
	Visibility    Visibility `json:"visibility,omitempty"` // default private
	DefaultBranch string     `json:"default_branch,omitempty"`
	Topics        []string   `json:"topics,omitempty"`
	// InitializeWithReadme creates the default branch with a README, so
	// the repository has a first commit.
	InitializeWithReadme bool `json:"initialize_with_readme,omitempty"`
}

// CreateProject creates a project owned by the caller.
//
// GitLab API: [POST /projects]
//
// [POST /projects]: https://docs.gitlab.com/api/projects/#create-a-project
func (c *Client) CreateProject(ctx context.Context, req *CreateProjectRequest) (*Project, error) {
	if req == nil || req.Name == "" && req.Path == "" {
		return nil, errors.New("sourcehost: CreateProject needs a name or a path")
	}
	return do[Project](ctx, c, http.MethodPost, "/projects", nil, req)
}

// StarProject stars a project for the caller. Starring a project already
// starred is an *Error matching ErrNotModified (304).
//
// GitLab API: [POST /projects/{id}/star]
//
// [POST /projects/{id}/star]: https://docs.gitlab.com/api/project_starring/#star-a-project
func (c *Client) StarProject(ctx context.Context, pid ProjectRef) (*Project, error) {
	path, err := projectPath(pid, "/star")
	if err != nil {
		return nil, err
	}
	return do[Project](ctx, c, http.MethodPost, path, nil, nil)
}
