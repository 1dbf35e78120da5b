package orchfake

import (
	"fmt"
	"maps"
	"slices"

	"github.com/apitwin/apitwin/internal/fakekit"
	"github.com/apitwin/apitwin/internal/orchwire"
)

// What the fake keeps is bounded (see the package doc's Bounds):
//
//   - workflow runs: at most control.WithMaxRecords in all namespaces together.
//     A run past its namespace's retention is gone (Server.expired) and
//     dropped when room is needed, as the service deletes it. A start past
//     the bound (StartWorkflowExecution, SignalWithStart, a child, a seed)
//     is RESOURCE_EXHAUSTED, a child's refusal its parent's
//     StartChildWorkflowExecutionFailed; a retry or cron run past it is not
//     started (the chain ends with the run that closed), and a
//     continue-as-new past it terminates the run instead.
//   - namespaces and task queues: at most control.WithMaxRecords each; a new one
//     past it is RESOURCE_EXHAUSTED.
//   - a run's history: at most MaxHistoryEvents events (the service's
//     history count limit): a signal or a cancel request past it is
//     INVALID_ARGUMENT, and a workflow task that completes past it
//     terminates the run, "Workflow history count exceeds limit.", as the
//     service terminates it.
//   - the histories of all runs together: at most three times
//     control.WithMaxRecords events. Past it a start, a signal or a cancel request is refused
//     (RESOURCE_EXHAUSTED), and a workflow task that completes terminates
//     its run as past the count limit.

// MaxHistoryEvents is the most events a run's history holds, the
// service's default history count limit.
const MaxHistoryEvents = 51_200

// DefaultMaxRecords is the default of control.WithMaxRecords: fakekit's,
// 100,000.
const DefaultMaxRecords = fakekit.DefaultMaxRecords

func (s *Server) maxRecords() int {
	if s.cfg.maxRecords > 0 {
		return s.cfg.maxRecords
	}
	return DefaultMaxRecords
}

// full is the refusal of a record of kind past the bound.
func (s *Server) full(kind string) *apiError {
	return &apiError{code: orchwire.ResourceExhausted,
		msg: fmt.Sprintf("the service keeps at most %d %s; no room for another", s.maxRecords(), kind)}
}

// runs counts the runs of every namespace. s.mu must be held.
func (st *state) runs() int {
	n := 0
	for _, ns := range st.namespaces {
		n += len(ns.runs)
	}
	return n
}

// roomForRun reports whether one more run fits, dropping the runs past
// their retention first when it must. s.mu must be held.
func (s *Server) roomForRun() bool {
	if s.st.runs() < s.maxRecords() {
		return true
	}
	s.dropExpired()
	return s.st.runs() < s.maxRecords()
}

// dropExpired drops the closed runs past their namespace's retention,
// which the fake already treats as gone: from the runs, their workflow's
// runs, the request ids that started them and the start index, which is
// rebuilt. s.mu must be held.
func (s *Server) dropExpired() {
	for _, ns := range s.st.namespaces {
		dropped := false
		for _, e := range ns.runs {
			if s.expired(e) {
				s.forgetRun(e)
				dropped = true
			}
		}
		if dropped {
			ns.byStart, ns.unfiled = nil, slices.Collect(maps.Values(ns.runs))
		}
	}
}

// forgetRun removes a closed run from its namespace: from the runs, its
// workflow's runs, the request ids that started it and the event and shard
// counts; the caller rebuilds the start index. s.mu must be held.
func (s *Server) forgetRun(e *execution) {
	ns := e.ns
	delete(ns.runs, e.runID)
	s.countEvents(-len(e.history))
	if rid := e.startReq.GetRequestId(); rid != "" && ns.starts[e.id+"\x00"+rid] == e {
		delete(ns.starts, e.id+"\x00"+rid)
	}
	if wf := e.wf; wf != nil {
		wf.runs = slices.DeleteFunc(wf.runs, func(x *execution) bool { return x == e })
		if len(wf.runs) == 0 && ns.workflows[wf.id] == wf {
			delete(ns.workflows, wf.id)
		}
	}
	if sh := s.st.shardFor(ns, e.id); sh.executions > 0 {
		sh.executions--
	}
}

// dropRun is forgetRun of one run, with the start index rebuilt. s.mu
// must be held.
func (s *Server) dropRun(e *execution) {
	s.forgetRun(e)
	ns := e.ns
	ns.byStart, ns.unfiled = nil, slices.Collect(maps.Values(ns.runs))
}

// queues counts the task queues of every namespace. s.mu must be held.
func (st *state) queues() int {
	n := 0
	for _, ns := range st.namespaces {
		n += len(ns.queues)
	}
	return n
}

// roomForQueue refuses a new task queue name past the bound (nil when the
// queue exists or fits). s.mu must be held.
func (s *Server) roomForQueue(ns *namespace, name string) error {
	if ns.queues[name] != nil || s.st.queues() < s.maxRecords() {
		return nil
	}
	return s.full("task queues")
}

// historyFull refuses an event a caller adds (a signal, a cancel request)
// to a run whose history is at the service's limit, or when all the
// histories are at theirs. s.mu must be held.
func (s *Server) historyFull(e *execution) error {
	if len(e.history) >= MaxHistoryEvents {
		return &apiError{code: orchwire.InvalidArgument,
			msg: fmt.Sprintf("the workflow execution's history is at its limit of %d events", MaxHistoryEvents)}
	}
	return s.eventsFull()
}

// maxEvents is the bound of the events of all histories together.
func (s *Server) maxEvents() int { return 3 * s.maxRecords() }

// eventsFull refuses new history when all the histories hold maxEvents,
// after dropping the runs past their retention. s.mu must be held.
func (s *Server) eventsFull() error {
	if s.eventCount() < s.maxEvents() {
		return nil
	}
	s.dropExpired()
	if s.eventCount() < s.maxEvents() {
		return nil
	}
	return s.full("history events in all")
}

// eventCounts is the count of the history events of one state.
type eventCounts struct {
	st *state
	n  int
}

// eventCount is how many events the histories of s.st hold: counted from
// the state the first time, and for a state that replaced it (Reset,
// Restore), then kept by appendEvent and dropExpired. s.mu must be held.
func (s *Server) eventCount() int {
	if s.events.st != s.st {
		n := 0
		for _, ns := range s.st.namespaces {
			for _, e := range ns.runs {
				n += len(e.history)
			}
		}
		s.events = eventCounts{s.st, n}
	}
	return s.events.n
}

// countEvents counts n events added to s.st's histories (n < 0: dropped).
func (s *Server) countEvents(n int) {
	if s.events.st == s.st {
		s.events.n += n
	}
}
