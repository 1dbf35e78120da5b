package gateway

import (
	"context"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// searchScopes are search's scopes; projectScopes those searched in one
// project only (GitLab's free edition searches notes, commits and file
// contents per project), and projects never in one.
var (
	searchScopes  = []string{mcp.SearchProjects, mcp.SearchIssues, mcp.SearchMergeRequests, mcp.SearchUsers, mcp.SearchNotes, mcp.SearchCommits, mcp.SearchBlobs}
	projectScopes = map[string]bool{mcp.SearchNotes: true, mcp.SearchCommits: true, mcp.SearchBlobs: true}
)

var searchTool = define(tool{
	name:        "search",
	title:       "Search",
	description: "Search what the caller can see for text, in one scope: projects, issues, merge_requests or users everywhere or in one project; notes (comments), commits or blobs (file contents) in one project.",
	params: []param{
		{name: "search", kind: kindString, required: true, description: "Text to find."},
		{name: "scope", kind: kindString, required: true, enum: searchScopes, description: "What to search."},
		{name: "project_id", kind: kindInteger, min: 1, max: 1 << 62, description: "Search only this project (required for notes, commits and blobs; not for projects)."},
		{name: "ref", kind: kindString, description: "commits and blobs: branch, tag or commit to search (default: the default branch)."},
		pageParam, perPageParam,
	},
}, calls[mcp.SearchParams, *mcp.SearchResult]{
	cache: func(p *mcp.SearchParams) *mcp.CacheOptions { return &p.CacheOptions },
	// A search of one project is dropped with its project's reads; one of
	// every project with the cross-project lists (a write elsewhere may
	// leave it stale for its cache_ttl).
	tags: func(p *mcp.SearchParams) []string {
		if p.ProjectID != 0 {
			return projectTags(p.ProjectID)
		}
		return []string{tagProjects, tagIssues}
	},
	check: func(p *mcp.SearchParams) *mcp.Error {
		switch {
		case p.ProjectID == 0 && projectScopes[p.Scope]:
			return paramError("project_id", "is required for scope "+p.Scope)
		case p.ProjectID != 0 && p.Scope == mcp.SearchProjects:
			return paramError("project_id", "scope projects searches every project: leave project_id out")
		case p.Ref != "" && p.Scope != mcp.SearchCommits && p.Scope != mcp.SearchBlobs:
			return paramError("ref", "applies to scopes commits and blobs only")
		}
		return nil
	},
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.SearchParams) (*mcp.SearchResult, error) {
		opts := &sourcehost.SearchOptions{ListOptions: listOptions(p.Page, p.PerPage), Search: p.Search, Scope: sourcehost.SearchScope(p.Scope), Ref: p.Ref}
		var r *sourcehost.SearchResults
		var err error
		if p.ProjectID != 0 {
			r, err = up.SearchProject(ctx, sourcehost.ProjectID(p.ProjectID), opts)
		} else {
			r, err = up.Search(ctx, opts)
		}
		if err != nil {
			return nil, err
		}
		out := &mcp.SearchResult{Scope: p.Scope, Pagination: pagination(r.PageInfo)}
		out.Projects = convert(r.Projects, summary)
		out.Issues = convert(r.Issues, issue)
		out.MergeRequests = convert(r.MergeRequests, mergeRequest)
		out.Users = convert(r.Users, func(u *sourcehost.User) mcp.User { return *user(u) })
		out.Notes = convert(r.Notes, note)
		out.Commits = convert(r.Commits, func(c *sourcehost.Commit) mcp.Commit {
			return mcp.Commit{ID: c.ID, ShortID: c.ShortID, Title: c.Title, AuthorName: c.AuthorName, CreatedAt: c.CreatedAt, WebURL: c.WebURL}
		})
		out.Blobs = convert(r.Blobs, func(b *sourcehost.SearchBlob) mcp.SearchBlob {
			return mcp.SearchBlob{Path: b.Path, Ref: b.Ref, Startline: b.Startline, Data: b.Data, ProjectID: b.ProjectID}
		})
		return out, nil
	},
})

// convert is in converted by conv, nil for none.
func convert[S, T any](in []*S, conv func(*S) T) []T {
	if len(in) == 0 {
		return nil
	}
	out := make([]T, 0, len(in))
	for _, s := range in {
		out = append(out, conv(s))
	}
	return out
}
