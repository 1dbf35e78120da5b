package mcp

import (
	"context"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
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

func (*ListProjectsParams) tags() []string { return []string{tagProjects} }

// GetProjectParams are the params of get_project.
type GetProjectParams struct {
	ProjectID int64 `json:"project_id"`
	CacheOptions
}

func (p *GetProjectParams) tags() []string { return []string{projectTag(p.ProjectID)} }

// SearchProjectsParams are the params of search_projects.
type SearchProjectsParams struct {
	Search     string `json:"search"` // in names and paths
	Visibility string `json:"visibility,omitempty"`
	Page       int    `json:"page,omitempty"`
	PerPage    int    `json:"per_page,omitempty"`
	CacheOptions
}

func (*SearchProjectsParams) tags() []string { return []string{tagProjects} }

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

var visibilities = []string{"public", "private", "internal"}

func summary(p *sourcehost.Project) ProjectSummary {
	s := ProjectSummary{ID: p.ID, Name: p.Name, Path: p.Path, Visibility: string(p.Visibility), WebURL: p.WebURL}
	if p.Namespace != nil {
		s.Namespace = p.Namespace.FullPath
	}
	return s
}

var listProjectsTool = define(tool{
	name:        "list_projects",
	description: "List the projects the caller can see, optionally only public, private or internal ones, only owned or only starred.",
	read:        true,
	params: []param{
		{name: "visibility", kind: kindString, enum: visibilities, description: "Only projects of this visibility."},
		{name: "owned", kind: kindBoolean, description: "Only projects the caller owns."},
		{name: "starred", kind: kindBoolean, description: "Only projects the caller starred."},
		pageParam, perPageParam,
	},
}, func(ctx context.Context, up *sourcehost.Client, p *ListProjectsParams) (*ProjectList, error) {
	page, err := up.ListProjects(ctx, &sourcehost.ListProjectsOptions{
		ListOptions: listOptions(p.Page, p.PerPage),
		Visibility:  sourcehost.Visibility(p.Visibility), Owned: p.Owned, Starred: p.Starred,
	})
	if err != nil {
		return nil, err
	}
	out := &ProjectList{Projects: make([]ProjectSummary, 0, len(page.Items)), TotalCount: page.Total}
	for _, pr := range page.Items {
		out.Projects = append(out.Projects, summary(pr))
	}
	return out, nil
})

var getProjectTool = define(tool{
	name:        "get_project",
	description: "Get one project with its default branch, dates and statistics.",
	read:        true,
	params:      []param{projectParam},
}, func(ctx context.Context, up *sourcehost.Client, p *GetProjectParams) (*ProjectDetail, error) {
	pr, err := up.GetProject(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.GetProjectOptions{Statistics: sourcehost.Ptr(true)})
	if err != nil {
		return nil, err
	}
	d := &ProjectDetail{
		ID: pr.ID, Name: pr.Name, PathWithNamespace: pr.PathWithNamespace, Description: pr.Description,
		Visibility: string(pr.Visibility), DefaultBranch: pr.DefaultBranch, WebURL: pr.WebURL,
		CreatedAt: pr.CreatedAt, LastActivityAt: pr.LastActivityAt,
	}
	if st := pr.Statistics; st != nil {
		d.Statistics = ProjectStatistics{CommitCount: st.CommitCount, StorageSize: st.StorageSize}
	}
	return d, nil
})

var searchProjectsTool = define(tool{
	name:        "search_projects",
	description: "Search the projects the caller can see by name and path.",
	read:        true,
	params: []param{
		{name: "search", kind: kindString, required: true, description: "Text to find in project names and paths."},
		{name: "visibility", kind: kindString, enum: visibilities, description: "Only projects of this visibility."},
		pageParam, perPageParam,
	},
}, func(ctx context.Context, up *sourcehost.Client, p *SearchProjectsParams) (*Paged[ProjectSummary], error) {
	page, err := up.ListProjects(ctx, &sourcehost.ListProjectsOptions{
		ListOptions: listOptions(p.Page, p.PerPage),
		Search:      p.Search, Visibility: sourcehost.Visibility(p.Visibility),
	})
	if err != nil {
		return nil, err
	}
	return paged(page, summary), nil
})

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
