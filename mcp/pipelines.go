package mcp

import (
	"context"
	"regexp"
	"strconv"
	"time"

	"github.com/apitwin/apitwin/sourcehost"
)

// ListPipelinesParams are the params of list_pipelines.
type ListPipelinesParams struct {
	ProjectID int64  `json:"project_id"`
	Status    string `json:"status,omitempty"` // pending, running, success, failed, canceled or skipped
	Ref       string `json:"ref,omitempty"`
	Page      int    `json:"page,omitempty"`
	PerPage   int    `json:"per_page,omitempty"`
	CacheOptions
}

func (p *ListPipelinesParams) tags() []string { return []string{projectTag(p.ProjectID)} }

// TriggerPipelineParams are the params of trigger_pipeline.
type TriggerPipelineParams struct {
	ProjectID int64             `json:"project_id"`
	Ref       string            `json:"ref"`
	Variables map[string]string `json:"variables,omitempty"`
	writeCall
}

func (p *TriggerPipelineParams) tags() []string { return []string{projectTag(p.ProjectID)} }

// variableName is what CI variable names may look like upstream.
var variableName = regexp.MustCompile(`^[A-Za-z0-9_]{1,255}$`)

func (p *TriggerPipelineParams) validate() *Error {
	for k := range p.Variables {
		if !variableName.MatchString(k) {
			return paramError("variables", "variable name "+strconv.Quote(k)+" may hold only letters, digits and _ (at most 255)")
		}
	}
	return nil
}

// Pipeline is a pipeline as list_pipelines and trigger_pipeline show it.
type Pipeline struct {
	ID        int64     `json:"id"`
	IID       int64     `json:"iid"`
	ProjectID int64     `json:"project_id"`
	Status    string    `json:"status"`
	Source    string    `json:"source"`
	Ref       string    `json:"ref"`
	SHA       string    `json:"sha"`
	WebURL    string    `json:"web_url"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func pipeline(p *sourcehost.Pipeline) Pipeline {
	return Pipeline{
		ID: p.ID, IID: p.IID, ProjectID: p.ProjectID, Status: string(p.Status), Source: p.Source,
		Ref: p.Ref, SHA: p.SHA, WebURL: p.WebURL, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

var listPipelinesTool = define(tool{
	name:        "list_pipelines",
	description: "List a project's CI pipelines, newest first, filtered by status and ref.",
	read:        true,
	params: []param{
		projectParam,
		{name: "status", kind: kindString, enum: []string{"pending", "running", "success", "failed", "canceled", "skipped"}, description: "Only pipelines in this status."},
		{name: "ref", kind: kindString, description: "Only pipelines of this branch or tag."},
		pageParam, perPageParam,
	},
}, func(ctx context.Context, up *sourcehost.Client, p *ListPipelinesParams) (*Paged[Pipeline], error) {
	page, err := up.ListPipelines(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.ListPipelinesOptions{
		ListOptions: listOptions(p.Page, p.PerPage), Status: sourcehost.PipelineStatus(p.Status), Ref: p.Ref,
	})
	if err != nil {
		return nil, err
	}
	return paged(page, pipeline), nil
})

var triggerPipelineTool = define(tool{
	name:        "trigger_pipeline",
	description: "Run the project's CI definition on a branch or tag, with optional variables.",
	params: []param{
		projectParam,
		{name: "ref", kind: kindString, required: true, description: "Branch or tag to run on."},
		{name: "variables", kind: kindStringMap, description: "CI variables for this run, name to value."},
	},
}, func(ctx context.Context, up *sourcehost.Client, p *TriggerPipelineParams) (*Pipeline, error) {
	pl, err := up.TriggerPipeline(ctx, sourcehost.ProjectID(p.ProjectID), &sourcehost.TriggerPipelineRequest{Ref: p.Ref, Variables: p.Variables})
	if err != nil {
		return nil, err
	}
	out := pipeline(pl)
	return &out, nil
})

// ListPipelines calls list_pipelines.
func (c *Client) ListPipelines(ctx context.Context, p *ListPipelinesParams) (*Paged[Pipeline], error) {
	return call[Paged[Pipeline]](ctx, c, "list_pipelines", p)
}

// TriggerPipeline calls trigger_pipeline.
func (c *Client) TriggerPipeline(ctx context.Context, p *TriggerPipelineParams) (*Pipeline, error) {
	return call[Pipeline](ctx, c, "trigger_pipeline", p)
}
