package rest

import (
	"net/http"
	"time"

	"github.com/apitwin/apitwin/apicall"
)

// RateLimit is the public apicall.RateLimit, as the REST core reads it.
type RateLimit = apicall.RateLimit

// RateLimitError is the public apicall.RateLimitError.
type RateLimitError = apicall.RateLimitError

// ParseRateLimit reads the rate-limit headers of a response (apicall.ParseRateLimit).
func ParseRateLimit(h http.Header, now time.Time) RateLimit { return apicall.ParseRateLimit(h, now) }

// ParseRetryAfter reads a Retry-After value (apicall.ParseRetryAfter).
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	return apicall.ParseRetryAfter(v, now)
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
