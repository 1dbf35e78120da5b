package sourcehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/apitwin/apitwin/internal/rest"
)

// PipelineStatus is where a pipeline stands.
type PipelineStatus string

// Pipeline statuses. A pipeline starts created or pending, runs, and ends
// success, failed, canceled or skipped.
const (
	PipelineCreated  PipelineStatus = "created"
	PipelinePending  PipelineStatus = "pending"
	PipelineRunning  PipelineStatus = "running"
	PipelineSuccess  PipelineStatus = "success"
	PipelineFailed   PipelineStatus = "failed"
	PipelineCanceled PipelineStatus = "canceled"
	PipelineSkipped  PipelineStatus = "skipped"
	PipelineManual   PipelineStatus = "manual"
)

// Finished reports whether the status is final.
func (s PipelineStatus) Finished() bool {
	switch s {
	case PipelineSuccess, PipelineFailed, PipelineCanceled, PipelineSkipped:
		return true
	}
	return false
}

// Pipeline is one run of a project's CI definition on a ref.
type Pipeline struct {
	ID        int64          `json:"id"`
	IID       int64          `json:"iid"`
	ProjectID int64          `json:"project_id"`
	Status    PipelineStatus `json:"status"`
	Source    string         `json:"source"` // push, api, trigger, web, …
	Ref       string         `json:"ref"`
	// Tag is true for a pipeline on a tag, Ref its name.
	Tag        bool       `json:"tag"`
	SHA        string     `json:"sha"`
	WebURL     string     `json:"web_url"`
	User       *User      `json:"user,omitempty"` // in single-pipeline answers
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Duration   *int       `json:"duration,omitempty"` // seconds, once finished
}

// ListPipelinesOptions filters and pages a project's pipelines.
type ListPipelinesOptions struct {
	ListOptions
	Status  PipelineStatus `url:"status,omitempty"`
	Ref     string         `url:"ref,omitempty"`
	SHA     string         `url:"sha,omitempty"`
	Source  string         `url:"source,omitempty"`
	OrderBy string         `url:"order_by,omitempty"` // id (default), status, ref, updated_at
	Sort    string         `url:"sort,omitempty"`     // asc or desc (default)
}

// ListPipelines returns one page of a project's pipelines, newest first.
//
// GitLab API: [GET /projects/{id}/pipelines]
//
// [GET /projects/{id}/pipelines]: https://docs.gitlab.com/api/pipelines/#list-project-pipelines
func (c *Client) ListPipelines(ctx context.Context, pid ProjectRef, opts *ListPipelinesOptions) (*Page[Pipeline], error) {
	return listIn[Pipeline](ctx, c, pid, "/pipelines", opts)
}

// AllPipelines iterates a project's pipelines a page at a time.
//
// GitLab API: [GET /projects/{id}/pipelines]
//
// [GET /projects/{id}/pipelines]: https://docs.gitlab.com/api/pipelines/#list-project-pipelines
func (c *Client) AllPipelines(ctx context.Context, pid ProjectRef, opts *ListPipelinesOptions) iter.Seq2[*Pipeline, error] {
	return allIn[Pipeline](ctx, c, pid, "/pipelines", opts)
}

// GetPipeline returns one pipeline.
//
// GitLab API: [GET /projects/{id}/pipelines/{pipeline_id}]
//
// [GET /projects/{id}/pipelines/{pipeline_id}]: https://docs.gitlab.com/api/pipelines/#get-a-single-pipeline
func (c *Client) GetPipeline(ctx context.Context, pid ProjectRef, pipelineID int64) (*Pipeline, error) {
	path, err := projectPath(pid, fmt.Sprintf("/pipelines/%d", pipelineID))
	if err != nil {
		return nil, err
	}
	return do[Pipeline](ctx, c, http.MethodGet, path, nil, nil)
}

// TriggerPipelineRequest runs the project's CI definition on a ref.
type TriggerPipelineRequest struct {
	Ref       string            // a branch or tag; required
	Variables map[string]string // CI variables for this run
}

// MarshalJSON writes the body of POST /projects/:id/pipeline, where
// variables travel as a list of {key, value} in key order.
func (r TriggerPipelineRequest) MarshalJSON() ([]byte, error) {
	type variable struct {
		Key          string `json:"key"`
		Value        string `json:"value"`
		VariableType string `json:"variable_type"`
	}
	body := struct {
		Ref       string     `json:"ref"`
		Variables []variable `json:"variables,omitempty"`
	}{Ref: r.Ref}
	keys := make([]string, 0, len(r.Variables))
	for k := range r.Variables {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		body.Variables = append(body.Variables, variable{Key: k, Value: r.Variables[k], VariableType: "env_var"})
	}
	return json.Marshal(body)
}

// TriggerPipeline starts a pipeline on a ref. The ref must exist and hold
// the project's CI definition file, or the server refuses with 400.
//
// GitLab API: [POST /projects/{id}/pipeline]
//
// [POST /projects/{id}/pipeline]: https://docs.gitlab.com/api/pipelines/#create-a-new-pipeline
func (c *Client) TriggerPipeline(ctx context.Context, pid ProjectRef, req *TriggerPipelineRequest) (*Pipeline, error) {
	if req == nil || req.Ref == "" {
		return nil, errors.New("sourcehost: TriggerPipeline needs a ref")
	}
	path, err := projectPath(pid, "/pipeline")
	if err != nil {
		return nil, err
	}
	return do[Pipeline](ctx, c, http.MethodPost, path, nil, req)
}

// CancelPipeline cancels a pipeline that has not finished.
//
// GitLab API: [POST /projects/{id}/pipelines/{pipeline_id}/cancel]
//
// [POST /projects/{id}/pipelines/{pipeline_id}/cancel]: https://docs.gitlab.com/api/pipelines/#cancel-a-pipelines-jobs
func (c *Client) CancelPipeline(ctx context.Context, pid ProjectRef, pipelineID int64) (*Pipeline, error) {
	path, err := projectPath(pid, fmt.Sprintf("/pipelines/%d/cancel", pipelineID))
	if err != nil {
		return nil, err
	}
	return do[Pipeline](ctx, c, http.MethodPost, path, nil, nil)
}

// RetryPipeline retries a pipeline's failed and canceled jobs: each runs
// again as a new job, and the pipeline with them. A pipeline with none is
// answered as it is.
//
// GitLab API: [POST /projects/{id}/pipelines/{pipeline_id}/retry]
//
// [POST /projects/{id}/pipelines/{pipeline_id}/retry]: https://docs.gitlab.com/api/pipelines/#retry-jobs-in-a-pipeline
func (c *Client) RetryPipeline(ctx context.Context, pid ProjectRef, pipelineID int64) (*Pipeline, error) {
	path, err := projectPath(pid, fmt.Sprintf("/pipelines/%d/retry", pipelineID))
	if err != nil {
		return nil, err
	}
	return do[Pipeline](ctx, c, http.MethodPost, path, nil, nil)
}

// DeletePipeline deletes a pipeline with its jobs. The server allows it
// to the project's owners only (403 otherwise).
//
// GitLab API: [DELETE /projects/{id}/pipelines/{pipeline_id}]
//
// [DELETE /projects/{id}/pipelines/{pipeline_id}]: https://docs.gitlab.com/api/pipelines/#delete-a-pipeline
func (c *Client) DeletePipeline(ctx context.Context, pid ProjectRef, pipelineID int64) error {
	path, err := projectPath(pid, fmt.Sprintf("/pipelines/%d", pipelineID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// PipelineVariable is a variable a pipeline was started with. Its value
// is left out of its printed forms (String, GoString, LogValue), since CI
// variables often carry credentials.
type PipelineVariable struct {
	Key          string `json:"key"`
	Value        string `json:"value"`
	VariableType string `json:"variable_type"` // env_var or file
	Raw          bool   `json:"raw"`
}

// String names the variable without its value.
func (v PipelineVariable) String() string {
	return fmt.Sprintf("sourcehost.PipelineVariable{Key:%q, Value:%s, VariableType:%q}", v.Key, redactedValue(v.Value), v.VariableType)
}

// GoString is String.
func (v PipelineVariable) GoString() string { return v.String() }

// LogValue is what slog shows: the key and the type, not the value.
func (v PipelineVariable) LogValue() slog.Value {
	return slog.GroupValue(slog.String("key", v.Key), slog.String("variable_type", v.VariableType))
}

// redactedValue is how a variable's value prints: the marker, or "" when
// it is empty (a test can still see that none was set).
func redactedValue(v string) string {
	if v == "" {
		return `""`
	}
	return rest.Redacted
}

// ListPipelineVariables returns the variables a pipeline was started
// with. The server shows them to the user who started the pipeline and to
// maintainers (403 otherwise).
//
// GitLab API: [GET /projects/{id}/pipelines/{pipeline_id}/variables]
//
// [GET /projects/{id}/pipelines/{pipeline_id}/variables]: https://docs.gitlab.com/api/pipelines/#get-variables-of-a-pipeline
func (c *Client) ListPipelineVariables(ctx context.Context, pid ProjectRef, pipelineID int64) ([]*PipelineVariable, error) {
	path, err := projectPath(pid, fmt.Sprintf("/pipelines/%d/variables", pipelineID))
	if err != nil {
		return nil, err
	}
	var out []*PipelineVariable
	if _, err := c.call(ctx, http.MethodGet, path, nil, nil, &out); err != nil {
		return nil, err
	}
	return out, nil
}
