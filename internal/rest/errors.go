package rest

import (
	"fmt"
	"strings"
	"time"
)

// RateLimitError is returned when a request was refused for its rate limit
// (429) and the client did not, or could no longer, retry it. Each client
// package exposes it under its own name and matches it with
// errors.Is(err, ErrRateLimited) through the wrapped package error.
type RateLimitError struct {
	// RateLimit holds the values of the last 429 answer.
	RateLimit RateLimit
	// RetryAfter is how long to wait before trying again: the server's
	// Retry-After, or the wait the client computed.
	RetryAfter time.Duration
	// Retries is how many times the request was sent again before giving up.
	Retries int
	// Reason says why the client stopped retrying, e.g. "gave up after 3
	// retries" or "a wait of 1m0s would pass the context deadline".
	Reason string
	// Err is the package's error for the 429 answer.
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

// Redacted is the text that stands where a secret was.
const Redacted = "[REDACTED]"

func newRedactor(secrets []string) *strings.Replacer {
	var pairs []string
	for _, s := range secrets {
		if len(s) < 4 { // too short to be a real secret; replacing it would shred every message
			continue
		}
		pairs = append(pairs, s, Redacted)
	}
	if len(pairs) == 0 {
		return nil
	}
	return strings.NewReplacer(pairs...)
}

func (c *Client) redact(s string) string {
	if c.redactor == nil {
		return s
	}
	return c.redactor.Replace(s)
}

// redactErr returns err, or when its text holds a secret, an error with the
// secret replaced that still unwraps to err for errors.Is and errors.As.
func (c *Client) redactErr(err error) error {
	if err == nil || c.redactor == nil {
		return err
	}
	msg := err.Error()
	if clean := c.redactor.Replace(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
