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
