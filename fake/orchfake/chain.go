package orchfake

import (
	"slices"
	"time"

	"github.com/apitwin/apitwin/internal/cron"
	"github.com/apitwin/apitwin/internal/orchsem"
	"github.com/apitwin/apitwin/orch/orchpb"
	"google.golang.org/protobuf/proto"
)

// continueChain starts the next run of a workflow whose run just closed,
// when its start asked for one: a retry (retry_policy) of a run that
// failed or timed out, else the next cron run (cron_schedule) of a run
// that completed, failed or timed out. The closing event gets the new run
// id (and, for a failure or timeout, the retry state). s.mu must be held.
func (s *Server) continueChain(e *execution, status orchpb.WorkflowExecutionStatus) {
	last := e.history[len(e.history)-1]
	var failure *orchpb.Failure
	switch status {
	case orchpb.WorkflowExecutionStatus_COMPLETED:
	case orchpb.WorkflowExecutionStatus_FAILED:
		failure = last.GetWorkflowExecutionFailedEventAttributes().GetFailure()
	case orchpb.WorkflowExecutionStatus_TIMED_OUT:
		failure = &orchpb.Failure{Message: "workflow timed out", FailureInfo: &orchpb.Failure_TimeoutFailureInfo{
			TimeoutFailureInfo: &orchpb.TimeoutFailureInfo{TimeoutType: orchpb.TimeoutType_START_TO_CLOSE}}}
	default:
		return
	}
	x := runExtras{attempt: 1}
	if failure != nil {
		state, wait := s.workflowRetryState(e, failure)
		setRetryState(last, state)
		if state == orchpb.RetryState_IN_PROGRESS {
			x = runExtras{attempt: e.attempt + 1, backoff: wait, continuedFailure: failure}
			s.nextRun(e, last, x)
			return
		}
	}
	if e.startReq.GetCronSchedule() == "" {
		return
	}
	if !e.expiry.IsZero() && !s.clk.Now().Before(e.expiry) {
		return // the whole execution's time is up
	}
	if status == orchpb.WorkflowExecutionStatus_COMPLETED {
		x.lastResult = last.GetWorkflowExecutionCompletedEventAttributes().GetResult()
	} else {
		x.continuedFailure = failure
	}
	s.nextRun(e, last, x)
}

// workflowRetryState says whether a failed or timed-out run is retried
// (IN_PROGRESS, with the wait) or why not.
func (s *Server) workflowRetryState(e *execution, f *orchpb.Failure) (orchpb.RetryState, time.Duration) {
	p := e.startReq.GetRetryPolicy()
	if p == nil {
		return orchpb.RetryState_RETRY_POLICY_NOT_SET, 0
	}
	p = orchsem.WithRetryDefaults(p)
	if info := f.GetApplicationFailureInfo(); info != nil && (info.GetNonRetryable() || slices.Contains(p.GetNonRetryableErrorTypes(), info.GetType())) {
		return orchpb.RetryState_NON_RETRYABLE_FAILURE, 0
	}
	if m := p.GetMaximumAttempts(); m > 0 && e.attempt >= m {
		return orchpb.RetryState_MAXIMUM_ATTEMPTS_REACHED, 0
	}
	wait := orchsem.Backoff(p, e.attempt)
	if !e.expiry.IsZero() && !s.clk.Now().Add(wait).Before(e.expiry) {
		return orchpb.RetryState_TIMEOUT, 0
	}
	return orchpb.RetryState_IN_PROGRESS, wait
}

func setRetryState(ev *orchpb.HistoryEvent, st orchpb.RetryState) {
	if a := ev.GetWorkflowExecutionFailedEventAttributes(); a != nil {
		a.RetryState = st
	}
	if a := ev.GetWorkflowExecutionTimedOutEventAttributes(); a != nil {
		a.RetryState = st
	}
}

// nextRun starts the chain's next run (same request, a new run id) and
// names it in the closing event. The request is the closing run's own start
// request on purpose: the next run gets the memo and search attributes that
// run started with, not its upserts or memo updates (the real service's rule
// for retry and cron runs; continue-as-new differs).
func (s *Server) nextRun(e *execution, last *orchpb.HistoryEvent, x runExtras) {
	if !s.roomForRun() {
		return // the chain ends with the run that closed (records.go)
	}
	runID := newID()
	switch a := last.GetAttributes().(type) {
	case *orchpb.HistoryEvent_WorkflowExecutionCompletedEventAttributes:
		a.WorkflowExecutionCompletedEventAttributes.NewExecutionRunId = runID
	case *orchpb.HistoryEvent_WorkflowExecutionFailedEventAttributes:
		a.WorkflowExecutionFailedEventAttributes.NewExecutionRunId = runID
	case *orchpb.HistoryEvent_WorkflowExecutionTimedOutEventAttributes:
		a.WorkflowExecutionTimedOutEventAttributes.NewExecutionRunId = runID
	}
	req := proto.Clone(e.startReq).(*orchpb.StartWorkflowExecutionRequest)
	req.RequestId = ""
	var v violations
	vals := searchValues(&v, e.ns, req.GetSearchAttributes())
	s.newRunWithID(e.ns, e.wf, req, vals, e.runID, runID, x)
}

// firstTaskBackoff is how long a new run waits before its first workflow
// task: the retry's backoff, or until the cron schedule's next time.
func (s *Server) firstTaskBackoff(req *orchpb.StartWorkflowExecutionRequest, x runExtras, now time.Time) time.Duration {
	if x.backoff > 0 {
		return x.backoff
	}
	if c := req.GetCronSchedule(); c != "" {
		if sch, err := cron.Parse(c); err == nil {
			if next := sch.Next(now); !next.IsZero() {
				return next.Sub(now)
			}
		}
	}
	return 0
}
