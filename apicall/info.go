package apicall

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/apitwin/apitwin/internal/credential"
)

// Info is what the answer to one call carried. It is filled for a
// successful call and for a call the server answered with an error; a call
// that never got an answer leaves StatusCode 0. When a call was retried,
// Info describes the last answer.
type Info struct {
	// StatusCode is the HTTP status (over gRPC, the HTTP status of the
	// answer's code: 200 for OK); 0 when no answer came.
	StatusCode int
	// Header holds the answer's headers (over gRPC, its header metadata).
	Header http.Header
	// RateLimit is what the answer said about the caller's rate limit.
	RateLimit RateLimit
	// RequestID is the id the server gave the request (X-Request-Id,
	// X-Correlation-Id), "" if none.
	RequestID string
	// Retries is how many times the call was sent again before this answer.
	Retries int
}

// String is Info as %+v prints a struct, with the values of the headers
// that carry credentials (Set-Cookie, Authorization, Private-Token, …)
// shown as [REDACTED]: an answer's Set-Cookie can be the client's session,
// and printing an Info must not print it. The Header field itself holds
// every value as it came.
func (i Info) String() string {
	return fmt.Sprintf("{StatusCode:%d Header:%v RateLimit:%+v RequestID:%s Retries:%d}",
		i.StatusCode, credential.RedactHeader(i.Header, credential.Redacted), i.RateLimit, i.RequestID, i.Retries)
}

// GoString is Info as %#v prints a struct, with the same values hidden as
// in String.
func (i Info) GoString() string {
	return fmt.Sprintf("apicall.Info{StatusCode:%d, Header:%#v, RateLimit:%#v, RequestID:%q, Retries:%d}",
		i.StatusCode, credential.RedactHeader(i.Header, credential.Redacted), i.RateLimit, i.RequestID, i.Retries)
}

// LogValue is Info for slog, the fields of the struct with the same
// values hidden as in String: slog's JSON handler would otherwise encode
// the Header field as it is, a session's Set-Cookie with it.
func (i Info) LogValue() slog.Value {
	return slog.GroupValue(slog.Int("StatusCode", i.StatusCode),
		slog.Any("Header", credential.RedactHeader(i.Header, credential.Redacted)),
		slog.Any("RateLimit", i.RateLimit), slog.String("RequestID", i.RequestID), slog.Int("Retries", i.Retries))
}

type captureKey struct{}

// Capture returns a context that makes the call made with it fill *into
// with what its answer carried. into must stay valid until the call
// returns; read it after.
func Capture(ctx context.Context, into *Info) context.Context {
	return context.WithValue(ctx, captureKey{}, into)
}

// From returns where the caller of ctx wants its call's Info, nil if
// nowhere. Clients (and transports wrapping them) fill it once the call
// ends.
func From(ctx context.Context) *Info {
	into, _ := ctx.Value(captureKey{}).(*Info)
	return into
}

// RequestID reads the request id of an answer's headers: X-Request-Id (as
// sent by GitLab and most proxies), then X-Correlation-Id.
func RequestID(h http.Header) string {
	for _, name := range []string{"X-Request-Id", "X-Correlation-Id"} {
		if v := h.Get(name); v != "" {
			return v
		}
	}
	return ""
}
