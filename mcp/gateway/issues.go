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
	tags:  func(p *mcp.CreateIssueParams) []string { return issueWriteTags(p.ProjectID) },
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

// issueIIDParam names an issue by the number its project gives it.
var issueIIDParam = param{name: "issue_iid", kind: kindInteger, required: true, min: 1, max: 1 << 62, description: "The issue's number in its project (iid), as in its web URL."}

// issueWriteTags are the tags a change to an issue drops: its project's
// reads, and the cross-project searches.
func issueWriteTags(pid int64) []string { return []string{projectTag(pid), tagIssues} }

var getIssueTool = define(tool{
	name:        "get_issue",
	title:       "Get an issue",
	description: "Get one issue of a project by its number (iid), with its description, state, labels and assignee.",
	params:      []param{projectParam, issueIIDParam},
}, calls[mcp.GetIssueParams, *mcp.Issue]{
	cache: func(p *mcp.GetIssueParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.GetIssueParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.GetIssueParams) (*mcp.Issue, error) {
		i, err := up.GetIssue(ctx, sourcehost.ProjectID(p.ProjectID), p.IssueIID)
		if err != nil {
			return nil, err
		}
		out := issue(i)
		return &out, nil
	},
})

// setIssueState is close_issue or reopen_issue: event is the upstream's
// state_event.
func setIssueState(name, title, description, event string) *tool {
	return define(tool{
		name: name, title: title, description: description,
		params: []param{projectParam, issueIIDParam},
		// It changes the issue (destructive in the protocol's sense: not
		// only additive), and doing it twice is doing it once.
		effects: &effects{destructive: true, idempotent: true},
	}, calls[mcp.IssueStateParams, *mcp.Issue]{
		tags: func(p *mcp.IssueStateParams) []string { return issueWriteTags(p.ProjectID) },
		run: func(ctx context.Context, up *sourcehost.Client, p *mcp.IssueStateParams) (*mcp.Issue, error) {
			i, err := up.UpdateIssue(ctx, sourcehost.ProjectID(p.ProjectID), p.IssueIID, &sourcehost.UpdateIssueRequest{StateEvent: event})
			if err != nil {
				return nil, err
			}
			out := issue(i)
			return &out, nil
		},
	})
}

var (
	closeIssueTool  = setIssueState("close_issue", "Close an issue", "Close an open issue of a project (closing a closed one changes nothing).", "close")
	reopenIssueTool = setIssueState("reopen_issue", "Reopen an issue", "Reopen a closed issue of a project (reopening an open one changes nothing).", "reopen")
)

var updateIssueTool = define(tool{
	name:        "update_issue",
	title:       "Update an issue",
	description: "Change an issue's title, description, labels or assignee; what is not given is kept. labels replaces every label ([] removes them all).",
	params: []param{
		projectParam, issueIIDParam,
		{name: "title", kind: kindString, description: "New title."},
		{name: "description", kind: kindString, description: "New body, in Markdown."},
		{name: "labels", kind: kindStrings, description: "Labels to set instead of the present ones."},
		{name: "assignee_id", kind: kindInteger, min: 1, max: 1 << 62, description: "User to assign instead."},
	},
	effects: &effects{destructive: true, idempotent: true},
}, calls[mcp.UpdateIssueParams, *mcp.Issue]{
	tags: func(p *mcp.UpdateIssueParams) []string { return issueWriteTags(p.ProjectID) },
	check: func(p *mcp.UpdateIssueParams) *mcp.Error {
		if p.Title != nil && strings.TrimSpace(*p.Title) == "" {
			return paramError("title", "must not be empty")
		}
		if p.Labels != nil {
			if e := checkLabels(*p.Labels); e != nil {
				return e
			}
		}
		if p.Title == nil && p.Description == nil && p.Labels == nil && p.AssigneeID == 0 {
			return paramError("params", "name at least one of title, description, labels, assignee_id")
		}
		return nil
	},
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.UpdateIssueParams) (*mcp.Issue, error) {
		req := &sourcehost.UpdateIssueRequest{Title: p.Title, Description: p.Description}
		if p.Labels != nil {
			l := sourcehost.Labels(*p.Labels)
			req.Labels = &l
		}
		if p.AssigneeID != 0 {
			req.AssigneeIDs = []int64{p.AssigneeID}
		}
		i, err := up.UpdateIssue(ctx, sourcehost.ProjectID(p.ProjectID), p.IssueIID, req)
		if err != nil {
			return nil, err
		}
		out := issue(i)
		return &out, nil
	},
})
