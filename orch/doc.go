// Package orch is the client of the workflow-orchestration service
// (specification 001): one Client over gRPC ([Dial], [NewFromConn]) or over
// the service's HTTP/JSON side ([NewHTTP]), with the same methods and the
// same errors whichever transport carries them.
//
//	c, err := orch.Dial("orch.example.com", orch.WithToken(token)) // port 7233, TLS
//	run, err := c.StartWorkflow(ctx, "OrderWorkflow", "orders", order, &orch.StartWorkflowOptions{ID: "order-42"})
//	err = run.Signal(ctx, "add-item", item, nil)
//	var receipt Receipt
//	err = run.Get(ctx, &receipt) // waits for the close (history long poll), decodes the result
//
// # Layers
//
// [Client.Raw] has one method per RPC of the contract (orch/orchpb), taking
// and returning orchpb's types. On top of it the Client has helpers:
// StartWorkflow (returning a [WorkflowRun]), SignalWorkflow,
// TerminateWorkflow, RequestCancelWorkflow, GetWorkflow, DescribeWorkflow,
// History (an iter.Seq2 following next_page_token lazily), WaitForCompletion,
// GetResult, QueryWorkflow, ListWorkflows/AllWorkflows,
// ScanWorkflows/ScanAllWorkflows, CountWorkflows, the namespaces
// (Register/Describe/List/AllNamespaces) and administration (DescribeCluster,
// List/AllClusterMembers, DescribeShard, CloseShard, DescribeTaskQueue,
// ListTaskQueuePartitions), and the answers to activities from outside
// their worker (CompleteActivity, CompleteActivityByID,
// RecordActivityHeartbeat, RecordActivityHeartbeatByID). ListX returns one page; AllX iterates lazily, one
// page in memory, stopping at the first error and on break. A [Worker] runs
// workflows and activities (see Workers below).
//
// Values (workflow input, signal arguments, results, memo and search
// attributes) are JSON: each is one Payload with metadata
// "encoding": "json/plain"; nil is "binary/null"; a payload without an
// encoding is read as JSON. [EncodePayloads] and [DecodePayloads] do it by
// hand; a *orchpb.Payloads passes through unchanged.
//
// # Choices where the specification is silent
//
// Transports. gRPC calls use orchpb's generated full method names on the
// connection (the wire is exactly what orchpb's generated clients send).
// HTTP calls follow each RPC's google.api.http binding (internal/orchwire):
// path fields are escaped with url.PathEscape, an empty run_id is sent as
// "-" (the latest run), any other empty path field fails before sending with
// INVALID_ARGUMENT "<field> is required"; POST bodies are the whole request
// as protojson with snake_case names; GET requests carry the other set fields
// as query parameters (nested fields dotted, enums by name, bytes in standard
// base64, durations and timestamps in their JSON text); answers are read
// with unknown fields ignored, so a newer server does not break the client.
// A call whose context has a deadline sends it (gRPC's own grpc-timeout; on
// HTTP the Grpc-Timeout header, which grpc-gateway servers honour), so a long
// poll ends empty at the server before the caller stops waiting. A workflow id
// holding "/" travels escaped as %2F; a server built on grpc-gateway's
// default routing splits on it, so prefer ids without "/" over HTTP.
//
// Namespace. Calls go to "default" unless [WithNamespace] (or
// [Client.WithNamespace], which shares the connection) says otherwise. A raw
// request with an empty namespace gets the client's, on a copy (the caller's
// request is never changed); RegisterNamespace's is never filled in. The
// identity sent in starts, signals, polls and task answers is
// "<pid>@<hostname>" unless [WithIdentity].
//
// Starts. StartWorkflow picks a random (UUID) workflow id when none is given,
// and always sends a request_id (random unless given), so a start the client
// repeats after a lost answer returns the run it started instead of failing;
// [WorkflowRun].Started tells which. Signals and cancel requests carry a
// random request_id the same way.
//
// Results. GetResult and WorkflowRun.Get wait with history long polls
// (wait_new_event, CLOSE_EVENT filter), asking again when a poll ends empty,
// until ctx ends. A run that continued as new is followed to its new run; a
// run that failed, timed out, was terminated or canceled is a
// [*WorkflowExecutionError] carrying its status, failure and close event. A
// query the reject condition refused is [*QueryRejectedError].
//
// # Errors
//
// Every failure is an [*Error] (or one of the named errors below, which
// unwrap to it) with the code of the gRPC status's ErrorInfo reason or of the
// HTTP body's error.code, the message and the details: the same values
// whichever transport. An HTTP answer without that body (a proxy's page)
// gets its code from the status (404 NOT_FOUND, 502/503 UNAVAILABLE, …); a
// transport failure (connection refused, reset) is UNAVAILABLE; an answer
// the client cannot decode is INTERNAL; a call its context ended is
// DEADLINE_EXCEEDED or CANCELLED and unwraps to the context's error.
//
// errors.Is matches a sentinel per code (ErrNotFound, ErrPermissionDenied,
// ErrWorkflowExecutionNotFound, …). A standard code's sentinel also matches
// the workflow-specific codes sent with the same gRPC code, so
// errors.Is(err, ErrNotFound) holds for WORKFLOW_EXECUTION_NOT_FOUND and
// ErrAlreadyExists for WORKFLOW_EXECUTION_ALREADY_STARTED.
//
// The specification's names and texts: WORKFLOW_EXECUTION_ALREADY_STARTED is
// [*WorkflowExecutionAlreadyStartedError] (with the running run's id when the
// server names it in a detail); TASK_QUEUE_NOT_FOUND (no worker polling the
// queue) is [*BadRequestError] printing "Task queue not found"; a deadline
// prints "DeadlineExceeded: context deadline exceeded" whether the caller's
// context or the server (at the deadline the client sent) ended the call;
// PERMISSION_DENIED prints "PermissionDenied: access denied", followed by the
// server's message in parentheses when it says more. Other codes print
// "<Code>: <message>" with the code spelled as gRPC spells its codes
// ("WorkflowExecutionNotFound: …"), without an "orch:" prefix, so the quoted
// texts are the texts printed.
//
// # Retries and rate limits
//
// RESOURCE_EXHAUSTED for rate is retried for every call (the server
// refused it without doing it); other exhaustion, which no retry cures and
// which may not be safe to repeat (a message over the size limit: HTTP 413
// or gRPC's "message larger than max"), is returned at once. A rate refusal
// is one with the RateLimitExceeded detail or a Retry-After, an HTTP 429,
// or over gRPC any RESOURCE_EXHAUSTED but the size refusal. The wait: the longer of the backoff (1 s
// doubling: 1, 2, 4 s) and the wait the service asked for (the
// RateLimitExceeded detail's retry_after, else the answer's Retry-After,
// else its X-RateLimit-Reset); at most 3 retries, a wait of at most 60 s ([RetryPolicy], [WithRetry],
// [WithoutRetries]), never past the context's deadline. UNAVAILABLE is
// retried with the same backoff only for calls harmless to repeat (reads,
// queries, heartbeats, RegisterWorker, and starts, signals and cancel
// requests that carry a request_id) or that the client knows never left; a
// terminate, a namespace registration, a shard close, a poll or a task answer
// is never sent twice by surprise. A rate refusal the client stopped
// retrying is an *apicall.RateLimitError ([RateLimitError]) around the
// *Error, and another failure that was retryable but not retried (further)
// a *retry.Error around it, as with every apitwin client; both say why, and
// so does [Error].GaveUp. Every wait is on the client's clock
// ([WithClock]), so tests against a fake take no real time.
//
// [Client.RateLimit] holds the X-RateLimit-Limit/Remaining/Reset/Scope values
// of the last answer that carried any: HTTP headers, or gRPC header metadata
// (trailers too, for an error answer).
//
// The client keeps the specification's client-side limits on its own, on by
// default ([ClientLimits], [WithClientLimits]; [Unlimited] turns one off):
// 100 calls a second (a token bucket with bursts of 100; retries count), 10
// long polls at once (task-queue polls and history waits; the next waits for
// a slot), 1,000 heartbeats a minute (bursts of 1,000). A long poll whose
// context has no deadline gets [LongPollTimeout] (70 s); [WithCallTimeout]
// gives other calls a default deadline. A test that shares a fake's clock
// with the client (orchfake does) should know that the client's own waits
// (backoff, limits) move that clock when it advances by itself.
//
// # Workers
//
// A [Worker] serves one task queue of the client's namespace. Activities are
// plain functions registered with [RegisterActivity] (typed input and output,
// JSON-encoded); inside one, [RecordHeartbeat] reports progress with details
// (read by a retried attempt with [HeartbeatDetails]) and [GetActivityInfo]
// tells the attempt. Returning an error fails the attempt and the service
// retries it per the activity's retry policy; [NonRetryable] or an
// [*ApplicationError] with NonRetryable stops that. A panic is a failed
// attempt. Cancellation arrives through the context: when a heartbeat
// answers that the workflow asked for cancellation the context ends with
// [ErrActivityCanceled] as its cause, and the activity's return with an
// error is reported with RespondActivityTaskCanceled (the history records
// ActivityTaskCanceled; a failure the service would record as failed with
// retry state CANCEL_REQUESTED); when a heartbeat finds the task gone
// (timed out, execution closed) the context ends with that error. The
// service enforces the activity's timeouts; the worker sets no deadline of
// its own on the context. [HasHeartbeatDetails] tells whether an earlier
// attempt left details.
//
// Asynchronous completion: an activity that returns
// [ErrActivityResultPending] is not answered by its worker; whoever holds
// its task token ([ActivityInfo].TaskToken) or its workflow id and
// activity id answers it later with [Client.CompleteActivity] or
// [Client.CompleteActivityByID] (completed with a result; failed, retried
// per the activity's policy, with an error; canceled with an error
// matching ErrActivityCanceled, once the workflow asked) and heartbeats it
// with [Client.RecordActivityHeartbeat] or
// [Client.RecordActivityHeartbeatByID], which return ErrActivityCanceled
// when the workflow asked for cancellation. These are the contract's
// RespondActivityTaskCompletedById, RespondActivityTaskFailedById,
// RecordActivityTaskHeartbeatById, RespondActivityTaskCanceled and
// RespondActivityTaskCanceledById, Temporal's names and shapes.
//
// Workflow tasks are honest: a [Workflow]'s Decide gets the execution's whole
// history (pages beyond the poll's are fetched first) and returns commands
// ([ScheduleActivityCommand], [CompleteWorkflowCommand],
// [FailWorkflowCommand], [CancelWorkflowCommand], [StartTimerCommand],
// [RequestCancelActivityCommand], or any *orchpb.Command). Decide keeps no
// state in memory: the history is the state, so Decide must be a function
// of it.
//
// Sticky cache. A workflow that keeps its state in memory (Workflow.Start,
// which package workflow's set) is cached by the worker between its tasks,
// as Temporal's SDK does: the worker keeps up to
// WorkerOptions.WorkflowCacheSize runs ([DefaultWorkflowCacheSize], 1,000;
// the least recently used evicted first; negative turns the cache off),
// answers each task with sticky_attributes set, and polls its own sticky
// queue (task_queue_kind STICKY, named "sticky-<worker instance key>"),
// where the service sends the run's next task with only the events since
// the last one; [CachedRun].Continue takes them, so a task costs what its
// new events cost, not a replay of the whole history. A task for a run the
// worker does not keep (evicted, a restarted worker, a run another worker
// had) or whose state does not follow (its last task failed or was not
// taken) is a cache miss: the worker reads the whole history and starts
// over from it, as without the cache; so does a task whose kept state
// fails, before the task is reported failed. The service sends the run's
// task back to the normal queue when the worker does not poll its sticky
// queue in time (the service's schedule-to-start timeout for sticky tasks)
// or is gone. A failed task, or an answer the service refused, drops the
// run's state; Stop drops them all; [Worker.PurgeWorkflowCache] does on
// demand, and [Worker.WorkflowCacheStats] counts hits, misses and
// evictions. With the cache on, one of the WorkflowPollers polls the
// sticky queue, so the worker holds no more long polls than without it; a
// worker with a single workflow poller polls no sticky queue (a long poll
// on one queue would keep tasks waiting on the other): it keeps runs all
// the same, and a task that comes back to it on the task queue takes the
// new events only, but with the whole history on the wire. An error or panic in Decide fails the task
// (RespondWorkflowTaskFailed, cause WORKFLOW_WORKER_UNHANDLED_FAILURE) and the
// service schedules it again. Queries go to Workflow.Query with the same
// history: a task that carries a query (field query set) is a query task and
// is answered with query results only, no commands; queries that come with an
// ordinary task are answered beside its commands. [Sequence] writes the
// common case with the same API: run these activities in order, each fed the
// previous result, then complete (its rules are on Sequence).
//
// Concurrency is bounded: MaxConcurrentActivities (default 10) and
// MaxConcurrentWorkflowTasks (default 4) slots, and a poller asks for a task
// only when a slot is free; 2 pollers per side by default (with the sticky
// cache, one of the workflow pollers polls the sticky queue). Polls are long
// polls and share the client's limit of concurrent long polls; heartbeats
// keep to the client's heartbeats-a-minute limit by skipping (never queuing)
// a heartbeat over it, whose details then go with the next one sent. Start
// registers the worker's types (RegisterWorker) and begins polling; Stop ends
// the polls and waits for running tasks to finish and report; Shutdown(ctx)
// bounds that wait, then cancels the activities still running (they report
// a canceled failure). Stop asks the service to end the worker's polls
// (ShutdownWorker, by the worker instance key its polls carry) rather than
// cancelling them, so a task handed to a poll as the worker stops is run,
// not dropped on the way; against a service without ShutdownWorker, or for
// a poll still open 5 s after it, the polls are cancelled, and a task lost
// that way comes back only when the service times it out.
//
// # Versions, security, logging
//
// Every call sends Orch-API-Version: v1 (header or metadata).
// [WithAPIVersion]("v1beta1") sends v1beta1 and, on HTTP, uses the
// /api/v1beta1 paths; when the server answers that the version is
// deprecated, the client logs one warning. Dial uses TLS with verification
// by default ([WithCAFile], [WithTLSConfig], [WithInsecureSkipVerify] adjust
// it; [WithInsecure] is plaintext, for loopback and tests). [WithToken] sends
// "Authorization: Bearer <token>" (a JWT or an API key) on both transports;
// the token never appears in an error, a log line or a printed Client. The
// client is silent unless [WithLogger] gives it a *slog.Logger.
package orch
