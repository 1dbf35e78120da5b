package rest

import (
	"net/http"
	"time"

	"github.com/apitwin/apitwin/ratelimit"
)

// RateLimit is the public ratelimit.Status, as the REST core reads it.
type RateLimit = ratelimit.Status

// RateLimitError is the public ratelimit.Error.
type RateLimitError = ratelimit.Error

// ParseRateLimit reads the rate-limit headers of a response (ratelimit.Parse).
func ParseRateLimit(h http.Header, now time.Time) RateLimit { return ratelimit.Parse(h, now) }

// ParseRetryAfter reads a Retry-After value (ratelimit.ParseRetryAfter).
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	return ratelimit.ParseRetryAfter(v, now)
}

const hRetryAfter = "Retry-After"

func first(h http.Header, keys ...string) string {
	for _, k := range keys {
		if v := h[k]; len(v) > 0 && v[0] != "" {
			return v[0]
		}
	}
	return ""
}
