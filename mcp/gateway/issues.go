package gateway

import (
	"context"
	"strings"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

var issueStates = []string{"opened", "closed", "all"}

func issue(i *sourcehost.Issue) mcp.Issue {
	labels := i.Labels
	if labels == nil {
		labels = []string{}
	}
	return mcp.Issue{
		ID: i.ID, IID: i.IID, ProjectID: i.ProjectID, Title: i.Title, Description: i.Description,
		State: i.State, Labels: labels, CreatedAt: i.CreatedAt, Assignee: user(i.Assignee), WebURL: i.WebURL,
	}
}

// checkLabels refuses a label the upstream would split in two: labels travel
// there as one comma-separated string.
func checkLabels(labels []string) *mcp.Error {
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
	title:       "List issues",
	description: "List a project's issues, filtered by state, labels (all must match) and assignee.",
	params: []param{
		projectParam,
		{name: "state", kind: kindString, enum: issueStates, description: "opened, closed or all (default all)."},
		{name: "labels", kind: kindStrings, description: "Only issues carrying every one of these labels."},
		{name: "assignee_id", kind: kindInteger, min: 1, max: 1 << 62, description: "Only issues assigned to this user."},
		pageParam, perPageParam,
	},
}, calls[mcp.ListIssuesParams, *mcp.IssueList]{
	cache: func(p *mcp.ListIssuesParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListIssuesParams) []string { return projectTags(p.ProjectID) },
	check: func(p *mcp.ListIssuesParams) *mcp.Error { return checkLabels(p.Labels) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListIssuesParams) (*mcp.IssueList, error) {
		page, err := up.ListIssues(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListIssuesOptions{
			ListOptions: listOptions(p.Page, p.PerPage),
			State:       p.State, Labels: p.Labels, AssigneeID: optInt64(p.AssigneeID),
		})
		if err != nil {
			return nil, err
		}
		out := &mcp.IssueList{Issues: make([]mcp.Issue, 0, len(page.Items)), TotalCount: page.Total}
		for _, i := range page.Items {
			out.Issues = append(out.Issues, issue(i))
		}
		return out, nil
	},
})

var createIssueTool = define(tool{
	name:        "create_issue",
	title:       "Create an issue",
	effects:     &effects{},
	description: "Create an issue in a project.",
	params: []param{
		projectParam,
		{name: "title", kind: kindString, required: true, description: "Title of the issue."},
		{name: "description", kind: kindString, description: "Body of the issue, in Markdown."},
		{name: "assignee_id", kind: kindInteger, min: 1, max: 1 << 62, description: "User to assign."},
		{name: "labels", kind: kindStrings, description: "Labels to set; new ones are created."},
	},
}, calls[mcp.CreateIssueParams, *mcp.CreatedIssue]{
	// A new issue changes the cross-project searches too.
	tags:  func(p *mcp.CreateIssueParams) []string { return []string{projectTag(p.ProjectID), tagIssues} },
	check: func(p *mcp.CreateIssueParams) *mcp.Error { return checkLabels(p.Labels) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.CreateIssueParams) (*mcp.CreatedIssue, error) {
		i, err := up.CreateIssue(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.CreateIssueRequest{
			Title: p.Title, Description: p.Description, AssigneeID: optInt64(p.AssigneeID), Labels: p.Labels,
		})
		if err != nil {
			return nil, err
		}
		return &mcp.CreatedIssue{ID: i.ID, IID: i.IID, Title: i.Title, WebURL: i.WebURL}, nil
	},
})

var searchIssuesTool = define(tool{
	name:        "search_issues",
	title:       "Search issues",
	description: "Search issues by title and description, in one project or in every project the caller can see.",
	params: []param{
		{name: "search", kind: kindString, required: true, description: "Text to find in titles and descriptions."},
		{name: "project_id", kind: kindInteger, min: 1, max: 1 << 62, description: "Search only this project."},
		{name: "state", kind: kindString, enum: issueStates, description: "opened, closed or all (default all)."},
		pageParam, perPageParam,
	},
}, calls[mcp.SearchIssuesParams, *mcp.Paged[mcp.Issue]]{
	cache: func(p *mcp.SearchIssuesParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags: func(p *mcp.SearchIssuesParams) []string {
		if p.ProjectID != 0 {
			return projectTags(p.ProjectID)
		}
		return []string{tagIssues}
	},
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.SearchIssuesParams) (*mcp.Paged[mcp.Issue], error) {
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
	},
})
