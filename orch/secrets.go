package orch

import "github.com/apitwin/apitwin/internal/rest"

// grpcCleaner takes the token out of a gRPC client's errors and log
// records, as the REST core does for a client of NewHTTP.
func grpcCleaner(s *settings) rest.Cleaner {
	return rest.Cleaner{Secrets: rest.NewSecrets(s.token), ScrubError: scrubError}
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
