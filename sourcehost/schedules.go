package sourcehost

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"time"
)

// PipelineSchedule runs a project's pipeline on a ref by a cron line.
type PipelineSchedule struct {
	ID           int64      `json:"id"`
	Description  string     `json:"description"`
	Ref          string     `json:"ref"`
	Cron         string     `json:"cron"`          // "0 1 * * *"
	CronTimezone string     `json:"cron_timezone"` // an IANA name; default UTC
	NextRunAt    *time.Time `json:"next_run_at"`
	Active       bool       `json:"active"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
	Owner        *User      `json:"owner"`
	LastPipeline *Pipeline  `json:"last_pipeline"` // GetPipelineSchedule only
}

// ListPipelineSchedulesOptions filters and pages a project's schedules.
type ListPipelineSchedulesOptions struct {
	ListOptions
	Scope string `url:"scope,omitempty"` // active or inactive
}

// ListPipelineSchedules returns one page of a project's pipeline
// schedules (developers and above).
//
// GitLab API: [GET /projects/{id}/pipeline_schedules]
//
// [GET /projects/{id}/pipeline_schedules]: https://docs.gitlab.com/api/pipeline_schedules/#get-all-pipeline-schedules
func (c *Client) ListPipelineSchedules(ctx context.Context, pid ProjectRef, opts *ListPipelineSchedulesOptions) (*Page[PipelineSchedule], error) {
	return listIn[PipelineSchedule](ctx, c, pid, "/pipeline_schedules", opts)
}

// AllPipelineSchedules iterates a project's pipeline schedules a page at
// a time.
//
// GitLab API: [GET /projects/{id}/pipeline_schedules]
//
// [GET /projects/{id}/pipeline_schedules]: https://docs.gitlab.com/api/pipeline_schedules/#get-all-pipeline-schedules
func (c *Client) AllPipelineSchedules(ctx context.Context, pid ProjectRef, opts *ListPipelineSchedulesOptions) iter.Seq2[*PipelineSchedule, error] {
	return allIn[PipelineSchedule](ctx, c, pid, "/pipeline_schedules", opts)
}

// GetPipelineSchedule returns one schedule, with the last pipeline it ran.
//
// GitLab API: [GET /projects/{id}/pipeline_schedules/{pipeline_schedule_id}]
//
// [GET /projects/{id}/pipeline_schedules/{pipeline_schedule_id}]: https://docs.gitlab.com/api/pipeline_schedules/#get-a-single-pipeline-schedule
func (c *Client) GetPipelineSchedule(ctx context.Context, pid ProjectRef, scheduleID int64) (*PipelineSchedule, error) {
	path, err := projectPath(pid, fmt.Sprintf("/pipeline_schedules/%d", scheduleID))
	if err != nil {
		return nil, err
	}
	return do[PipelineSchedule](ctx, c, http.MethodGet, path, nil, nil)
}

// PipelineScheduleRequest makes or changes a schedule; in an update,
// empty fields and a nil Active stay as they are.
type PipelineScheduleRequest struct {
	Description  string `json:"description,omitempty"`
	Ref          string `json:"ref,omitempty"`
	Cron         string `json:"cron,omitempty"`
	CronTimezone string `json:"cron_timezone,omitempty"`
	Active       *bool  `json:"active,omitempty"`
}

// CreatePipelineSchedule makes a schedule owned by the caller
// (developers). Description, Ref and Cron are required; a cron line or a
// time zone the server cannot read is 400 {"message":{"cron":["is invalid
// syntax"]}}.
//
// GitLab API: [POST /projects/{id}/pipeline_schedules]
//
// [POST /projects/{id}/pipeline_schedules]: https://docs.gitlab.com/api/pipeline_schedules/#create-a-new-pipeline-schedule
func (c *Client) CreatePipelineSchedule(ctx context.Context, pid ProjectRef, req *PipelineScheduleRequest) (*PipelineSchedule, error) {
	if req == nil || req.Description == "" || req.Ref == "" || req.Cron == "" {
		return nil, errors.New("sourcehost: CreatePipelineSchedule needs a description, a ref and a cron line")
	}
	path, err := projectPath(pid, "/pipeline_schedules")
	if err != nil {
		return nil, err
	}
	return do[PipelineSchedule](ctx, c, http.MethodPost, path, nil, req)
}

// UpdatePipelineSchedule changes a schedule (its owner or a maintainer).
//
// GitLab API: [PUT /projects/{id}/pipeline_schedules/{pipeline_schedule_id}]
//
// [PUT /projects/{id}/pipeline_schedules/{pipeline_schedule_id}]: https://docs.gitlab.com/api/pipeline_schedules/#edit-a-pipeline-schedule
func (c *Client) UpdatePipelineSchedule(ctx context.Context, pid ProjectRef, scheduleID int64, req *PipelineScheduleRequest) (*PipelineSchedule, error) {
	if req == nil {
		req = &PipelineScheduleRequest{}
	}
	path, err := projectPath(pid, fmt.Sprintf("/pipeline_schedules/%d", scheduleID))
	if err != nil {
		return nil, err
	}
	return do[PipelineSchedule](ctx, c, http.MethodPut, path, nil, req)
}

// DeletePipelineSchedule deletes a schedule (its owner or a maintainer).
//
// GitLab API: [DELETE /projects/{id}/pipeline_schedules/{pipeline_schedule_id}]
//
// [DELETE /projects/{id}/pipeline_schedules/{pipeline_schedule_id}]: https://docs.gitlab.com/api/pipeline_schedules/#delete-a-pipeline-schedule
func (c *Client) DeletePipelineSchedule(ctx context.Context, pid ProjectRef, scheduleID int64) error {
	path, err := projectPath(pid, fmt.Sprintf("/pipeline_schedules/%d", scheduleID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodDelete, path, nil, nil, nil)
	return err
}

// PlayPipelineSchedule runs a schedule now: a pipeline with source
// "schedule", as the schedule's owner. The server answers 201 without the
// pipeline; GetPipelineSchedule's LastPipeline then names it.
//
// GitLab API: [POST /projects/{id}/pipeline_schedules/{pipeline_schedule_id}/play]
//
// [POST /projects/{id}/pipeline_schedules/{pipeline_schedule_id}/play]: https://docs.gitlab.com/api/pipeline_schedules/#run-a-scheduled-pipeline-immediately
func (c *Client) PlayPipelineSchedule(ctx context.Context, pid ProjectRef, scheduleID int64) error {
	path, err := projectPath(pid, fmt.Sprintf("/pipeline_schedules/%d/play", scheduleID))
	if err != nil {
		return err
	}
	_, err = c.call(ctx, http.MethodPost, path, nil, nil, nil)
	return err
}
