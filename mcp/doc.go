// Package mcp is a typed client for the JSON-RPC 2.0 tool gateway in front
// of the source-hosting API, and the params, results and errors that
// gateway speaks. The gateway itself (an http.Handler you can deploy, its
// configuration and the state its replicas share) is package mcp/gateway;
// importing this package does not link it, nor what it needs (the Model
// Context Protocol SDK, YAML, Redis).
//
// The gateway answers POST {base_url}/mcp. Each of its methods, the
// specification's thirteen (list_projects, get_project, list_issues,
// create_issue, list_merge_requests, create_merge_request,
// list_pipelines, trigger_pipeline, get_file_content,
// list_repository_files, search_projects, search_issues,
// configure_webhook) and the gateway's own beyond them (list_hooks,
// delete_hook, get_issue, update_issue, close_issue, reopen_issue,
// list_issue_notes, create_issue_note, get_merge_request,
// get_merge_request_changes, merge_merge_request,
// list_merge_request_notes, create_merge_request_note,
// list_pipeline_jobs, get_job_log, search; see package mcp/gateway),
// runs against the source-hosting API with the caller's own token, sent as
// "Authorization: Bearer <token>". The same endpoint also speaks the Model
// Context Protocol (initialize, tools/list, tools/call, ping), which Call
// reaches too.
//
//	c, err := mcp.New("https://gw.example.com", mcp.WithToken(token))
//	issues, err := c.ListIssues(ctx, &mcp.ListIssuesParams{ProjectID: 7, State: "opened"})
//
// # The client
//
// Client has a typed method per tool, Call for any method, Notify, and
// batches (NewBatch). It signs requests when given a secret
// (WithSigningSecret), in the gateway's replay-proof form or, with
// WithSignatureForm(SignatureBodyOnly), in the specification's body-only
// form for a gateway that knows only that one; and it retries a
// call refused for its rate (-32000 with data.status 429, or an HTTP 429
// of any shape: the gateway's or a proxy's), which was refused before
// anything ran, and a call that never reached the gateway (the connection
// was not made): 3 retries by default, each after the longer of the
// backoff (1 s doubling: 1, 2, 4 s, as the specification says) and the
// wait the answer asked for (data.retry_after, else Retry-After, else the
// reset time), so a gateway answering "Retry-After: 1" every time still
// sees the doubling. Any other
// failure is not sent again (a JSON-RPC call carries no sign of being safe
// to repeat); a 5xx says so in a *retry.Error. Errors are *Error (inside
// an *apicall.RateLimitError once a rate refusal is given up); errors.Is
// matches ErrInvalidParams and the other code sentinels, and ErrNotFound,
// ErrRateLimited, … by data.status. The hook (WithHook) names a call by its
// JSON-RPC method ("batch" for a batch), with its error code as a string
// ("-32000").
//
// # What the gateway answers
//
// Where the specification is silent, the gateway's choices are those of
// package mcp/gateway, whose documentation lists them all. Those a caller
// meets most:
//
//   - Params are taken by name only; an unknown or misspelt name is -32602
//     (ErrInvalidParams) with data {param, reason}, as is a missing
//     required one. A null value counts as absent.
//   - An error of the source-hosting API is -32000 with data {status,
//     message} for 401, 403, 404, 429 and the other 4xx but 400 (-32602),
//     -32603 for 5xx. A refusal before any method runs (no token, a bad
//     signature, the rate limit) is an HTTP error status whose body is one
//     such error, id null: Error.HTTPStatus says which.
//   - Every read method (list_*, search_*, get_*) takes CacheOptions.
//   - list_projects and list_issues report total_count; the other lists are
//     Paged. When the upstream does not count (above 10,000 rows) the
//     totals are -1.
//   - A batch holds at most 100 requests unless the gateway is configured
//     otherwise; a larger one is refused whole.
package mcp
