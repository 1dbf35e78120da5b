// Command apitwin-fake serves every apitwin fake on local ports, for people
// not writing Go: point a program, a script, curl or cloudctl at the printed
// URLs and credentials.
//
//	go run ./fake/cmd/apitwin-fake              # default ports, empty fakes
//	go run ./fake/cmd/apitwin-fake --seed demo  # with demo data
//
// Ports (each changeable by flag; 0 picks a free one):
//
//	erp         8080  (or ERP_PORT)  the ERP's web root; API at /api/index.php
//	cloudauth   8090                 the cloud login gateway (/csp/gateway/am/api/…); cloudctl's CLI_URL
//	orch        7233 gRPC, 7243 HTTP the orchestration service (gRPC with reflection; HTTP under /api/v1)
//	sourcehost  8929                 the source-hosting API at /api/v4
//	mcp         8930                 the tool gateway at /mcp, in front of sourcehost
//	control     8999                 the control API (/api/…, /openapi.json) and the web console (/)
//
// ERP_ADMIN_PASSWORD sets the ERP admin's password, as in a deployment.
// --seed loads data: "demo" for the built-in demo, or a JSON or YAML file in
// the shape documented at fake.Seed. --erp-bare-create-ids makes the ERP
// answer a create with the new record's bare id, as most ERP versions do.
// --sourcehost-ssh-port names the port the source-hosting fake's projects
// say SSH is on (ssh_url_to_repo is ssh://git@host:port/ns/p.git when it
// is not 22; the fake serves no SSH).
// --erp-native-numbers makes the ERP answer numbers as JSON numbers
// ("id":12) rather than strings ("id":"12"); the control API switches it
// at any time (POST /api/erp/settings). --erp-bare-login makes the ERP's login form take username and password
// alone, as the specification shows it; by default it checks the login
// page's CSRF token and actionlogin=login, as the ERP does.
//
// --orch-auth turns the orchestration service's authentication on: every
// call then needs "Authorization: Bearer <key>" (orchctl: ORCH_TOKEN), the
// API key printed on the orch line as api_key=<key> (auth=on), which holds
// orch:* in every namespace; without the flag the line says auth=off and
// any call is served. Go programs that need narrower credentials use
// orchfake.WithAuth and Server.IssueToken instead.
//
// It prints one line per service, "<service> url=<url> <credential>=<value>
// …", then "ready", and serves until SIGINT or SIGTERM, when it shuts down
// cleanly. The fakes' shared clock follows the wall clock, so tokens expire
// and pipelines move on as they would for real. A port already in use is an
// error that names it. At shutdown, running requests get 2 seconds; a
// server that then has to close connections under them says so on stderr
// ("apitwin-fake: shutdown: <service> at <addr>: N connections still busy
// after 2s, closed"), and the program still exits 0.
//
// The control line, "control url=<url> token=<token>", is where a test
// suite in any language drives the fakes (reset, seed, faults, the clock,
// the request logs; see <url>/openapi.json) with the token as
// "Authorization: Bearer <token>", and where a person opens the console
// (<url>/login?token=<token>: a session of 12 hours in a cookie of its
// own, never the token, which the page's "log out" ends). Neither the
// console nor the API shows a secret: the request logs keep credentials
// and secret fields as "[REDACTED]". It listens on loopback unless
// --control-host says otherwise; the token is new at every start unless
// APITWIN_CONTROL_TOKEN gives one (at least 16 characters).
// --control-port -1 serves no control API.
//
// What one client can hold is bounded on every listener, so that a
// hostile or careless one cannot stop the fakes the others use. Every HTTP
// listener, the control API's included: 10 s to send a request's headers,
// 64 KiB of them in at most 100 fields, 30 s to send its body, 2 minutes
// to read the answer (long polls included), 2 minutes idle; a request with
// both Content-Length and Transfer-Encoding (request smuggling behind a
// proxy), Transfer-Encoding in HTTP/1.0, a folded field or more than 100
// fields is answered "400 Bad Request" and its connection closed. Every
// listener, gRPC's included, holds at most a tenth of the process's limit
// on open files (`ulimit -n`), between 64 and 4,096 connections (2,000 at
// 20,000): one more is closed as soon as it is accepted, so no one port
// can take the file descriptors the others need; raise `ulimit -n` for
// more. The gRPC side takes at most 64 KiB of metadata per call (checked
// before anything is kept of it or the call is authenticated), 100 calls
// at once per connection, 200 calls reset by a client within 10 s (then
// its connection closes); it closes a connection idle for 2 minutes, asks
// every connection to go after 5 minutes (closing it 70 s later), and
// gives a new connection 10 s for its handshake. The fakes' own bounds
// (bodies, pages, request logs) are in each fake's documentation.
//
// --state-dir DIR keeps a development environment across restarts and
// crashes. DIR (made 0700 if missing; one open to other users is refused)
// holds two files, each written whole to a temporary file then renamed
// (0600):
//
//	credentials.json  made at the first start and used by every later one:
//	                  the ERP admin's API key and password, the cloudauth
//	                  admin's password and the RSA key its tokens are
//	                  signed with (so a token issued before a restart
//	                  verifies after it), root's sourcehost token (the mcp
//	                  token too), the control token, the orch API key
//	                  --orch-auth prints (the same key whenever it is on). A credential given at
//	                  a later start (ERP_ADMIN_PASSWORD,
//	                  --cloudauth-admin-password, APITWIN_CONTROL_TOKEN)
//	                  wins for that start; the file keeps the first.
//	state.json        every fake's data and pending work (fake.Fakes'
//	                  Snapshot: records and their numbering, tokens and
//	                  revocations, repositories, pipelines, workflows with
//	                  their histories, queued tasks and timers), written at
//	                  shutdown (SIGINT, SIGTERM) once the fakes have stopped
//	                  serving, and on POST /api/snapshot of the control API.
//
// At start the fakes come back from state.json, and --seed is not loaded
// again. The fakes' clock resumes as far past the snapshot's time as the
// wall clock is past the moment it was taken: time passes while the
// program is down, as it does for the real services, so tokens issued
// before expire when they would have, and timers, timeouts and pipelines
// that fell due meanwhile happen at start, in order, each at its time
// (an advance made through the control API is kept). With --frozen-clock
// the clock stays at the snapshot's time. After a crash (SIGKILL, a power
// cut) the fakes come back as the last snapshot left them: what happened
// after it is lost, so a suite that must lose nothing posts
// /api/snapshot when it matters. A state.json or credentials.json that is
// not apitwin-fake's, of another version, or does not hold together is an
// error naming the file (remove it to start afresh), and the program
// stops before it prints "ready". Not kept: faults, request logs, webhook deliveries still queued,
// rate-limit windows, the mcp gateway's cache, and orch's auth setting
// (--orch-auth, given at each start). Both files hold secrets: keep DIR private, and use one
// DIR per running program.
package main

import "github.com/apitwin/apitwin/internal/fakecmd"

func main() { fakecmd.Main() }
