package orchfake

import (
	"strconv"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Limits are the fake's server-side rate limits: the specification's table.
// Each is counted in fixed one-minute windows on the fake clock (a window
// opens with its first request). A zero field takes the default; a negative
// one turns that limit off.
type Limits struct {
	// ClusterRequestsPerMinute: every API request (default 10,000).
	ClusterRequestsPerMinute int
	// NamespaceStartsPerMinute: StartWorkflowExecution per namespace
	// (default 1,000).
	NamespaceStartsPerMinute int
	// NamespaceActivitiesPerMinute: activity tasks scheduled per namespace
	// (default 10,000).
	NamespaceActivitiesPerMinute int
	// NamespaceConcurrentExecutions: running executions per namespace
	// (default 100). Seeded executions are not refused but do count.
	NamespaceConcurrentExecutions int
	// TaskQueueOpsPerMinute: polls, RegisterWorker, DescribeTaskQueue and
	// ListTaskQueuePartitions per task queue (default 1,000).
	TaskQueueOpsPerMinute int
	// NamespaceHistoryEventsPerMinute: history events written per namespace
	// (default 100,000).
	NamespaceHistoryEventsPerMinute int
}

// DefaultLimits are the specification's limits.
var DefaultLimits = Limits{
	ClusterRequestsPerMinute:        10_000,
	NamespaceStartsPerMinute:        1_000,
	NamespaceActivitiesPerMinute:    10_000,
	NamespaceConcurrentExecutions:   100,
	TaskQueueOpsPerMinute:           1_000,
	NamespaceHistoryEventsPerMinute: 100_000,
}

// NoLimits turns every limit off.
var NoLimits = Limits{-1, -1, -1, -1, -1, -1}

func (l Limits) withDefaults() Limits {
	pick := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	return Limits{
		ClusterRequestsPerMinute:        pick(l.ClusterRequestsPerMinute, DefaultLimits.ClusterRequestsPerMinute),
		NamespaceStartsPerMinute:        pick(l.NamespaceStartsPerMinute, DefaultLimits.NamespaceStartsPerMinute),
		NamespaceActivitiesPerMinute:    pick(l.NamespaceActivitiesPerMinute, DefaultLimits.NamespaceActivitiesPerMinute),
		NamespaceConcurrentExecutions:   pick(l.NamespaceConcurrentExecutions, DefaultLimits.NamespaceConcurrentExecutions),
		TaskQueueOpsPerMinute:           pick(l.TaskQueueOpsPerMinute, DefaultLimits.TaskQueueOpsPerMinute),
		NamespaceHistoryEventsPerMinute: pick(l.NamespaceHistoryEventsPerMinute, DefaultLimits.NamespaceHistoryEventsPerMinute),
	}
}

// limitWindow is the length of every rate window, and its name in errors.
const (
	limitWindow     = time.Minute
	limitWindowName = "1m"
)

// Scopes as X-RateLimit-Scope and the detail's scope carry them.
const (
	scopeCluster = "cluster"
)

func scopeNamespace(ns string) string     { return "namespace:" + ns }
func scopeTaskQueue(ns, tq string) string { return "task-queue:" + ns + "/" + tq }

// limitsState holds one fixed-window limiter per limit of the table; a
// limit that is off allows everything and reports nothing.
type limitsState struct {
	cfg        Limits
	cluster    *fakekit.RateLimiter
	starts     *fakekit.RateLimiter
	activities *fakekit.RateLimiter
	queues     *fakekit.RateLimiter
	events     *fakekit.RateLimiter
}

func (l *limitsState) init(clk *clock.Fake, cfg Limits) {
	l.cfg = cfg
	mk := func(n int) *fakekit.RateLimiter { return fakekit.NewRateLimiter(clk, max(n, 0), limitWindow, "") }
	l.cluster = fakekit.NewRateLimiter(clk, max(cfg.ClusterRequestsPerMinute, 0), limitWindow, scopeCluster)
	l.starts = mk(cfg.NamespaceStartsPerMinute)
	l.activities = mk(cfg.NamespaceActivitiesPerMinute)
	l.queues = mk(cfg.TaskQueueOpsPerMinute)
	l.events = mk(cfg.NamespaceHistoryEventsPerMinute)
}

// decision is the outcome of one request against one scope's window.
type decision = fakekit.Decision

// takeScoped counts n for key on lim and names the decision's scope.
func takeScoped(lim *fakekit.RateLimiter, key, scope string, n int) decision {
	d := lim.TakeN(key, n)
	d.Scope = scope
	return d
}

// admit counts a request: against the cluster, then against its
// operation's own scope. The decision reported is the refusal, if any, or
// else the narrowest scope that counted the request.
func (l *limitsState) admit(o op, ns, tq string) decision {
	d := l.cluster.Take("")
	if !d.Allowed {
		return d
	}
	switch {
	case o.limit == orchwire.LimitStart && ns != "":
		if n := takeScoped(l.starts, ns, scopeNamespace(ns), 1); n.Limit > 0 {
			d = n
		}
	case o.limit == orchwire.LimitTaskQueue && ns != "" && tq != "":
		if n := takeScoped(l.queues, ns+"\x00"+tq, scopeTaskQueue(ns, tq), 1); n.Limit > 0 {
			d = n
		}
	}
	return d
}

// takeEvents counts n history events against ns. Events are written
// whatever the answer (an execution cannot stop half way); what the limit
// refuses is new work, through eventsFull.
func (l *limitsState) takeEvents(ns string, n int) decision {
	return takeScoped(l.events, ns, scopeNamespace(ns), n)
}

// eventsFull is ns's history-event window: refused when it has no room left,
// so a start is turned away while the namespace is over its events a minute.
func (l *limitsState) eventsFull(ns string) decision {
	d := l.events.Peek(ns)
	d.Scope = scopeNamespace(ns)
	return d
}

// takeActivities counts n activities a workflow task schedules against
// ns, all or none: refused when they would pass the limit.
func (l *limitsState) takeActivities(ns string, n int) decision {
	if n == 0 {
		return decision{Allowed: true}
	}
	return takeScoped(l.activities, ns, scopeNamespace(ns), n)
}

// scheduledActivities counts the SCHEDULE_ACTIVITY_TASK commands of cmds.
func scheduledActivities(cmds []*orchpb.Command) int {
	n := 0
	for _, c := range cmds {
		if c.GetCommandType() == orchpb.CommandType_SCHEDULE_ACTIVITY_TASK {
			n++
		}
	}
	return n
}

// historyWrites are the operations whose request writes history events
// (starts aside: a start checks the window where the run is made): each
// is refused while its namespace's window of history events is full.
// Events the fake writes by itself (timers, timeouts, a poll's
// WorkflowTaskStarted) are never refused: a run cannot stop half way.
var historyWrites = map[string]bool{
	"SignalWorkflowExecution": true, "SignalWithStartWorkflowExecution": true, "RequestCancelWorkflowExecution": true,
	"TerminateWorkflowExecution": true, "RespondWorkflowTaskCompleted": true, "RespondWorkflowTaskFailed": true,
	"RespondActivityTaskCompleted": true, "RespondActivityTaskFailed": true, "RespondActivityTaskCanceled": true,
	"RespondActivityTaskCompletedById": true, "RespondActivityTaskFailedById": true, "RespondActivityTaskCanceledById": true,
}

// peekCluster is the cluster window as it stands, for answers that never
// reached an operation (a malformed HTTP body).
func (l *limitsState) peekCluster() decision { return l.cluster.Peek("") }

// rateHeader writes the decision as lower-case metadata keys (the HTTP side
// maps them to X-RateLimit-* headers).
func rateHeader(d decision, h map[string]string) {
	if d.Limit <= 0 {
		return
	}
	h["x-ratelimit-limit"] = strconv.Itoa(d.Limit)
	h["x-ratelimit-remaining"] = strconv.Itoa(d.Remaining)
	h["x-ratelimit-reset"] = strconv.FormatInt(d.Reset.Unix(), 10)
	h["x-ratelimit-scope"] = d.Scope
	if !d.Allowed {
		h["retry-after"] = strconv.FormatInt(d.RetryAfterSeconds(), 10)
	}
}

// rateErr is RESOURCE_EXHAUSTED with the RateLimitExceeded detail.
func rateErr(d decision) *apiError {
	return &apiError{
		code: orchwire.ResourceExhausted,
		msg:  "rate limit exceeded for " + d.Scope + ": " + strconv.Itoa(d.Limit) + " per " + limitWindowName,
		details: []*orchpb.ErrorDetail{{
			Type: orchwire.DetailRateLimitExceeded, Scope: d.Scope, Limit: int32(d.Limit),
			Window: limitWindowName, RetryAfter: int32(d.RetryAfterSeconds()),
		}},
	}
}
