package mcp

import (
	"context"
	"time"
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

// TriggerPipelineParams are the params of trigger_pipeline.
type TriggerPipelineParams struct {
	ProjectID int64             `json:"project_id"`
	Ref       string            `json:"ref"`
	Variables map[string]string `json:"variables,omitempty"` // names of letters, digits and _, at most 255
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

// ListPipelines calls list_pipelines.
func (c *Client) ListPipelines(ctx context.Context, p *ListPipelinesParams) (*Paged[Pipeline], error) {
	return call[Paged[Pipeline]](ctx, c, "list_pipelines", p)
}

// TriggerPipeline calls trigger_pipeline.
func (c *Client) TriggerPipeline(ctx context.Context, p *TriggerPipelineParams) (*Pipeline, error) {
	return call[Pipeline](ctx, c, "trigger_pipeline", p)
}
