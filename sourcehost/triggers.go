package sourcehost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"time"

	"github.com/apitwin/apitwin/internal/rest"
)

// PipelineTrigger is a project's pipeline trigger token: whoever holds it
// runs pipelines as its owner (RunPipelineTrigger). The server answers the
// whole token to its owner only, and its first 4 characters to others.
// The token is left out of its printed forms (String, GoString,
// LogValue).
type PipelineTrigger struct {
	ID          int64      `json:"id"`
	Token       string     `json:"token"`
	Description string     `json:"description"`
	Owner       *User      `json:"owner"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	LastUsed    *time.Time `json:"last_used"`
}

// String names the trigger without its token.
func (t PipelineTrigger) String() string {
	return fmt.Sprintf("sourcehost.PipelineTrigger{ID:%d, Token:%s, Description:%q}", t.ID, redactedValue(t.Token), t.Description)
}

// GoString is String.
func (t PipelineTrigger) GoString() string { return t.String() }

// LogValue is what slog shows: the trigger without its token.
func (t PipelineTrigger) LogValue() slog.Value {
	return slog.GroupValue(slog.Int64("id", t.ID), slog.String("description", t.Description))
}

// ListPipelineTriggersOptions pages a project's triggers.
type ListPipelineTriggersOptions struct {
	ListOptions
}

// ListPipelineTriggers returns one page of a project's pipeline triggers
// (maintainers).
//
// GitLab API: [GET /projects/{id}/triggers]
//
// [GET /projects/{id}/triggers]: https://docs.gitlab.com/api/pipeline_triggers/#list-project-trigger-tokens
func (c *Client) ListPipelineTriggers(ctx context.Context, pid ProjectRef, opts *ListPipelineTriggersOptions) (*Page[PipelineTrigger], error) {
	return listIn[PipelineTrigger](ctx, c, pid, "/triggers", opts)
}

// AllPipelineTriggers iterates a project's pipeline triggers a page at a
// time.
//
// GitLab API: [GET /projects/{id}/triggers]
//
// [GET /projects/{id}/triggers]: https://docs.gitlab.com/api/pipeline_triggers/#list-project-trigger-tokens
func (c *Client) AllPipelineTriggers(ctx context.Context, pid ProjectRef, opts *ListPipelineTriggersOptions) iter.Seq2[*PipelineTrigger, error] {
	return allIn[PipelineTrigger](ctx, c, pid, "/triggers", opts)
}

// GetPipelineTrigger returns one of a project's pipeline triggers.
//
// GitLab API: [GET /projects/{id}/triggers/{trigger_id}]
//
// [GET /projects/{id}/triggers/{trigger_id}]: https://docs.gitlab.com/api/pipeline_triggers/#get-trigger-token-details
func (c *Client) GetPipelineTrigger(ctx context.Context, pid ProjectRef, triggerID int64) (*PipelineTrigger, error) {
	path, err := projectPath(pid, fmt.Sprintf("/triggers/%d", triggerID))
	if err != nil {
		return nil, err
	}
	return do[PipelineTrigger](ctx, c, http.MethodGet, path, nil, nil)
}

// CreatePipelineTrigger makes a pipeline trigger owned by the caller
// (maintainers); the answer holds its whole token.
//
// GitLab API: [POST /projects/{id}/triggers]
//
// [POST /projects/{id}/triggers]: https://docs.gitlab.com/api/pipeline_triggers/#create-a-trigger-token
func (c *Client) CreatePipelineTrigger(ctx context.Context, pid ProjectRef, description string) (*PipelineTrigger, error) {
	if description == "" {
		return nil, errors.New("sourcehost: CreatePipelineTrigger needs a description")
	}
	path, err := projectPath(pid, "/triggers")
	if err != nil {
		return nil, err
	}
	return do[PipelineTrigger](ctx, c, http.MethodPost, path, nil, map[string]string{"description": description})
}

// UpdatePipelineTrigger changes a trigger's description (its owner only).
//
// GitLab API: [PUT /projects/{id}/triggers/{trigger_id}]
//
// [PUT /projects/{id}/triggers/{trigger_id}]: https://docs.gitlab.com/api/pipeline_triggers/#update-a-pipeline-trigger-token
func (c *Client) UpdatePipelineTrigger(ctx context.Context, pid ProjectRef, triggerID int64, description string) (*PipelineTrigger, error) {
	path, err := projectPath(pid, fmt.Sprintf("/triggers/%d", triggerID))
	if err != nil {
		return nil, err
	}
	return do[PipelineTrigger](ctx, c, http.MethodPut, path, nil, map[string]string{"description": description})
}

// DeletePipelineTrigger deletes a pipeline trigger (maintainers); its token
// runs nothing more.
//
// GitLab API: [DELETE /projects/{id}/triggers/{trigger_id}]
//
// [DELETE /projects/{id}/triggers/{trigger_id}]: https://docs.gitlab.com/api/pipeline_triggers/#remove-a-pipeline-trigger-token
func (c *Client) DeletePipelineTrigger(ctx context.Context, pid ProjectRef, triggerID int64) error {
	path, err := projectPath(pid, fmt.Sprintf("/triggers/%d", triggerID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// RunPipelineTriggerRequest runs a pipeline with a trigger token. Its
// token and variables are left out of its printed forms.
type RunPipelineTriggerRequest struct {
	Token     string            // the trigger's token, or a running job's CI_JOB_TOKEN; required
	Ref       string            // a branch or tag; required
	Variables map[string]string // CI variables for this run
}

// MarshalJSON writes the body of POST /projects/:id/trigger/pipeline,
// where variables travel as an object of key to value.
func (r RunPipelineTriggerRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Token     string            `json:"token"`
		Ref       string            `json:"ref"`
		Variables map[string]string `json:"variables,omitempty"`
	}{r.Token, r.Ref, r.Variables})
}

// String names the request without its token and variables' values.
func (r RunPipelineTriggerRequest) String() string {
	return fmt.Sprintf("sourcehost.RunPipelineTriggerRequest{Token:%s, Ref:%q, Variables:%d}", redactedValue(r.Token), r.Ref, len(r.Variables))
}

// GoString is String.
func (r RunPipelineTriggerRequest) GoString() string { return r.String() }

// RunPipelineTrigger starts a pipeline on a ref with a trigger token, as
// the trigger's owner; the pipeline's Source is "trigger". The token
// authorizes it: a client without credentials of its own may call it. A
// running job's CI_JOB_TOKEN may be the token too: the pipeline is then
// the job's user's, downstream of the job's, with Source "pipeline" (401
// when the job is not running). An unknown token is 404; the token and
// the variables' values are kept out of the call's errors and log lines.
//
// GitLab API: [POST /projects/{id}/trigger/pipeline]
//
// [POST /projects/{id}/trigger/pipeline]: https://docs.gitlab.com/api/pipeline_triggers/#trigger-a-pipeline-with-a-token
func (c *Client) RunPipelineTrigger(ctx context.Context, pid ProjectRef, req *RunPipelineTriggerRequest) (*Pipeline, error) {
	if req == nil || req.Token == "" || req.Ref == "" {
		return nil, errors.New("sourcehost: RunPipelineTrigger needs a token and a ref")
	}
	path, err := projectPath(pid, "/trigger/pipeline")
	if err != nil {
		return nil, err
	}
	secrets := []string{req.Token}
	for _, v := range req.Variables {
		secrets = append(secrets, v)
	}
	var pl Pipeline
	if _, err := c.send(ctx, &rest.Request{Method: http.MethodPost, Path: path, JSON: req, Secrets: secrets}, &pl); err != nil {
		return nil, err
	}
	return &pl, nil
}
