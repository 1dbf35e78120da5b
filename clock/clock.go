// Package clock is the time source shared by apitwin's clients and fakes.
//
// Everything in apitwin that waits or reads the time does it through a Clock:
// a client's retry and rate-limit waits, a fake's token expiry, rate-limit
// windows and timers. In production that is the wall clock ([Real]). In tests a
// client and the fake it talks to share one [Fake], so a test that meets a
// "429, retry after 60 s" finishes at once: the client's wait moves the fake
// clock forward by 60 s, the fake's rate-limit window resets, and the retry
// succeeds, with no real sleeping anywhere.
//
//	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
//	clk.Advance(time.Hour) // everything due in that hour fires, in order
package clock

import (
	"context"
	"time"
)

// Clock tells the time and waits.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Sleep waits for d, or until ctx is done, whichever comes first. It
	// returns ctx.Err() when ctx ended the wait and nil otherwise.
	Sleep(ctx context.Context, d time.Duration) error
}

// Real returns the wall clock.
func Real() Clock { return realClock{} }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
