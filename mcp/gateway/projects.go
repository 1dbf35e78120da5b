package gateway

import (
	"context"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

var visibilities = []string{"public", "private", "internal"}

func summary(p *sourcehost.Project) mcp.ProjectSummary {
	s := mcp.ProjectSummary{ID: p.ID, Name: p.Name, Path: p.Path, Visibility: string(p.Visibility), WebURL: p.WebURL}
	if p.Namespace != nil {
		s.Namespace = p.Namespace.FullPath
	}
	return s
}

var listProjectsTool = define(tool{
	name:        "list_projects",
	title:       "List projects",
	description: "List the projects the caller can see, optionally only public, private or internal ones, only owned or only starred.",
	params: []param{
		{name: "visibility", kind: kindString, enum: visibilities, description: "Only projects of this visibility."},
		{name: "owned", kind: kindBoolean, description: "Only projects the caller owns."},
		{name: "starred", kind: kindBoolean, description: "Only projects the caller starred."},
		pageParam, perPageParam,
	},
}, calls[mcp.ListProjectsParams, *mcp.ProjectList]{
	cache: func(p *mcp.ListProjectsParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(*mcp.ListProjectsParams) []string { return []string{tagProjects} },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListProjectsParams) (*mcp.ProjectList, error) {
		page, err := up.ListProjects(ctx, &sourcehost.ListProjectsOptions{
			ListOptions: listOptions(p.Page, p.PerPage),
			Visibility:  sourcehost.Visibility(p.Visibility), Owned: p.Owned, Starred: p.Starred,
		})
		if err != nil {
			return nil, err
		}
		out := &mcp.ProjectList{Projects: make([]mcp.ProjectSummary, 0, len(page.Items)), TotalCount: page.Total}
		for _, pr := range page.Items {
			out.Projects = append(out.Projects, summary(pr))
		}
		return out, nil
	},
})

var getProjectTool = define(tool{
	name:        "get_project",
	title:       "Get a project",
	description: "Get one project with its default branch, dates and statistics.",
	params:      []param{projectParam},
}, calls[mcp.GetProjectParams, *mcp.ProjectDetail]{
	cache: func(p *mcp.GetProjectParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.GetProjectParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.GetProjectParams) (*mcp.ProjectDetail, error) {
		pr, err := up.GetProject(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.GetProjectOptions{Statistics: sourcehost.Ptr(true)})
		if err != nil {
			return nil, err
		}
		d := &mcp.ProjectDetail{
			ID: pr.ID, Name: pr.Name, PathWithNamespace: pr.PathWithNamespace, Description: pr.Description,
			Visibility: string(pr.Visibility), DefaultBranch: pr.DefaultBranch, WebURL: pr.WebURL,
			CreatedAt: pr.CreatedAt, LastActivityAt: pr.LastActivityAt,
		}
		if st := pr.Statistics; st != nil {
			d.Statistics = mcp.ProjectStatistics{CommitCount: st.CommitCount, StorageSize: st.StorageSize}
		}
		return d, nil
	},
})

var searchProjectsTool = define(tool{
	name:        "search_projects",
	title:       "Search projects",
	description: "Search the projects the caller can see by name and path.",
	params: []param{
		{name: "search", kind: kindString, required: true, description: "Text to find in project names and paths."},
		{name: "visibility", kind: kindString, enum: visibilities, description: "Only projects of this visibility."},
		pageParam, perPageParam,
	},
}, calls[mcp.SearchProjectsParams, *mcp.Paged[mcp.ProjectSummary]]{
	cache: func(p *mcp.SearchProjectsParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(*mcp.SearchProjectsParams) []string { return []string{tagProjects} },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.SearchProjectsParams) (*mcp.Paged[mcp.ProjectSummary], error) {
		page, err := up.ListProjects(ctx, &sourcehost.ListProjectsOptions{
			ListOptions: listOptions(p.Page, p.PerPage),
			Search:      p.Search, Visibility: sourcehost.Visibility(p.Visibility),
		})
		if err != nil {
			return nil, err
		}
		return paged(page, summary), nil
	},
})
