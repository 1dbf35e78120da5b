package gateway

import (
	"context"
	"regexp"
	"strconv"

	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/sourcehost"
)

// variableName is what CI variable names may look like upstream.
var variableName = regexp.MustCompile(`^[A-Za-z0-9_]{1,255}$`)

func pipeline(p *sourcehost.Pipeline) mcp.Pipeline {
	return mcp.Pipeline{
		ID: p.ID, IID: p.IID, ProjectID: p.ProjectID, Status: string(p.Status), Source: p.Source,
		Ref: p.Ref, SHA: p.SHA, WebURL: p.WebURL, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

var listPipelinesTool = define(tool{
	name:        "list_pipelines",
	title:       "List pipelines",
	description: "List a project's CI pipelines, newest first, filtered by status and ref.",
	params: []param{
		projectParam,
		{name: "status", kind: kindString, enum: []string{"pending", "running", "success", "failed", "canceled", "skipped"}, description: "Only pipelines in this status."},
		{name: "ref", kind: kindString, description: "Only pipelines of this branch or tag."},
		pageParam, perPageParam,
	},
}, calls[mcp.ListPipelinesParams, *mcp.Paged[mcp.Pipeline]]{
	cache: func(p *mcp.ListPipelinesParams) *mcp.CacheOptions { return &p.CacheOptions },
	tags:  func(p *mcp.ListPipelinesParams) []string { return projectTags(p.ProjectID) },
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.ListPipelinesParams) (*mcp.Paged[mcp.Pipeline], error) {
		page, err := up.ListPipelines(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListPipelinesOptions{
			ListOptions: listOptions(p.Page, p.PerPage), Status: sourcehost.PipelineStatus(p.Status), Ref: p.Ref,
		})
		if err != nil {
			return nil, err
		}
		return paged(page, pipeline), nil
	},
})

var triggerPipelineTool = define(tool{
	name:        "trigger_pipeline",
	title:       "Run a pipeline",
	effects:     &effects{openWorld: true}, // its jobs run the project's code, which may reach anywhere
	description: "Run the project's CI definition on a branch or tag, with optional variables.",
	params: []param{
		projectParam,
		{name: "ref", kind: kindString, required: true, description: "Branch or tag to run on."},
		{name: "variables", kind: kindStringMap, description: "CI variables for this run, name to value."},
	},
}, calls[mcp.TriggerPipelineParams, *mcp.Pipeline]{
	tags: func(p *mcp.TriggerPipelineParams) []string { return projectTags(p.ProjectID) },
	check: func(p *mcp.TriggerPipelineParams) *mcp.Error {
		for k := range p.Variables {
			if !variableName.MatchString(k) {
				return paramError("variables", "variable name "+strconv.Quote(k)+" may hold only letters, digits and _ (at most 255)")
			}
		}
		return nil
	},
	run: func(ctx context.Context, up *sourcehost.Client, p *mcp.TriggerPipelineParams) (*mcp.Pipeline, error) {
		pl, err := up.TriggerPipeline(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.TriggerPipelineRequest{Ref: p.Ref, Variables: p.Variables})
		if err != nil {
			return nil, err
		}
		out := pipeline(pl)
		return &out, nil
	},
})
