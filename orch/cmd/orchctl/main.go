// Command orchctl is a command-line client of the workflow-orchestration
// service: start, list, describe, follow, signal, query, update, cancel
// and terminate workflows; list, describe and create namespaces; describe task
// queues. It speaks gRPC to host:port addresses and HTTP/JSON to http(s)
// URLs, against a real service or apitwin-fake.
//
//	orchctl workflow start --type OrderFulfilment --task-queue orders --input '{"invoice":"FA-1"}'
//	orchctl workflow list --query "ExecutionStatus = 'Running' AND WorkflowType = 'OrderFulfilment'"
//	orchctl workflow describe order-1
//	orchctl workflow show order-1 --follow          # the history, as it grows
//	orchctl workflow signal order-1 --name approve --input '{"by":"alice"}'
//	orchctl workflow start -t OrderFulfilment -q orders -w order-2 --signal add-item --signal-input '"lamp"'
//	orchctl workflow query order-1 --type progress
//	orchctl workflow update order-1 --name add-item --input '"lamp"'   # prints the handler's result
//	orchctl workflow result order-1                  # waits, prints the result
//	orchctl workflow cancel order-1 --reason "customer asked"
//	orchctl workflow terminate order-1 --reason stuck
//	orchctl namespace create billing --retention 720h
//	orchctl task-queue describe orders --type activity
//	orchctl --output json namespace list
//
// Settings come from flags, then the environment, then defaults: --address
// (ORCH_ADDR; default 127.0.0.1:7233), --namespace (ORCH_NAMESPACE;
// default "default"), --token (ORCH_TOKEN; prefer the variable, a flag
// shows in the process list), --tls auto|on|off (ORCH_TLS; auto is TLS
// except to loopback addresses), --ca-cert (ORCH_CA_CERT), --output
// table|json, --timeout (each call, 30 s by default).
//
// Exit status: 0 done; 1 an error (the server refused or could not be
// reached); 2 a command line that cannot be run as written; 3 the workflow
// whose result was asked for did not complete (failed, canceled,
// terminated, timed out); 4 not authenticated or not allowed.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv})
	stop()
	os.Exit(code)
}
