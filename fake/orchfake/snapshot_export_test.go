package orchfake

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// EngineView is what a snapshot's round trip must keep of the engine,
// which no answer shows whole: each open run's pending clock timers (by
// due time) and each queue's waiting tasks, in order.
type EngineView struct {
	Timers   map[string][]time.Time // run id → due times, sorted
	Backlogs map[string][]string    // namespace/queue/side → tasks
}

// ViewEngine reads s's EngineView.
func ViewEngine(s *Server) EngineView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := EngineView{Timers: map[string][]time.Time{}, Backlogs: map[string][]string{}}
	for _, ns := range s.st.namespaces {
		for _, e := range ns.runs {
			if !e.open() {
				continue
			}
			var due []time.Time
			for et := range e.eng.timers {
				due = append(due, et.at.UTC())
			}
			slices.SortFunc(due, time.Time.Compare)
			v.Timers[e.runID] = due
		}
		for _, name := range slices.Sorted(maps.Keys(ns.queues)) {
			for side, sd := range ns.queues[name].sides {
				var tasks []string
				for _, t := range sd.backlog {
					if !t.live() {
						continue
					}
					switch t := t.(type) {
					case *workflowTask:
						tasks = append(tasks, fmt.Sprintf("workflow task %s#%d attempt %d", t.e.runID, t.scheduledID, t.attempt))
					case *activity:
						tasks = append(tasks, fmt.Sprintf("activity %s#%d attempt %d", t.e.runID, t.scheduledID, t.attempt))
					}
				}
				if len(tasks) > 0 {
					v.Backlogs[fmt.Sprintf("%s/%s/%d", ns.info.Name, name, side)] = tasks
				}
			}
		}
	}
	return v
}
