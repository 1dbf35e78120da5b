package mcp

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/apitwin/apitwin/clock"
)

// Limiter decides whether a caller may spend n requests now. The gateway
// asks once per HTTP request, with n the number of messages in it (a batch
// of 20 spends 20; a refused batch spends nothing). A deployment with
// several replicas can share one Limiter (Redis, say); the default is
// MemoryLimiter.
type Limiter interface {
	Take(ctx context.Context, key string, n int) (RateDecision, error)
}

// RateDecision is a Limiter's answer, and what the X-RateLimit-* headers
// show.
type RateDecision struct {
	Allowed    bool
	Limit      int           // X-RateLimit-Limit: requests per minute
	Remaining  int           // X-RateLimit-Remaining: requests that would pass now
	Reset      time.Time     // X-RateLimit-Reset: when the bucket is full again
	RetryAfter time.Duration // when refused: how long until n would pass
}

// MemoryLimiter is a token bucket per key in this process: perMinute
// requests a minute sustained, burst at once.
type MemoryLimiter struct {
	clk       clock.Clock
	perMinute int
	burst     int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	sweep   time.Time
}

// NewMemoryLimiter returns a limiter on clk (nil for the real clock).
func NewMemoryLimiter(clk clock.Clock, perMinute, burst int) *MemoryLimiter {
	if clk == nil {
		clk = clock.Real()
	}
	return &MemoryLimiter{clk: clk, perMinute: perMinute, burst: burst, buckets: make(map[string]*rate.Limiter)}
}

// Take spends n tokens of key's bucket if it holds them, and nothing if not.
func (l *MemoryLimiter) Take(_ context.Context, key string, n int) (RateDecision, error) {
	now := l.clk.Now()
	every := rate.Limit(float64(l.perMinute) / 60)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetFull(now)
	b := l.buckets[key]
	if b == nil {
		b = rate.NewLimiter(every, l.burst)
		l.buckets[key] = b
	}
	d := RateDecision{Limit: l.perMinute, Allowed: b.AllowN(now, n)}
	tokens := b.TokensAt(now)
	d.Remaining = int(math.Max(0, math.Floor(tokens)))
	d.Reset = now.Add(secondsFor(float64(l.burst)-tokens, every))
	if !d.Allowed {
		d.RetryAfter = secondsFor(float64(n)-tokens, every)
		if n > l.burst {
			d.RetryAfter = time.Minute // never passes; do not invite a busy loop
		}
	}
	return d, nil
}

// forgetFull drops, once a minute, the buckets that have refilled: a full
// bucket is the same as none, and keeping them would grow without bound.
func (l *MemoryLimiter) forgetFull(now time.Time) {
	if now.Sub(l.sweep) < time.Minute {
		return
	}
	l.sweep = now
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, k)
		}
	}
}

// secondsFor is how long the bucket takes to gain tokens, rounded up to a
// whole second as the headers count.
func secondsFor(tokens float64, every rate.Limit) time.Duration {
	if tokens <= 0 || every <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(tokens/float64(every))) * time.Second
}
