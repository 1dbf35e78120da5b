package orchfake_test

import (
	"context"
	"testing"

	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
)

func we(id, run string) *orchpb.WorkflowExecution {
	return &orchpb.WorkflowExecution{WorkflowId: id, RunId: run}
}

func getRun(t *testing.T, iv *invoker, id, run string) *orchpb.GetWorkflowExecutionResponse {
	t.Helper()
	var r orchpb.GetWorkflowExecutionResponse
	mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: we(id, run)}, &r)
	return &r
}

func signalLatest(t *testing.T, iv *invoker, id, name string) {
	t.Helper()
	mustCall(t, iv, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id, ""), SignalName: name},
		&orchpb.SignalWorkflowExecutionResponse{})
}

// resetSetup runs a workflow to: 1 started, 2-3 its first task, 4 that
// task completed, 5 an activity scheduled, 6 a signal, 7-8 the second
// task, 9 that task completed (nothing more), 10 a second signal, 11 a
// third task scheduled. It returns the run id.
func resetSetup(t *testing.T, iv *invoker, id string) string {
	t.Helper()
	req := startReq("default", id)
	req.TaskQueue = id
	var started orchpb.StartWorkflowExecutionResponse
	mustCall(t, iv, "StartWorkflowExecution", req, &started)
	complete(t, iv, pollWF(t, iv, id).GetTaskToken(), scheduleCmd("reserve", nil))
	signalLatest(t, iv, id, "first")
	complete(t, iv, pollWF(t, iv, id).GetTaskToken())
	signalLatest(t, iv, id, "second")
	want := "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted,ActivityTaskScheduled," +
		"WorkflowExecutionSignaled,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted,WorkflowExecutionSignaled,WorkflowTaskScheduled"
	if got := eventTypes(getRun(t, iv, id, "").GetWorkflowExecutionHistory()); got != want {
		t.Fatalf("setup history\n%s\nwant\n%s", got, want)
	}
	return started.GetRunId()
}

// A reset to a workflow task: the old run is terminated with the reason;
// the new run, now current, has the history up to that task, the task
// failed with RESET_WORKFLOW, the signals after it, a new task; it keeps
// the activity still pending at that point; a retried reset answers the
// same run.
func TestResetWorkflowToATask(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "reset-" + iv.name
			base := resetSetup(t, iv, id)
			var r orchpb.ResetWorkflowExecutionResponse
			req := &orchpb.ResetWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id, base), Reason: "bad deploy",
				WorkflowTaskFinishEventId: 9, RequestId: "reset-1", Identity: "ops"}
			mustCall(t, iv, "ResetWorkflowExecution", req, &r)
			if r.GetRunId() == "" || r.GetRunId() == base {
				t.Fatalf("new run %q (base %q)", r.GetRunId(), base)
			}
			old := getRun(t, iv, id, base)
			if st := old.GetExecutionInfo().GetStatus(); st != orchpb.WorkflowExecutionStatus_TERMINATED {
				t.Fatalf("base run %s", st)
			}
			oh := old.GetWorkflowExecutionHistory()
			if ta := oh[len(oh)-1].GetWorkflowExecutionTerminatedEventAttributes(); ta.GetReason() != "bad deploy" || ta.GetIdentity() != "ops" {
				t.Errorf("base run's last event %v", oh[len(oh)-1])
			}

			cur := getRun(t, iv, id, "")
			if cur.GetExecutionInfo().GetExecution().GetRunId() != r.GetRunId() {
				t.Fatalf("current run %s, want the new one", cur.GetExecutionInfo().GetExecution().GetRunId())
			}
			h := cur.GetWorkflowExecutionHistory()
			want := "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskCompleted,ActivityTaskScheduled," +
				"WorkflowExecutionSignaled,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskFailed,WorkflowExecutionSignaled,WorkflowTaskScheduled"
			if got := eventTypes(h); got != want {
				t.Fatalf("new run's history\n%s\nwant\n%s", got, want)
			}
			if diff := cmp.Diff(&orchpb.WorkflowTaskFailedEventAttributes{ScheduledEventId: 7, StartedEventId: 8, Cause: orchpb.WorkflowTaskFailedCause_RESET_WORKFLOW,
				Failure: &orchpb.Failure{Message: "bad deploy", Source: "orchfake"}, Identity: "ops", BaseRunId: base, NewRunId: r.GetRunId()},
				h[8].GetWorkflowTaskFailedEventAttributes(), protocmp.Transform()); diff != "" {
				t.Errorf("WorkflowTaskFailed (-want +got):\n%s", diff)
			}
			if got := h[9].GetWorkflowExecutionSignaledEventAttributes().GetSignalName(); got != "second" {
				t.Errorf("reapplied signal %q", got)
			}
			if n := len(cur.GetPendingActivities()); n != 1 || cur.GetPendingActivities()[0].GetActivityId() != "reserve" {
				t.Errorf("pending activities %v", cur.GetPendingActivities())
			}
			wt := pollWF(t, iv, id)
			if wt.GetWorkflowExecution().GetRunId() != r.GetRunId() || wt.GetPreviousStartedEventId() != 3 || len(wt.GetHistory()) != 12 {
				t.Errorf("the new run's task: run %s, previous started %d, %d events", wt.GetWorkflowExecution().GetRunId(), wt.GetPreviousStartedEventId(), len(wt.GetHistory()))
			}
			if at := pollAct(t, iv, id); at.GetWorkflowExecution().GetRunId() != r.GetRunId() || at.GetActivityId() != "reserve" {
				t.Errorf("the carried activity's task %v", at)
			}

			var again orchpb.ResetWorkflowExecutionResponse
			mustCall(t, iv, "ResetWorkflowExecution", req, &again)
			if again.GetRunId() != r.GetRunId() {
				t.Errorf("retried reset made run %s, want %s", again.GetRunId(), r.GetRunId())
			}
		})
	}
}

// RESET_REAPPLY_TYPE_NONE leaves the signals after the point behind; a
// reset of a closed run works, and leaves the closed current run as it is.
func TestResetWithoutSignalsOfAClosedRun(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	iv := transports(t, s)[0]
	id := "reset-none"
	base := resetSetup(t, iv, id)
	mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id, base), Reason: "stop"},
		&orchpb.TerminateWorkflowExecutionResponse{})
	var r orchpb.ResetWorkflowExecutionResponse
	mustCall(t, iv, "ResetWorkflowExecution", &orchpb.ResetWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id, ""), Reason: "again",
		WorkflowTaskFinishEventId: 4, ResetReapplyType: orchpb.ResetReapplyType_RESET_REAPPLY_TYPE_NONE}, &r)
	want := "WorkflowExecutionStarted,WorkflowTaskScheduled,WorkflowTaskStarted,WorkflowTaskFailed,WorkflowTaskScheduled"
	if got := eventTypes(getRun(t, iv, id, r.GetRunId()).GetWorkflowExecutionHistory()); got != want {
		t.Errorf("new run's history\n%s\nwant\n%s", got, want)
	}
	oh := getRun(t, iv, id, base).GetWorkflowExecutionHistory()
	if ta := oh[len(oh)-1].GetWorkflowExecutionTerminatedEventAttributes(); ta.GetReason() != "stop" {
		t.Errorf("the closed run was changed: last event %v", oh[len(oh)-1])
	}
}

// A reset the service refuses changes nothing: a finish event out of the
// history, one that does not follow a WorkflowTaskStarted, a point with a
// pending child, an unknown run.
func TestResetRefusals(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "reset-bad-" + iv.name
			base := resetSetup(t, iv, id)
			child := "reset-parent-" + iv.name
			req := startReq("default", child)
			req.TaskQueue = child
			mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
			complete(t, iv, pollWF(t, iv, child).GetTaskToken(), startChildCmd(child+"-kid", orchpb.ParentClosePolicy_ABANDON))
			complete(t, iv, pollWF(t, iv, child).GetTaskToken()) // the ChildWorkflowExecutionStarted task: 7 completed
			for _, tc := range []struct {
				name string
				id   string
				run  string
				fin  int64
				code string
			}{
				{"the first event", id, base, 1, "INVALID_ARGUMENT"},
				{"no event", id, base, 0, "INVALID_ARGUMENT"},
				{"past the last event", id, base, 12, "INVALID_ARGUMENT"},
				{"an activity scheduled", id, base, 5, "INVALID_ARGUMENT"},
				{"a signal after a completed task", id, base, 10, "INVALID_ARGUMENT"},
				{"a pending child", child, "", 9, "INVALID_ARGUMENT"},
				{"an unknown run", id, "00000000-0000-4000-8000-000000000000", 4, "WORKFLOW_EXECUTION_NOT_FOUND"},
				{"an unknown workflow", "nobody", "", 4, "WORKFLOW_EXECUTION_NOT_FOUND"},
			} {
				err := iv.call(context.Background(), "ResetWorkflowExecution", &orchpb.ResetWorkflowExecutionRequest{Namespace: "default",
					WorkflowExecution: we(tc.id, tc.run), Reason: "no", WorkflowTaskFinishEventId: tc.fin}, &orchpb.ResetWorkflowExecutionResponse{})
				ae := wantCode(t, err, tc.code)
				if tc.code == "INVALID_ARGUMENT" && (len(ae.Details) == 0 || ae.Details[0].GetField() != "workflow_task_finish_event_id") {
					t.Errorf("%s: details %v", tc.name, ae.Details)
				}
			}
			cur := getRun(t, iv, id, "")
			if cur.GetExecutionInfo().GetExecution().GetRunId() != base || cur.GetExecutionInfo().GetStatus() != orchpb.WorkflowExecutionStatus_RUNNING || len(cur.GetWorkflowExecutionHistory()) != 11 {
				t.Errorf("a refused reset changed the run: %v, %d events", cur.GetExecutionInfo(), len(cur.GetWorkflowExecutionHistory()))
			}
		})
	}
}

// A deleted run is gone from describe, history, list and count, and
// signals to it are WORKFLOW_EXECUTION_NOT_FOUND; a running one is
// terminated first.
func TestDeleteWorkflowExecution(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "delete-" + iv.name
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
			mustCall(t, iv, "DeleteWorkflowExecution", &orchpb.DeleteWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id, "")},
				&orchpb.DeleteWorkflowExecutionResponse{})
			ctx := context.Background()
			wantCode(t, iv.call(ctx, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: we(id, "")},
				&orchpb.GetWorkflowExecutionResponse{}), "WORKFLOW_EXECUTION_NOT_FOUND")
			wantCode(t, iv.call(ctx, "GetWorkflowExecutionHistory", &orchpb.GetWorkflowExecutionHistoryRequest{Namespace: "default", Execution: we(id, "")},
				&orchpb.GetWorkflowExecutionHistoryResponse{}), "WORKFLOW_EXECUTION_NOT_FOUND")
			wantCode(t, iv.call(ctx, "SignalWorkflowExecution", &orchpb.SignalWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id, ""), SignalName: "late"},
				&orchpb.SignalWorkflowExecutionResponse{}), "WORKFLOW_EXECUTION_NOT_FOUND")
			wantCode(t, iv.call(ctx, "DeleteWorkflowExecution", &orchpb.DeleteWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id, "")},
				&orchpb.DeleteWorkflowExecutionResponse{}), "WORKFLOW_EXECUTION_NOT_FOUND")
			var n orchpb.CountWorkflowExecutionsResponse
			mustCall(t, iv, "CountWorkflowExecutions", &orchpb.CountWorkflowExecutionsRequest{Namespace: "default", Query: "WorkflowId = '" + id + "'"}, &n)
			var l orchpb.ListWorkflowExecutionsResponse
			mustCall(t, iv, "ListWorkflowExecutions", &orchpb.ListWorkflowExecutionsRequest{Namespace: "default", Query: "WorkflowId = '" + id + "'"}, &l)
			if n.GetCount() != 0 || len(l.GetExecutions()) != 0 {
				t.Errorf("count %d, list %v after delete", n.GetCount(), l.GetExecutions())
			}
			// The id is free again.
			mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &orchpb.StartWorkflowExecutionResponse{})
		})
	}
}

// WorkflowIdConflictPolicy decides for a running run, the reuse policy for
// a closed one, as the service does.
func TestWorkflowIDConflictPolicy(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			ctx := context.Background()
			for _, tc := range []struct {
				name      string
				conflict  orchpb.WorkflowIdConflictPolicy
				reuse     orchpb.WorkflowIdReusePolicy
				code      string
				same      bool // answers the running run
				oldStatus orchpb.WorkflowExecutionStatus
			}{
				{"unspecified fails", 0, 0, "WORKFLOW_EXECUTION_ALREADY_STARTED", false, orchpb.WorkflowExecutionStatus_RUNNING},
				{"fail", orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_FAIL, 0, "WORKFLOW_EXECUTION_ALREADY_STARTED", false, orchpb.WorkflowExecutionStatus_RUNNING},
				{"use existing", orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, 0, "", true, orchpb.WorkflowExecutionStatus_RUNNING},
				{"use existing despite reject duplicate", orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, orchpb.WorkflowIdReusePolicy_REJECT_DUPLICATE, "", true, orchpb.WorkflowExecutionStatus_RUNNING},
				{"terminate existing", orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING, 0, "", false, orchpb.WorkflowExecutionStatus_TERMINATED},
				{"with terminate if running", orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_FAIL, orchpb.WorkflowIdReusePolicy_TERMINATE_IF_RUNNING, "INVALID_ARGUMENT", false, orchpb.WorkflowExecutionStatus_RUNNING},
				{"unknown", 9, 0, "INVALID_ARGUMENT", false, orchpb.WorkflowExecutionStatus_RUNNING},
			} {
				id := "conflict-" + iv.name + "-" + tc.name
				var first orchpb.StartWorkflowExecutionResponse
				mustCall(t, iv, "StartWorkflowExecution", startReq("default", id), &first)
				req := startReq("default", id)
				req.WorkflowIdConflictPolicy, req.WorkflowIdReusePolicy = tc.conflict, tc.reuse
				var second orchpb.StartWorkflowExecutionResponse
				err := iv.call(ctx, "StartWorkflowExecution", req, &second)
				if tc.code != "" {
					wantCode(t, err, tc.code)
				} else if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				} else if got := second.GetRunId() == first.GetRunId(); got != tc.same || second.GetStarted() == tc.same {
					t.Errorf("%s: run %s (first %s), started %v", tc.name, second.GetRunId(), first.GetRunId(), second.GetStarted())
				}
				if st := getRun(t, iv, id, first.GetRunId()).GetExecutionInfo().GetStatus(); st != tc.oldStatus {
					t.Errorf("%s: the first run is %s, want %s", tc.name, st, tc.oldStatus)
				}
			}
		})
	}
}

// Signal-with-start refuses FAIL, signals the running run by default, and
// under TERMINATE_EXISTING starts a new run whose first event after the
// start is the signal.
func TestSignalWithStartConflictPolicy(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "sws-conflict-" + iv.name
			var first, second orchpb.SignalWithStartWorkflowExecutionResponse
			mustCall(t, iv, "SignalWithStartWorkflowExecution", signalWithStartReq(id, id, "paid", ""), &first)
			req := signalWithStartReq(id, id, "paid", "")
			req.WorkflowIdConflictPolicy = orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_FAIL
			wantCode(t, iv.call(context.Background(), "SignalWithStartWorkflowExecution", req, &orchpb.SignalWithStartWorkflowExecutionResponse{}), "INVALID_ARGUMENT")
			req.WorkflowIdConflictPolicy = orchpb.WorkflowIdConflictPolicy_WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING
			mustCall(t, iv, "SignalWithStartWorkflowExecution", req, &second)
			if second.GetRunId() == first.GetRunId() || !second.GetStarted() {
				t.Fatalf("terminate existing: %v after %v", &second, &first)
			}
			if st := getRun(t, iv, id, first.GetRunId()).GetExecutionInfo().GetStatus(); st != orchpb.WorkflowExecutionStatus_TERMINATED {
				t.Errorf("the first run is %s", st)
			}
			if got := eventTypes(getRun(t, iv, id, second.GetRunId()).GetWorkflowExecutionHistory()); got != "WorkflowExecutionStarted,WorkflowExecutionSignaled,WorkflowTaskScheduled" {
				t.Errorf("the new run's history %s", got)
			}
		})
	}
}

// Describe shows the outstanding workflow task (scheduled, then started)
// and the children initiated and not closed.
func TestDescribePendingTaskAndChildren(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		t.Run(iv.name, func(t *testing.T) {
			id := "pending-" + iv.name
			req := startReq("default", id)
			req.TaskQueue = id
			mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
			p := getRun(t, iv, id, "").GetPendingWorkflowTask()
			if p.GetState() != orchpb.PendingWorkflowTaskState_PENDING_WORKFLOW_TASK_STATE_SCHEDULED || p.GetAttempt() != 1 ||
				!p.GetScheduledTime().AsTime().Equal(epoch) || !p.GetOriginalScheduledTime().AsTime().Equal(epoch) || p.GetStartedTime() != nil {
				t.Fatalf("scheduled task %v", p)
			}
			wt := pollWF(t, iv, id)
			if p := getRun(t, iv, id, "").GetPendingWorkflowTask(); p.GetState() != orchpb.PendingWorkflowTaskState_PENDING_WORKFLOW_TASK_STATE_STARTED || p.GetStartedTime() == nil {
				t.Fatalf("started task %v", p)
			}
			complete(t, iv, wt.GetTaskToken(), startChildCmd(id+"-kid", orchpb.ParentClosePolicy_ABANDON))
			got := getRun(t, iv, id, "")
			kid := getRun(t, iv, id+"-kid", "")
			want := []*orchpb.PendingChildExecutionInfo{{WorkflowId: id + "-kid", RunId: kid.GetExecutionInfo().GetExecution().GetRunId(), WorkflowTypeName: "Child",
				InitiatedId: 5, ParentClosePolicy: orchpb.ParentClosePolicy_ABANDON, Namespace: "default"}}
			if diff := cmp.Diff(want, got.GetPendingChildren(), protocmp.Transform()); diff != "" {
				t.Errorf("pending children (-want +got):\n%s", diff)
			}
			mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: we(id+"-kid", "")},
				&orchpb.TerminateWorkflowExecutionResponse{})
			if got := getRun(t, iv, id, ""); len(got.GetPendingChildren()) != 0 {
				t.Errorf("a closed child is still pending: %v", got.GetPendingChildren())
			}
		})
	}
}
