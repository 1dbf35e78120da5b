// Package observe is where tracing and metrics plug into apitwin's
// clients, without the clients depending on any tracing library. Two
// places, each an option of every client (WithHook, WithTransport):
//
//   - A Hook sees each call once, whatever its retries: the service, the
//     operation, and when it ends the status, the error code, the retry
//     count and the error. It is where a span per call goes (OpenTelemetry:
//     tracer.Start in the hook, span.End in the function it returns).
//   - A Transport wraps the HTTP transport of the REST clients and of orch
//     over HTTP: it sees every attempt on the wire (otelhttp.NewTransport
//     fits here). For orch over gRPC, WithGRPCDialOptions takes
//     interceptors or a stats handler (otelgrpc) instead.
//
// A hook that starts an OpenTelemetry span:
//
//	hook := func(ctx context.Context, c observe.Call) (context.Context, func(observe.Outcome)) {
//		ctx, span := tracer.Start(ctx, c.Service+" "+c.Operation)
//		return ctx, func(o observe.Outcome) {
//			span.SetAttributes(attribute.Int("http.status_code", o.StatusCode), attribute.Int("retries", o.Retries))
//			if o.Err != nil {
//				span.RecordError(o.Err)
//			}
//			span.End()
//		}
//	}
//	client, err := sourcehost.New(url, sourcehost.WithHook(hook))
package observe

import (
	"context"
	"net/http"
)

// Call is one call of a client, as a Hook sees it start.
type Call struct {
	// Service is the API: "sourcehost", "erp", "cloudauth", "mcp", "orch".
	Service string
	// Operation names the call: "GET /projects/7" for the REST clients (the
	// path under the API root), the RPC's name for orch
	// ("StartWorkflowExecution"), the JSON-RPC method for mcp.
	Operation string
}

// Outcome is how a call ended.
type Outcome struct {
	// StatusCode is the HTTP status of the last answer (over gRPC, of its
	// code), 0 when none came.
	StatusCode int
	// Code is the service's error code (orch, mcp), "" otherwise.
	Code string
	// Retries is how many times the call was sent again.
	Retries int
	// Err is the error the caller got, nil on success.
	Err error
}

// Hook is called as each call starts; the context it returns is the one
// the call runs with (a span's), and the function it returns is called
// once, when the call ends. Hooks must be safe for concurrent use.
type Hook func(ctx context.Context, call Call) (context.Context, func(Outcome))

// Transport wraps a client's HTTP transport: it is given the one the
// client would use and returns the one it will.
type Transport func(http.RoundTripper) http.RoundTripper
