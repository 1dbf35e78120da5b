package sourcehost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"time"
)

// Job is one job of a pipeline.
type Job struct {
	ID             int64          `json:"id"`
	Name           string         `json:"name"`
	Stage          string         `json:"stage"`
	Status         PipelineStatus `json:"status"` // created, pending, running, success, failed, canceled, …
	Ref            string         `json:"ref"`
	Tag            bool           `json:"tag"`
	AllowFailure   bool           `json:"allow_failure"`
	CreatedAt      time.Time      `json:"created_at"`
	StartedAt      *time.Time     `json:"started_at"`
	FinishedAt     *time.Time     `json:"finished_at"`
	Duration       *float64       `json:"duration"`        // seconds, once finished
	QueuedDuration *float64       `json:"queued_duration"` // seconds, once started
	User           *User          `json:"user"`
	Commit         *Commit        `json:"commit"`
	Pipeline       struct {
		ID        int64          `json:"id"`
		IID       int64          `json:"iid"`
		ProjectID int64          `json:"project_id"`
		Ref       string         `json:"ref"`
		SHA       string         `json:"sha"`
		Status    PipelineStatus `json:"status"`
	} `json:"pipeline"`
	FailureReason string `json:"failure_reason"`
	WebURL        string `json:"web_url"`
}

// ListJobsOptions filters and pages jobs.
type ListJobsOptions struct {
	ListOptions
	// Scope keeps the jobs in these statuses.
	Scope []PipelineStatus `url:"scope[],omitempty"`
	// IncludeRetried adds the jobs a retry replaced (pipeline jobs only).
	IncludeRetried *bool `url:"include_retried,omitempty"`
}

// ListPipelineJobs returns one page of a pipeline's jobs, newest first.
//
// GitLab API: [GET /projects/{id}/pipelines/{pipeline_id}/jobs]
//
// [GET /projects/{id}/pipelines/{pipeline_id}/jobs]: https://docs.gitlab.com/api/jobs/#list-pipeline-jobs
func (c *Client) ListPipelineJobs(ctx context.Context, pid ProjectRef, pipelineID int64, opts *ListJobsOptions) (*Page[Job], error) {
	return listIn[Job](ctx, c, pid, fmt.Sprintf("/pipelines/%d/jobs", pipelineID), opts)
}

// AllPipelineJobs iterates a pipeline's jobs a page at a time.
//
// GitLab API: [GET /projects/{id}/pipelines/{pipeline_id}/jobs]
//
// [GET /projects/{id}/pipelines/{pipeline_id}/jobs]: https://docs.gitlab.com/api/jobs/#list-pipeline-jobs
func (c *Client) AllPipelineJobs(ctx context.Context, pid ProjectRef, pipelineID int64, opts *ListJobsOptions) iter.Seq2[*Job, error] {
	return allIn[Job](ctx, c, pid, fmt.Sprintf("/pipelines/%d/jobs", pipelineID), opts)
}

// ListJobs returns one page of a project's jobs, newest first.
//
// GitLab API: [GET /projects/{id}/jobs]
//
// [GET /projects/{id}/jobs]: https://docs.gitlab.com/api/jobs/#list-project-jobs
func (c *Client) ListJobs(ctx context.Context, pid ProjectRef, opts *ListJobsOptions) (*Page[Job], error) {
	return listIn[Job](ctx, c, pid, "/jobs", opts)
}

// AllJobs iterates a project's jobs a page at a time.
//
// GitLab API: [GET /projects/{id}/jobs]
//
// [GET /projects/{id}/jobs]: https://docs.gitlab.com/api/jobs/#list-project-jobs
func (c *Client) AllJobs(ctx context.Context, pid ProjectRef, opts *ListJobsOptions) iter.Seq2[*Job, error] {
	return allIn[Job](ctx, c, pid, "/jobs", opts)
}

// GetJob returns one job.
//
// GitLab API: [GET /projects/{id}/jobs/{job_id}]
//
// [GET /projects/{id}/jobs/{job_id}]: https://docs.gitlab.com/api/jobs/#get-a-single-job
func (c *Client) GetJob(ctx context.Context, pid ProjectRef, jobID int64) (*Job, error) {
	path, err := projectPath(pid, fmt.Sprintf("/jobs/%d", jobID))
	if err != nil {
		return nil, err
	}
	return do[Job](ctx, c, http.MethodGet, path, nil, nil)
}

// JobTrace returns a job's log as far as it has run.
//
// GitLab API: [GET /projects/{id}/jobs/{job_id}/trace]
//
// [GET /projects/{id}/jobs/{job_id}/trace]: https://docs.gitlab.com/api/jobs/#get-a-log-file
func (c *Client) JobTrace(ctx context.Context, pid ProjectRef, jobID int64) ([]byte, error) {
	var buf bytes.Buffer
	if err := c.WriteJobTrace(ctx, pid, jobID, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJobTrace writes a job's log, as far as it has run, to w as it
// arrives: a log of any length costs the caller only what w keeps (the
// last part of it, say). A failure part way through is returned, not
// retried: w may then hold part of the log.
//
// GitLab API: [GET /projects/{id}/jobs/{job_id}/trace]
//
// [GET /projects/{id}/jobs/{job_id}/trace]: https://docs.gitlab.com/api/jobs/#get-a-log-file
func (c *Client) WriteJobTrace(ctx context.Context, pid ProjectRef, jobID int64, w io.Writer) error {
	if w == nil {
		return errors.New("sourcehost: WriteJobTrace needs a writer")
	}
	path, err := projectPath(pid, fmt.Sprintf("/jobs/%d/trace", jobID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodGet, path, nil, nil, w)
	return err
}

// CancelJob cancels a job that has not finished (a finished one is
// answered as it is).
//
// GitLab API: [POST /projects/{id}/jobs/{job_id}/cancel]
//
// [POST /projects/{id}/jobs/{job_id}/cancel]: https://docs.gitlab.com/api/jobs/#cancel-a-job
func (c *Client) CancelJob(ctx context.Context, pid ProjectRef, jobID int64) (*Job, error) {
	path, err := projectPath(pid, fmt.Sprintf("/jobs/%d/cancel", jobID))
	if err != nil {
		return nil, err
	}
	return do[Job](ctx, c, http.MethodPost, path, nil, nil)
}

// RetryJob runs a finished job again and returns the new job; its
// pipeline runs again. A job that has not finished is refused (403).
//
// GitLab API: [POST /projects/{id}/jobs/{job_id}/retry]
//
// [POST /projects/{id}/jobs/{job_id}/retry]: https://docs.gitlab.com/api/jobs/#retry-a-job
func (c *Client) RetryJob(ctx context.Context, pid ProjectRef, jobID int64) (*Job, error) {
	path, err := projectPath(pid, fmt.Sprintf("/jobs/%d/retry", jobID))
	if err != nil {
		return nil, err
	}
	return do[Job](ctx, c, http.MethodPost, path, nil, nil)
}
