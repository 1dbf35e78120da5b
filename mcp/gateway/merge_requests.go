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

// mergeRequestIIDParam names a merge request by the number its project
// gives it.
var mergeRequestIIDParam = param{name: "merge_request_iid", kind: kindInteger, required: true, min: 1, max: 1 << 62, description: "The merge request's number in its project (iid), as in its web URL."}

var getMergeRequestTool = define(tool{
	name:        "get_merge_request",
	title:       "Get a merge request",
	description: "Get one merge request of a project by its number (iid), with its branches, state and merge status.",
	params:      []param{projectParam, mergeRequestIIDParam},
}, calls[mcp.MergeRequestParams, *mcp.MergeRequest]{
	cache: func(p *mcp.MergeRequestParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.MergeRequestParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.MergeRequestParams) (*mcp.MergeRequest, error) {
		m, err := up.GetMergeRequest(ctx, sourcehost.ProjectID(p.ProjectID), p.MergeRequestIID)
		if err != nil {
			return nil, err
		}
		out := mergeRequest(m)
		return &out, nil
	},
})

var getMergeRequestChangesTool = define(tool{
	name:        "get_merge_request_changes",
	title:       "Get a merge request's changes",
	description: "Get the files a merge request changes, each with its unified diff (as the server limits them: overflow says files were left out).",
	params:      []param{projectParam, mergeRequestIIDParam},
}, calls[mcp.MergeRequestParams, *mcp.MergeRequestChanges]{
	cache: func(p *mcp.MergeRequestParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.MergeRequestParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.MergeRequestParams) (*mcp.MergeRequestChanges, error) {
		c, err := up.GetMergeRequestChanges(ctx, sourcehost.ProjectID(p.ProjectID), p.MergeRequestIID)
		if err != nil {
			return nil, err
		}
		out := &mcp.MergeRequestChanges{MergeRequest: mergeRequest(&c.MergeRequest), Changes: make([]mcp.FileChange, 0, len(c.Changes)), Overflow: c.Overflow}
		for _, d := range c.Changes {
			out.Changes = append(out.Changes, mcp.FileChange{
				OldPath: d.OldPath, NewPath: d.NewPath, Diff: d.Diff, NewFile: d.NewFile,
				RenamedFile: d.RenamedFile, DeletedFile: d.DeletedFile, TooLarge: d.TooLarge,
			})
		}
		return out, nil
	},
})

var mergeMergeRequestTool = define(tool{
	name:        "merge_merge_request",
	title:       "Merge a merge request",
	description: "Merge an open merge request into its target branch. Give sha (the source branch's head you reviewed) so that nothing pushed since is merged unseen.",
	params: []param{
		projectParam, mergeRequestIIDParam,
		{name: "sha", kind: kindString, description: "The source branch's head commit the merge must be of; another head is refused (409)."},
		{name: "merge_commit_message", kind: kindString, description: "Message of the merge commit."},
		{name: "should_remove_source_branch", kind: kindBoolean, description: "Delete the source branch once merged."},
	},
	// It changes the target branch for good; merging a merged one again
	// is refused (405) and changes nothing.
	effects: &effects{destructive: true, idempotent: true},
}, calls[mcp.MergeMergeRequestParams, *mcp.MergeRequest]{
	tags: func(p *mcp.MergeMergeRequestParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.MergeMergeRequestParams) (*mcp.MergeRequest, error) {
		m, err := up.AcceptMergeRequest(ctx, sourcehost.ProjectID(p.ProjectID), p.MergeRequestIID, &sourcehost.AcceptMergeRequestRequest{
			SHA: p.SHA, MergeCommitMessage: p.MergeCommitMessage, ShouldRemoveSourceBranch: p.ShouldRemoveSourceBranch,
		})
		if err != nil {
			return nil, err
		}
		out := mergeRequest(m)
		return &out, nil
	},
})
