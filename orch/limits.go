package orch

import (
	"context"
	"fmt"
	"math"
	"time"

	"golang.org/x/time/rate"

	"github.com/apitwin/apitwin/clock"
)

// Unlimited switches one client-side limit off.
const Unlimited = -1

// ClientLimits are the limits the client keeps to on its own, before the
// server's: the specification's client rows. A zero field means its default;
// Unlimited switches it off.
type ClientLimits struct {
	// RequestsPerSecond bounds the calls sent (retries included); default
	// 100, with bursts of as many.
	RequestsPerSecond float64
	// ConcurrentLongPolls bounds the long polls in flight at once (task
	// queue polls and history waits); default 10. A long poll beyond it
	// waits for a slot.
	ConcurrentLongPolls int
	// HeartbeatsPerMinute bounds activity heartbeats; default 1,000, with
	// bursts of as many.
	HeartbeatsPerMinute int
}

// Defaults of ClientLimits, from the specification's table.
const (
	DefaultRequestsPerSecond   = 100
	DefaultConcurrentLongPolls = 10
	DefaultHeartbeatsPerMinute = 1000
)

func (l ClientLimits) validate() error {
	if l.RequestsPerSecond < 0 && l.RequestsPerSecond != Unlimited || math.IsNaN(l.RequestsPerSecond) || math.IsInf(l.RequestsPerSecond, 0) {
		return fmt.Errorf("client limits: RequestsPerSecond %v: want a positive number or Unlimited", l.RequestsPerSecond)
	}
	if l.ConcurrentLongPolls < 0 && l.ConcurrentLongPolls != Unlimited {
		return fmt.Errorf("client limits: ConcurrentLongPolls %d: want a positive number or Unlimited", l.ConcurrentLongPolls)
	}
	if l.HeartbeatsPerMinute < 0 && l.HeartbeatsPerMinute != Unlimited {
		return fmt.Errorf("client limits: HeartbeatsPerMinute %d: want a positive number or Unlimited", l.HeartbeatsPerMinute)
	}
	return nil
}

func (l ClientLimits) withDefaults() ClientLimits {
	if l.RequestsPerSecond == 0 {
		l.RequestsPerSecond = DefaultRequestsPerSecond
	}
	if l.ConcurrentLongPolls == 0 {
		l.ConcurrentLongPolls = DefaultConcurrentLongPolls
	}
	if l.HeartbeatsPerMinute == 0 {
		l.HeartbeatsPerMinute = DefaultHeartbeatsPerMinute
	}
	return l
}

// limiter enforces ClientLimits on one clock.
type limiter struct {
	clk        clock.Clock
	requests   *rate.Limiter // nil: unlimited
	heartbeats *rate.Limiter
	polls      chan struct{} // nil: unlimited
	limits     ClientLimits
}

func newLimiter(l ClientLimits, clk clock.Clock) *limiter {
	lim := &limiter{clk: clk, limits: l}
	if l.RequestsPerSecond > 0 {
		lim.requests = rate.NewLimiter(rate.Limit(l.RequestsPerSecond), max(1, int(math.Ceil(l.RequestsPerSecond))))
	}
	if l.HeartbeatsPerMinute > 0 {
		lim.heartbeats = rate.NewLimiter(rate.Limit(float64(l.HeartbeatsPerMinute)/60), l.HeartbeatsPerMinute)
	}
	if l.ConcurrentLongPolls > 0 {
		lim.polls = make(chan struct{}, l.ConcurrentLongPolls)
	}
	return lim
}

// wait takes one token of r, waiting on the client's clock.
func (lim *limiter) wait(ctx context.Context, r *rate.Limiter) error {
	if r == nil {
		return ctx.Err()
	}
	now := lim.clk.Now()
	res := r.ReserveN(now, 1)
	if !res.OK() {
		return fmt.Errorf("client limit: burst too small")
	}
	d := res.DelayFrom(now)
	if d <= 0 {
		return ctx.Err()
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		res.CancelAt(now)
		return context.DeadlineExceeded
	}
	if err := lim.clk.Sleep(ctx, d); err != nil {
		res.CancelAt(lim.clk.Now())
		return err
	}
	return nil
}

// request waits for the right to send one call.
func (lim *limiter) request(ctx context.Context) error { return lim.wait(ctx, lim.requests) }

// heartbeat waits for the right to send one heartbeat.
func (lim *limiter) heartbeat(ctx context.Context) error { return lim.wait(ctx, lim.heartbeats) }

// heartbeatAllowed reports, without waiting, whether a heartbeat may be sent
// now, and takes its token when it may. Workers use it to skip a heartbeat
// rather than queue it.
func (lim *limiter) heartbeatAllowed() bool {
	if lim.heartbeats == nil {
		return true
	}
	return lim.heartbeats.AllowN(lim.clk.Now(), 1)
}

// longPoll takes a long-poll slot; release gives it back.
func (lim *limiter) longPoll(ctx context.Context) (release func(), err error) {
	if lim.polls == nil {
		return func() {}, nil
	}
	select {
	case lim.polls <- struct{}{}:
		return func() { <-lim.polls }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
