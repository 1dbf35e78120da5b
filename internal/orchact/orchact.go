// Package orchact carries an activity's context from a runner other than
// orch's worker (orch/orchtest's env, which runs activities in the test's
// process) to orch.GetActivityInfo, orch.HeartbeatDetails and
// orch.RecordHeartbeat, so an activity's code runs there unchanged. It is
// not an API: only orch/orchtest sets it.
package orchact

import (
	"context"
	"time"

	"github.com/apitwin/apitwin/orch/orchpb"
)

// Info has orch.ActivityInfo's fields, in its order, so orch converts one
// into the other.
type Info struct {
	ActivityID       string
	ActivityType     string
	WorkflowID       string
	RunID            string
	WorkflowType     string
	TaskQueue        string
	Attempt          int32
	ScheduledTime    time.Time
	StartedTime      time.Time
	HeartbeatTimeout time.Duration
	TaskToken        []byte
}

// Activity is one running attempt as its runner describes it.
type Activity struct {
	Info Info
	// Details are the last heartbeat details of an earlier attempt.
	Details *orchpb.Payloads
	// Heartbeat records a heartbeat's details; its error is
	// RecordHeartbeat's.
	Heartbeat func(details *orchpb.Payloads) error
}

type key struct{}

// With returns ctx carrying a.
func With(ctx context.Context, a *Activity) context.Context {
	return context.WithValue(ctx, key{}, a)
}

// From returns the activity ctx carries, or nil.
func From(ctx context.Context) *Activity {
	a, _ := ctx.Value(key{}).(*Activity)
	return a
}
