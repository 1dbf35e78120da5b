// Command mcp-gateway serves the mcp tool gateway (package
// github.com/apitwin/apitwin/mcp/gateway) in front of a source-hosting
// API: the JSON-RPC 2.0 and Model Context Protocol endpoint at /mcp,
// health and readiness probes, JSON request logs, Prometheus metrics on a
// port of their own, and a graceful stop.
//
// # Usage
//
//	mcp-gateway -listen 127.0.0.1:8930 -upstream https://git.example.com
//	mcp-gateway -config /etc/mcp-gateway.yaml
//	mcp-gateway -config /etc/mcp-gateway.yaml -redis redis.internal:6379
//
// It runs without a file: -upstream is the only setting required. On
// start it prints one line to standard output with the addresses it bound
// (so that -listen 127.0.0.1:0 can be used, and read back):
//
//	mcp-gateway listening url=http://127.0.0.1:8930/mcp metrics=http://127.0.0.1:9930/metrics
//
// (metrics= only when metrics are on), then logs to standard error, one
// JSON object a line (log/slog's JSON handler).
//
// # Flags, environment, file
//
// Each setting comes from, in rising order of precedence, its default, the
// file, the environment, a flag:
//
//	flag             environment                  file key                  default
//	-config          MCP_GATEWAY_CONFIG           -                         none
//	-listen          MCP_GATEWAY_LISTEN           listen                    127.0.0.1:8930
//	-upstream        MCP_GATEWAY_UPSTREAM         upstream                  none (required)
//	-redis           MCP_GATEWAY_REDIS            redis.address             none: state in memory
//	-                MCP_GATEWAY_REDIS_PASSWORD   redis.password            none
//	-                MCP_GATEWAY_SIGNING_SECRET   security.signing_secret   none: no signatures
//	-metrics-listen  MCP_GATEWAY_METRICS_LISTEN   metrics_listen            none: no metrics
//
// An empty environment variable counts as unset. Give secrets (the signing
// secret, the Redis password) in the environment, so they stay out of
// files; a file that holds one and that every user can read is warned
// about on start.
//
// The default listen address is the loopback one, so that a gateway
// started by hand is not reachable from the network by accident. In a
// container, or behind a load balancer on another host, listen on every
// address: -listen :8930.
//
// Browser pages: a request whose Origin header is not allowed is refused
// with 403 (the MCP transport's defence against DNS rebinding), whatever
// its token; requests with no Origin (every client that is not a browser)
// are served. Without allowed_origins a gateway listening on loopback lets
// pages on loopback call it (http://localhost:6274, http://127.0.0.1:5173,
// any port: the MCP Inspector, a local web client), and one listening
// elsewhere lets no page call it; list the origins of the web clients of
// a deployment in allowed_origins (that list then replaces the loopback
// default). Their CORS preflights (OPTIONS) are answered 204, with the
// headers MCP uses (Authorization, Content-Type, Mcp-Session-Id,
// MCP-Protocol-Version, Last-Event-ID) allowed, and WWW-Authenticate and
// Mcp-Session-Id readable by the page.
//
// upstream is the source-hosting API's base URL: "https://git.example.com"
// and "https://git.example.com/api/v4" both work.
//
// # The file
//
// YAML (JSON is YAML too). Its keys are those of gateway.Config
// (documented there and in package mcp/gateway) and the program's own; a
// key the program does not know is refused, naming its line, so a
// misspelt setting is never ignored. Durations are written with a unit (10s, 2m). Every key, with
// its default, or, where the comment says what leaving it out does, an
// example:
//
//	# The program's own keys.
//	listen: 127.0.0.1:8930          # the gateway, /healthz and /readyz
//	metrics_listen: 127.0.0.1:9930  # /metrics; absent or "": no metrics
//	max_connections: 0              # per listener; 0: a tenth of the open-file limit, 64 to 4096
//	tls:                            # both or neither; without: plain HTTP
//	  cert_file: /etc/mcp-gateway/tls.crt
//	  key_file: /etc/mcp-gateway/tls.key
//	redis:                          # absent: everything in this process's memory
//	  address: redis.internal:6379
//	  cluster: []                   # or a Redis Cluster's nodes, instead of address
//	  password: ""                  # better: MCP_GATEWAY_REDIS_PASSWORD
//	  db: 0                         # 0 on a cluster
//	  prefix: "apitwin:mcp:"        # replicas that share limits share a prefix
//	timeouts:
//	  read_header: 10s
//	  read: 30s                     # the whole request, body included
//	  write: 60s                    # a request still running at 9/10 of it is cancelled
//	  idle: 120s                    # keep-alive connections
//	  shutdown: 20s                 # requests running when told to stop get this long
//	  shutdown_delay: 0s            # /readyz says 503 this long before the listener closes
//	log:
//	  level: info                   # debug (adds /healthz and /readyz requests), info, warn, error
//
//	# The gateway's keys (package mcp/gateway).
//	upstream: https://git.example.com
//	upstream_header_timeout_seconds: 30  # a call the source-hosting API has not begun to answer by then: -32603, data.status 504
//	upstream_ca_file: /etc/mcp-gateway/upstream-ca.pem # absent: the system's trust only; else also these CAs (PEM)
//	path: /mcp
//	max_body_bytes: 1048576
//	allowed_origins: [https://app.example.com] # browser pages that may call; absent: loopback pages, on loopback only; []: none
//	security:
//	  ip_whitelist: []              # CIDR ranges or addresses; empty: everyone
//	  blocked_ips: []
//	  trusted_proxies: []           # load balancers whose X-Forwarded-For is believed
//	  signing_secret: ""            # better: MCP_GATEWAY_SIGNING_SECRET
//	  signature: ""                 # off, optional, required (default: required with a secret)
//	  signature_window_seconds: 300
//	  accept_body_only_signature: false
//	  shared_replay_check_only: false # refuse signed requests (503) while Redis is down
//	  required_scopes: [api, read_user, read_repository]
//	  allow_local_webhooks: false   # configure_webhook to loopback and private networks (never link-local, cloud metadata)
//	  local_webhook_allowlist: []   # addresses or CIDR ranges hooks may reach though not public: [10.1.2.0/24]
//	resource:                       # the gateway as an OAuth protected resource (RFC 9728)
//	  url: ""                       # the MCP URL clients use; "": http(s)://<listen address><path>
//	  authorization_servers: []     # []: the upstream's root, which issues OAuth tokens
//	  scopes_supported: []          # []: security.required_scopes
//	rate_limit:                     # per verified token
//	  per_minute: 600
//	  burst: 100
//	  disabled: false
//	verify:                         # callers' tokens, asked of the source-hosting API
//	  ttl_seconds: 60               # the most a revoked token keeps working
//	  negative_ttl_seconds: 60
//	  per_ip_per_minute: 60
//	  per_ip_burst: 20
//	  per_minute: 300
//	  burst: 50
//	batch:
//	  max_size: 100                 # at most rate_limit.burst
//	  concurrency: 10
//	memory:                         # this process's store (the fallback with Redis)
//	  max_bytes: 67108864
//	  max_claims: 1000000           # signatures seen in their window (with Redis too)
//	  max_buckets: 100000
//
// A configuration the program cannot run with is refused before anything
// is bound: exit status 2 and a message naming each key that is wrong (and
// the flag or variable it came from, when not the file).
//
// # What it serves
//
// On listen (over TLS when tls is set, HTTP/2 or HTTP/1.1, TLS 1.2 at
// least; the certificate is read on start, so a renewed one needs a
// restart):
//
//   - the gateway at path (POST /mcp);
//   - GET /.well-known/oauth-protected-resource, alone and followed by
//     path (/.well-known/oauth-protected-resource/mcp): the protected-
//     resource metadata MCP clients read to find where to log in; every
//     401 names it in WWW-Authenticate (resource_metadata);
//   - GET /healthz: 200 "ok" while the process runs (a liveness probe);
//   - GET /readyz: 200 {"status":"ready"}; 200 {"status":"degraded",
//     "reason":"..."} while Redis cannot be reached; 503
//     {"status":"stopping"} once told to stop. Degraded is still 200: the
//     gateway serves from its own memory meanwhile (rate limits, token
//     verdicts, seen signatures and the cache per replica, not shared),
//     and taking every replica out of service because Redis is down would
//     turn a loss of sharing into an outage. Alert on it instead (the
//     reason is in the answer, the log and the metrics).
//
// On metrics_listen, plain HTTP (keep it on an internal address): GET
// /metrics in Prometheus' text format: the gateway's counters,
// mcp_gateway_requests_total, _refused_total, _calls_total,
// _upstream_calls_total, _cache_hits_total, _verifications_total,
// _verify_limited_total, _tokens_refused_total, _rate_limited_total,
// _signatures_refused_total, _replays_refused_total and
// _store_failures_total; the gauges mcp_gateway_store_degraded (1 while
// Redis cannot be reached), mcp_gateway_in_flight_requests and
// mcp_gateway_stopping; the histogram
// mcp_gateway_request_duration_seconds{code="2xx"|"3xx"|"4xx"|"5xx"} of
// the gateway's requests; and mcp_gateway_build_info.
//
// Every request is logged at info (the probes at debug): method, path
// (without the query), status, duration_ms, bytes (of the answer), remote
// (the connection's address), client (the caller's address read through
// security.trusted_proxies, when it is not remote's) and request_id
// (X-Request-Id, when sent).
// No other header is logged: never the Authorization header, a token, a
// signature or the signing secret.
//
// Requests are bounded by the timeouts above and by 64 KiB of headers;
// the body by max_body_bytes. Over plain HTTP/1.x each connection's
// requests are also followed on the wire, before net/http parses them: a
// request with both Content-Length and Transfer-Encoding (which a proxy in
// front may frame one way and net/http the other: request smuggling), with
// Transfer-Encoding in HTTP/1.0, with a field folded over several lines,
// or with more than 100 header fields, is answered "400 Bad Request" and
// its connection closed; it never reaches the gateway nor its log. Over
// TLS these checks are net/http's own (HTTP/2 cannot frame a request two
// ways; over HTTP/1.1 Transfer-Encoding wins and Content-Length is
// dropped): behind a proxy that re-encrypts, let the proxy refuse them.
//
// Each listener holds at most max_connections connections at once (by
// default a tenth of the process's limit on open files, RLIMIT_NOFILE,
// between 64 and 4,096: 2,000 at `ulimit -n` 20,000), so that no client
// can take every file descriptor of the process; one more is accepted and
// closed at once, and its client sees the connection end rather than
// wait in the kernel's queue. Raise `ulimit -n` (LimitNOFILE under
// systemd) or set max_connections for more.
//
// # Tools
//
// The endpoint serves the gateway's tools (package mcp/gateway lists them
// with their annotations): the specification's thirteen, and list_hooks,
// delete_hook, get_issue, update_issue, close_issue, reopen_issue,
// list_issue_notes, create_issue_note, get_merge_request,
// get_merge_request_changes, merge_merge_request,
// list_merge_request_notes, create_merge_request_note,
// list_pipeline_jobs, get_job_log and search. In tools/list each has a
// title, an outputSchema and annotations: every list_*, get_* and search*
// tool is readOnlyHint (an MCP client may run it without asking);
// update_issue, close_issue, reopen_issue, merge_merge_request and
// delete_hook are destructiveHint; trigger_pipeline and configure_webhook
// are openWorldHint (pipeline jobs run code, hooks reach any URL).
// configure_webhook is idempotent: the same project, URL and events again
// answer the hook made before (created false). get_job_log gives at most
// a log's last 64 KiB.
//
// # Connecting an MCP client, with no token pasted by hand
//
// An MCP client that follows the MCP authorization specification (the
// official SDKs, mcp-remote, desktop assistants and IDEs that offer
// "OAuth" or "remote" servers) needs only the gateway's URL: its first
// request is refused with 401, it reads the protected-resource metadata,
// registers itself with the source-hosting server (RFC 7591), opens the
// login page in the browser, and gets a token issued for the gateway. The
// source-hosting server must be one that offers OAuth with dynamic
// registration (GitLab 17.x/18.x does; so does apitwin-fake's
// sourcehostfake, whose login page takes a user's name and, as the
// password, a personal access token of that user, such as root's that
// apitwin-fake prints). resource.url must be the very URL the client is
// given: clients check that the metadata names it.
//
// A client configuration that speaks streamable HTTP itself (the
// "mcpServers" file of desktop assistants and IDEs; VS Code's mcp.json
// calls the list "servers" and the kind "type"):
//
//	{
//	  "mcpServers": {
//	    "gitlab": { "type": "http", "url": "http://127.0.0.1:8930/mcp" }
//	  }
//	}
//
// One that starts local programs only, through mcp-remote, which runs the
// login and keeps the tokens (in ~/.mcp-auth), refreshing them:
//
//	{
//	  "mcpServers": {
//	    "gitlab": {
//	      "command": "npx",
//	      "args": ["-y", "mcp-remote", "http://127.0.0.1:8930/mcp",
//	        "--static-oauth-client-metadata", "{\"scope\": \"api read_user read_repository\"}"]
//	    }
//	  }
//	}
//
// (The static metadata registers the scopes the gateway needs; scopes a
// client asks for that the source-hosting server does not know, such as
// openid, are left out of its registration by sourcehostfake.) Clients
// that cannot run OAuth still send a personal access token: "headers":
// {"Authorization": "Bearer <token>"}.
//
// # Stopping
//
// On SIGINT or SIGTERM it stops: /readyz answers 503, after
// timeouts.shutdown_delay the listeners close, requests running get
// timeouts.shutdown to finish, the Redis client closes, and it exits 0. If
// requests were still running at the end they are cut off and it exits 1.
// A second signal ends it at once.
// It exits 1 also when a listener fails, or when an address cannot be
// bound (naming it).
//
// Behind a load balancer that polls /readyz, set shutdown_delay to a little
// more than its polling interval, so that it stops sending requests before
// the listener closes. On Kubernetes a preStop hook sleeping as long does
// the same; keep terminationGracePeriodSeconds above shutdown_delay plus
// shutdown.
//
// # One replica
//
// One process keeps everything in its memory, bounded by the memory keys:
//
//	MCP_GATEWAY_SIGNING_SECRET=$(cat /run/secrets/mcp-signing) \
//	  mcp-gateway -listen :8930 -metrics-listen 127.0.0.1:9930 -upstream https://git.example.com
//
// A restart forgets rate limits, token verdicts and the cache (tokens are
// verified again on their next request), and the signatures seen in the
// last signature window: a request signed before a restart could be sent
// once more after it, within that window. When that matters, use Redis
// (with appendonly yes) even for one replica.
//
// # Several replicas behind a proxy
//
// Replicas behind one load balancer share a Redis (mcp/mcpredis), so that
// they act as one gateway: one rate limit per token across them, a token
// revoked on one refused by all (at once when a call of its meets the
// revocation upstream, else within verify.ttl_seconds), a signed request
// accepted once whichever replica it reaches, one cache. Give every
// replica:
//
//   - the same Redis address, db and prefix (MCP_GATEWAY_REDIS, or
//     redis.*; the password in MCP_GATEWAY_REDIS_PASSWORD);
//   - the same signing secret (MCP_GATEWAY_SIGNING_SECRET), so that a
//     request signed for one is good at all, and a replay is refused by
//     all;
//   - security.trusted_proxies listing the load balancer's addresses, so
//     that the caller's address (for ip_whitelist, blocked_ips and the
//     per-address verification limit) is read from X-Forwarded-For; the
//     header of anyone else is ignored;
//   - the same configuration otherwise (rate_limit, verify, security): the
//     shared state is only as consistent as the settings;
//   - listen on every address (-listen :8930), and clocks kept in time
//     (NTP): signatures and rate limits are dated by each replica's clock.
//
// For example, with this file on each replica:
//
//	upstream: https://git.example.com
//	listen: ":8930"
//	metrics_listen: ":9930"
//	redis:
//	  address: redis.internal:6379
//	  prefix: "apitwin:mcp:prod:"
//	security:
//	  trusted_proxies: [10.0.0.0/24]
//	  signature: required
//	verify:
//	  ttl_seconds: 30
//	timeouts:
//	  shutdown_delay: 10s
//
// and MCP_GATEWAY_SIGNING_SECRET and MCP_GATEWAY_REDIS_PASSWORD in the
// environment. Point the balancer's health check at /readyz (any 200 is
// in service) and its liveness check, if it has one, at /healthz.
//
// Replicas that outgrow one Redis may share a Redis Cluster instead: list
// some or all of its nodes in redis.cluster (not redis.address):
//
//	redis:
//	  cluster: [redis-1.internal:6379, redis-2.internal:6379, redis-3.internal:6379]
//	  prefix: "{apitwin:mcp:prod}:"
//
// The gateway's scripts touch several keys at once, which Redis Cluster
// runs only within one hash slot: every key begins with the prefix, whose
// hash tag (the part in braces; a prefix without braces is taken whole as
// one) puts them all in one slot, on one master. The cluster spreads other
// applications' data, not the gateway's; give that master a replica
// (cluster-replicas 1) so that a failover, not an outage, follows its loss.
// A master that fails is an outage like that of a single Redis, below:
// the store reports the error, /readyz says degraded, and each replica
// limits from its own memory; no call goes unlimited.
//
// When Redis cannot be reached, each replica goes on serving from its own
// memory (a request that meets the outage gives up on Redis after its
// short timeouts, and Redis is tried again every few seconds): limits
// count per replica meanwhile (so a token may get up to the limit times
// the replicas). /readyz stays 200 but says "degraded" with the reason,
// mcp_gateway_store_degraded is 1 and the log says when it started and
// ended. An unreachable Redis at start is no error for the same reason:
// the replica starts degraded.
//
// Replay protection: every replica remembers each good signature it has
// seen, in its own memory (memory.max_claims), for the whole
// signature window, whatever Redis does; Redis tells it which the other
// replicas accepted. No replica accepts a signed request twice, through
// an outage of Redis or after a restart that emptied it. What is left is
// one replay to each other replica that has not seen the request, within
// the window (300 s), of a request accepted:
//
//   - while Redis was down: security.shared_replay_check_only closes this,
//     refusing signed requests (503, Retry-After 5) until Redis answers
//     again;
//   - before Redis lost its keys (a restart without persistence, a
//     failover to a replica that had not caught up): run Redis with
//     appendonly yes, so that a restart keeps the signatures it held.
//
// Token verdicts: each replica also keeps its own last good verdict on
// each of its callers (4,096 at most; past that, one at random makes
// room). While Redis is down, or once it came back empty, a caller
// verified in the last verify.ttl_seconds is served on that verdict until
// it is that old, and is then verified again as a token known good (the
// verification limits, verify.per_minute and per_ip_per_minute, hold back
// only tokens not known good): a restart of Redis no longer sends every
// active token through those limits at once. A token revoked meanwhile
// still works at most verify.ttl_seconds after the last verdict on it, as
// with Redis up.
package main
