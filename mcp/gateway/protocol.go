package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/apitwin/apitwin/internal/mcpwire"
	"github.com/apitwin/apitwin/internal/version"
	"github.com/apitwin/apitwin/mcp"
)

// The Model Context Protocol side of the gateway, on the same endpoint, is
// the official Go SDK's streamable HTTP handler: it negotiates the protocol
// version, answers initialize, ping and tools/list, and applies the
// protocol's transport rules (Accept headers, and batches only where the
// negotiated version allows them). It runs stateless (no Mcp-Session-Id to
// keep), so any replica can answer any request, and answers in JSON rather
// than an event stream. tools/call runs the same code as the JSON-RPC
// methods, behind the same checks the gateway made before handing over.

// protocolMessages reports whether a body belongs to the Model Context
// Protocol: every request in it is one of the protocol's methods that the
// MCP handler serves (initialize, ping, tools/call,
// notifications/initialized, …; see protocolMethods). A body holding any
// other method, one of the gateway's own (which never contain a slash) or
// one that exists nowhere (foo/get), is JSON-RPC, whose every call is
// answered by its id, an unknown method with -32601. Elements that are not
// requests at all do not decide.
func protocolMessages(msgs []message) bool {
	protocol := false
	for i := range msgs {
		if msgs[i].invalid {
			continue
		}
		if !protocolMethods[msgs[i].method] {
			return false
		}
		protocol = true
	}
	return protocol
}

// protocolMethods are the methods and notifications a client may send that
// the MCP handler (the SDK's server, github.com/modelcontextprotocol/go-sdk
// v1.8.0) serves. Any other name would reach it only to be refused as a
// whole body (-32600, id null), where JSON-RPC asks for -32601 by id.
// (It also knows server/discover and resources/subscribe, but answers them
// -32601 for a server like this one, as the JSON-RPC side does.)
// TestProtocolMethodsAreServed checks the list against the SDK.
var protocolMethods = map[string]bool{
	"initialize":                       true,
	"ping":                             true,
	"completion/complete":              true,
	"prompts/list":                     true,
	"prompts/get":                      true,
	"tools/list":                       true,
	"tools/call":                       true,
	"resources/list":                   true,
	"resources/templates/list":         true,
	"resources/read":                   true,
	"subscriptions/listen":             true,
	"logging/setLevel":                 true,
	"notifications/cancelled":          true,
	"notifications/initialized":        true,
	"notifications/roots/list_changed": true,
	"notifications/progress":           true,
}

// protocolCall runs m, a call of the Model Context Protocol found in a body
// answered on the JSON-RPC side (a batch beside the gateway's methods),
// through the protocol's handler alone, with r's headers, and returns the
// answer it gave: its result or error, under m's id. A refusal of the
// handler (a missing Accept header, say) is the error a lone request gets,
// by m's id.
func (g *Gateway) protocolCall(r *http.Request, c *caller, m *message) response {
	if m.method == "subscriptions/listen" {
		// An event stream that stays open: it cannot be one answer of many.
		return errorResponse(m.id, newError(mcp.CodeInvalidRequest, &mcpwire.ErrorData{Status: http.StatusBadRequest,
			Message: m.method + " opens a stream: send it alone"}))
	}
	sub := r.Clone(withCaller(r.Context(), g, c))
	sub.Body = io.NopCloser(bytes.NewReader(m.raw))
	sub.ContentLength = int64(len(m.raw))
	rec := &recorder{header: make(http.Header)}
	pw := &protocolErrors{ResponseWriter: rec}
	g.mcp.ServeHTTP(pw, sub)
	pw.finish()
	if !m.answered() {
		return response{} // a notification: nothing to answer
	}
	var a struct {
		Result json.RawMessage `json:"result"`
		Error  *mcp.Error      `json:"error"`
	}
	switch err := json.Unmarshal(rec.body.Bytes(), &a); {
	case err == nil && a.Error != nil:
		return errorResponse(m.id, a.Error)
	case err == nil && len(a.Result) > 0:
		return resultResponse(m.id, a.Result)
	}
	g.log.ErrorContext(r.Context(), "the MCP handler's answer is not one JSON-RPC response", "method", m.method, "status", rec.status)
	return errorResponse(m.id, newError(mcp.CodeInternalError, nil))
}

// recorder keeps what the MCP handler answers one call of a batch.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// Flush is there for a handler that asks for it; everything is kept anyway.
func (r *recorder) Flush() {}

// ServerName is the name the gateway gives in the MCP handshake.
const ServerName = "apitwin-mcp-gateway"

// protocolServer is the MCP server of every gateway in the process: what
// it holds is the same for all (its name, instructions and tools), and
// making it costs what a gateway's whole start does several times over (the
// SDK reads every tool's schema as it is added: about 1 ms and 1 MB), which
// tests that start a fake per test and speak MCP to it would otherwise pay
// per test. Nothing of a gateway is in it: a tool call finds its gateway,
// with its caller, in the request's context (withCaller), and the server's
// own log records go nowhere (see serverLogs). The rest of the
// SDK server's state is per session, and every request is a session of its
// own here (Stateless), closed when it is answered: the log level a client
// sets, its subscriptions. The list of open sessions and the list_changed
// notifications it would send them are shared, but the tools never change
// once the server is made, so no notification is ever sent.
var protocolServer = sync.OnceValue(func() *mcpsdk.Server {
	srv := mcpsdk.NewServer(&mcpsdk.Implementation{Name: ServerName, Title: "Source-hosting tool gateway", Version: version.Version},
		&mcpsdk.ServerOptions{
			Instructions: "Tools over a source-hosting service (projects, issues, merge requests, pipelines, files, webhooks), run with the caller's token.",
			Logger:       serverLogs,
		})
	for _, t := range toolList() {
		srv.AddTool(&mcpsdk.Tool{Name: t.name, Title: t.title, Description: t.description, InputSchema: t.schema,
			OutputSchema: t.output(), Annotations: t.annotations()}, toolHandler(t))
	}
	return srv
})

// annotations are t's hints for MCP clients (which let reads through
// without asking, for one): a read only reads, is idempotent and works in
// the source-hosting server's closed world; a write says what its
// effects are.
func (t *tool) annotations() *mcpsdk.ToolAnnotations {
	a := &mcpsdk.ToolAnnotations{Title: t.title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: new(bool), OpenWorldHint: new(bool)}
	if e := t.effects; e != nil {
		a.ReadOnlyHint, a.IdempotentHint = false, e.idempotent
		a.DestructiveHint, a.OpenWorldHint = &e.destructive, &e.openWorld
	}
	return a
}

// protocolHandler is g's MCP handler: the shared server behind the SDK's
// transport, which is g's own, for g's body limit and logger (it costs a
// few allocations to make).
func (g *Gateway) protocolHandler() http.Handler {
	return mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return protocolServer() }, &mcpsdk.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		Logger:              g.log,
		MaxRequestBodyBytes: g.cfg.MaxBodyBytes,
	})
}

// toolHandler runs t for tools/call, for the gateway the request came to.
// Every failure, a refused param as much as an upstream error, is a result
// with isError set, as the protocol asks, so a model can read it and
// correct itself; its structured content is the same error object the
// JSON-RPC side answers.
func toolHandler(t *tool) mcpsdk.ToolHandler {
	return func(ctx context.Context, req *mcpsdk.CallToolRequest) (*mcpsdk.CallToolResult, error) {
		g, c := callerFrom(ctx)
		if c == nil { // ServeHTTP verified the caller before the SDK saw the request
			return toolError(newError(mcp.CodeUpstreamError, &mcpwire.ErrorData{Status: http.StatusUnauthorized, Message: "Authorization: Bearer <token> is required"})), nil
		}
		res, e := g.invoke(ctx, c, t.name, req.Params.Arguments)
		if e != nil {
			return toolError(e), nil
		}
		return &mcpsdk.CallToolResult{
			Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: string(res)}},
			StructuredContent: json.RawMessage(res),
		}, nil
	}
}

func toolError(e *mcp.Error) *mcpsdk.CallToolResult {
	b, _ := json.Marshal(struct {
		Error *mcp.Error `json:"error"`
	}{e})
	return &mcpsdk.CallToolResult{
		IsError:           true,
		Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: e.Error()}},
		StructuredContent: json.RawMessage(b),
	}
}

type callerKey struct{}

// verifiedCaller is a request's gateway and the caller it verified.
type verifiedCaller struct {
	g *Gateway
	c *caller
}

// withCaller hands the gateway and its verified caller to the MCP handler,
// whose server every gateway shares: its tool calls and log records find
// them there.
func withCaller(ctx context.Context, g *Gateway, c *caller) context.Context {
	return context.WithValue(ctx, callerKey{}, verifiedCaller{g, c})
}

// callerFrom is the gateway and caller withCaller put in ctx, both nil when
// there are none.
func callerFrom(ctx context.Context) (*Gateway, *caller) {
	v, _ := ctx.Value(callerKey{}).(verifiedCaller)
	return v.g, v.c
}

// serverLogs is the logger of the shared MCP server, which drops every
// record. The SDK (v1.8.0) logs its server's records without a context
// (Logger.Info, Warn, Error), so nothing tells which gateway's request one
// is about, and no gateway may be told of another's requests. Dropped:
// "server connecting", "server session connected" and "disconnected" at
// Info for every request, and errors for a client that breaks the protocol
// (which that client is answered) or a JSON-RPC connection failing inside
// the SDK. The records of the transport (a request it could not read or
// answer) still reach the gateway's logger: that handler is the gateway's
// own (protocolHandler).
var serverLogs = slog.New(slog.DiscardHandler)
