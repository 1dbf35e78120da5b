// Package orchfake is a stateful, in-process twin of the workflow
// orchestration service (spec 001): one in-memory state served over gRPC
// and over HTTP/JSON, in the spirit of pubsub's pstest. It starts in well
// under a millisecond of set-up and a few of serving.
//
//	srv := orchfake.Start(t)               // gRPC and HTTP on loopback ports, closed when the test ends
//	c := srv.Client()                      // an orch client over an in-memory gRPC connection
//	h := srv.HTTPClient()                  // the same over HTTP/JSON, at srv.URL()
//	srv.Clock().Advance(time.Hour)         // timeouts fire, rate windows reset
//
// The gRPC server offers reflection, so grpcurl works against it.
//
// # Serving and controls
//
// Like every apitwin fake: [New] builds one that serves nothing yet (its
// HTTP side is an http.Handler, its gRPC side reachable in memory through
// [Server.Conn]); [Start] serves both transports on loopback
// until the test ends (over TLS with [control.WithTLS]) (the gRPC port opens the first time anything asks for
// it, [Server.GRPCAddr] or [Server.GRPCClient], and serves from then on, so
// a test that uses only HTTP or [Server.Client] opens one port);
// [Server.Serve] (HTTP), [Server.ServeGRPC] and [Server.Listen] (both)
// serve it for programs until [Server.Close]. Every
// HTTP listener has header and idle timeouts; Close ends long polls and
// fault latencies at once, and gives running requests two seconds before
// it closes their connections. The controls are the same on every fake
// ([control.Controls]): [Server.InjectFault] per operation (its name,
// "StartWorkflowExecution", or "" for all: an error code, or an HTTP
// status read as its code, latency on the wall or the fake clock, for the
// next N calls, on both transports), [Server.Faults], [Server.ClearFaults],
// the request log ([Server.Requests], [Server.RequestsTo] by operation,
// [Server.ResetRequests]; each entry names the transport, the operation,
// the caller, the code answered, and holds the request, a gRPC message as
// JSON), [Server.Reset], and [Server.Clock]. Seeding and reading back:
// [Server.Load] with a [Seed] ([NamespaceSeed]s with their search
// attributes, [ExecutionSeed]s in any state), AddNamespace, AddExecution,
// StartExecution, RegisterSearchAttribute, AddAPIKey; Execution (with its
// history) and Namespace.
//
// # Transports
//
// Both transports run the same service code: every operation goes through
// one pipeline (version check, request log, injected faults,
// authentication and permission, rate limits) and then the operation. gRPC errors carry
// a google.rpc.ErrorInfo detail (reason = the code, domain
// orch.apitwin.dev) and ErrorDetail details; HTTP errors are
// {"error":{"code","message","details"}} with the status of
// internal/orchwire's table. The HTTP side is grpc-gateway over the
// contract's google.api.http bindings: snake_case names, enums by name,
// durations "<n>s", bytes base64; an unknown field in a body is
// INVALID_ARGUMENT. Payloads may also be sent as plain JSON: a Payloads
// field (input, signal_input, result, details, …) as a JSON array (one
// payload per element) or any other value (one payload), a Payload field
// (memo, header, search attribute values) as any value; each is stored as
// a "json/plain" payload. The base64 wrapper form is still accepted (an
// object whose only key is "payloads", or with only "metadata" and
// "data"). With the request header "Orch-Payloads: json" an answer shows
// json/plain payloads as plain JSON (a Payloads as an array of values);
// without it, answers keep the wrapper, which the SDK reads. Request field errors are INVALID_ARGUMENT with one
// detail per field: {type "FieldViolation", field, description}.
//
// # Versions
//
// Orch-API-Version (header or gRPC metadata) may be absent, v1 or v1beta1;
// anything else is INVALID_ARGUMENT naming the header. /api/v1beta1/...
// serves the v1 operations with "Deprecation: true" and
// "Sunset: Tue, 31 Dec 2024 23:59:59 GMT"; so does a v1 path asked for
// with the header v1beta1, and, as metadata, a gRPC call that sends it.
// A body the JSON decoder refuses is INVALID_ARGUMENT with a message
// naming the field in snake_case and the line and column; a namespace or
// task queue name holding a control character is INVALID_ARGUMENT. A
// workflow id or task queue may hold "/": over HTTP it is sent escaped
// (%2F) and stays one path segment.
//
// # Namespaces
//
// "default" exists from the start (retention 72 h). A name is 2 to 255
// characters of letters, digits, '.', '_' and '-', starting with a letter
// or digit; retention is between 1 day and 3650 days (default 72 h);
// owner_email must parse as an address; replication may only name the
// fake's one cluster, "active"; an ENABLED archival config needs a URI.
// A second registration is ALREADY_EXISTS. ListNamespaces pages by name
// (default 100, at most 1,000). A namespace is usable as soon as it is
// registered. Closed executions disappear once their namespace's
// retention has passed since they closed, on the fake clock.
//
// UpdateNamespace changes what update_info and config give (description,
// owner_email, retention, archival; data is merged key by key) and keeps
// the rest, validated as a registration; its state may go from REGISTERED
// to DEPRECATED (as DeprecateNamespace does), never back, and never to
// DELETED (DeleteNamespace's). A DEPRECATED namespace refuses new starts
// (StartWorkflowExecution, SignalWithStartWorkflowExecution) with
// FAILED_PRECONDITION; its runs go on (signals, tasks, children, cron and
// retry runs). DeleteNamespace terminates the namespace's open runs, ends
// its waiting polls, and removes it with its runs, task queues and search
// attributes at once (the real service renames it and deletes in the
// background); the name is free again. The namespaces have no search
// attribute aliases: UpdateNamespace has none to change.
//
// # Executions
//
// A start writes WorkflowExecutionStarted and WorkflowTaskScheduled (task
// timeout default 10 s, at most 120 s). Ids, names and identities are at
// most 1,000 bytes. Reuse policies: a running id is
// WORKFLOW_EXECUTION_ALREADY_STARTED except under TERMINATE_IF_RUNNING
// (which terminates it, then starts); once closed, ALLOW_DUPLICATE (and
// unspecified) starts a new run, ALLOW_DUPLICATE_FAILED_ONLY only if the
// last run did not complete successfully, REJECT_DUPLICATE never. A start
// repeated with the same workflow_id and request_id answers the run it
// started, with started=false. A signal or cancel request repeated with
// the same request_id is recorded once. run_id "" or "-" is the latest
// run. Operations that change a closed run (signal, cancel request,
// terminate, a task answer) are WORKFLOW_EXECUTION_COMPLETED, "workflow
// execution already completed", carried as gRPC NotFound and HTTP 404 as
// the real service answers; an unknown id is WORKFLOW_EXECUTION_NOT_FOUND.
// Execution and run timeouts fire on the fake clock and write
// WorkflowExecutionTimedOut; the execution timeout spans the whole chain
// of continue-as-new runs (each new run keeps what is left of it). The new
// run's header, memo, search attributes and retry policy are those the
// continue-as-new command gives, none when it gives none, as the real
// service takes them (it inherits only the type, task queue and timeouts):
// an SDK that carries the run's own (Temporal's Go SDK, orch/workflow)
// puts them in the command. memo_update and the UPSERT_WORKFLOW_PROPERTIES
// command (which writes WorkflowPropertiesModified) change the run's memo,
// which describe and list show, never the one its WorkflowExecutionStarted
// event recorded: a field replaces the one of its name, a null payload
// (encoding binary/null) removes it, as Temporal merges memos.
//
// A workflow task that fails or times out is retried with its attempt
// counted. Only the first failure is written: a retry's
// WorkflowTaskScheduled and WorkflowTaskStarted are shown at the end of the
// history a poll hands out and written only when it completes (or another
// event arrives first); its failure or timeout writes nothing. Attempts 1
// and 2 are queued at once, then 1 s doubling up to 10 minutes on the fake
// clock. A failure for UNHANDLED_COMMAND (events arrived while the task
// ran) starts again at attempt 1.
//
// cron_schedule (five fields: minute hour day-of-month month day-of-week,
// with *, numbers, ranges, lists and /steps, UTC; or @every <duration>,
// @hourly, @daily, @midnight, @weekly, @monthly, @yearly) runs on the fake
// clock: each run's first workflow task waits until the next time
// (first_workflow_task_backoff; execution_time is then), and a run that
// completes, fails (not retried) or times out starts the next run with a
// new run id, named in its closing event (new_execution_run_id), carrying
// last_completion_result or continued_failure. Terminate and cancel end the
// schedule; the execution timeout spans all runs. @every fires on multiples
// of its interval since the Unix epoch.
//
// A start's retry_policy retries a run that fails or hits its run timeout:
// a new run (attempt counted on its started event, continued_failure set)
// after initial_interval × backoff_coefficient^(attempt-1), at most
// maximum_interval (defaults 1 s, 2, 100 × initial); the closing event
// says RetryState IN_PROGRESS and names the new run. Not retried:
// non-retryable failures (non_retryable, or a type in
// non_retryable_error_types: NON_RETRYABLE_FAILURE), maximum_attempts
// reached (MAXIMUM_ATTEMPTS_REACHED), a backoff past the execution timeout
// (TIMEOUT).
//
// A retry or cron run starts with the memo and search attributes its
// previous run started with (those its WorkflowExecutionStarted event
// recorded), as the real service does: what that run upserted or put in a
// memo_update is not carried. A run that was itself continued as new
// passes on what the continue-as-new gave it.
//
// SignalWithStartWorkflowExecution signals the running run of the id, or
// starts one (validated and limited as a start, the reuse policy applying
// to a closed run) whose first event after WorkflowExecutionStarted is the
// signal; a repeated request_id records the signal once.
//
// workflow_id_conflict_policy decides when a run of the id is running (the
// reuse policy decides for a closed one): FAIL (the default of a start)
// is WORKFLOW_EXECUTION_ALREADY_STARTED, USE_EXISTING answers the running
// run with started=false, TERMINATE_EXISTING terminates it and starts a
// new run. Any policy together with the reuse policy TERMINATE_IF_RUNNING
// is INVALID_ARGUMENT. Signal-with-start signals the running run under
// USE_EXISTING (its default), refuses FAIL (INVALID_ARGUMENT), and under
// TERMINATE_EXISTING starts a new run whose first event is the signal.
//
// ResetWorkflowExecution starts a new run from a workflow task of a run
// (open or closed): workflow_task_finish_event_id names the event just
// after the task's WorkflowTaskStarted (its WorkflowTaskCompleted,
// -Failed or -TimedOut); an id outside the history, one not following a
// WorkflowTaskStarted, or a point where a child workflow is pending is
// INVALID_ARGUMENT and changes nothing. The workflow id's current run, if
// running, is terminated with the reason; the new run becomes current
// with the history up to that WorkflowTaskStarted, then WorkflowTaskFailed
// (cause RESET_WORKFLOW, the reason as failure message, base_run_id and
// new_run_id), then the signals recorded after the point (unless
// reset_reapply_type is NONE), then a new workflow task. What the kept
// history leaves open goes on: its activities are queued again from their
// first attempt, its timers fire when they were due, its search
// attributes are those upserted up to the point. A reset repeated with the
// same request_id answers the run it made. DeleteWorkflowExecution
// terminates a running run, then removes it from describe, history, list
// and count; later calls naming it are WORKFLOW_EXECUTION_NOT_FOUND.
//
// GetWorkflowExecution describes, besides the pending activities, the
// children initiated and not closed (pending_children) and the
// outstanding workflow task (pending_workflow_task: SCHEDULED or STARTED,
// its attempt and times).
//
// RequestCancelWorkflowExecution writes WorkflowExecutionCancelRequested
// and schedules a workflow task: the workflow decides (a
// CANCEL_WORKFLOW_EXECUTION command ends it CANCELED), unlike terminate.
//
// Child workflows: START_CHILD_WORKFLOW_EXECUTION writes
// StartChildWorkflowExecutionInitiated; once the task's commands are
// applied the child starts (its started event names the parent) and the
// parent gets ChildWorkflowExecutionStarted, or
// StartChildWorkflowExecutionFailed (WORKFLOW_ALREADY_EXISTS,
// CHILD_NAMESPACE_NOT_FOUND). When the child's chain closes (continue-as-new
// follows it) the parent gets ChildWorkflowExecutionCompleted (with the
// result), Failed, Canceled, TimedOut or Terminated and a workflow task.
// When the parent closes (continue-as-new included), each open child gets
// its parent_close_policy: TERMINATE (the default), REQUEST_CANCEL (a
// WorkflowExecutionCancelRequested naming the parent) or ABANDON.
// REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION writes
// RequestCancelExternalWorkflowExecutionInitiated, then
// ExternalWorkflowExecutionCancelRequested (the target gets
// WorkflowExecutionCancelRequested) or
// RequestCancelExternalWorkflowExecutionFailed, and a workflow task for it.
// SIGNAL_EXTERNAL_WORKFLOW_EXECUTION writes
// SignalExternalWorkflowExecutionInitiated; once the task's commands are
// applied the signal goes out (none if the task closed the run, as the
// service drops the transfer of a closed run): the target gets
// WorkflowExecutionSignaled naming the sender in external_workflow_execution
// and a workflow task, the sender ExternalWorkflowExecutionSignaled; or the
// sender gets SignalExternalWorkflowExecutionFailed with its cause
// (EXTERNAL_WORKFLOW_EXECUTION_NOT_FOUND for an id with no open run, a
// closed one or a non-child under child_workflow_only; NAMESPACE_NOT_FOUND;
// SIGNAL_COUNT_LIMIT_EXCEEDED when the target's history is full), and a
// workflow task. A signal's input is at most MaxSignalInputSize (2 MiB,
// BAD_SIGNAL_INPUT_SIZE past it).
//
// # Schedules
//
// CreateSchedule, DescribeSchedule, UpdateSchedule, PatchSchedule,
// ListSchedules and DeleteSchedule keep Temporal's shapes. A spec is the
// union of its structured calendars (ranges to the second and the year,
// in UTC; Temporal's defaults: second, minute and hour 0, the rest any),
// cron strings (as cron_schedule takes them) and intervals (epoch + phase
// + n × interval, at least 1 s), less its excluded calendars, between
// start_time and end_time. Time zones and the unstructured calendar spec
// are not in the contract. Each action is delayed by a jitter that is a
// hash (FNV-1a) of the namespace, the schedule id and the nominal time,
// modulo the jitter (and never past the next nominal time): the same on
// every fake and every run, so tests are stable; Temporal's is random.
// The schedule runs on the fake clock: advancing it takes each action at
// its time, starting a run whose workflow id is the action's workflow_id,
// "-" and the nominal time in RFC 3339 (UTC), with the identity
// "orch-scheduler" and the system search attributes ScheduledById
// (Keyword) and ScheduledStartTime (Datetime), the fake's names for
// Temporal's TemporalScheduledById and TemporalScheduledStartTime (the
// specification names none); a start may not set them. A start the
// service refuses (the id in use, the concurrency limit, no room) is not
// an action and is not retried. Overlap policies are applied as
// Temporal's scheduler applies them to the runs the schedule started
// (followed through retries and continue-as-new): SKIP (the default)
// counts overlap_skipped; BUFFER_ONE keeps one waiting and skips the
// rest; BUFFER_ALL keeps all, in order; CANCEL_OTHER asks the running
// run to cancel (WorkflowExecutionCancelRequested, once) and starts the
// waiting action when it has closed; TERMINATE_OTHER terminates it and
// starts the action at once; ALLOW_ALL starts whatever runs. A trigger
// or backfill may give its own policy. The catch-up window (default one
// year, at least 10 s) matters only when actions are late, which on the
// fake clock happens only across [Server.SchedulerOutage] (the
// scheduler is down while the clock moves): when it is back, actions
// within the window are taken at once, older ones counted in
// missed_catchup_window. Paused, a schedule passes its times over and
// does not catch them up; triggers and backfills are taken paused or
// not, and do not use up limited_actions. pause_on_failure pauses it when
// a run it started fails or times out. Describe shows the last ten
// actions (with their runs' status now), the running runs, the counts,
// and the next ten action times (jitter included; no more than the
// remaining actions). UpdateSchedule replaces the schedule whole and
// runs the new spec from the update's time; its conflict_token (from
// create or describe; every update, pause and unpause changes it) makes
// a stale update FAILED_PRECONDITION "mismatched conflict token", as
// Temporal answers. A second create of an id is ALREADY_EXISTS (the same
// request_id answers as the first did), an unknown id NOT_FOUND. Delete
// leaves the schedule's runs running. ListSchedules pages by id (default
// 100, at most 1,000) and has no query. Bounds: 1,000 schedules per
// namespace (RESOURCE_EXHAUSTED past it), 100 entries per spec list and
// ranges per calendar field, 1,000 actions per patch's backfills
// (INVALID_ARGUMENT past it), 1,000 waiting actions (Temporal's cap; one
// more is dropped and counted in buffer_dropped). A snapshot keeps the
// schedules whole (see Server.Snapshot): a restored fake's clock takes
// the same actions the original's would. Schedules need
// orch:workflow:schedule to create, update, patch and delete,
// orch:workflow:read to describe and orch:workflow:list to list.
//
// History pages hold up to 1,000 events (maximum_page_size); page tokens
// are opaque (a tag, the position, a CRC-32) and a foreign or damaged one
// is INVALID_ARGUMENT. With wait_new_event the call waits for the next
// event (or, with CLOSE_EVENT, for the close) until the caller's deadline
// or MaxPollWait on the fake clock, then answers no events and the same
// token. A query no worker answers is DEADLINE_EXCEEDED at the caller's
// deadline or after MaxPollWait on the fake clock. Every such wait also
// ends after MaxPollWait of real time when the caller set no deadline.
//
// # Search
//
// List, Scan and Count take the query language of internal/visibility:
// = != > >= < <=, IN, BETWEEN … AND, STARTS_WITH, AND, OR, NOT,
// parentheses, ORDER BY (List only; default StartTime DESC, then RunId);
// system attributes WorkflowId, RunId, WorkflowType, ExecutionStatus
// ('Running', 'Completed', …), TaskQueue, StartTime, CloseTime,
// ExecutionTime. A malformed query is INVALID_ARGUMENT with the position
// ("invalid query: … at position N"). Custom attributes are registered
// with [Server.RegisterSearchAttribute] (types Keyword, Text, Int, Double,
// Bool, Datetime, KeywordList) and set at start as JSON payloads; an
// unregistered one is INVALID_ARGUMENT. Custom attributes are also
// administered over both transports (AdminService): AddSearchAttributes
// (name to type; all or none; the same type again is accepted, another is
// ALREADY_EXISTS; a system name, a bad name or type is INVALID_ARGUMENT; at
// most 100 per namespace), RemoveSearchAttributes (an unknown name is
// NOT_FOUND, a system one INVALID_ARGUMENT) and ListSearchAttributes
// (custom and system, with their types). Pages: default 100, at most 1,000;
// the token is the last row's sort key, so paging is stable while
// executions come and go.
//
// # Administration
//
// The cluster "active" has NumShards (4) history shards, ids 1 to 4, and
// five members: frontend-0 (127.0.0.1:7233), history-0 (:7234, odd
// shards), history-1 (:7244, even shards), matching-0 (:7235), worker-0
// (:7239). A workflow id's shard is FNV-1a(namespace id, workflow id)
// mod 4, plus 1. A shard id outside 1–4 is OUT_OF_RANGE. CloseShard gives
// the shard up and takes it back at once: range_id rises by one and
// acquired_time is now. A task queue exists once a worker has polled it
// or named it in RegisterWorker. ShutdownWorker ends at once, empty, the
// waiting polls that carry its worker_instance_key, and answers later
// polls of that key empty for PollerTTL. Before a queue is known, DescribeTaskQueue and
// ListTaskQueuePartitions are TASK_QUEUE_NOT_FOUND ("Task queue not
// found: …"). DescribeTaskQueue lists the pollers seen in the last five
// minutes (fake clock) of the side asked for (workflow by default);
// status: backlog_count_hint, read_level (tasks added), ack_level (tasks
// handed out), rate_per_second (the pollers' max_tasks_per_second, else
// 100,000). That rate is enforced: the last max_tasks_per_second a poller
// of the side sent sets a token bucket (burst max(1, rate)) on the fake
// clock, and a task waits in the backlog until a token is due, then goes
// to the oldest waiting poll. (With WithTimeSkipping, a backlog held back
// by the rate stops the skipping until the clock moves.) Each queue has one
// partition per side, owned by matching-0.
//
// # Authentication
//
// Off by default ([WithAuth] turns it on); then every call needs
// "Authorization: Bearer <credential>" (gRPC metadata "authorization"):
// a JWT signed HS256 with the fake's key (random, or [WithSigningKey]),
// with iss "https://orchfake.apitwin.dev", aud "orch", exp and iat
// (checked on the fake clock), sub, permissions (array) and namespace (""
// or "*" for all), as [Server.IssueToken] and [Server.SignToken] make
// them; or an API key added with [Server.AddAPIKey]. Missing, malformed,
// expired or badly signed credentials are UNAUTHENTICATED. A permission
// ending in ":*" grants everything below it. Lacking the operation's
// permission, or using another namespace than the token's, is
// PERMISSION_DENIED with the message "access denied" and a detail
// {type "PermissionDenied", field "permissions", description} saying what
// was missing. The table:
//
//	RegisterNamespace                         orch:namespace:create
//	DescribeNamespace, ListNamespaces         orch:namespace:read (List shows the token's namespaces)
//	StartWorkflowExecution                    orch:workflow:start
//	GetWorkflowExecution, GetWorkflowExecutionHistory,
//	DescribeTaskQueue, ListTaskQueuePartitions orch:workflow:read
//	SignalWorkflowExecution                   orch:workflow:signal
//	QueryWorkflow                             orch:workflow:query
//	TerminateWorkflowExecution                orch:workflow:terminate
//	RequestCancelWorkflowExecution            orch:workflow:cancel
//	List/Scan/CountWorkflowExecutions         orch:workflow:list
//	Poll*, Respond* (the ...ById ones too),
//	RecordActivityTaskHeartbeat(ById),
//	RegisterWorker, ShutdownWorker            orch:workflow:worker (the fake's addition; under orch:workflow:*)
//	DescribeCluster, ListClusterMembers,
//	DescribeShard                             orch:cluster:read
//	CloseShard                                orch:cluster:write
//	SignalWithStartWorkflowExecution          orch:workflow:start
//	Add/RemoveSearchAttributes                orch:namespace:update
//	Create/Update/Patch/DeleteSchedule        orch:workflow:schedule (the fake's addition; under orch:workflow:*)
//	DescribeSchedule                          orch:workflow:read
//	ListSchedules                             orch:workflow:list
//	ListSearchAttributes                      orch:namespace:read
//	UpdateWorkflowExecution                   orch:workflow:update (the fake's addition; under orch:workflow:*)
//	ExecuteMultiOperation (update-with-start) orch:workflow:start
//	UpdateNamespace, DeprecateNamespace       orch:namespace:update
//	DeleteNamespace                           orch:namespace:delete
//	ResetWorkflowExecution,
//	DeleteWorkflowExecution                   orch:workflow:terminate (each ends a run)
//
// # Rate limits
//
// The specification's table, in fixed one-minute windows on the fake clock
// (a window opens with its first request), configurable with [WithLimits]
// or off with [WithoutLimits]: every request counts against the cluster
// (10,000/min, scope "cluster"); StartWorkflowExecution also against its
// namespace (1,000/min, scope "namespace:<name>"); polls, RegisterWorker,
// DescribeTaskQueue and ListTaskQueuePartitions against their task queue
// (1,000/min, scope "task-queue:<namespace>/<queue>"). A namespace may
// hold 100 running executions (window "concurrent" in the error). History
// events are counted per namespace (100,000/min): every request that
// writes them (start, signal, signal-with-start, cancel request,
// terminate, a workflow or activity task's answer) is refused while the
// namespace's window is full; the events of a request let in are all
// written, and the events the fake writes by itself (timers, timeouts, a
// poll's WorkflowTaskStarted) are never refused, as a run cannot stop half
// way. Activity executions are counted when a workflow task schedules them
// (10,000/min per namespace): a RespondWorkflowTaskCompleted whose
// commands would pass the limit is refused whole, RESOURCE_EXHAUSTED with
// nothing written or answered, and its task stays started, to time out
// and be retried as an unanswered task is (Temporal answers a task whose
// writes its limits refuse the same way: the call fails, the task is
// retried; failing the task instead would write history the limit
// refused).
// Every answer carries
// X-RateLimit-Limit, -Remaining, -Reset (epoch seconds) and -Scope, as
// HTTP headers or gRPC header metadata (lower case), for the narrowest
// scope that counted the call; a refusal is RESOURCE_EXHAUSTED with a
// detail {type "RateLimitExceeded", scope, limit, window "1m",
// retry_after (seconds)}, Retry-After, and on gRPC the same metadata in
// the trailer as well.
//
// # Workers (the engine)
//
// Task queues hand tasks to long polls in order (a poll ends empty just
// before the caller's deadline, or after MaxPollWait on the fake clock).
// A workflow task poll writes WorkflowTaskStarted and answers the whole
// history; its start-to-close timeout (workflow_task_timeout) writes
// WorkflowTaskTimedOut and schedules the next attempt; a stale token is
// WORKFLOW_TASK_TIMEOUT. Commands: ScheduleActivityTask,
// RequestCancelActivityTask, StartTimer, CancelTimer,
// CompleteWorkflowExecution, FailWorkflowExecution,
// CancelWorkflowExecution, RecordMarker, ContinueAsNewWorkflowExecution,
// UpsertWorkflowSearchAttributes, StartChildWorkflowExecution,
// RequestCancelExternalWorkflowExecution, SignalExternalWorkflowExecution,
// UpsertWorkflowProperties; all are checked before any applies; a
// bad one fails the task (WorkflowTaskFailed with its BAD_* cause, the
// call answers INVALID_ARGUMENT) and a new attempt is scheduled; a closing
// command must be last, and is refused with UNHANDLED_COMMAND when events
// (signals, activity ends, timers) arrived while the task ran. Activities:
// missing timeouts are filled as Temporal does; retries default to 1 s
// doubling up to 100 s, unlimited attempts (bounded by
// schedule_to_close); non-retryable failures, maximum_attempts and
// schedule_to_close stop them; ActivityTaskStarted is written when the
// closing attempt ends; start-to-close and heartbeat timeouts are retried
// like failures, schedule-to-start and schedule-to-close are final; a
// stale token is ACTIVITY_TASK_TIMEOUT. Once the workflow asked for an
// activity's cancellation, heartbeats answer cancel_requested,
// RespondActivityTaskCanceled ends it ActivityTaskCanceled (refused with
// INVALID_ARGUMENT, Temporal's "unable to mark activity as canceled
// without activity being request canceled first", before the request),
// and a failure or timeout is not retried (retry state CANCEL_REQUESTED).
// Activities are also answered by workflow id (run id empty for the
// latest run) and activity id (RespondActivityTaskCompletedById,
// ...FailedById, ...CanceledById, RecordActivityTaskHeartbeatById), as
// Temporal answers them: completed or failed by id, an activity no worker
// took (queued, or between attempts) gets its ActivityTaskStarted from
// the caller; a heartbeat or canceled report needs a started attempt; an
// activity id with no open activity is NOT_FOUND ("cannot find pending
// activity ..."); a failure by id may carry last_heartbeat_details, which
// the next attempt's poll answer carries as heartbeat_details (as it
// carries the last heartbeat's). Queries go to a worker as query
// tasks (a workflow task with query and queries, no history event),
// answered in query_results under their id; NOT_OPEN and
// NOT_COMPLETED_CLEANLY are honoured; unanswered, the caller gets its
// deadline. WithTimeSkipping moves the clock to the engine's next timer
// whenever no task waits for or is held by a worker. A task started by a
// worker that is gone (its sticky worker instance neither polls nor owes
// a poll: see below) holds the clock no longer: handed over just as the
// worker died, it is never answered, and the clock moves to its
// start-to-close timeout as the real service's would.
//
// Updates, as Temporal's: UpdateWorkflowExecution admits an update (its
// update_id and input.name required; a run keeps at most
// MaxInFlightUpdates open and MaxUpdatesPerRun in all, RESOURCE_EXHAUSTED
// past either) and schedules a workflow task unless one is outstanding;
// the next task to start carries it in protocol_messages (a request
// sequenced after the event before its WorkflowTaskStarted). The worker
// answers in the task's messages: a rejection (the validator's) writes no
// event; an acceptance writes WorkflowExecutionUpdateAccepted and a
// response WorkflowExecutionUpdateCompleted, each where its
// PROTOCOL_MESSAGE command stands among the task's commands (after them
// when no command names it). Messages that name no update the task may
// answer, or answer out of order, fail the task
// (BAD_UPDATE_WORKFLOW_EXECUTION_MESSAGE); a closing command while updates
// arrived during the task fails it with UNHANDLED_UPDATE. The caller waits
// for the stage asked (ACCEPTED by default, or COMPLETED; ADMITTED is
// refused) or MaxPollWait, then gets the stage reached: sent again with
// the same update id, the update is the same one (same outcome, never run
// twice, also once the run closed). A failed or timed-out task, or one
// that leaves an update unanswered, hands it to the next task. A run that
// closes ends its open updates with WORKFLOW_EXECUTION_COMPLETED, the
// error of a new update to a closed run. ExecuteMultiOperation
// (update-with-start) takes a start and an update of the same workflow
// id: the update goes to the open run of the id, or to a run it starts,
// whose first task carries it. Where Temporal differs: it runs an update's
// task as a speculative task, whose events vanish when all it carried was
// a rejection (the fake writes the task's events; no update event in
// either); it answers a wait that runs out through
// PollWorkflowExecutionUpdate (the fake's callers send the update again,
// which the update id makes safe); it keeps a rejection only until the
// validator runs again on a retry (the fake keeps its outcome for the
// run); and it reports a refused update-with-start as a
// MultiOperationExecutionFailure with one status per operation (the fake
// answers the one error).
//
// Sticky execution, as Temporal's: a workflow task poll with
// task_queue_kind STICKY (and a worker_instance_key) polls that worker
// instance's own sticky queue, named by the worker. When a task that
// instance polled is completed with sticky_attributes, the run's next
// workflow task is scheduled on that sticky queue (WorkflowTaskScheduled
// names it, kind STICKY) and its poll answer carries only the events after
// the previous task's WorkflowTaskStarted. The contract's sticky_attributes
// is a flag, so the schedule-to-start timeout is the fake's:
// StickyScheduleToStartTimeout (5 s, the SDKs' default) on the fake clock;
// past it the task is recorded as timed out (SCHEDULE_TO_START) and a new
// first attempt goes to the run's task queue with the whole history. The
// run goes back to its task queue at once when its sticky worker is gone:
// ShutdownWorker for that instance (which also moves the tasks waiting on
// its sticky queue, and forgets the queue: the contract has no
// ResetStickyTaskQueue, and Temporal's worker shutdown does the same), or
// nobody polls the sticky queue and nobody did for StickyPollerUnavailable
// (10 s on the fake clock); and after a failed or timed-out task, whose
// next attempt always goes to the run's task queue. A snapshot keeps no
// sticky queue: a restored fake schedules every run's next task on its
// task queue. Time skipping waits for a sticky task while its worker
// instance is alive: a poll of it waits on any queue, or it owes one (it
// took a workflow task, or a poll of it ended empty at its deadline, and no
// workflow poll of it has waited since: an activity poll of the same
// instance says nothing of its workflow pollers). A worker whose poll
// ended because its caller went away (a stopped or dead process) owes
// none: skipping may then jump to the task's schedule-to-start timeout.
// Only a worker that dies between two polls, which ends no poll, is
// waited for up to StickyPollerUnavailable (10 s) of real time.
//
// # Bounds
//
//   - Requests: at most 4 MiB, gRPC's own default ([control.WithMaxBody],
//     [DefaultMaxBody]): over HTTP a larger body is refused with 413 and
//     RESOURCE_EXHAUSTED before it is read whole, over gRPC a larger
//     message with RESOURCE_EXHAUSTED.
//   - Numbers: page sizes are at most 1,000 (a larger one is
//     INVALID_ARGUMENT naming the field), ids, names and identities at most
//     1,000 bytes, page tokens are checked before use, shard ids within the
//     cluster's shards.
//   - Waits: a task poll or a history long poll ends empty just before the
//     caller's deadline, or after MaxPollWait (60 s) on the fake clock,
//     or at Reset or Close; a query waits for a worker until the caller's
//     deadline.
//   - Records: at most 100,000 workflow runs in all namespaces together,
//     100,000 namespaces, 100,000 task queues, and 300,000 history events
//     in all ([control.WithMaxRecords], [DefaultMaxRecords]); a run's history at
//     most [MaxHistoryEvents] (51,200, the service's history count
//     limit). A run past its namespace's retention is gone, and dropped
//     when room is needed, as the service deletes it. Past a bound a
//     start (StartWorkflowExecution, SignalWithStart, a seed) and a new
//     namespace or task queue are RESOURCE_EXHAUSTED ("the service keeps
//     at most 100000 workflow runs; no room for another"; over HTTP 429,
//     which a client may read as a rate limit and retry), a child start
//     fails as StartChildWorkflowExecutionFailed, a retry or cron chain
//     ends with the run that closed, a continue-as-new terminates its
//     run, a signal or cancel request to a run whose history is full is
//     INVALID_ARGUMENT, and a workflow task completed past a history
//     bound terminates its run "Workflow history count exceeds limit.", as
//     the service does. Measured: a run just started takes about 3.2 KB,
//     a signal with a small payload about 1 KB, so the bounds hold a few
//     hundred MB at most.
//   - The request log: the newest 10,000 calls, the first 64 KiB of each
//     body and 16 KiB of each header (gRPC: metadata), 32 MiB in all
//     ([control.WithRequestLog]). It keeps no secret: a token is "Bearer
//     [REDACTED]" in it, over gRPC as over HTTP. The service's messages
//     carry no secret field: a task token is an id of the task (random,
//     short-lived, what tests check workers by), kept as sent.
//   - HTTP listeners: 10 s to send the headers, 64 KiB of headers in at
//     most 100 fields, 30 s to send the body, 2 minutes to read the answer
//     (long polls included), 2 minutes idle; a request with both
//     Content-Length and Transfer-Encoding, or more fields, is refused
//     with 400 and its connection closed.
//   - Connections: each listener (gRPC and HTTP) holds at most a tenth of
//     the process's limit on open files, between 64 and 4,096 (2,000 at
//     `ulimit -n` 20,000); one more is closed as soon as it is accepted.
//   - gRPC connections: 10 s for the handshake (TLS, the HTTP/2 preface
//     and settings), as for HTTP headers; a client that connects and
//     sends nothing is cut off then, and Close closes a connection still
//     in its handshake at once rather than waiting for it. A call's
//     metadata is at most 64 KiB, checked as it is decoded, before
//     anything is kept of it or the call is authenticated (a larger one
//     resets the call, or closes the connection for a single value that
//     large). At most 100 calls at once per connection (the 101st is
//     refused, REFUSED_STREAM); a client that resets more than 200 calls
//     within 10 s has its connection closed. As Temporal's frontend: a
//     connection with no call open for 2 minutes is sent GOAWAY and
//     closed; every connection is asked to go after 5 minutes (give or
//     take a tenth) and closed 70 s later, so a call that never sends its
//     message is held no longer; a connection silent for a minute is
//     pinged, and closed when the ping is not answered within 10 s; a
//     client may ping every 10 s, calls open or not (more often:
//     GOAWAY, too_many_pings).
//   - The state lock is held only to look records up and change them, and
//     always released by defer.
//
// A handler that panics is answered INTERNAL (500 over HTTP) in the
// service's shape, and the panic is in the request log (Request.Panic):
// it is a bug of the fake's, please report it. A call refused by gRPC
// itself before the fake sees it (a message over the limit, a method no
// service has) is not in the log.
package orchfake
