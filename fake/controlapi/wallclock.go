package controlapi

import (
	"context"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// WallClock drives the fakes' shared clock for a program that serves them
// to people: it follows the wall clock (so tokens expire and pipelines move
// on as they would for real), keeping whatever the control API advanced it
// by, or stays frozen, moving only when advanced or set.
type WallClock struct {
	clk  *clock.Fake
	wall func() time.Time

	mu        sync.Mutex
	following bool
	offset    time.Duration // the fakes' time minus the wall clock's while following
}

// NewWallClock returns a WallClock of clk, following the wall clock when
// follow is set. Run makes it move.
func NewWallClock(clk *clock.Fake, follow bool) *WallClock {
	w := &WallClock{clk: clk, wall: time.Now, following: follow}
	w.offset = clk.Now().Sub(w.wall())
	return w
}

// followEvery is how often a following clock catches up with the wall.
const followEvery = 100 * time.Millisecond

// Run moves the clock with the wall clock while following, until ctx ends.
func (w *WallClock) Run(ctx context.Context) {
	tick := time.NewTicker(followEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.catchUp()
		}
	}
}

// catchUp moves a following clock to the wall clock's time plus the
// advances made; a clock already past that (set ahead) waits for it.
func (w *WallClock) catchUp() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.following {
		return
	}
	if target := w.wall().Add(w.offset); target.After(w.clk.Now()) {
		w.clk.Set(target)
	}
}

// State is the clock's time and mode.
func (w *WallClock) State() ClockState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.state()
}

// state is State with w.mu held.
func (w *WallClock) state() ClockState {
	return ClockState{Now: w.clk.Now(), FollowingWallClock: w.following}
}

// Advance moves the clock forward by d, which stays added while following.
func (w *WallClock) Advance(d time.Duration) ClockState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.clk.Advance(d)
	w.offset = w.clk.Now().Sub(w.wall())
	return w.state()
}

// Set moves the clock to t; while following it goes on from there.
func (w *WallClock) Set(t time.Time) ClockState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.clk.Set(t)
	w.offset = w.clk.Now().Sub(w.wall())
	return w.state()
}

// Freeze stops following the wall clock.
func (w *WallClock) Freeze() ClockState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.following = false
	return w.state()
}

// Follow makes the clock follow the wall clock from where it stands.
func (w *WallClock) Follow() ClockState {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.following = true
	w.offset = w.clk.Now().Sub(w.wall())
	return w.state()
}
