package orch

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// A schedule starts a workflow on a spec of intervals, calendars and cron
// strings, as Temporal's schedules do; the contract's shapes are in
// orchpb (Schedule, ScheduleSpec, SchedulePolicies, ScheduleState), and
// ScheduleWorkflow builds the action. Every run a schedule starts has the
// workflow id of the action, "-" and the action's nominal time in RFC 3339
// (UTC), and the search attributes ScheduledById and ScheduledStartTime.

// ScheduleWorkflow is the action of a schedule that starts workflowType on
// taskQueue with input (JSON-encoded; nil for none, a *orchpb.Payloads as
// it is), each run's workflow id starting with workflowID.
func ScheduleWorkflow(workflowID, workflowType, taskQueue string, input any) (*orchpb.ScheduleAction, error) {
	in, err := encodeOptional(input)
	if err != nil {
		return nil, err
	}
	sw := &orchpb.NewWorkflowExecutionInfo{WorkflowId: workflowID, WorkflowType: &orchpb.WorkflowType{Name: workflowType}, TaskQueue: taskQueue, Input: in}
	return &orchpb.ScheduleAction{Action: &orchpb.ScheduleAction_StartWorkflow{StartWorkflow: sw}}, nil
}

// CreateScheduleOptions are the optional settings of CreateSchedule.
type CreateScheduleOptions struct {
	// InitialPatch is applied once the schedule exists: a trigger or a
	// backfill at creation.
	InitialPatch *orchpb.SchedulePatch
	// Memo and SearchAttributes are the schedule's own (not its runs'),
	// JSON-encoded.
	Memo             map[string]any
	SearchAttributes map[string]any
	// RequestID makes a retried create idempotent; empty means a random
	// one.
	RequestID string
}

// CreateSchedule creates the schedule scheduleID and returns its conflict
// token. An id in use is ALREADY_EXISTS (ErrAlreadyExists). Endpoint:
// POST /api/v1/namespaces/{namespace}/schedules/{schedule_id}.
func (c *Client) CreateSchedule(ctx context.Context, scheduleID string, schedule *orchpb.Schedule, opts *CreateScheduleOptions) ([]byte, error) {
	var o CreateScheduleOptions
	if opts != nil {
		o = *opts
	}
	if o.RequestID == "" {
		o.RequestID = newUUID()
	}
	req := &orchpb.CreateScheduleRequest{Namespace: c.namespace, ScheduleId: scheduleID, Schedule: schedule,
		InitialPatch: o.InitialPatch, Identity: c.identity, RequestId: o.RequestID}
	m, err := encodeMap(o.Memo)
	if err != nil {
		return nil, fmt.Errorf("orch: memo %w", err)
	}
	if m != nil {
		req.Memo = &orchpb.Memo{Fields: m}
	}
	if m, err = encodeMap(o.SearchAttributes); err != nil {
		return nil, fmt.Errorf("orch: search attribute %w", err)
	}
	if m != nil {
		req.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: m}
	}
	resp, err := c.Raw().CreateSchedule(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.GetConflictToken(), nil
}

// DescribeSchedule returns a schedule, what it did (recent actions,
// running workflows, counts) and its next action times. An unknown id is
// NOT_FOUND (ErrNotFound). Endpoint: GET
// /api/v1/namespaces/{namespace}/schedules/{schedule_id}.
func (c *Client) DescribeSchedule(ctx context.Context, scheduleID string) (*orchpb.DescribeScheduleResponse, error) {
	return c.Raw().DescribeSchedule(ctx, &orchpb.DescribeScheduleRequest{Namespace: c.namespace, ScheduleId: scheduleID})
}

// UpdateScheduleOptions are the optional settings of UpdateSchedule.
type UpdateScheduleOptions struct {
	// ConflictToken, from CreateSchedule or DescribeSchedule, makes the
	// update FAILED_PRECONDITION if the schedule changed since.
	ConflictToken []byte
	// SearchAttributes, when not nil, replace the schedule's.
	SearchAttributes map[string]any
	// RequestID makes a retried update idempotent; empty means a random
	// one.
	RequestID string
}

// UpdateSchedule replaces a schedule's spec, action, policies and state.
// Endpoint: POST /api/v1/namespaces/{namespace}/schedules/{schedule_id}/update.
func (c *Client) UpdateSchedule(ctx context.Context, scheduleID string, schedule *orchpb.Schedule, opts *UpdateScheduleOptions) error {
	var o UpdateScheduleOptions
	if opts != nil {
		o = *opts
	}
	if o.RequestID == "" {
		o.RequestID = newUUID()
	}
	req := &orchpb.UpdateScheduleRequest{Namespace: c.namespace, ScheduleId: scheduleID, Schedule: schedule,
		ConflictToken: o.ConflictToken, Identity: c.identity, RequestId: o.RequestID}
	if o.SearchAttributes != nil {
		m, err := encodeMap(o.SearchAttributes)
		if err != nil {
			return fmt.Errorf("orch: search attribute %w", err)
		}
		req.SearchAttributes = &orchpb.SearchAttributes{IndexedFields: m}
	}
	_, err := c.Raw().UpdateSchedule(ctx, req)
	return err
}

// PatchSchedule pauses, unpauses, triggers or backfills a schedule, once
// however often the client retries it. Endpoint: POST
// /api/v1/namespaces/{namespace}/schedules/{schedule_id}/patch.
func (c *Client) PatchSchedule(ctx context.Context, scheduleID string, patch *orchpb.SchedulePatch) error {
	_, err := c.Raw().PatchSchedule(ctx, &orchpb.PatchScheduleRequest{Namespace: c.namespace, ScheduleId: scheduleID,
		Patch: patch, Identity: c.identity, RequestId: newUUID()})
	return err
}

// PauseSchedule pauses a schedule with note as its notes ("" for "Paused
// via orch"): it takes no scheduled action until unpaused, and does not
// catch up the ones it passed over.
func (c *Client) PauseSchedule(ctx context.Context, scheduleID, note string) error {
	if note == "" {
		note = "Paused via orch"
	}
	return c.PatchSchedule(ctx, scheduleID, &orchpb.SchedulePatch{Pause: note})
}

// UnpauseSchedule unpauses a schedule with note as its notes ("" for
// "Unpaused via orch").
func (c *Client) UnpauseSchedule(ctx context.Context, scheduleID, note string) error {
	if note == "" {
		note = "Unpaused via orch"
	}
	return c.PatchSchedule(ctx, scheduleID, &orchpb.SchedulePatch{Unpause: note})
}

// TriggerSchedule takes the schedule's action now, paused or not, under
// policy (unspecified: the schedule's own).
func (c *Client) TriggerSchedule(ctx context.Context, scheduleID string, policy orchpb.ScheduleOverlapPolicy) error {
	return c.PatchSchedule(ctx, scheduleID, &orchpb.SchedulePatch{TriggerImmediately: &orchpb.TriggerImmediatelyRequest{OverlapPolicy: policy}})
}

// BackfillSchedule takes now every action the schedule's spec gives from
// start to end (inclusive), under policy (unspecified: the schedule's own).
func (c *Client) BackfillSchedule(ctx context.Context, scheduleID string, start, end time.Time, policy orchpb.ScheduleOverlapPolicy) error {
	return c.PatchSchedule(ctx, scheduleID, &orchpb.SchedulePatch{BackfillRequest: []*orchpb.BackfillRequest{{
		StartTime: timestamppb.New(start), EndTime: timestamppb.New(end), OverlapPolicy: policy}}})
}

// DeleteSchedule deletes a schedule; the workflows it started run on.
// Endpoint: DELETE /api/v1/namespaces/{namespace}/schedules/{schedule_id}.
func (c *Client) DeleteSchedule(ctx context.Context, scheduleID string) error {
	_, err := c.Raw().DeleteSchedule(ctx, &orchpb.DeleteScheduleRequest{Namespace: c.namespace, ScheduleId: scheduleID, Identity: c.identity})
	return err
}

// ListSchedules returns one page of the namespace's schedules, by id.
// Endpoint: GET /api/v1/namespaces/{namespace}/schedules.
func (c *Client) ListSchedules(ctx context.Context, opts *ListOptions) (*Page[*orchpb.ScheduleListEntry], error) {
	return pageCall(ctx, func(ctx context.Context) (*Page[*orchpb.ScheduleListEntry], error) {
		o := listOpts(opts)
		resp, err := c.Raw().ListSchedules(ctx, &orchpb.ListSchedulesRequest{Namespace: c.namespace, MaximumPageSize: o.PageSize, NextPageToken: o.PageToken})
		if err != nil {
			return nil, err
		}
		return &Page[*orchpb.ScheduleListEntry]{Items: resp.GetSchedules(), NextPageToken: resp.GetNextPageToken()}, nil
	})
}

// AllSchedules iterates over every schedule of the namespace, page by page.
func (c *Client) AllSchedules(ctx context.Context, opts *ListOptions) iter.Seq2[*orchpb.ScheduleListEntry, error] {
	return all(ctx, opts, c.ListSchedules)
}
