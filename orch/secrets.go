package orch

import (
	"net/http"

	"github.com/apitwin/apitwin/internal/rest"
)

// scrubCore is the REST core (internal/rest) a gRPC client keeps for its
// scrub alone: it never sends a request, its base URL is a placeholder,
// and its secrets are the token's. The HTTP transport's core does the same
// for a client of NewHTTP.
func scrubCore(s *settings) (*rest.Client, error) {
	cfg := rest.Config{
		Service:    "orch",
		BaseURL:    "http://orch.invalid",
		HTTPClient: http.DefaultClient, // never used: no transport of its own to build
		ScrubError: scrubError,
	}
	if s.token != "" {
		cfg.Secrets = []string{s.token}
	}
	return rest.New(cfg)
}

// scrubError is the REST core's ScrubError: an *Error is cleaned of the
// token in place (its code, message, details, rate-limit values and the
// error it wraps), so errors.As still finds it and errors.Is still
// matches its sentinels.
func scrubError(err error, s *rest.Scrubber) (error, bool) {
	e, ok := err.(*Error)
	if !ok {
		return err, false
	}
	e.Code, e.Message, e.GaveUp = s.String(e.Code), s.String(e.Message), s.String(e.GaveUp)
	for _, d := range e.Details {
		if d != nil {
			d.Type, d.Field, d.Description = s.String(d.Type), s.String(d.Field), s.String(d.Description)
			d.Scope, d.Window = s.String(d.Scope), s.String(d.Window)
		}
	}
	if r := e.RateLimitExceeded; r != nil {
		r.Scope, r.Window = s.String(r.Scope), s.String(r.Window)
	}
	e.RateLimit.Scope = s.String(e.RateLimit.Scope)
	e.cause = s.Error(e.cause)
	return e, true
}
