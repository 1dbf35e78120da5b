package orchfake

import (
	"slices"
	"strings"
	"time"

	"github.com/apitwin/apitwin/internal/orchwire"
)

// WorkflowSummary is one workflow run at a glance, as Workflows lists it
// (and apitwin-fake's control API, in JSON). Its history is the run's
// Execution(...).History.
type WorkflowSummary struct {
	Namespace  string `json:"namespace"`
	WorkflowID string `json:"workflow_id"`
	RunID      string `json:"run_id"`
	Type       string `json:"type"`
	TaskQueue  string `json:"task_queue"`
	// Status is the run's status without its prefix: "RUNNING",
	// "COMPLETED", …
	Status        string     `json:"status"`
	StartTime     time.Time  `json:"start_time"`
	CloseTime     *time.Time `json:"close_time,omitempty"` // nil while it runs
	HistoryLength int        `json:"history_length"`
}

// TaskQueueSummary is one task queue at a glance, as TaskQueues lists it
// (and apitwin-fake's control API, in JSON).
type TaskQueueSummary struct {
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	WorkflowBacklog int    `json:"workflow_backlog"`
	ActivityBacklog int    `json:"activity_backlog"`
	WorkflowPollers int    `json:"workflow_pollers"`
	ActivityPollers int    `json:"activity_pollers"`
}

// Workflows lists the runs of namespace (every namespace's when it is
// ""), newest start first: what apitwin-fake's control API and console show
// at a glance. It reads the fake's state directly, so it adds nothing to
// the request log.
func (s *Server) Workflows(namespace string) []WorkflowSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []WorkflowSummary{}
	for name, ns := range s.st.namespaces {
		if namespace != "" && name != namespace {
			continue
		}
		for _, e := range ns.runs {
			rec := WorkflowSummary{
				Namespace: name, WorkflowID: e.id, RunID: e.runID, Type: e.typ, TaskQueue: e.queue,
				Status:    strings.TrimPrefix(e.status.String(), "WORKFLOW_EXECUTION_STATUS_"),
				StartTime: e.start, HistoryLength: len(e.history),
			}
			if !e.closeTime.IsZero() {
				t := e.closeTime
				rec.CloseTime = &t
			}
			out = append(out, rec)
		}
	}
	slices.SortFunc(out, func(a, b WorkflowSummary) int {
		if c := b.StartTime.Compare(a.StartTime); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
	return out
}

// TaskQueues lists the task queues known in every namespace, with their
// backlogs and pollers, by namespace and name.
func (s *Server) TaskQueues() []TaskQueueSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []TaskQueueSummary{}
	for name, ns := range s.st.namespaces {
		for _, q := range ns.queues {
			out = append(out, TaskQueueSummary{
				Namespace: name, Name: q.name,
				WorkflowBacklog: len(q.sides[sideWorkflow].backlog), ActivityBacklog: len(q.sides[sideActivity].backlog),
				WorkflowPollers: len(q.sides[sideWorkflow].pollers), ActivityPollers: len(q.sides[sideActivity].pollers),
			})
		}
	}
	slices.SortFunc(out, func(a, b TaskQueueSummary) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// ScheduleSummary is one schedule at a glance, as Schedules lists it.
type ScheduleSummary struct {
	Namespace    string `json:"namespace"`
	ScheduleID   string `json:"schedule_id"`
	WorkflowType string `json:"workflow_type"`
	// Spec is the spec in a line: its cron strings, intervals ("every
	// 1h0m0s", "+15m0s" for a phase) and how many calendars.
	Spec    string `json:"spec"`
	Overlap string `json:"overlap_policy"` // "SKIP" (also when unspecified), "BUFFER_ONE", …
	Paused  bool   `json:"paused"`
	Notes   string `json:"notes,omitempty"`
	Actions int64  `json:"actions"`
	Running int    `json:"running"`
	// NextAction is when the next action is due (jitter included); nil
	// when none is.
	NextAction *time.Time `json:"next_action,omitempty"`
}

// Schedules lists the schedules of namespace (every namespace's when it is
// ""), by namespace and id: what apitwin-fake's console shows at a glance.
// It reads the fake's state directly, so it adds nothing to the request
// log.
func (s *Server) Schedules(namespace string) []ScheduleSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []ScheduleSummary{}
	for _, sc := range s.st.allSchedules() {
		if namespace != "" && sc.ns.info.Name != namespace {
			continue
		}
		sc.prune()
		sum := ScheduleSummary{
			Namespace: sc.ns.info.Name, ScheduleID: sc.id,
			WorkflowType: sc.def.GetAction().GetStartWorkflow().GetWorkflowType().GetName(),
			Spec:         orchwire.ScheduleSpecText(sc.def.GetSpec()),
			Overlap:      orchwire.OverlapPolicyName(sc.def.GetPolicies().GetOverlapPolicy()),
			Paused:       sc.def.GetState().GetPaused(), Notes: sc.def.GetState().GetNotes(),
			Actions: sc.actions, Running: len(sc.running),
		}
		if next := sc.futureTimes(); len(next) > 0 {
			t := next[0].AsTime()
			sum.NextAction = &t
		}
		out = append(out, sum)
	}
	return out
}
