package apicall

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
	// ("StartWorkflowExecution"), the JSON-RPC method for mcp ("batch" for
	// a batch).
	Operation string
}

// Outcome is how a call ended.
type Outcome struct {
	// StatusCode is the HTTP status of the last answer (over gRPC, of its
	// code), 0 when none came.
	StatusCode int
	// Code is the service's error code of the last answer: orch's code
	// ("RESOURCE_EXHAUSTED"), the mcp gateway's JSON-RPC error code
	// ("-32000"); "" for the REST clients and for a success.
	Code string
	// Retries is how many times the call was sent again.
	Retries int
	// Err is the error the caller got, nil on success.
	Err error
}

// Hook is called as each call starts, once whatever its retries; the
// context it returns is the one the call runs with (a span's), and the
// function it returns is called once, when the call ends. Hooks must be
// safe for concurrent use. Every client takes one with WithHook.
type Hook func(ctx context.Context, call Call) (context.Context, func(Outcome))

// Transport wraps a client's HTTP transport: it is given the one the
// client would use and returns the one it will. It sees every attempt on
// the wire (otelhttp.NewTransport fits here). Every HTTP client takes one
// with WithTransport; for orch over gRPC, WithGRPCDialOptions takes
// interceptors or a stats handler (otelgrpc) instead.
type Transport func(http.RoundTripper) http.RoundTripper
