package controlapi

import "time"

// SetWall makes w read the wall clock from now, for tests that move it.
func SetWall(w *WallClock, now func() time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.wall = now
}

// CatchUp is one tick of Run.
func CatchUp(w *WallClock) { w.catchUp() }

// SetSessionClock makes s's console sessions read the wall clock from now,
// for tests that move it.
func SetSessionClock(s *Server, now func() time.Time) {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	s.sessions.now = now
}

// SessionCount is how many console sessions s holds.
func SessionCount(s *Server) int {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	return len(s.sessions.ends)
}
