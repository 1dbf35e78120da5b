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

// ListPipelineJobsParams are the params of list_pipeline_jobs.
type ListPipelineJobsParams struct {
	ProjectID  int64  `json:"project_id"`
	PipelineID int64  `json:"pipeline_id"`
	Status     string `json:"status,omitempty"` // only jobs in this status
	Page       int    `json:"page,omitempty"`
	PerPage    int    `json:"per_page,omitempty"`
	CacheOptions
}

// Job is a CI job of a pipeline, as list_pipeline_jobs shows it.
type Job struct {
	ID            int64      `json:"id"`
	PipelineID    int64      `json:"pipeline_id"`
	Name          string     `json:"name"`
	Stage         string     `json:"stage"`
	Status        string     `json:"status"`
	Ref           string     `json:"ref"`
	AllowFailure  bool       `json:"allow_failure"`
	FailureReason string     `json:"failure_reason,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	StartedAt     *time.Time `json:"started_at"`
	FinishedAt    *time.Time `json:"finished_at"`
	Duration      *float64   `json:"duration"` // seconds, once finished
	WebURL        string     `json:"web_url"`
}

// GetJobLogParams are the params of get_job_log.
type GetJobLogParams struct {
	ProjectID int64 `json:"project_id"`
	JobID     int64 `json:"job_id"`
	CacheOptions
}

// MaxJobLog is the most of a job's log get_job_log returns: its last 64
// KiB, where a failure is told.
const MaxJobLog = 64 << 10

// JobLog is the result of get_job_log: the log as far as the job has run,
// or, past MaxJobLog bytes, its end (from the first whole line within the
// last MaxJobLog bytes), with Truncated set. Size is the whole log's
// length in bytes.
type JobLog struct {
	JobID     int64  `json:"job_id"`
	Content   string `json:"content"`
	Size      int64  `json:"size"`
	Truncated bool   `json:"truncated"`
}

// ListPipelineJobs calls list_pipeline_jobs.
func (c *Client) ListPipelineJobs(ctx context.Context, p *ListPipelineJobsParams) (*Paged[Job], error) {
	return call[Paged[Job]](ctx, c, "list_pipeline_jobs", p)
}

// GetJobLog calls get_job_log.
func (c *Client) GetJobLog(ctx context.Context, p *GetJobLogParams) (*JobLog, error) {
	return call[JobLog](ctx, c, "get_job_log", p)
}
