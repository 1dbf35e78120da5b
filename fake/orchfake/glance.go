package orchfake

import (
	"slices"
	"strings"

	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/internal/orchwire"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// Workflows lists the runs of namespace (every namespace's when it is
// ""), newest start first: what apitwin-fake's control API and console show
// at a glance. It reads the fake's state directly, so it adds nothing to
// the request log.
func (s *Server) Workflows(namespace string) []control.WorkflowRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []control.WorkflowRecord{}
	for name, ns := range s.st.namespaces {
		if namespace != "" && name != namespace {
			continue
		}
		for _, e := range ns.runs {
			rec := control.WorkflowRecord{
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
	slices.SortFunc(out, func(a, b control.WorkflowRecord) int {
		if c := b.StartTime.Compare(a.StartTime); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
	return out
}

// History returns the events of one run (the latest run of workflowID
// when runID is ""), with their attributes as the HTTP/JSON API gives
// them; false when there is no such run.
func (s *Server) History(namespace, workflowID, runID string) ([]control.HistoryEventRecord, bool) {
	st, ok := s.Execution(namespace, workflowID, runID)
	if !ok {
		return nil, false
	}
	out := make([]control.HistoryEventRecord, 0, len(st.History))
	for _, ev := range st.History {
		rec := control.HistoryEventRecord{
			EventID: ev.GetEventId(), Time: ev.GetEventTime().AsTime(),
			Type: ev.GetEventType().String(),
		}
		// The event without its id, time and type: its attributes.
		attrs := &orchpb.HistoryEvent{Attributes: ev.GetAttributes()}
		if b, err := orchwire.MarshalJSON.Marshal(attrs); err == nil {
			rec.Attributes = string(b)
		}
		out = append(out, rec)
	}
	return out, true
}

// TaskQueues lists the task queues known in every namespace, with their
// backlogs and pollers, by namespace and name.
func (s *Server) TaskQueues() []control.TaskQueueRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []control.TaskQueueRecord{}
	for name, ns := range s.st.namespaces {
		for _, q := range ns.queues {
			out = append(out, control.TaskQueueRecord{
				Namespace: name, Name: q.name,
				WorkflowBacklog: len(q.sides[sideWorkflow].backlog), ActivityBacklog: len(q.sides[sideActivity].backlog),
				WorkflowPollers: len(q.sides[sideWorkflow].pollers), ActivityPollers: len(q.sides[sideActivity].pollers),
			})
		}
	}
	slices.SortFunc(out, func(a, b control.TaskQueueRecord) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}
