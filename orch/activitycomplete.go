package orch

import (
	"context"
	"errors"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// An activity that returned ErrActivityResultPending is answered here, by
// anyone holding its task token or its workflow id and activity id: a
// service waiting on a human, a webhook, another system. These are
// Temporal's client.CompleteActivity, CompleteActivityByID,
// RecordActivityHeartbeat and RecordActivityHeartbeatByID.

// CompleteActivity answers the started activity whose task token is
// taskToken (ActivityInfo.TaskToken, from GetActivityInfo inside the
// activity). err says how it ended:
//   - nil: completed with result (JSON-encoded; nil for none)
//     (RespondActivityTaskCompleted);
//   - one that matches ErrActivityCanceled (errors.Is): canceled, with
//     result as the cancellation's details (RespondActivityTaskCanceled),
//     which the service accepts only after the workflow asked for the
//     activity to be canceled (else INVALID_ARGUMENT);
//   - any other: the attempt failed (RespondActivityTaskFailed), retried per
//     the activity's retry policy unless err is non-retryable
//     (NonRetryable, an *ApplicationError with NonRetryable).
//
// A token of an attempt that ended (answered, timed out, a later attempt
// running) is refused with ACTIVITY_TASK_TIMEOUT (errors.Is ErrNotFound);
// a closed execution with WORKFLOW_EXECUTION_COMPLETED.
func (c *Client) CompleteActivity(ctx context.Context, taskToken []byte, result any, err error) error {
	if len(taskToken) == 0 {
		return errors.New("orch: CompleteActivity needs the activity's task token")
	}
	payloads, encErr := encodeOptional(result)
	if encErr != nil {
		return encErr
	}
	switch {
	case err == nil:
		_, err = c.Raw().RespondActivityTaskCompleted(ctx, &orchpb.RespondActivityTaskCompletedRequest{
			Namespace: c.namespace, TaskToken: taskToken, Result: payloads, Identity: c.identity})
	case errors.Is(err, ErrActivityCanceled):
		_, err = c.Raw().RespondActivityTaskCanceled(ctx, &orchpb.RespondActivityTaskCanceledRequest{
			Namespace: c.namespace, TaskToken: taskToken, Details: payloads, Identity: c.identity})
	default:
		_, err = c.Raw().RespondActivityTaskFailed(ctx, &orchpb.RespondActivityTaskFailedRequest{
			Namespace: c.namespace, TaskToken: taskToken, Failure: failureFrom(err), Identity: c.identity})
	}
	return err
}

// CompleteActivityByID is CompleteActivity for the activity activityID of
// an execution (runID "" for workflowID's latest run), in the client's
// namespace. Unlike a token, an id also answers an activity no worker has
// taken (still queued, or between attempts), as Temporal's does. An
// activity id the execution has no open activity of is NOT_FOUND.
func (c *Client) CompleteActivityByID(ctx context.Context, workflowID, runID, activityID string, result any, err error) error {
	payloads, encErr := encodeOptional(result)
	if encErr != nil {
		return encErr
	}
	switch {
	case err == nil:
		_, err = c.Raw().RespondActivityTaskCompletedById(ctx, &orchpb.RespondActivityTaskCompletedByIdRequest{
			Namespace: c.namespace, WorkflowId: workflowID, RunId: runID, ActivityId: activityID, Result: payloads, Identity: c.identity})
	case errors.Is(err, ErrActivityCanceled):
		_, err = c.Raw().RespondActivityTaskCanceledById(ctx, &orchpb.RespondActivityTaskCanceledByIdRequest{
			Namespace: c.namespace, WorkflowId: workflowID, RunId: runID, ActivityId: activityID, Details: payloads, Identity: c.identity})
	default:
		_, err = c.Raw().RespondActivityTaskFailedById(ctx, &orchpb.RespondActivityTaskFailedByIdRequest{
			Namespace: c.namespace, WorkflowId: workflowID, RunId: runID, ActivityId: activityID, Failure: failureFrom(err), Identity: c.identity})
	}
	return err
}

// RecordActivityHeartbeat records a heartbeat of the started activity whose
// task token is taskToken, with details (JSON-encoded; nil for none) that
// a retried attempt reads with HeartbeatDetails. It returns
// ErrActivityCanceled when the workflow asked for the activity to be
// canceled: answer it then with CompleteActivity and an error matching
// ErrActivityCanceled.
func (c *Client) RecordActivityHeartbeat(ctx context.Context, taskToken []byte, details any) error {
	if len(taskToken) == 0 {
		return errors.New("orch: RecordActivityHeartbeat needs the activity's task token")
	}
	payloads, err := encodeOptional(details)
	if err != nil {
		return err
	}
	resp, err := c.Raw().RecordActivityTaskHeartbeat(ctx, &orchpb.RecordActivityTaskHeartbeatRequest{
		Namespace: c.namespace, TaskToken: taskToken, Details: payloads, Identity: c.identity})
	return canceledIf(resp.GetCancelRequested(), err)
}

// RecordActivityHeartbeatByID is RecordActivityHeartbeat for the activity
// activityID of an execution (runID "" for the latest run). An activity no
// worker has taken has no attempt to heartbeat: NOT_FOUND.
func (c *Client) RecordActivityHeartbeatByID(ctx context.Context, workflowID, runID, activityID string, details any) error {
	payloads, err := encodeOptional(details)
	if err != nil {
		return err
	}
	resp, err := c.Raw().RecordActivityTaskHeartbeatById(ctx, &orchpb.RecordActivityTaskHeartbeatByIdRequest{
		Namespace: c.namespace, WorkflowId: workflowID, RunId: runID, ActivityId: activityID, Details: payloads, Identity: c.identity})
	return canceledIf(resp.GetCancelRequested(), err)
}

// canceledIf is a heartbeat's outcome: its error, or ErrActivityCanceled
// when the answer says cancellation was requested.
func canceledIf(cancelRequested bool, err error) error {
	if err == nil && cancelRequested {
		return ErrActivityCanceled
	}
	return err
}
