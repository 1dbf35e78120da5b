package orch

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

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

// scrubbingLogger is l with the core's secrets taken out of every message
// and attribute of its records (the core's Redact and Scrub do the work).
func scrubbingLogger(l *slog.Logger, core *rest.Client) *slog.Logger {
	if l == nil || core == nil {
		return l
	}
	return slog.New(&scrubHandler{next: l.Handler(), core: core})
}

// scrubHandler passes on records cleaned by the core.
type scrubHandler struct {
	next slog.Handler
	core *rest.Client
}

func (h *scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *scrubHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.core.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *scrubHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	attrs = slices.Clone(attrs)
	for i, a := range attrs {
		attrs[i] = h.attr(a)
	}
	return &scrubHandler{next: h.next.WithAttrs(attrs), core: h.core}
}

func (h *scrubHandler) WithGroup(name string) slog.Handler {
	return &scrubHandler{next: h.next.WithGroup(name), core: h.core}
}

// attr is a with the secrets taken out of its value.
func (h *scrubHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.core.Redact(v.String()))
	case slog.KindGroup:
		g := slices.Clone(v.Group())
		for i, ga := range g {
			g[i] = h.attr(ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(g...)}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.Any(a.Key, h.core.Scrub(err))
		}
		if s := fmt.Sprint(v.Any()); h.core.Redact(s) != s {
			return slog.String(a.Key, h.core.Redact(s))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
