package mcp

import (
	"context"
	"time"
)

// ListProjectsParams are the params of list_projects.
type ListProjectsParams struct {
	Visibility string `json:"visibility,omitempty"` // public, private or internal
	Owned      *bool  `json:"owned,omitempty"`
	Starred    *bool  `json:"starred,omitempty"`
	Page       int    `json:"page,omitempty"`
	PerPage    int    `json:"per_page,omitempty"`
	CacheOptions
}

// GetProjectParams are the params of get_project.
type GetProjectParams struct {
	ProjectID int64 `json:"project_id"`
	CacheOptions
}

// SearchProjectsParams are the params of search_projects.
type SearchProjectsParams struct {
	Search     string `json:"search"` // in names and paths
	Visibility string `json:"visibility,omitempty"`
	Page       int    `json:"page,omitempty"`
	PerPage    int    `json:"per_page,omitempty"`
	CacheOptions
}

// ProjectSummary is a project as list_projects and search_projects show it.
type ProjectSummary struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Path       string `json:"path"`
	Namespace  string `json:"namespace"` // the namespace's full path
	Visibility string `json:"visibility"`
	WebURL     string `json:"web_url"`
}

// ProjectList is the result of list_projects.
type ProjectList struct {
	Projects   []ProjectSummary `json:"projects"`
	TotalCount int              `json:"total_count"` // -1 when the upstream did not count
}

// ProjectDetail is the result of get_project.
type ProjectDetail struct {
	ID                int64             `json:"id"`
	Name              string            `json:"name"`
	PathWithNamespace string            `json:"path_with_namespace"`
	Description       string            `json:"description"`
	Visibility        string            `json:"visibility"`
	DefaultBranch     string            `json:"default_branch"`
	WebURL            string            `json:"web_url"`
	CreatedAt         time.Time         `json:"created_at"`
	LastActivityAt    time.Time         `json:"last_activity_at"`
	Statistics        ProjectStatistics `json:"statistics"`
}

// ProjectStatistics are a project's sizes. They are zero when the caller
// may not see them (the upstream shows them to reporters and above).
type ProjectStatistics struct {
	CommitCount int64 `json:"commit_count"`
	StorageSize int64 `json:"storage_size"`
}

// ListProjects calls list_projects.
func (c *Client) ListProjects(ctx context.Context, p *ListProjectsParams) (*ProjectList, error) {
	return call[ProjectList](ctx, c, "list_projects", p)
}

// GetProject calls get_project.
func (c *Client) GetProject(ctx context.Context, p *GetProjectParams) (*ProjectDetail, error) {
	return call[ProjectDetail](ctx, c, "get_project", p)
}

// SearchProjects calls search_projects.
func (c *Client) SearchProjects(ctx context.Context, p *SearchProjectsParams) (*Paged[ProjectSummary], error) {
	return call[Paged[ProjectSummary]](ctx, c, "search_projects", p)
}
