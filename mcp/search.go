package mcp

import (
	"context"
	"time"
)

// The scopes search accepts. Projects, issues, merge requests and users
// are searched in every project the caller can see, or in one
// (ProjectID); notes, commits and blobs (file contents) in one project
// only, and projects never in one.
const (
	SearchProjects      = "projects"
	SearchIssues        = "issues"
	SearchMergeRequests = "merge_requests"
	SearchUsers         = "users"
	SearchNotes         = "notes"
	SearchCommits       = "commits"
	SearchBlobs         = "blobs"
)

// SearchParams are the params of search.
type SearchParams struct {
	Search    string `json:"search"`
	Scope     string `json:"scope"`
	ProjectID int64  `json:"project_id,omitempty"`
	Ref       string `json:"ref,omitempty"` // commits and blobs: the branch, tag or commit searched (default: the default branch)
	Page      int    `json:"page,omitempty"`
	PerPage   int    `json:"per_page,omitempty"`
	CacheOptions
}

// SearchResult is the result of search: the list of its scope, the
// others absent. The server counts no totals for a search: Pagination's
// Total and TotalPages are -1.
type SearchResult struct {
	Scope         string           `json:"scope"`
	Projects      []ProjectSummary `json:"projects,omitempty"`
	Issues        []Issue          `json:"issues,omitempty"`
	MergeRequests []MergeRequest   `json:"merge_requests,omitempty"`
	Users         []User           `json:"users,omitempty"`
	Notes         []Note           `json:"notes,omitempty"`
	Commits       []Commit         `json:"commits,omitempty"`
	Blobs         []SearchBlob     `json:"blobs,omitempty"`
	Pagination    Pagination       `json:"pagination"`
}

// Commit is a commit as search shows it.
type Commit struct {
	ID         string    `json:"id"`
	ShortID    string    `json:"short_id"`
	Title      string    `json:"title"`
	AuthorName string    `json:"author_name"`
	CreatedAt  time.Time `json:"created_at"`
	WebURL     string    `json:"web_url"`
}

// SearchBlob is a file search found: the lines around the match, from
// line Startline (1-based).
type SearchBlob struct {
	Path      string `json:"path"`
	Ref       string `json:"ref"`
	Startline int    `json:"startline"`
	Data      string `json:"data"`
	ProjectID int64  `json:"project_id"`
}

// Search calls search.
func (c *Client) Search(ctx context.Context, p *SearchParams) (*SearchResult, error) {
	return call[SearchResult](ctx, c, "search", p)
}
