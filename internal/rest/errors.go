package rest

import (
	"strings"
)

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
