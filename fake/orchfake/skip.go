package orchfake

import "time"

// kickSkip, with WithTimeSkipping, moves the clock to the next timer of
// the engine when nothing else can happen first: no task waits for a
// worker or is on its way to one, and none is being worked on (by a
// worker that is not gone: see startedByGoneWorker). It runs in its own
// goroutine, one at a time; a kick while it runs makes it look again.
func (s *Server) kickSkip() {
	if !s.cfg.timeSkipping || s.isClosed() {
		return
	}
	s.skipAgain.Store(true)
	if !s.skipping.CompareAndSwap(false, true) {
		return
	}
	go s.skipLoop()
}

func (s *Server) skipLoop() {
	for {
		for s.skipAgain.Swap(false) {
			if at, ok := s.nextSkip(); ok && !s.isClosed() {
				s.clk.Set(at)
				s.skipAgain.Store(true)
			}
		}
		s.skipping.Store(false)
		if !s.skipAgain.Load() || !s.skipping.CompareAndSwap(false, true) {
			return
		}
	}
}

// recheckSkipAfter makes skipping look again after d of real time, once:
// the one wait on the real clock, for a sticky worker that owes a poll
// (see workerAlive). s.mu must be held.
func (s *Server) recheckSkipAfter(d time.Duration) {
	if s.skipRecheck != nil {
		return
	}
	s.skipRecheck = time.AfterFunc(d, func() {
		s.mu.Lock()
		s.skipRecheck = nil
		s.mu.Unlock()
		s.kickSkip()
	})
}

// nextSkip is the time to move to, if the engine is idle and has a timer.
func (s *Server) nextSkip() (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var next time.Time
	for _, ns := range s.st.namespaces {
		for _, q := range ns.queues {
			inFlight := q.sides[sideWorkflow].inFlight > 0 || q.sides[sideActivity].inFlight > 0
			if !inFlight && q.backlogCount(sideWorkflow) == 0 && q.backlogCount(sideActivity) == 0 {
				continue
			}
			// A task handed to a poll is on its way to a worker, which is
			// alive (it owes no poll until the poll's goroutine starts the
			// task); only tasks waiting on a sticky queue ask whether its
			// worker still is.
			if q.stickyKey != "" && !inFlight && !s.workerAlive(ns, q.stickyKey) {
				// A task on the sticky queue of a worker that is gone
				// waits for its schedule-to-start timer: a jump may take
				// it there.
				continue
			}
			return time.Time{}, false
		}
		for _, e := range ns.runs {
			if !e.open() && len(e.eng.queries) == 0 {
				continue
			}
			if t := e.eng.wft; t != nil && t.startedID != 0 && !s.startedByGoneWorker(ns, t.key) {
				return time.Time{}, false
			}
			for _, a := range e.eng.activities {
				if a.started && !s.startedByGoneWorker(ns, a.key) {
					return time.Time{}, false
				}
			}
			if len(e.eng.queries) > 0 {
				return time.Time{}, false
			}
			for et := range e.eng.timers {
				if next.IsZero() || et.at.Before(next) {
					next = et.at
				}
			}
		}
	}
	return next, !next.IsZero()
}
