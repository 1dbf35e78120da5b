package gateway

import (
	"context"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

func mergeRequest(m *sourcehost.MergeRequest) mcp.MergeRequest {
	return mcp.MergeRequest{
		ID: m.ID, IID: m.IID, ProjectID: m.ProjectID, Title: m.Title, Description: m.Description,
		State: m.State, SourceBranch: m.SourceBranch, TargetBranch: m.TargetBranch,
		Author: user(m.Author), Assignee: user(m.Assignee), MergeStatus: m.DetailedMergeStatus,
		RemoveSourceBranch: m.ForceRemoveSourceBranch, WebURL: m.WebURL, CreatedAt: m.CreatedAt, MergedAt: m.MergedAt,
	}
}

var listMergeRequestsTool = define(tool{
	name:        "list_merge_requests",
	title:       "List merge requests",
	description: "List a project's merge requests, filtered by state and branches.",
	params: []param{
		projectParam,
		{name: "state", kind: kindString, enum: []string{"opened", "closed", "merged", "all"}, description: "opened, closed, merged or all (default all)."},
		{name: "target_branch", kind: kindString, description: "Only merge requests into this branch."},
		{name: "source_branch", kind: kindString, description: "Only merge requests from this branch."},
		pageParam, perPageParam,
	},
}, calls[mcp.ListMergeRequestsParams, *mcp.Paged[mcp.MergeRequest]]{
	cache: func(p *mcp.ListMergeRequestsParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListMergeRequestsParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListMergeRequestsParams) (*mcp.Paged[mcp.MergeRequest], error) {
		page, err := up.ListMergeRequests(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListMergeRequestsOptions{
			ListOptions: listOptions(p.Page, p.PerPage),
			State:       p.State, TargetBranch: p.TargetBranch, SourceBranch: p.SourceBranch,
		})
		if err != nil {
			return nil, err
		}
		return paged(page, mergeRequest), nil
	},
})

var createMergeRequestTool = define(tool{
	name:        "create_merge_request",
	title:       "Open a merge request",
	effects:     &effects{},
	description: "Open a merge request from one branch of a project into another.",
	params: []param{
		projectParam,
		{name: "title", kind: kindString, required: true, description: "Title of the merge request."},
		{name: "description", kind: kindString, description: "Body, in Markdown."},
		{name: "source_branch", kind: kindString, required: true, description: "Branch with the changes."},
		{name: "target_branch", kind: kindString, required: true, description: "Branch to merge into."},
		{name: "assignee_id", kind: kindInteger, min: 1, max: 1 << 62, description: "User to assign."},
		{name: "remove_source_branch", kind: kindBoolean, description: "Delete the source branch once merged."},
	},
}, calls[mcp.CreateMergeRequestParams, *mcp.MergeRequest]{
	tags: func(p *mcp.CreateMergeRequestParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.CreateMergeRequestParams) (*mcp.MergeRequest, error) {
		m, err := up.CreateMergeRequest(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.CreateMergeRequestRequest{
			Title: p.Title, Description: p.Description, SourceBranch: p.SourceBranch, TargetBranch: p.TargetBranch,
			AssigneeID: optInt64(p.AssigneeID), RemoveSourceBranch: p.RemoveSourceBranch,
		})
		if err != nil {
			return nil, err
		}
		out := mergeRequest(m)
		return &out, nil
	},
})
