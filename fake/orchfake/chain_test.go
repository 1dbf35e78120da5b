package orchfake_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/types/known/durationpb"
)

func latest(t *testing.T, iv *invoker, id string) *orchpb.GetWorkflowExecutionResponse {
	t.Helper()
	var d orchpb.GetWorkflowExecutionResponse
	mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id}}, &d)
	return &d
}

// cron_schedule runs on the fake clock: each run waits for its time (no
// workflow task before), a completed run starts the next with a new run id,
// the closing event names it and the new run carries the last result.
func TestCronScheduleRunsOnTheFakeClock(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for i, c := range []struct {
		spec  string
		first time.Duration // from the start (12:00:00 + i hours)
		next  time.Duration // from the first run's time to the second
	}{
		{"*/5 * * * *", 5 * time.Minute, 5 * time.Minute},
		{"@every 90m", 90 * time.Minute, 90 * time.Minute},
		{"@hourly", time.Hour, time.Hour},
		{"30 14 * * 1-5", 2*time.Hour + 30*time.Minute, 24 * time.Hour}, // 2026-03-02 is a Monday
	} {
		for _, iv := range transports(t, s) {
			s.Reset()
			s.Clock().Set(epoch) // Reset keeps the clock: each case starts on Sunday 2026-03-01 12:00 UTC
			now := s.Clock().Now()
			id, q := fmt.Sprintf("cron-%d-%s", i, iv.name), fmt.Sprintf("cron-%d-%s", i, iv.name)
			req := startReq("default", id)
			req.TaskQueue, req.CronSchedule = q, c.spec
			var started orchpb.StartWorkflowExecutionResponse
			mustCall(t, iv, "StartWorkflowExecution", req, &started)
			d := latest(t, iv, id)
			at := d.GetWorkflowExecutionHistory()[0].GetWorkflowExecutionStartedEventAttributes()
			wantFirst := nextFire(c.spec, now).Sub(now)
			if got := at.GetFirstWorkflowTaskBackoff().AsDuration(); got != wantFirst || len(d.GetWorkflowExecutionHistory()) != 1 {
				t.Fatalf("%s %q: backoff %v (want %v), %d events", iv.name, c.spec, got, wantFirst, len(d.GetWorkflowExecutionHistory()))
			}
			s.Clock().Advance(wantFirst)
			complete(t, iv, pollWF(t, iv, q).GetTaskToken(), completeCmd())
			d = latest(t, iv, id)
			if d.GetExecutionInfo().GetExecution().GetRunId() == started.GetRunId() || d.GetExecutionInfo().GetStatus() != orchpb.WorkflowExecutionStatus_RUNNING {
				t.Fatalf("%s %q: no next run: %v", iv.name, c.spec, d.GetExecutionInfo())
			}
			nat := d.GetWorkflowExecutionHistory()[0].GetWorkflowExecutionStartedEventAttributes()
			if nat.GetContinuedExecutionRunId() != started.GetRunId() || string(nat.GetLastCompletionResult().GetPayloads()[0].GetData()) != `"done"` ||
				nat.GetFirstWorkflowTaskBackoff().AsDuration() != c.next {
				t.Errorf("%s %q: next run %v", iv.name, c.spec, nat)
			}
			var prev orchpb.GetWorkflowExecutionResponse
			mustCall(t, iv, "GetWorkflowExecution", &orchpb.GetWorkflowExecutionRequest{Namespace: "default", Execution: &orchpb.WorkflowExecution{WorkflowId: id, RunId: started.GetRunId()}}, &prev)
			h := prev.GetWorkflowExecutionHistory()
			if h[len(h)-1].GetWorkflowExecutionCompletedEventAttributes().GetNewExecutionRunId() != d.GetExecutionInfo().GetExecution().GetRunId() {
				t.Errorf("%s %q: the completed event names no new run: %v", iv.name, c.spec, h[len(h)-1])
			}
			// A terminate ends the schedule.
			mustCall(t, iv, "TerminateWorkflowExecution", &orchpb.TerminateWorkflowExecutionRequest{Namespace: "default", WorkflowExecution: &orchpb.WorkflowExecution{WorkflowId: id}}, &orchpb.TerminateWorkflowExecutionResponse{})
			if st := latest(t, iv, id).GetExecutionInfo().GetStatus(); st != orchpb.WorkflowExecutionStatus_TERMINATED {
				t.Errorf("%s: after terminate %s", iv.name, st)
			}
		}
	}
	// Bad schedules are refused, naming the field.
	for _, bad := range []string{"* * *", "61 * * * *", "@sometimes", "@every 0s", "*/0 * * * *"} {
		req := startReq("default", "bad-cron")
		req.CronSchedule = bad
		err := transports(t, s)[1].call(t.Context(), "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		if ae := wantCode(t, err, "INVALID_ARGUMENT"); ae.Details[0].GetField() != "cron_schedule" {
			t.Errorf("%q: %v", bad, ae)
		}
	}
}

// nextFire is the test's own reading of the four schedules above.
func nextFire(spec string, t time.Time) time.Time {
	switch spec {
	case "*/5 * * * *":
		return t.Truncate(5 * time.Minute).Add(5 * time.Minute)
	case "@every 90m":
		return time.Unix(0, (t.UnixNano()/int64(90*time.Minute)+1)*int64(90*time.Minute)).UTC()
	case "@hourly":
		return t.Truncate(time.Hour).Add(time.Hour)
	}
	// 30 14 * * 1-5 from a Sunday noon (2026-03-01): Monday 14:30
	d := time.Date(t.Year(), t.Month(), t.Day(), 14, 30, 0, 0, time.UTC)
	for !d.After(t) || d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
		d = d.AddDate(0, 0, 1)
	}
	return d
}

func failCmd(typ string, nonRetryable bool) *orchpb.Command {
	return &orchpb.Command{CommandType: orchpb.CommandType_FAIL_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_FailWorkflowExecutionCommandAttributes{
		FailWorkflowExecutionCommandAttributes: &orchpb.FailWorkflowExecutionCommandAttributes{Failure: &orchpb.Failure{Message: "boom",
			FailureInfo: &orchpb.Failure_ApplicationFailureInfo{ApplicationFailureInfo: &orchpb.ApplicationFailureInfo{Type: typ, NonRetryable: nonRetryable}}}}}}
}

// retry_policy on a start: a failed run is retried as a new run after the
// policy's backoff, attempts counted, until maximum_attempts; a
// non-retryable type ends it at once.
func TestWorkflowRetryPolicy(t *testing.T) {
	t.Parallel()
	s := newFake(t)
	for _, iv := range transports(t, s) {
		id, q := "retry-"+iv.name, "retry-"+iv.name
		req := startReq("default", id)
		req.TaskQueue = q
		req.RetryPolicy = &orchpb.RetryPolicy{InitialInterval: durationpb.New(10 * time.Second), BackoffCoefficient: 3, MaximumAttempts: 3,
			NonRetryableErrorTypes: []string{"Fatal"}}
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		for attempt, wait := range []time.Duration{0, 10 * time.Second, 30 * time.Second} {
			if wait > 0 {
				if n := backlog(t, iv, q); n != 0 {
					t.Fatalf("%s: attempt %d queued before its backoff", iv.name, attempt+1)
				}
				s.Clock().Advance(wait)
			}
			wt := pollWF(t, iv, q)
			st := wt.GetHistory()[0].GetWorkflowExecutionStartedEventAttributes()
			if st.GetAttempt() != int32(attempt+1) || st.GetFirstWorkflowTaskBackoff().AsDuration() != wait {
				t.Fatalf("%s: run %d started %v", iv.name, attempt+1, st)
			}
			if attempt > 0 && st.GetContinuedFailure().GetMessage() != "boom" {
				t.Errorf("%s: no continued failure: %v", iv.name, st)
			}
			complete(t, iv, wt.GetTaskToken(), failCmd("Flaky", false))
		}
		d := latest(t, iv, id)
		h := d.GetWorkflowExecutionHistory()
		if d.GetExecutionInfo().GetStatus() != orchpb.WorkflowExecutionStatus_FAILED ||
			h[len(h)-1].GetWorkflowExecutionFailedEventAttributes().GetRetryState() != orchpb.RetryState_MAXIMUM_ATTEMPTS_REACHED {
			t.Errorf("%s: after 3 attempts: %v, %v", iv.name, d.GetExecutionInfo().GetStatus(), h[len(h)-1])
		}
		// A non-retryable type is not retried.
		req.WorkflowId = "fatal-" + iv.name
		mustCall(t, iv, "StartWorkflowExecution", req, &orchpb.StartWorkflowExecutionResponse{})
		complete(t, iv, pollWF(t, iv, q).GetTaskToken(), failCmd("Fatal", false))
		h = latest(t, iv, req.WorkflowId).GetWorkflowExecutionHistory()
		if rs := h[len(h)-1].GetWorkflowExecutionFailedEventAttributes().GetRetryState(); rs != orchpb.RetryState_NON_RETRYABLE_FAILURE {
			t.Errorf("%s: non-retryable: %v", iv.name, rs)
		}
	}
}
