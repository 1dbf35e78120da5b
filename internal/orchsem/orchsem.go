// Package orchsem holds rules of the orchestration service that two
// engines of this module apply, orchfake's and orch/orchtest's, so both
// write the same history: what the service fills in when an activity is
// scheduled, how a failed attempt is retried, and which commands end a
// run (orch's worker too).
package orchsem

import (
	"math"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// Retry defaults, where a retry policy leaves them out (Temporal's): 1 s,
// doubling, at most 100 times the initial interval; unlimited attempts.
const (
	DefaultRetryInitial     = time.Second
	DefaultRetryCoefficient = 2.0
	DefaultRetryMaxFactor   = 100
)

// WithRetryDefaults returns a copy of p (nil: an empty policy) with its
// blanks filled as the service fills them.
func WithRetryDefaults(p *orchpb.RetryPolicy) *orchpb.RetryPolicy {
	p = proto.Clone(p).(*orchpb.RetryPolicy)
	if p == nil {
		p = &orchpb.RetryPolicy{}
	}
	if p.GetInitialInterval().AsDuration() <= 0 {
		p.InitialInterval = durationpb.New(DefaultRetryInitial)
	}
	if p.GetBackoffCoefficient() == 0 {
		p.BackoffCoefficient = DefaultRetryCoefficient
	}
	if p.GetMaximumInterval().AsDuration() <= 0 {
		p.MaximumInterval = durationpb.New(DefaultRetryMaxFactor * p.GetInitialInterval().AsDuration())
	}
	return p
}

// ScheduledActivity returns a copy of a ScheduleActivityTask command with
// what the service fills in: the workflow's task queue when it names none,
// start-to-close and schedule-to-start from schedule-to-close when they
// are missing (as Temporal does), and the retry policy's defaults.
func ScheduledActivity(c *orchpb.ScheduleActivityTaskCommandAttributes, workflowQueue string) *orchpb.ScheduleActivityTaskCommandAttributes {
	c = proto.Clone(c).(*orchpb.ScheduleActivityTaskCommandAttributes)
	if c.GetTaskQueue() == "" {
		c.TaskQueue = workflowQueue
	}
	if c.GetStartToCloseTimeout().AsDuration() <= 0 {
		c.StartToCloseTimeout = c.GetScheduleToCloseTimeout()
	}
	if c.GetScheduleToStartTimeout().AsDuration() <= 0 && c.GetScheduleToCloseTimeout().AsDuration() > 0 {
		c.ScheduleToStartTimeout = c.GetScheduleToCloseTimeout()
	}
	c.RetryPolicy = WithRetryDefaults(c.GetRetryPolicy())
	return c
}

// Backoff is the wait before the attempt after attempt (counted from 1),
// under a policy with its defaults filled in.
func Backoff(p *orchpb.RetryPolicy, attempt int32) time.Duration {
	d := float64(p.GetInitialInterval().AsDuration()) * math.Pow(p.GetBackoffCoefficient(), float64(attempt-1))
	return time.Duration(min(d, float64(p.GetMaximumInterval().AsDuration())))
}

// ActivityRetryState says whether the failed attempt of an activity
// (scheduled as ScheduledActivity returns it, at scheduled) is retried
// (IN_PROGRESS) or why not: a non-retryable failure, the maximum attempts
// reached, or a backoff that would end past the schedule-to-close
// timeout.
func ActivityRetryState(c *orchpb.ScheduleActivityTaskCommandAttributes, f *orchpb.Failure, attempt int32, scheduled, now time.Time) orchpb.RetryState {
	p := c.GetRetryPolicy()
	if info := f.GetApplicationFailureInfo(); info != nil {
		if info.GetNonRetryable() || slices.Contains(p.GetNonRetryableErrorTypes(), info.GetType()) {
			return orchpb.RetryState_NON_RETRYABLE_FAILURE
		}
	}
	if m := p.GetMaximumAttempts(); m > 0 && attempt >= m {
		return orchpb.RetryState_MAXIMUM_ATTEMPTS_REACHED
	}
	if d := c.GetScheduleToCloseTimeout().AsDuration(); d > 0 && !now.Add(Backoff(p, attempt)).Before(scheduled.Add(d)) {
		return orchpb.RetryState_TIMEOUT
	}
	return orchpb.RetryState_IN_PROGRESS
}

// ClosesRun reports whether a command of type t ends its run: complete,
// fail, cancel, or continue as new. Such a command must be the last of
// its workflow task's.
func ClosesRun(t orchpb.CommandType) bool {
	switch t {
	case orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION, orchpb.CommandType_FAIL_WORKFLOW_EXECUTION,
		orchpb.CommandType_CANCEL_WORKFLOW_EXECUTION, orchpb.CommandType_CONTINUE_AS_NEW_WORKFLOW_EXECUTION:
		return true
	}
	return false
}
