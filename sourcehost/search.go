package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// SearchScope is what a search looks for. Each level has its own scopes,
// as GitLab's free edition has them: an instance's search
// (Search) projects, issues, merge requests, milestones, snippet titles
// and users; a group's (SearchGroup) the same but snippet titles; a
// project's (SearchProject) issues, merge requests,
// milestones, notes, wiki blobs, commits, blobs and users. Another scope
// is refused with ErrBadRequest.
type SearchScope string

// Search scopes.
const (
	SearchProjects      SearchScope = "projects"
	SearchIssues        SearchScope = "issues"
	SearchMergeRequests SearchScope = "merge_requests"
	SearchMilestones    SearchScope = "milestones"
	SearchSnippetTitles SearchScope = "snippet_titles"
	SearchUsers         SearchScope = "users"
	SearchNotes         SearchScope = "notes"
	SearchWikiBlobs     SearchScope = "wiki_blobs"
	SearchCommits       SearchScope = "commits"
	SearchBlobs         SearchScope = "blobs"
)

// SearchOptions are a search's term, scope and page.
type SearchOptions struct {
	ListOptions
	// Search is the text to find; Scope what to find it in. Both are
	// required.
	Search string      `url:"search"`
	Scope  SearchScope `url:"scope"`
	// Ref is the branch, tag or commit a project's commits and blobs are
	// searched at; empty means the default branch.
	Ref string `url:"ref,omitempty"`
}

// SearchResults is one page of what a search found: the field of its
// scope is set (snippets and wiki blobs are decoded as Blobs), the
// others are nil. GitLab sends no totals for a search: PageInfo's Total
// and TotalPages are -1.
type SearchResults struct {
	Scope         SearchScope
	Projects      []*Project
	Issues        []*Issue
	MergeRequests []*MergeRequest
	Milestones    []*Milestone
	Users         []*User
	Notes         []*Note
	Commits       []*Commit
	Blobs         []*SearchBlob
	PageInfo
}

// SearchBlob is a file a search found: the lines around the match, from
// line Startline (1-based).
type SearchBlob struct {
	Basename  string `json:"basename"`
	Data      string `json:"data"`
	Path      string `json:"path"`
	Filename  string `json:"filename"`
	Ref       string `json:"ref"`
	Startline int    `json:"startline"`
	ProjectID int64  `json:"project_id"`
}

// Search searches the whole instance (what the caller may see) for one
// scope.
//
// GitLab API: [GET /search]
//
// [GET /search]: https://docs.gitlab.com/api/search/#global-search-api
func (c *Client) Search(ctx context.Context, opts *SearchOptions) (*SearchResults, error) {
	return c.search(ctx, "/search", opts)
}

// SearchGroup searches a group, its subgroups and their projects for one
// scope.
//
// GitLab API: [GET /groups/{id}/search]
//
// [GET /groups/{id}/search]: https://docs.gitlab.com/api/search/#group-search-api
func (c *Client) SearchGroup(ctx context.Context, gid GroupRef, opts *SearchOptions) (*SearchResults, error) {
	path, err := groupPath(gid, "/search")
	if err != nil {
		return nil, err
	}
	return c.search(ctx, path, opts)
}

// SearchProject searches one project for one scope.
//
// GitLab API: [GET /projects/{id}/search]
//
// [GET /projects/{id}/search]: https://docs.gitlab.com/api/search/#project-search-api
func (c *Client) SearchProject(ctx context.Context, pid ProjectRef, opts *SearchOptions) (*SearchResults, error) {
	path, err := projectPath(pid, "/search")
	if err != nil {
		return nil, err
	}
	return c.search(ctx, path, opts)
}

// search fetches a page of results at path into the field of the scope.
func (c *Client) search(ctx context.Context, path string, opts *SearchOptions) (*SearchResults, error) {
	if opts == nil || opts.Search == "" || opts.Scope == "" {
		return nil, errors.New("sourcehost: a search needs a term and a scope")
	}
	out := &SearchResults{Scope: opts.Scope}
	var into any
	switch opts.Scope {
	case SearchProjects:
		into = &out.Projects
	case SearchIssues:
		into = &out.Issues
	case SearchMergeRequests:
		into = &out.MergeRequests
	case SearchMilestones:
		into = &out.Milestones
	case SearchUsers:
		into = &out.Users
	case SearchNotes:
		into = &out.Notes
	case SearchCommits:
		into = &out.Commits
	case SearchBlobs, SearchWikiBlobs, SearchSnippetTitles:
		into = &out.Blobs
	default:
		return nil, fmt.Errorf("sourcehost: unknown search scope %q", opts.Scope)
	}
	resp, err := c.call(ctx, http.MethodGet, path, opts, nil, into)
	if err != nil {
		return nil, err
	}
	out.PageInfo = pageInfo(resp)
	return out, nil
}
