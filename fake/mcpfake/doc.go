// Package mcpfake runs the real tool gateway of package mcp/gateway over a
// source-hosting fake, for testing code that uses the gateway (through
// package mcp's Client, any JSON-RPC client, or an MCP client) without a
// real source-hosting server.
//
//	srv := mcpfake.Start(t)                    // the gateway on loopback, its upstream in-process
//	id, _ := srv.Upstream().AddProject(sourcehostfake.ProjectSeed{Name: "shop"})
//	c := srv.Client()                          // an mcp.Client with root's token
//	c.CreateIssue(ctx, &mcp.CreateIssueParams{ProjectID: id, Title: "bug"})
//	srv.Upstream().InjectFault("GET /api/v4/projects/{id}/issues", control.Fault{Status: 500, Times: 1})
//	srv.Clock().Advance(time.Minute)           // rate-limit buckets refill, cached answers expire
//
// Nothing about the gateway is faked: it is gateway.Gateway with the
// configuration given (WithConfig), its clock the fakes' shared one. The
// upstream is a sourcehostfake.Server, reachable through Upstream for
// seeding, fault injection and its own request log.
//
// # Serving and controls
//
// Like every apitwin fake: [New] builds one that serves nothing yet (it is
// an http.Handler, and its Client reaches it in-process, with the gateway
// reaching its upstream in-process too: no port at all); [Start]
// serves the gateway on loopback until the test ends (over TLS with
// [control.WithTLS]), in front of
// an upstream it still reaches in-process, which opens a port of its own
// only when its address or a client is asked for
// ([sourcehostfake.WithServeOnDemand]); [Server.Serve] and [Server.Listen] serve the gateway
// for programs until [Server.Close]. Every listener has header and idle
// timeouts, and Close gives running requests two seconds before it closes
// their connections. The controls are the same on every fake
// ([control.Controls]) and act in front of the gateway: [Server.InjectFault]
// on "POST /mcp" (or "" for all: a status answered as a JSON-RPC error with
// id null, a body, latency on the wall or the fake clock, a dropped
// connection, for the next N requests), [Server.Faults],
// [Server.ClearFaults], the request log of the gateway ([Server.Requests],
// [Server.RequestsTo], [Server.ResetRequests]), [Server.Reset] (a new
// gateway: full rate-limit buckets, an empty cache; and the upstream reset
// when the Server made it), and [Server.Clock]. To make the source-hosting
// service misbehave behind the gateway, use the same controls on
// [Server.Upstream].
//
// # Bounds
//
//   - Request bodies: the gateway's MaxBodyBytes, 1 MiB by default
//     ([control.WithMaxBody]); a larger one is refused with 413 and a JSON-RPC
//     error before it is read.
//   - The request log: the newest 10,000 requests, the first 64 KiB of
//     each body and 16 KiB of each header, 32 MiB in all
//     ([control.WithRequestLog]). It keeps no secret: the token is "Bearer
//     [REDACTED]" in it, X-MCP-Signature "[REDACTED]", and so is
//     configure_webhook's token at any depth of a message ([SecretFields]);
//     the upstream's log masks what the gateway sends it.
//   - Listeners: 10 s to send the headers, 64 KiB of headers in at most
//     100 fields, 30 s to send the body, 2 minutes to read the answer, 2
//     minutes idle; a request with both Content-Length and
//     Transfer-Encoding, or more fields, is refused with 400 and its
//     connection closed. Each listener holds at most a tenth of the
//     process's limit on open files in connections, between 64 and 4,096
//     (2,000 at `ulimit -n` 20,000); one more is closed at once.
//   - The gateway's own bounds (batch size, concurrency, cache entries, rate
//     limit) are gateway.Config's; what it keeps in memory (cached answers,
//     replay signatures, rate-limit buckets) is bounded by its
//     gateway.MemoryLimits.
//   - Records: the fake keeps none of its own. What the tools create
//     (issues, notes, hooks, …) its upstream keeps, bounded as
//     sourcehostfake bounds them (100,000 of each kind; refused past it
//     with the upstream's 400, which the gateway answers as it answers
//     any upstream 400): pass sourcehostfake.WithMaxRecords through
//     [WithUpstreamOptions] to change it. Where webhooks may go is the
//     upstream's setting too (sourcehostfake's SetAllowLocalRequests).
//
// # Webhooks
//
// configure_webhook goes through the gateway's check of where hooks may go
// (gateway.SecurityConfig.AllowLocalWebhooks). The fake allows the local
// network ([WithAllowLocalRequests], default true, for the gateway and the
// upstream it makes), since tests receive their hooks on loopback
// (httptest.Server's URL, or localhost); link-local addresses and the
// clouds' metadata services are refused whatever it says. Host names other
// than localhost are looked up with net.DefaultResolver, or
// [WithHookResolver]'s resolver, which a test that must not depend on a
// real DNS gives; a name that does not resolve is refused.
//
// A handler that panics is answered 500 with a JSON-RPC error and the
// panic is in the request log (Request.Panic): it is a bug, please report
// it.
package mcpfake
