package fakekit

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/apitwin/apitwin/clock"
)

// RateLimiter counts requests per key (a token, a user, an address) in fixed
// windows on the fake's clock: a key's window opens with its first request
// and allows Limit requests until it ends.
type RateLimiter struct {
	limit  int
	window time.Duration
	scope  string
	clock  *clock.Fake

	mu      sync.Mutex
	windows map[string]*rateWindow
}

type rateWindow struct {
	reset time.Time
	used  int
}

// NewRateLimiter allows limit requests per window per key. A limit of 0 or
// less allows everything and sets no headers. scope, when not empty, is sent
// as X-RateLimit-Scope.
func NewRateLimiter(clk *clock.Fake, limit int, window time.Duration, scope string) *RateLimiter {
	return &RateLimiter{limit: limit, window: window, scope: scope, clock: clk, windows: map[string]*rateWindow{}}
}

// Decision is the outcome of one request against its key's window.
type Decision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Time
	RetryAfter time.Duration // until the window ends; set when refused
	Scope      string
}

// Take counts one request for key.
func (l *RateLimiter) Take(key string) Decision { return l.TakeN(key, 1) }

// TakeN counts n units for key at once (history events written, say). When
// they would pass the limit the request is refused and nothing is counted.
func (l *RateLimiter) TakeN(key string, n int) Decision {
	if l == nil || l.limit <= 0 {
		return Decision{Allowed: true}
	}
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.windows[key]
	if w == nil || !now.Before(w.reset) {
		if w == nil && len(l.windows) >= 10_000 {
			l.prune(now)
		}
		w = &rateWindow{reset: now.Add(l.window)}
		l.windows[key] = w
	}
	d := Decision{Limit: l.limit, Reset: w.reset, Scope: l.scope}
	if w.used+n > l.limit {
		d.Remaining = max(l.limit-w.used, 0)
		d.RetryAfter = w.reset.Sub(now)
		return d
	}
	w.used += n
	d.Allowed = true
	d.Remaining = l.limit - w.used
	return d
}

// Peek is key's window as it stands, counting nothing: whether one more
// request would pass, for answers that never reached an operation but still
// carry the headers, and for checks made before work that counts later.
func (l *RateLimiter) Peek(key string) Decision {
	if l == nil || l.limit <= 0 {
		return Decision{Allowed: true}
	}
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	d := Decision{Allowed: true, Limit: l.limit, Remaining: l.limit, Reset: now.Add(l.window), Scope: l.scope}
	if w := l.windows[key]; w != nil && now.Before(w.reset) {
		d.Remaining, d.Reset = max(l.limit-w.used, 0), w.reset
	}
	if d.Remaining == 0 {
		d.Allowed, d.RetryAfter = false, d.Reset.Sub(now)
	}
	return d
}

// prune forgets ended windows; l.mu must be held.
func (l *RateLimiter) prune(now time.Time) {
	for k, w := range l.windows {
		if !now.Before(w.reset) {
			delete(l.windows, k)
		}
	}
}

// SetHeaders writes X-RateLimit-Limit, -Remaining, -Reset (Unix seconds) and
// -Scope, and for a refused request Retry-After in whole seconds, rounded up.
func (d Decision) SetHeaders(h http.Header) {
	if d.Limit <= 0 {
		return
	}
	// Every answer carries these: the three numbers share one string and
	// the values one array (two allocations, not six).
	var scratch [64]byte
	b := strconv.AppendInt(scratch[:0], int64(d.Limit), 10)
	limitEnd := len(b)
	b = strconv.AppendInt(b, int64(d.Remaining), 10)
	remainingEnd := len(b)
	b = strconv.AppendInt(b, d.Reset.Unix(), 10)
	nums := string(b)
	vals := make([]string, 5)
	vals[0], vals[1], vals[2] = nums[:limitEnd], nums[limitEnd:remainingEnd], nums[remainingEnd:]
	h["X-Ratelimit-Limit"] = vals[0:1:1]
	h["X-Ratelimit-Remaining"] = vals[1:2:2]
	h["X-Ratelimit-Reset"] = vals[2:3:3]
	if d.Scope != "" {
		vals[3] = d.Scope
		h["X-Ratelimit-Scope"] = vals[3:4:4]
	}
	if !d.Allowed {
		vals[4] = strconv.FormatInt(d.RetryAfterSeconds(), 10)
		h["Retry-After"] = vals[4:5:5]
	}
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up, at least 1.
func (d Decision) RetryAfterSeconds() int64 {
	return max(int64((d.RetryAfter+time.Second-1)/time.Second), 1)
}
