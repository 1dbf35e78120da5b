// Package gateway is the JSON-RPC 2.0 tool gateway in front of the
// source-hosting API: Gateway, an http.Handler you can deploy, its Config,
// the Store its replicas share (MemoryStore in one process; package
// mcp/mcpredis on Redis) and its Model Context Protocol side. Package mcp
// is its client, and holds the params, results and errors both speak;
// importing it does not link this package's dependencies (the MCP SDK,
// YAML, Redis).
//
// The gateway answers POST {base_url}/mcp. Each of its methods, the
// specification's thirteen and the gateway's own beyond them (see Tools),
// runs against the source-hosting API with the caller's own token, sent
// as "Authorization: Bearer <token>". The same endpoint also speaks the
// Model Context Protocol (initialize, tools/list, tools/call, ping),
// through the official Go SDK, so MCP clients and AI assistants can use
// the tools.
//
//	gw, err := gateway.New(gateway.Config{Upstream: "https://git.example.com"}) // or gateway.LoadConfig("gateway.yaml")
//	...
//	http.ListenAndServe(":8080", gw)
//
// # Tools
//
// The specification's thirteen keep its names and params: list_projects,
// get_project, list_issues, create_issue, list_merge_requests,
// create_merge_request, list_pipelines, trigger_pipeline,
// get_file_content, list_repository_files, search_projects,
// search_issues, configure_webhook. Beyond them, what assistants on a
// source-hosting service need next: list_hooks, delete_hook, get_issue,
// update_issue, close_issue, reopen_issue, list_issue_notes,
// create_issue_note, get_merge_request, get_merge_request_changes,
// merge_merge_request, list_merge_request_notes,
// create_merge_request_note, list_pipeline_jobs, get_job_log, search.
// An issue or merge request is named by project_id and issue_iid or
// merge_request_iid, the number in its web URL, as the source-hosting
// API's paths name it.
//
// In tools/list each has a title, an outputSchema (the JSON Schema of its
// structuredContent: its result, inferred from the result type of package
// mcp, or the {"error": …} of a failure) and annotations, decided from
// what its upstream call does:
//
//	tool                          readOnly destructive idempotent openWorld
//	every list_*, get_*, search*  yes      no          yes        no
//	create_issue                  no       no          no         no
//	create_merge_request          no       no          no         no
//	create_issue_note             no       no          no         no
//	create_merge_request_note     no       no          no         no
//	trigger_pipeline              no       no          no         yes
//	configure_webhook             no       no          yes        yes
//	update_issue                  no       yes         yes        no
//	close_issue, reopen_issue     no       yes         yes        no
//	merge_merge_request           no       yes         yes        no
//	delete_hook                   no       yes         yes        no
//
// openWorldHint means the call reaches beyond the source-hosting server's
// own data: the jobs of a pipeline run the project's code, which may reach
// anywhere, and a hook has the server send requests to any URL. Every
// other tool works in the closed world of that one server's projects.
// destructive means the call changes or removes what exists, where the
// create_* tools only add. idempotent means the same call again changes
// nothing more (a second close, merge or delete is refused or a no-op);
// configure_webhook is: called again with the same project, URL and
// events it answers the hook it made (created false) rather than adding
// one (the token is not compared: the server never shows it; two calls at
// once may both add one).
//
// Bounds of the tools: per_page above 100 is read as 100; get_job_log
// gives at most a log's last 64 KiB (mcp.MaxJobLog; it streams the log
// through that window, so a log of any length costs that much memory),
// from its first whole line there, with truncated and size (the whole
// log's bytes); get_merge_request_changes gives what the server gives
// (overflow says files were left out); configure_webhook reads at most 10
// pages of 100 hooks when it looks for the one it would make.
//
// # Choices where the specification is silent
//
//   - Params: by name only; positional params are -32602. Unknown names are
//     -32602 too (data {param, reason}), so a misspelt param is not ignored.
//     Required: project_id wherever it appears (except search_issues and
//     search, where it narrows the search), title (create_issue,
//     create_merge_request), source_branch and target_branch, ref
//     (trigger_pipeline), file_path, search, scope, url, issue_iid,
//     merge_request_iid, hook_id, pipeline_id, job_id, and body (the
//     *_note tools). update_issue needs at least one field to change. A
//     null value counts as absent. Integers must be written as integers. per_page above 100 is
//     read as 100, as the source-hosting API reads it.
//   - An id is a string, a number or null; a string whose bytes are not
//     UTF-8 is not a JSON string (RFC 8259), and its request is -32600
//     with id null, as any id that cannot be read: every answer is UTF-8
//     JSON.
//   - Errors that the specification's examples show are written exactly so
//     (no data for -32700, -32600, -32601). Upstream errors carry data
//     {status, message}; other 4xx answers of the upstream (409, 422) are
//     -32000 like 401/403/404/429, other 5xx are -32603 like 500, and an
//     unreachable upstream is -32603 with data.message only. An upstream
//     that has not begun to answer (its response headers) within
//     upstream_header_timeout_seconds (30) is given up on, whatever the
//     caller's deadline, and answered as a 504 of it would be: -32603
//     with data.status 504 (HTTP 504 when it was verifying the token).
//   - Refusals before any method runs are HTTP errors with a JSON-RPC error
//     body (id null): 401 (no bearer token, a token the source-hosting API
//     does not accept, a bad or replayed signature), 403 (address, missing
//     scopes), 405, 413, 415, 429 (rate limit, or too many token
//     verifications). Auth, address, signature and rate-limit refusals are
//     -32000 with data.status the HTTP status, so clients handle them like
//     the upstream's.
//   - Origin (the MCP transport's rule against DNS rebinding): a request
//     whose Origin header is not allowed is 403 (-32000, data.status 403)
//     before anything else is looked at; one with no Origin (a client
//     that is not a browser) is served. Config.AllowedOrigins lists the
//     pages allowed; unset, pages on loopback may call a gateway reached
//     on loopback, and none may call it otherwise. An allowed origin's
//     CORS preflight (OPTIONS) is 204 with Access-Control-Allow-Methods
//     (POST, OPTIONS), -Allow-Headers (Authorization, Content-Type,
//     Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID,
//     X-MCP-Signature) and -Max-Age (600 s); its answers, refusals
//     included, expose Mcp-Session-Id, MCP-Protocol-Version,
//     WWW-Authenticate, Retry-After and X-RateLimit-*. Another origin's
//     preflight is 403; OPTIONS without Origin is 204 with Allow. The
//     protected-resource metadata is public: any page may read it
//     (Access-Control-Allow-Origin: *), and its preflight is answered.
//   - A body of only notifications is answered 204 with no body.
//   - A body whose every request is a method of the Model Context
//     Protocol that its side serves (initialize, ping, tools/list,
//     tools/call, resources/list, notifications/initialized, …) goes to
//     that side, which applies the protocol's own rules (its Accept header
//     among them). Any other body is JSON-RPC: a method with a slash that
//     the protocol side does not serve (foo/get) is -32601 by its id, alone
//     or in a batch, like any unknown method, and a protocol method in a
//     batch beside the gateway's own is run by the protocol side alone and
//     answered by its id as it would be alone (subscriptions/listen, a
//     stream, excepted: -32600 there).
//   - Batches: at most Batch.MaxSize (100) requests, run Batch.Concurrency
//     (10) at a time, answered in request order. A larger batch is one
//     -32600.
//   - Rate limit: a token bucket per token (600 a minute, 100 at once).
//     Every request spends one token per message in its body, so a batch of
//     20 spends 20; a refused request spends nothing. X-RateLimit-Limit is
//     the per-minute rate, X-RateLimit-Remaining the requests that would
//     pass now, X-RateLimit-Reset (epoch seconds) when the bucket is full
//     again. A refusal is HTTP 429 with Retry-After and -32000 with
//     data.status 429 for every request of the body. When the
//     source-hosting API itself refuses for its rate, the call's -32000
//     carries its Retry-After as data.retry_after (seconds), which the
//     client waits before it sends again.
//   - Caching: every read method (list_*, search*, get_*) takes cache and
//     cache_ttl (seconds, default 60, at most a day; cache_ttl alone turns
//     caching on). Answers are cached per token, method and params; a write
//     (every other tool) drops the cached reads of its project (and one
//     that creates or changes an issue those of cross-project
//     search_issues), for every caller. A search of every project (search
//     without project_id) is dropped only by writes to issues and
//     projects: other writes may leave it stale for its cache_ttl.
//   - Callers are verified before anything runs, the Model Context
//     Protocol's initialize included: the token is shown to the
//     source-hosting API once (GET /personal_access_tokens/self: its id,
//     its user, its scopes, whether it is active) and the verdict
//     remembered under the token's SHA-256 (never the token). A token it
//     does not accept is HTTP 401 with WWW-Authenticate: Bearer
//     error="invalid_token" (MCP clients start their login on it); one
//     whose scopes do not grant api, read_user and read_repository (api
//     grants the other two, as in GitLab) is 403 with
//     error="insufficient_scope". A good verdict is believed for
//     verify.ttl_seconds (60), then asked again: that is the most a
//     revoked token keeps working, cached answers included, and a call the
//     upstream refuses with 401 forgets the token at once. A bad verdict is
//     kept verify.negative_ttl_seconds (60). Tokens not known to be good
//     cost a verification each, so each address (an IPv6 /64) may cause
//     60 a minute (20 at once) and all together 300 a minute (50 at once);
//     past that, 429. A flood of made-up tokens reaches the source-hosting
//     API a few times a second at most. A token known to have been good
//     is asked about again without those limits.
//   - Each replica also keeps its own last good verdict on each of its
//     callers (4,096 at most; past that, one at random makes room): when
//     the store has none (Redis restarted empty, or down), that verdict is
//     believed for what is left of its verify.ttl_seconds, as it would be
//     from the store, and the token is then asked about again as one known
//     good. Callers are not all verified at once through the limits above
//     after a restart of Redis, and a revoked token still works at most
//     verify.ttl_seconds after the last verdict on it. A token forgotten
//     after a 401 is marked so in the store, so that no replica believes
//     its own verdict on it.
//   - The rate limit counts by the verified token's id, not by what was
//     presented. A token the source-hosting API accepts but will not
//     describe (403 on /personal_access_tokens/self, which passes when
//     required_scopes is empty) is counted by its SHA-256: every token has
//     its own allowance, whatever the required scopes.
//   - Signing (see mcp.SignatureHeader): with a secret set, signatures are
//     required unless security.signature says "optional" (checked when
//     present) or "off". A signature covers the time, a nonce, the method,
//     the path and the body, must be within 300 s of the gateway's clock,
//     and is accepted once. The specification's body-only form is refused
//     unless security.accept_body_only_signature is on: it can be replayed.
//   - Bounds: a body of max_body_bytes (1 MiB); a batch of batch.max_size
//     (100) entries, counted before it is decoded; the memory store of
//     memory.max_bytes (64 MiB, least recently used dropped in constant
//     time), memory.max_claims (1,000,000 signatures; past it signed
//     requests get 503 rather than a forgotten signature) and
//     memory.max_buckets (100,000 rate-limit buckets).
//   - get_file_content without ref reads the default branch;
//     configure_webhook without events enables push only, and switches off
//     every event not named; it also takes an optional token.
//   - configure_webhook sends hooks only to the public internet: a URL
//     whose host is, or resolves to (every address, by Config.Resolver,
//     given 5 s), an address of the local network is -32602 on url with
//     GitLab's words, "is blocked: Requests to the local network are not
//     allowed" (localhost, loopback, link local network, shared address
//     space, limited broadcast address, or reserved addresses, as the
//     address is), and a host that does not resolve "is blocked: Host
//     cannot be resolved or invalid". An IPv4 address is read in every
//     spelling resolvers accept (2130706433, 0x7f.1, 0177.0.0.1, 127.1,
//     ::ffff:127.0.0.1), and a host ending in a number that is no address
//     is refused. security.allow_local_webhooks lets hooks reach the local
//     network but for link-local addresses and the clouds' metadata
//     services ("is blocked: Requests to cloud metadata services are not
//     allowed"); security.local_webhook_allowlist lets exactly the ranges
//     it lists through. The check is made when the hook is configured; a
//     name that resolves elsewhere later is the source-hosting API's to
//     refuse when it delivers, as GitLab does.
//   - list_projects and list_issues report total_count; the other lists
//     {data, pagination}. When the upstream does not count (above 10,000
//     rows) total_count, total and total_pages are -1.
//   - The MCP side is stateless (no sessions; any replica answers) and
//     answers in JSON. Tool failures, bad arguments among them, are results
//     with isError set whose structuredContent is {"error": {code, message,
//     data}}, as the MCP specification asks, so a model can read them.
//
// # Authorization discovery (OAuth 2.1)
//
// The gateway is a protected resource as the Model Context Protocol's
// authorization (2025-06-18) asks: an MCP client that gets 401 finds where
// to log in with no token pasted by hand. Every 401, and a 403 for
// scopes, carries WWW-Authenticate: Bearer realm="mcp",
// resource_metadata="<origin>/.well-known/oauth-protected-resource<path>"
// (with error="invalid_token" or "insufficient_scope" and the scope as RFC
// 6750 has them, when a token was sent). The metadata (RFC 9728) is served
// to GET at that URL and at /.well-known/oauth-protected-resource alone:
// resource, the gateway's canonical MCP URL (resource.url; the URL the
// request was sent to when it is not set); authorization_servers, the
// source-hosting server (resource.authorization_servers, default the
// upstream), whose /.well-known/oauth-authorization-server the client reads
// next; scopes_supported (resource.scopes_supported, default the required
// scopes); and bearer_methods_supported ["header"]. An address the gateway
// refuses gets 403 there too. Set resource.url to the URL clients use when
// the gateway is behind a proxy or under another name: mcp-gateway
// otherwise takes the one it listens on.
//
// OAuth tokens: a bearer token that is no personal access token (GET
// /personal_access_tokens/self answers 404) is described by the
// source-hosting server that issued it (GET /oauth/token/info, asked by
// the same source-hosting client as the API calls, so with the same HTTP
// client, CA and timeouts): its user, its scopes, whether it still works,
// and the resource it was issued for (RFC 8707). It is accepted only when that
// resource is resource.url: a token issued for another service, or for
// none, is 401 invalid_token ("the token was issued for another
// resource"), however valid it is at the source-hosting API; without
// resource.url no OAuth token is accepted. Scopes are judged as for
// personal access tokens (api grants the read scopes). The verdict is
// remembered as a personal access token's is (under the token's SHA-256,
// believed verify.ttl_seconds, in the bounded store, through the same
// verification limits), and its rate limit counts by the token's digest.
// Personal access tokens work as before.
//
// Token passthrough. The seed asks the gateway to call the source-hosting
// API "with the caller's token"; the MCP specification forbids a server
// to pass the tokens it receives through to upstream APIs, because a token
// minted for one service then works at another (the confused deputy),
// and the upstream cannot tell who it serves. The gateway does send the
// caller's token to the source-hosting API, and it is honest to say that
// this is passthrough in form. What it guarantees instead: it accepts an
// OAuth token only when the source-hosting server, the token's own issuer,
// says it was issued for this gateway (its audience), so a token obtained
// for any other service is refused before anything runs; and the only
// upstream it is sent to is that issuer, which accepts it as its own API
// token with the scopes the user consented to, for the user who consented.
// No token is sent anywhere else, logged or stored (only its SHA-256).
// The strict reading (a token of the gateway's own, exchanged for an
// upstream token, RFC 8693) needs a token exchange that GitLab does not
// offer; GitLab's own MCP server, which is part of the API it serves, uses
// the caller's token the same way. Personal access tokens are passed as
// they always were: the user pasted them for this purpose.
//
// # Deploying
//
// The program mcp/cmd/mcp-gateway serves a Gateway as it is: a YAML file of
// Config's keys with environment and flag overrides, TLS, /healthz and
// /readyz, JSON request logs, Prometheus metrics on their own listener and
// a graceful stop:
//
//	mcp-gateway -listen 127.0.0.1:8930 -upstream https://git.example.com [-redis 127.0.0.1:6379]
//
// A Gateway is also an http.Handler to serve from your own http.Server,
// with timeouts on every phase. One replica keeps its state in memory (the default
// MemoryStore). Several replicas behind a load balancer share one Redis
// through mcpredis.Open as Config.Store: rate limits, token verdicts, seen
// signatures and cached answers, so that 600 a minute per token stays 600
// across them, a revoked token is refused by all within the verification
// TTL, and a signed request accepted by one is refused by the others. Give
// them the same signing secret, and list the balancer's addresses in
// security.trusted_proxies so that the caller's address is read from
// X-Forwarded-For.
//
// Replay protection does not rest on Redis alone: each replica also keeps,
// in its own memory (memory.max_claims), every good signature it has seen
// within its window, whatever Redis does, so that no replica accepts a
// signed request twice, across an outage of Redis or a restart that emptied
// it. Redis tells each replica what the others accepted. What a deployment
// of several replicas risks is therefore one replay to each other replica
// that has not seen the request, within its window (300 s), of a request
// accepted while Redis was down, or before Redis lost what it held (a
// restart without persistence, a failover to a replica that had not caught
// up). Security.SharedReplayCheckOnly closes the first: signed requests are
// refused (503) while Redis cannot be reached. The second needs a Redis that
// keeps its keys across a restart (appendonly yes).
//
// When Redis cannot be reached a replica keeps serving from its own memory
// (rate limits per replica meanwhile), logs it, and says so in Ready,
// trying Redis again every few seconds. Ready's error describes a degraded
// gateway that still serves: report it, but do not take every replica out
// of service for it.
package gateway
