package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apitwin/apitwin/clock"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/orchfake"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// result is what one run of orchctl did.
type result struct {
	code        int
	out, stderr string
}

// cli runs orchctl in-process against srv, with env as its environment.
type cli struct {
	t   *testing.T
	srv *orchfake.Server
	env map[string]string
}

func (c cli) run(args ...string) result {
	c.t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return c.env[k] }}
	if c.srv != nil {
		// The fake's clock, and no client-side waits on it.
		env.ClientOptions = []orch.Option{orch.WithClock(c.srv.Clock()), orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited})}
	}
	code := run(c.t.Context(), args, env)
	return result{code: code, out: out.String(), stderr: errb.String()}
}

// ok runs orchctl and wants exit status 0.
func (c cli) ok(args ...string) string {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("orchctl %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.out, r.stderr)
	}
	return r.out
}

// fails runs orchctl and wants exit status code and stderr holding want.
func (c cli) fails(code int, want string, args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != code || !strings.Contains(r.stderr, want) {
		c.t.Errorf("orchctl %s: exit %d, stderr %q; want exit %d and %q", strings.Join(args, " "), r.code, r.stderr, code, want)
	}
	return r
}

// each runs body over both transports: gRPC (a host:port address) and
// HTTP (a URL), each against a fake of its own.
func each(t *testing.T, body func(t *testing.T, c cli), opts ...orchfake.Option) {
	for _, transport := range []string{"grpc", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			srv := orchfake.Start(t, append([]orchfake.Option{control.WithClock(clock.NewFake(epoch))}, opts...)...)
			addr := srv.GRPCAddr()
			if transport == "http" {
				addr = srv.URL()
			}
			body(t, cli{t: t, srv: srv, env: map[string]string{EnvAddress: addr}})
		})
	}
}

// hold collects "add" signals until "done", answers the query "got", and
// ends canceled when asked to.
func hold(ctx workflow.Context, in string) (string, error) {
	var got []string
	workflow.SetQueryHandler(ctx, "got", func() (any, error) { return got, nil })
	ch := workflow.GetSignalChannel(ctx, "add")
	for {
		var s string
		canceled := false
		workflow.NewSelector(ctx).
			AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &s) }).
			AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) { canceled = true }).
			Select(ctx)
		if canceled {
			return "", workflow.ErrCanceled
		}
		if s == "done" {
			return in + ":" + strings.Join(got, ","), nil
		}
		got = append(got, s)
	}
}

// startWorker runs the workflows Hold and Echo on task queue "q".
func startWorker(t *testing.T, srv *orchfake.Server) *orch.Client {
	t.Helper()
	c := srv.Client(orch.WithIdentity("worker-1@test"), orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
	t.Cleanup(func() { _ = c.Close() })
	w, err := orch.NewWorker(c, "q", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := workflow.Register(w, "Hold", hold); err != nil {
		t.Fatal(err)
	}
	if err := workflow.Register(w, "Echo", func(_ workflow.Context, in any) (any, error) { return in, nil }); err != nil {
		t.Fatal(err)
	}
	if err := workflow.Register(w, "Parent", func(ctx workflow.Context, in any) (any, error) {
		var out any
		err := workflow.ExecuteChildWorkflow(ctx, "Echo", in, &workflow.ChildWorkflowOptions{WorkflowID: "child-of-parent"}).Get(ctx, &out)
		return out, err
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return c
}

func decode(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
}

// TestWorkflowCommands drives a workflow through every workflow command,
// in both output formats, over both transports.
func TestWorkflowCommands(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, c cli) {
		startWorker(t, c.srv)
		out := c.ok("workflow", "start", "--type", "Hold", "--task-queue", "q", "--workflow-id", "h-1", "--input", `"in"`,
			"--memo", `owner="ops"`)
		for _, want := range []string{"Workflow ID  h-1\n", "Type         Hold\n", "Task queue   q\n", "Namespace    default\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("start printed %q, want a line %q", out, want)
			}
		}
		c.fails(exitFailure, "WorkflowExecutionAlreadyStarted", "workflow", "start", "-t", "Hold", "-q", "q", "-w", "h-1")

		if got := c.ok("workflow", "signal", "h-1", "--name", "add", "--input", `"a"`); got != "Signaled workflow h-1: add\n" {
			t.Errorf("signal printed %q", got)
		}
		if got := c.ok("workflow", "query", "h-1", "--type", "got"); got != "[\n  \"a\"\n]\n" {
			t.Errorf("query printed %q", got)
		}
		c.fails(exitFailure, `unknown query type "nope" (known: got)`, "workflow", "query", "h-1", "--type", "nope")

		out = c.ok("workflow", "describe", "h-1")
		for _, want := range []string{"Workflow ID     h-1\n", "Status          Running\n", "Memo owner      \"ops\"\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("describe printed %q, want a line %q", out, want)
			}
		}
		var desc struct {
			ExecutionInfo struct {
				Status string                `json:"status"`
				Type   struct{ Name string } `json:"type"`
			} `json:"execution_info"`
		}
		decode(t, c.ok("-o", "json", "workflow", "describe", "h-1"), &desc)
		if desc.ExecutionInfo.Status != "RUNNING" || desc.ExecutionInfo.Type.Name != "Hold" {
			t.Errorf("describe JSON %+v", desc)
		}

		c.ok("workflow", "start", "-t", "Echo", "-q", "q", "-w", "e-1", "-i", `{"n":1}`)
		out = c.ok("workflow", "list", "--query", "WorkflowType = 'Hold'")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "STATUS   WORKFLOW ID") || !strings.HasPrefix(lines[1], "Running  h-1 ") {
			t.Errorf("list printed\n%s", out)
		}
		var list []struct {
			Execution struct {
				WorkflowID string `json:"workflow_id"`
			} `json:"execution"`
		}
		decode(t, c.ok("-o", "json", "workflow", "list", "--limit", "1"), &list)
		if len(list) != 1 {
			t.Errorf("list --limit 1 gave %d rows", len(list))
		}
		if got := c.ok("workflow", "count", "--query", "WorkflowId STARTS_WITH 'h-'"); got != "1\n" {
			t.Errorf("count printed %q", got)
		}
		c.fails(exitFailure, "invalid query", "workflow", "list", "--query", "WorkflowId = ")

		c.ok("workflow", "signal", "h-1", "--name", "add", "--input", `"done"`)
		if got := c.ok("workflow", "result", "h-1"); got != "\"in:a\"\n" {
			t.Errorf("result printed %q", got)
		}
		out = c.ok("workflow", "show", "h-1")
		for _, want := range []string{"WorkflowExecutionStarted", `type=Hold queue=q input="in"`, `WorkflowExecutionSignaled                 name=add input="a"`, `WorkflowExecutionCompleted                result="in:a"`} {
			if !strings.Contains(out, want) {
				t.Errorf("show printed\n%s\nwant %q", out, want)
			}
		}
		var hist struct {
			History []struct {
				EventID   string `json:"event_id"`
				EventType string `json:"event_type"`
			} `json:"history"`
		}
		saved := c.ok("-o", "json", "workflow", "history", "h-1")
		decode(t, saved, &hist)
		if n := len(hist.History); n == 0 || hist.History[0].EventID != "1" || hist.History[n-1].EventType != "WorkflowExecutionCompleted" {
			t.Errorf("show -o json: %+v", hist.History)
		}
		// The history saved as JSON replays against the workflow's code.
		if h, err := workflow.ParseHistoryJSON([]byte(saved)); err != nil {
			t.Error(err)
		} else if err := workflow.Replay(h, hold); err != nil {
			t.Errorf("Replay of the saved history: %v", err)
		}
		if got := c.ok("workflow", "result", "e-1", "-o", "json"); got != "{\n  \"n\": 1\n}\n" {
			t.Errorf("result of e-1 printed %q", got)
		}

		c.ok("workflow", "start", "-t", "Hold", "-q", "q", "-w", "h-2")
		if got := c.ok("workflow", "cancel", "h-2", "--reason", "customer asked"); got != "Requested cancellation of workflow h-2\n" {
			t.Errorf("cancel printed %q", got)
		}
		c.fails(exitNotCompleted, "workflow h-2 canceled", "workflow", "result", "h-2")

		c.ok("workflow", "start", "-t", "Hold", "-q", "q", "-w", "h-3")
		if got := c.ok("workflow", "terminate", "h-3", "--reason", "stuck"); got != "Terminated workflow h-3\n" {
			t.Errorf("terminate printed %q", got)
		}
		c.fails(exitNotCompleted, "workflow h-3 terminated: stuck", "workflow", "result", "h-3")
		r := c.run("-o", "json", "workflow", "result", "h-3")
		var res map[string]string
		decode(t, r.out, &res)
		if r.code != exitNotCompleted || res["status"] != "Terminated" || res["workflow_id"] != "h-3" {
			t.Errorf("result -o json of a terminated run: exit %d, %v", r.code, res)
		}
		c.fails(exitFailure, "WorkflowExecutionCompleted", "workflow", "signal", "h-3", "--name", "add")
		c.fails(exitFailure, "WorkflowExecutionNotFound", "workflow", "describe", "nope")

		if got := c.ok("workflow", "start", "-t", "Echo", "-q", "q", "--wait", "-i", `[1,2]`); got != "[\n  1,\n  2\n]\n" {
			t.Errorf("start --wait printed %q", got)
		}
		// Signal-with-start: the first starts h-4, the second signals it.
		c.ok("workflow", "start", "-t", "Hold", "-q", "q", "-w", "h-4", "-i", `"sws"`, "--signal", "add", "--signal-input", `"x"`)
		c.ok("workflow", "start", "-t", "Hold", "-q", "q", "-w", "h-4", "--signal", "add", "--signal-input", `"y"`)
		if got := c.ok("workflow", "query", "h-4", "--type", "got"); got != "[\n  \"x\",\n  \"y\"\n]\n" {
			t.Errorf("query after signal-with-start printed %q", got)
		}
		c.fails(exitUsage, "--signal needs --workflow-id", "workflow", "start", "-t", "Hold", "-q", "q", "--signal", "add")
		c.fails(exitUsage, "--signal-input needs --signal", "workflow", "start", "-t", "Hold", "-q", "q", "--signal-input", "1")

		// A child workflow: the parent's history shows it, the child's
		// description names its parent.
		c.ok("workflow", "start", "-t", "Parent", "-q", "q", "-w", "parent", "-i", `"p"`, "--wait")
		out = c.ok("workflow", "show", "parent")
		for _, want := range []string{"StartChildWorkflowExecutionInitiated", "type=Echo id=child-of-parent input=\"p\"",
			"ChildWorkflowExecutionStarted", "id=child-of-parent run=", "ChildWorkflowExecutionCompleted", `result="p"`} {
			if !strings.Contains(out, want) {
				t.Errorf("show of the parent printed\n%s\nwant %q", out, want)
			}
		}
		if out := c.ok("workflow", "describe", "child-of-parent"); !strings.Contains(out, "Parent          parent (run ") {
			t.Errorf("describe of the child printed\n%s", out)
		}

		var started map[string]any
		decode(t, c.ok("-o", "json", "workflow", "start", "-t", "Echo", "-q", "q", "-w", "e-2"), &started)
		if started["workflow_id"] != "e-2" || started["started"] != true || started["run_id"] == "" {
			t.Errorf("start -o json: %v", started)
		}
	})
}

func TestNamespaceAndTaskQueueCommands(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, c cli) {
		if got := c.ok("namespace", "create", "billing", "--retention", "720h", "--description", "Billing runs", "--owner-email", "ops@example.com", "--data", "team=payments"); got != "Created namespace billing\n" {
			t.Errorf("create printed %q", got)
		}
		c.fails(exitFailure, `namespace "billing" already exists`, "namespace", "create", "billing")
		c.fails(exitFailure, "retention", "namespace", "create", "short", "--retention", "1h")
		out := c.ok("namespace", "list")
		if !strings.Contains(out, "billing  registered  30d        ops@example.com  Billing runs\n") || !strings.Contains(out, "default  registered  3d") {
			t.Errorf("list printed\n%s", out)
		}
		out = c.ok("ns", "describe", "billing")
		for _, want := range []string{"Name                 billing\n", "Retention            30d\n", "Data team            payments\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("describe printed\n%s\nwant %q", out, want)
			}
		}
		var ns struct {
			NamespaceInfo struct{ Name string } `json:"namespace_info"`
			Config        struct {
				Retention string `json:"workflow_execution_retention_ttl"`
			} `json:"config"`
		}
		decode(t, c.ok("-o", "json", "namespace", "describe", "billing"), &ns)
		if ns.NamespaceInfo.Name != "billing" || ns.Config.Retention != "2592000s" {
			t.Errorf("describe -o json: %+v", ns)
		}
		var all []map[string]any
		decode(t, c.ok("-o", "json", "namespace", "list"), &all)
		if len(all) != 2 {
			t.Errorf("list -o json: %d namespaces", len(all))
		}
		c.fails(exitFailure, "NamespaceNotFound", "namespace", "describe", "nope")

		// Workflows go to the namespace of --namespace, else ORCH_NAMESPACE.
		c.ok("--namespace", "billing", "workflow", "start", "-t", "Hold", "-q", "q", "-w", "in-billing")
		c.env[EnvNamespace] = "billing"
		if got := c.ok("workflow", "count"); got != "1\n" {
			t.Errorf("count in billing: %q", got)
		}
		if got := c.ok("-n", "default", "workflow", "count"); got != "0\n" {
			t.Errorf("count in default: %q", got)
		}
		delete(c.env, EnvNamespace)

		c.fails(exitFailure, "Task queue not found", "task-queue", "describe", "q")
		startWorker(t, c.srv)
		c.ok("workflow", "start", "-t", "Echo", "-q", "q", "--wait")
		out = c.ok("task-queue", "describe", "q")
		for _, want := range []string{"Task queue        q\n", "Type              workflow\n", "POLLER IDENTITY", "worker-1@test"} {
			if !strings.Contains(out, want) {
				t.Errorf("task-queue describe printed\n%s\nwant %q", out, want)
			}
		}
		var tq struct {
			Pollers []struct{ Identity string } `json:"pollers"`
		}
		decode(t, c.ok("-o", "json", "tq", "describe", "q"), &tq)
		if len(tq.Pollers) == 0 || tq.Pollers[0].Identity != "worker-1@test" {
			t.Errorf("task-queue describe -o json: %+v", tq)
		}
	})
}

// TestCredentials: ORCH_TOKEN authenticates, --token overrides it, a
// missing or refused credential is exit status 4, and no output shows the
// token.
func TestCredentials(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, c cli) {
		admin := c.srv.IssueToken("admin", "", orchfake.PermAll)
		reader := c.srv.IssueToken("reader", "default", orchfake.PermNamespaceRead)
		c.fails(exitNotAuthenticated, "Unauthenticated", "namespace", "list")
		c.env[EnvToken] = admin
		c.ok("namespace", "list")
		r := c.run("--verbose", "workflow", "start", "-t", "X", "-q", "q", "-w", "w-1")
		if r.code != 0 || strings.Contains(r.out+r.stderr, admin) {
			t.Errorf("exit %d; the token shows: %v", r.code, strings.Contains(r.out+r.stderr, admin))
		}
		c.env[EnvToken] = "not-a-token"
		c.fails(exitNotAuthenticated, "Unauthenticated", "namespace", "list")
		c.ok("--token", admin, "namespace", "list")
		c.fails(exitNotAuthenticated, "access denied", "--token", reader, "workflow", "start", "-t", "X", "-q", "q")
		r = c.fails(exitNotAuthenticated, "access denied", "--token", reader, "workflow", "list", "-v")
		if strings.Contains(r.stderr, reader) {
			t.Error("the token shows in --verbose errors")
		}
	}, orchfake.WithAuth())
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	c := cli{t: t, srv: srv, env: map[string]string{EnvAddress: srv.GRPCAddr()}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"workflow", "describe"}, "workflow describe needs a workflow id"},
		{[]string{"workflow", "describe", "a", "b"}, "workflow describe takes 1 argument(s)"},
		{[]string{"workflow", "describe", " "}, "a workflow id is empty"},
		{[]string{"workflow", "start", "-t", "T"}, `required flag(s) "task-queue" not set`},
		{[]string{"workflow", "start", "-t", "T", "-q", "q", "-i", "{nope"}, "the input is not JSON"},
		{[]string{"workflow", "start", "-t", "T", "-q", "q", "-i", "1", "--input-file", "x"}, "give --input or --input-file, not both"},
		{[]string{"workflow", "start", "-t", "T", "-q", "q", "--memo", "k"}, "want KEY=JSON"},
		// The activity commands' own flags are named (they were told to
		// give --input or --input-file).
		{[]string{"activity", "complete", "-w", "w", "--activity-id", "a", "--result", "1", "--result-file", "x"}, "give --result or --result-file, not both"},
		{[]string{"activity", "fail", "-w", "w", "--activity-id", "a", "--detail", "oops"}, "the input is not JSON (--detail)"},
		{[]string{"workflow", "start", "-t", "T", "-q", "q", "--id-reuse-policy", "sometimes"}, "--id-reuse-policy"},
		{[]string{"workflow", "signal", "w"}, `required flag(s) "name" not set`},
		{[]string{"workflow", "query", "w", "--type", "t", "--reject-condition", "never"}, "--reject-condition"},
		{[]string{"workflow", "list", "--limit", "-1"}, "--limit -1"},
		{[]string{"--output", "yaml", "namespace", "list"}, `--output "yaml": want table or json`},
		{[]string{"--tls", "maybe", "namespace", "list"}, `--tls "maybe"`},
		{[]string{"--timeout", "0s", "namespace", "list"}, "--timeout 0s"},
		{[]string{"--address", "nowhere", "namespace", "list"}, `--address "nowhere"`},
		{[]string{"namespace", "create", "x", "--data", "novalue"}, "want KEY=VALUE"},
		{[]string{"task-queue", "describe", "q", "--type", "both"}, `--type "both"`},
		{[]string{"completion", "tcsh"}, `unknown shell "tcsh"`},
	} {
		r := c.run(tc.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "--help' for usage") {
			t.Errorf("orchctl %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.want)
		}
	}
	if out := c.ok(); !strings.Contains(out, "Exit status:") || !strings.Contains(out, "ORCH_ADDR") {
		t.Errorf("orchctl alone prints\n%s", out)
	}
	if out := c.ok("--version"); !strings.HasPrefix(out, "orchctl version ") {
		t.Errorf("--version printed %q", out)
	}
	if out := c.ok("completion", "bash"); !strings.Contains(out, "orchctl") {
		t.Errorf("completion bash printed %.100q", out)
	}
}

// TestTLSChoice: auto is plaintext to loopback, TLS elsewhere; on and off
// force it.
func TestTLSChoice(t *testing.T) {
	t.Parallel()
	srv := orchfake.Start(t)
	c := cli{t: t, srv: srv, env: map[string]string{EnvAddress: srv.GRPCAddr()}}
	c.ok("namespace", "list")
	c.fails(exitFailure, "handshake", "--tls", "on", "namespace", "list")
	c.env[EnvTLS] = "on"
	c.ok("--tls", "off", "namespace", "list")
	for host, want := range map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true, "orch.example.com": false, "10.0.0.1": false} {
		if loopback(host) != want {
			t.Errorf("loopback(%q) = %v", host, !want)
		}
	}
}

// watcher is an output that says when it first holds a text.
type watcher struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	text string
	seen chan struct{}
}

func (w *watcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, _ := w.buf.Write(p)
	if w.seen != nil && strings.Contains(w.buf.String(), w.text) {
		close(w.seen)
		w.seen = nil
	}
	return n, nil
}

func (w *watcher) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestShowFollow: show --follow prints the history, waits for new events
// and ends when the workflow closes.
func TestShowFollow(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, c cli) {
		startWorker(t, c.srv)
		c.ok("workflow", "start", "-t", "Hold", "-q", "q", "-w", "f-1")
		out := &watcher{text: "WorkflowTaskCompleted", seen: make(chan struct{})}
		seen := out.seen
		done := make(chan int)
		go func() {
			done <- run(t.Context(), []string{"workflow", "show", "f-1", "--follow"}, Env{
				Stdout: out, Getenv: func(k string) string { return c.env[k] },
				ClientOptions: []orch.Option{orch.WithClock(c.srv.Clock()), orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited})},
			})
		}()
		<-seen // the first task is shown: the run waits for a signal
		c.ok("workflow", "signal", "f-1", "--name", "add", "-i", `"done"`)
		if code := <-done; code != 0 {
			t.Fatalf("show --follow: exit %d", code)
		}
		got := out.String()
		if i, j := strings.Index(got, "WorkflowExecutionSignaled"), strings.Index(got, "WorkflowExecutionCompleted"); i < 0 || j < i {
			t.Errorf("show --follow printed\n%s", got)
		}
	})
}

// TestAgainstRealServer runs the commands that need no worker against the
// real service the orch tests use, when ORCH_TEST_GRPC_ADDR or
// ORCH_TEST_HTTP_URL names one (ORCH_TEST_TOKEN, ORCH_TEST_NAMESPACE and
// ORCH_TEST_GRPC_INSECURE=1 as there).
func TestAgainstRealServer(t *testing.T) {
	t.Parallel()
	targets := map[string]string{"grpc": os.Getenv("ORCH_TEST_GRPC_ADDR"), "http": os.Getenv("ORCH_TEST_HTTP_URL")}
	if targets["grpc"] == "" && targets["http"] == "" {
		t.Skip("ORCH_TEST_GRPC_ADDR and ORCH_TEST_HTTP_URL are not set")
	}
	for transport, addr := range targets {
		if addr == "" {
			continue
		}
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{EnvAddress: addr, EnvToken: os.Getenv("ORCH_TEST_TOKEN"), EnvNamespace: os.Getenv("ORCH_TEST_NAMESPACE")}
			if os.Getenv("ORCH_TEST_GRPC_INSECURE") == "1" {
				env[EnvTLS] = "off"
			}
			c := cli{t: t, env: env}
			ns := cmp.Or(env[EnvNamespace], "default")
			if out := c.ok("namespace", "describe", ns); !strings.Contains(out, "Name                 "+ns+"\n") {
				t.Errorf("namespace describe printed\n%s", out)
			}
			id := fmt.Sprintf("orchctl-test-%d", time.Now().UnixNano())
			c.ok("workflow", "start", "-t", "OrchctlTest", "-q", id, "-w", id, "-i", `{"n":1}`)
			c.ok("workflow", "signal", id, "--name", "ping", "-i", `"x"`)
			if out := c.ok("workflow", "show", id); !strings.Contains(out, `name=ping input="x"`) {
				t.Errorf("show printed\n%s", out)
			}
			if out := c.ok("workflow", "describe", id); !strings.Contains(out, "Status          Running\n") {
				t.Errorf("describe printed\n%s", out)
			}
			c.ok("workflow", "terminate", id, "--reason", "orchctl test")
			c.fails(exitNotCompleted, "terminated: orchctl test", "workflow", "result", id)
		})
	}
}
