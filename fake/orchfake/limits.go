package orchfake

import (
	"strconv"
	"sync"
	"time"

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

type window struct {
	reset time.Time
	used  int
}

type counter struct {
	limit   int
	windows map[string]*window
}

type limitsState struct {
	mu         sync.Mutex
	cfg        Limits
	cluster    counter
	starts     counter
	activities counter
	queues     counter
	events     counter
}

func (l *limitsState) init(cfg Limits) {
	l.cfg = cfg
	mk := func(n int) counter { return counter{limit: n, windows: map[string]*window{}} }
	l.cluster = mk(cfg.ClusterRequestsPerMinute)
	l.starts = mk(cfg.NamespaceStartsPerMinute)
	l.activities = mk(cfg.NamespaceActivitiesPerMinute)
	l.queues = mk(cfg.TaskQueueOpsPerMinute)
	l.events = mk(cfg.NamespaceHistoryEventsPerMinute)
}

// decision is the outcome of one request against one scope's window.
type decision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Time
	RetryAfter time.Duration
	Scope      string
	Window     string
}

// take counts n against key's window; c.mu (limitsState.mu) must be held.
func (c *counter) take(now time.Time, key, scope string, n int) decision {
	if c.limit < 0 {
		return decision{Allowed: true}
	}
	w := c.windows[key]
	if w == nil || !now.Before(w.reset) {
		if w == nil && len(c.windows) >= 10_000 {
			for k, old := range c.windows {
				if !now.Before(old.reset) {
					delete(c.windows, k)
				}
			}
		}
		w = &window{reset: now.Add(limitWindow)}
		c.windows[key] = w
	}
	d := decision{Limit: c.limit, Reset: w.reset, Scope: scope, Window: limitWindowName}
	if w.used+n > c.limit {
		d.Remaining = max(c.limit-w.used, 0)
		d.RetryAfter = w.reset.Sub(now)
		return d
	}
	w.used += n
	d.Allowed = true
	d.Remaining = c.limit - w.used
	return d
}

// admit counts a request: against the cluster, then against its
// operation's own scope. The decision reported is the refusal, if any, or
// else the narrowest scope that counted the request.
func (l *limitsState) admit(now time.Time, o op, ns, tq string) decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.cluster.take(now, "", scopeCluster, 1)
	if !d.Allowed {
		return d
	}
	switch {
	case o.kind == kindStart && ns != "":
		if n := l.starts.take(now, ns, scopeNamespace(ns), 1); n.Limit > 0 {
			d = n
		}
	case o.kind == kindTaskQueue && ns != "" && tq != "":
		if n := l.queues.take(now, ns+"\x00"+tq, scopeTaskQueue(ns, tq), 1); n.Limit > 0 {
			d = n
		}
	}
	return d
}

// takeEvents counts n history events against ns (the events are written
// whatever the answer: the caller checks first with canWriteEvents).
func (l *limitsState) takeEvents(now time.Time, ns string, n int) decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.events.take(now, ns, scopeNamespace(ns), n)
}

// takeActivity counts one scheduled activity against ns.
func (l *limitsState) takeActivity(now time.Time, ns string) decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.activities.take(now, ns, scopeNamespace(ns), 1)
}

// peekCluster is the cluster window as it stands, for answers that never
// reached an operation (a malformed HTTP body).
func (l *limitsState) peekCluster(now time.Time) decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := &l.cluster
	if c.limit < 0 {
		return decision{Allowed: true}
	}
	d := decision{Allowed: true, Limit: c.limit, Remaining: c.limit, Reset: now.Add(limitWindow), Scope: scopeCluster, Window: limitWindowName}
	if w := c.windows[""]; w != nil && now.Before(w.reset) {
		d.Remaining, d.Reset = max(c.limit-w.used, 0), w.reset
	}
	return d
}

// header writes the decision as lower-case metadata keys (the HTTP side
// maps them to X-RateLimit-* headers).
func (d decision) header(h map[string]string) {
	if d.Limit <= 0 {
		return
	}
	h["x-ratelimit-limit"] = strconv.Itoa(d.Limit)
	h["x-ratelimit-remaining"] = strconv.Itoa(d.Remaining)
	h["x-ratelimit-reset"] = strconv.FormatInt(d.Reset.Unix(), 10)
	h["x-ratelimit-scope"] = d.Scope
	if !d.Allowed {
		h["retry-after"] = strconv.Itoa(d.retryAfterSeconds())
	}
}

func (d decision) retryAfterSeconds() int {
	return max(int((d.RetryAfter+time.Second-1)/time.Second), 1)
}

// err is RESOURCE_EXHAUSTED with the RateLimitExceeded detail.
func (d decision) err() *apiError {
	return &apiError{
		code: orchwire.ResourceExhausted,
		msg:  "rate limit exceeded for " + d.Scope + ": " + strconv.Itoa(d.Limit) + " per " + d.Window,
		details: []*orchpb.ErrorDetail{{
			Type: orchwire.DetailRateLimitExceeded, Scope: d.Scope, Limit: int32(d.Limit),
			Window: d.Window, RetryAfter: int32(d.retryAfterSeconds()),
		}},
	}
}
