package apicall

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimit is what a response said about the caller's rate limit. Every
// apitwin client reads it from every response (over gRPC, from the header
// metadata of the same names), gives it in the call's [Info], and keeps
// the last one seen (the clients' RateLimit method).
//
// Limit is zero when the response carried no limit header; Remaining and
// Reset then mean nothing. RetryAfter is zero unless the response carried a
// Retry-After header.
type RateLimit struct {
	Limit      int           // requests allowed in the current window
	Remaining  int           // requests left in the current window
	Reset      time.Time     // when the current window ends
	Scope      string        // what the limit applies to, e.g. "namespace:default" (X-RateLimit-Scope)
	RetryAfter time.Duration // the wait the server asked for (Retry-After)
}

// Known reports whether the response carried any rate-limit header.
func (r RateLimit) Known() bool {
	return r.Limit > 0 || r.RetryAfter > 0 || !r.Reset.IsZero() || r.Scope != ""
}

// Header names in canonical form, so the map is read without canonicalising.
const (
	hXLimit          = "X-Ratelimit-Limit"
	hXRemaining      = "X-Ratelimit-Remaining"
	hXReset          = "X-Ratelimit-Reset"
	hXScope          = "X-Ratelimit-Scope"
	hLimit           = "Ratelimit-Limit"
	hRemaining       = "Ratelimit-Remaining"
	hReset           = "Ratelimit-Reset"
	hResetTime       = "Ratelimit-Resettime"
	hRetryAfter      = "Retry-After"
	epochSecondsFrom = 1_000_000_000 // a reset value this large is a Unix time, smaller is a delay
)

// ParseRateLimit reads the rate-limit headers of a response: the
// X-RateLimit-Limit/Remaining/Reset/Scope family, GitLab's
// RateLimit-Limit/Remaining/Reset/ResetTime family (X- wins where both are
// present), and Retry-After in seconds or as an HTTP date. now resolves the
// relative forms. Malformed values are ignored, never an error: a header the
// client cannot read must not fail a request that otherwise succeeded.
func ParseRateLimit(h http.Header, now time.Time) RateLimit {
	var rl RateLimit
	rl.Limit = firstInt(h, hXLimit, hLimit)
	rl.Remaining = firstInt(h, hXRemaining, hRemaining)
	if v := first(h, hXScope); v != "" {
		rl.Scope = v
	}
	if reset, ok := parseReset(first(h, hXReset, hReset), now); ok {
		rl.Reset = reset
	} else if v := first(h, hResetTime); v != "" {
		if t, err := http.ParseTime(v); err == nil {
			rl.Reset = t
		}
	}
	rl.RetryAfter, _ = ParseRetryAfter(first(h, hRetryAfter), now)
	return rl
}

// ParseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
// A date in the past is a zero wait.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 || secs > int64(maxWaitSeconds) {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}

// maxWaitSeconds bounds header values so a hostile or broken server cannot
// overflow a time.Duration; a wait beyond it is treated as absent.
const maxWaitSeconds = 366 * 24 * 3600

// parseReset reads a reset value: Unix seconds, or (as in the IETF draft)
// seconds from now.
func parseReset(v string, now time.Time) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, false
	}
	if n >= epochSecondsFrom {
		return time.Unix(n, 0), true
	}
	if n > maxWaitSeconds {
		return time.Time{}, false
	}
	return now.Add(time.Duration(n) * time.Second), true
}

func first(h http.Header, keys ...string) string {
	for _, k := range keys {
		if v := h[k]; len(v) > 0 && v[0] != "" {
			return v[0]
		}
	}
	return ""
}

func firstInt(h http.Header, keys ...string) int {
	v := first(h, keys...)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// RateLimitError is the error of a call the server refused for its rate
// (HTTP 429, orch's RESOURCE_EXHAUSTED for rate, the mcp gateway's -32000
// with data.status 429) once the client did not, or could no longer, retry
// it. Every client returns it, and names it RateLimitError too
// (sourcehost.RateLimitError, orch.RateLimitError, …); it wraps the
// client's own error, so errors.Is(err, <package>.ErrRateLimited) matches
// it, and errors.As still reaches the client's *Error.
type RateLimitError struct {
	// RateLimit holds the values of the last refusal.
	RateLimit RateLimit
	// RetryAfter is how long to wait before trying again: the longer of
	// the wait the server asked for (Retry-After, the reset time, the
	// service's own field) and the backoff the client's policy computed.
	RetryAfter time.Duration
	// Retries is how many times the call was sent again before giving up.
	Retries int
	// Reason says why the client stopped retrying, e.g. "gave up after 3
	// retries" or "a wait of 1m0s would pass the context deadline".
	Reason string
	// Err is the client's error for the last refusal.
	Err error
}

func (e *RateLimitError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	fmt.Fprintf(&b, " (rate limited; retry after %v", e.RetryAfter)
	if e.RateLimit.Limit > 0 {
		fmt.Fprintf(&b, "; limit %d, remaining %d", e.RateLimit.Limit, e.RateLimit.Remaining)
	}
	if e.Reason != "" {
		b.WriteString("; ")
		b.WriteString(e.Reason)
	}
	b.WriteString(")")
	return b.String()
}

func (e *RateLimitError) Unwrap() error { return e.Err }
