package mcp

import (
	"context"
	"strings"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

// ListIssuesParams are the params of list_issues.
type ListIssuesParams struct {
	ProjectID  int64    `json:"project_id"`
	State      string   `json:"state,omitempty"` // opened, closed or all
	Labels     []string `json:"labels,omitempty"`
	AssigneeID int64    `json:"assignee_id,omitempty"`
	Page       int      `json:"page,omitempty"`
	PerPage    int      `json:"per_page,omitempty"`
	CacheOptions
}

func (p *ListIssuesParams) tags() []string { return []string{projectTag(p.ProjectID)} }

func (p *ListIssuesParams) validate() *Error { return checkLabels(p.Labels) }

// CreateIssueParams are the params of create_issue.
type CreateIssueParams struct {
	ProjectID   int64    `json:"project_id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	AssigneeID  int64    `json:"assignee_id,omitempty"`
	Labels      []string `json:"labels,omitempty"`
	writeCall
}

func (p *CreateIssueParams) tags() []string { return []string{projectTag(p.ProjectID), tagIssues} }

func (p *CreateIssueParams) validate() *Error { return checkLabels(p.Labels) }

// SearchIssuesParams are the params of search_issues. Without ProjectID the
// search spans every project the caller can see.
type SearchIssuesParams struct {
	Search    string `json:"search"` // in titles and descriptions
	ProjectID int64  `json:"project_id,omitempty"`
	State     string `json:"state,omitempty"`
	Page      int    `json:"page,omitempty"`
	PerPage   int    `json:"per_page,omitempty"`
	CacheOptions
}

func (p *SearchIssuesParams) tags() []string {
	if p.ProjectID != 0 {
		return []string{projectTag(p.ProjectID)}
	}
	return []string{tagIssues}
}

// Issue is an issue as list_issues and search_issues show it.
type Issue struct {
	ID          int64     `json:"id"`
	IID         int64     `json:"iid"`
	ProjectID   int64     `json:"project_id"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	State       string    `json:"state"`
	Labels      []string  `json:"labels"`
	CreatedAt   time.Time `json:"created_at"`
	Assignee    *User     `json:"assignee"`
	WebURL      string    `json:"web_url"`
}

// IssueList is the result of list_issues.
type IssueList struct {
	Issues     []Issue `json:"issues"`
	TotalCount int     `json:"total_count"` // -1 when the upstream did not count
}

// CreatedIssue is the result of create_issue.
type CreatedIssue struct {
	ID     int64  `json:"id"`
	IID    int64  `json:"iid"`
	Title  string `json:"title"`
	WebURL string `json:"web_url"`
}

var issueStates = []string{"opened", "closed", "all"}

func issue(i *sourcehost.Issue) Issue {
	labels := i.Labels
	if labels == nil {
		labels = []string{}
	}
	return Issue{
		ID: i.ID, IID: i.IID, ProjectID: i.ProjectID, Title: i.Title, Description: i.Description,
		State: i.State, Labels: labels, CreatedAt: i.CreatedAt, Assignee: user(i.Assignee), WebURL: i.WebURL,
	}
}

// checkLabels refuses a label the upstream would split in two: labels travel
// there as one comma-separated string.
func checkLabels(labels []string) *Error {
	for _, l := range labels {
		switch {
		case strings.TrimSpace(l) == "":
			return paramError("labels", "a label must not be empty")
		case strings.Contains(l, ","):
			return paramError("labels", "a label must not contain a comma")
		}
	}
	return nil
}

var listIssuesTool = define(tool{
	name:        "list_issues",
	description: "List a project's issues, filtered by state, labels (all must match) and assignee.",
	read:        true,
	params: []param{
		projectParam,
		{name: "state", kind: kindString, enum: issueStates, description: "opened, closed or all (default all)."},
		{name: "labels", kind: kindStrings, description: "Only issues carrying every one of these labels."},
		{name: "assignee_id", kind: kindInteger, min: 1, max: 1 << 62, description: "Only issues assigned to this user."},
		pageParam, perPageParam,
	},
}, func(ctx context.Context, up *sourcehost.Client, p *ListIssuesParams) (*IssueList, error) {
	page, err := up.ListIssues(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListIssuesOptions{
		ListOptions: listOptions(p.Page, p.PerPage),
		State:       p.State, Labels: p.Labels, AssigneeID: optInt64(p.AssigneeID),
	})
	if err != nil {
		return nil, err
	}
	out := &IssueList{Issues: make([]Issue, 0, len(page.Items)), TotalCount: page.Total}
	for _, i := range page.Items {
		out.Issues = append(out.Issues, issue(i))
	}
	return out, nil
})

var createIssueTool = define(tool{
	name:        "create_issue",
	description: "Create an issue in a project.",
	params: []param{
		projectParam,
		{name: "title", kind: kindString, required: true, description: "Title of the issue."},
		{name: "description", kind: kindString, description: "Body of the issue, in Markdown."},
		{name: "assignee_id", kind: kindInteger, min: 1, max: 1 << 62, description: "User to assign."},
		{name: "labels", kind: kindStrings, description: "Labels to set; new ones are created."},
	},
}, func(ctx context.Context, up *sourcehost.Client, p *CreateIssueParams) (*CreatedIssue, error) {
	i, err := up.CreateIssue(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.CreateIssueRequest{
		Title: p.Title, Description: p.Description, AssigneeID: optInt64(p.AssigneeID), Labels: p.Labels,
	})
	if err != nil {
		return nil, err
	}
	return &CreatedIssue{ID: i.ID, IID: i.IID, Title: i.Title, WebURL: i.WebURL}, nil
})

var searchIssuesTool = define(tool{
	name:        "search_issues",
	description: "Search issues by title and description, in one project or in every project the caller can see.",
	read:        true,
	params: []param{
		{name: "search", kind: kindString, required: true, description: "Text to find in titles and descriptions."},
		{name: "project_id", kind: kindInteger, min: 1, max: 1 << 62, description: "Search only this project."},
		{name: "state", kind: kindString, enum: issueStates, description: "opened, closed or all (default all)."},
		pageParam, perPageParam,
	},
}, func(ctx context.Context, up *sourcehost.Client, p *SearchIssuesParams) (*Paged[Issue], error) {
	opts := &sourcehost.ListIssuesOptions{ListOptions: listOptions(p.Page, p.PerPage), State: p.State, Search: p.Search}
	var page *sourcehost.Page[sourcehost.Issue]
	var err error
	if p.ProjectID != 0 {
		page, err = up.ListIssues(ctx, sourcehost.ProjectID(p.ProjectID), opts)
	} else {
		opts.Scope = "all" // every visible issue, not only the caller's own
		page, err = up.ListAllIssues(ctx, opts)
	}
	if err != nil {
		return nil, err
	}
	return paged(page, issue), nil
})

// ListIssues calls list_issues.
func (c *Client) ListIssues(ctx context.Context, p *ListIssuesParams) (*IssueList, error) {
	return call[IssueList](ctx, c, "list_issues", p)
}

// CreateIssue calls create_issue.
func (c *Client) CreateIssue(ctx context.Context, p *CreateIssueParams) (*CreatedIssue, error) {
	return call[CreatedIssue](ctx, c, "create_issue", p)
}

// SearchIssues calls search_issues.
func (c *Client) SearchIssues(ctx context.Context, p *SearchIssuesParams) (*Paged[Issue], error) {
	return call[Paged[Issue]](ctx, c, "search_issues", p)
}
