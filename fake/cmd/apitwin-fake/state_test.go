package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/internal/fakecmd"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/sourcehost"
	"google.golang.org/protobuf/types/known/durationpb"
)

// portsToRestartOn are port flags for a first start that a test restarts
// on the same ports: free ports below the kernel's ephemeral range
// (32768 and up on Linux), which the port-0 listeners and outgoing
// connections of tests running beside it never take, so none of them can
// take a port in the moment between the stop and the restart.
func portsToRestartOn(t *testing.T) []string {
	t.Helper()
	var flags []string
	used := map[int]bool{}
	for _, name := range []string{"--erp-port", "--cloudauth-port", "--orch-grpc-port", "--orch-http-port", "--sourcehost-port", "--mcp-port", "--control-port"} {
		for tries := 0; ; tries++ {
			if tries == 1000 {
				t.Fatal("no free port between 20000 and 32767")
			}
			port := 20000 + rand.IntN(12768)
			if used[port] {
				continue
			}
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
			if err != nil {
				continue
			}
			l.Close()
			used[port] = true
			flags = append(flags, name, strconv.Itoa(port))
			break
		}
	}
	return flags
}

// samePorts are the flags that start the program again where p listened,
// as a development environment restarts on its fixed ports.
func samePorts(t *testing.T, p *process) []string {
	t.Helper()
	port := func(raw string) string {
		if u, err := url.Parse(raw); err == nil && u.Host != "" {
			raw = u.Host
		}
		_, port, err := net.SplitHostPort(raw)
		if err != nil {
			t.Fatalf("no port in %q", raw)
		}
		return port
	}
	sv := p.services
	return []string{"--erp-port", port(sv["erp"]["url"]), "--cloudauth-port", port(sv["cloudauth"]["url"]),
		"--orch-grpc-port", port(sv["orch"]["grpc"]), "--orch-http-port", port(sv["orch"]["url"]),
		"--sourcehost-port", port(sv["sourcehost"]["url"]), "--mcp-port", port(sv["mcp"]["url"]),
		"--control-port", port(sv["control"]["url"])}
}

// stop ends p with sig and waits for it; it returns p's stderr.
func stop(t *testing.T, p *process, sig os.Signal) string {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := p.cmd.Wait()
	if sig == syscall.SIGTERM && err != nil {
		t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, p.stderr)
	}
	return p.stderr.String()
}

// credentialsOf are the credentials a start printed.
func credentialsOf(p *process) map[string]string {
	sv := p.services
	return map[string]string{"erp api_key": sv["erp"]["api_key"], "erp admin_password": sv["erp"]["admin_password"],
		"cloudauth password": sv["cloudauth"]["password"], "sourcehost token": sv["sourcehost"]["token"],
		"mcp token": sv["mcp"]["token"], "control token": sv["control"]["token"]}
}

// Finding 8 of issue 38: every restart made new credentials, so a client
// that read them once got 401 for ever after. With -state-dir, a restart
// prints the same credentials, and the clients built from the first start
// (their keys and tokens, a cloudauth token issued then) keep working;
// every fake's data reads back, and a workflow running at the shutdown
// (an activity queued, a timer pending) completes after the restart.
func TestStateDirKeepsCredentialsAndEveryFakesData(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	first := startProcess(t, append(portsToRestartOn(t), "--state-dir", dir, "--seed", "demo", "--frozen-clock")...)
	sv := first.services

	ec, err := erp.New(sv["erp"]["url"], erp.WithAPIKey(sv["erp"]["api_key"]))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := ec.CreateInvoice(ctx, &erp.CreateInvoiceRequest{SocID: 1, Lines: []erp.LineRequest{{ProductID: 1, Qty: erp.DecimalFromInt(3)}}})
	if err != nil {
		t.Fatal(err)
	}
	ac, err := cloudauth.New(sv["cloudauth"]["url"])
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ac.Login(ctx, &cloudauth.LoginRequest{Username: "admin", Password: sv["cloudauth"]["password"]})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := sourcehost.New(sv["sourcehost"]["url"], sourcehost.WithToken(sv["sourcehost"]["token"]))
	if err != nil {
		t.Fatal(err)
	}
	proj, err := sc.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	issue, err := sc.CreateIssue(ctx, sourcehost.ProjectID(proj.ID), &sourcehost.CreateIssueRequest{Title: "survives"})
	if err != nil {
		t.Fatal(err)
	}
	oc, err := orch.Dial(sv["orch"]["grpc"], orch.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	defer oc.Close()
	run, err := oc.StartWorkflow(ctx, "Order", "orders", nil, &orch.StartWorkflowOptions{ID: "order-7"})
	if err != nil {
		t.Fatal(err)
	}
	raw := oc.Raw()
	wt, err := raw.PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: "orders", Identity: "w"})
	if err != nil || len(wt.GetTaskToken()) == 0 {
		t.Fatalf("the workflow's first task: %v %v", wt, err)
	}
	if _, err := raw.RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: wt.GetTaskToken(), Commands: []*orchpb.Command{
		{CommandType: orchpb.CommandType_SCHEDULE_ACTIVITY_TASK, Attributes: &orchpb.Command_ScheduleActivityTaskCommandAttributes{ScheduleActivityTaskCommandAttributes: &orchpb.ScheduleActivityTaskCommandAttributes{
			ActivityId: "ship", ActivityType: &orchpb.ActivityType{Name: "Ship"}, TaskQueue: "orders", StartToCloseTimeout: durationpb.New(time.Minute)}}},
		{CommandType: orchpb.CommandType_START_TIMER, Attributes: &orchpb.Command_StartTimerCommandAttributes{StartTimerCommandAttributes: &orchpb.StartTimerCommandAttributes{
			TimerId: "wait", StartToFireTimeout: durationpb.New(time.Hour)}}},
	}}); err != nil {
		t.Fatal(err)
	}

	if errOut := stop(t, first, syscall.SIGTERM); !strings.Contains(errOut, "state saved to "+filepath.Join(dir, "state.json")) {
		t.Errorf("stderr %q does not say where the state went", errOut)
	}
	for name, mode := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "state.json"): 0o600, filepath.Join(dir, "credentials.json"): 0o600} {
		if info, err := os.Stat(name); err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s: %v, want mode %#o", name, err, mode)
		}
	}

	second := startProcess(t, append([]string{"--state-dir", dir, "--seed", "demo", "--frozen-clock"}, samePorts(t, first)...)...)
	if diff := credentialsOf(second); !equalMaps(diff, credentialsOf(first)) {
		t.Errorf("credentials after the restart differ: %v, first %v", diff, credentialsOf(first))
	}
	// The clients of the first start, as they were.
	if got, err := ec.GetInvoice(ctx, inv.ID); err != nil || got.Ref != inv.Ref {
		t.Errorf("the invoice after the restart, with the first start's key: %+v %v", got, err)
	}
	if ps, err := ec.ListProducts(ctx, nil); err != nil || len(ps.Items) != 3 {
		t.Errorf("the demo's products after the restart (loaded once, not twice): %v %v", ps, err)
	}
	if _, err := ac.UserInfo(ctx, tok); err != nil {
		t.Errorf("a cloudauth token of the first start: %v", err)
	}
	if got, err := sc.GetIssue(ctx, sourcehost.ProjectID(proj.ID), issue.IID); err != nil || got.Title != "survives" {
		t.Errorf("the issue after the restart: %+v %v", got, err)
	}
	mc, err := mcp.New(sv["mcp"]["url"], mcp.WithToken(sv["mcp"]["token"]))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := mc.GetProject(ctx, &mcp.GetProjectParams{ProjectID: proj.ID}); err != nil || got.Name != "kept" {
		t.Errorf("the project through the gateway after the restart: %+v %v", got, err)
	}

	// The workflow goes on: the activity queued before is polled now, the
	// timer fires when the clock reaches it, the workflow completes.
	at, err := raw.PollActivityTaskQueue(ctx, &orchpb.PollActivityTaskQueueRequest{Namespace: "default", TaskQueue: "orders", Identity: "w"})
	if err != nil || at.GetActivityId() != "ship" {
		t.Fatalf("the activity queued before the restart: %v %v", at, err)
	}
	if _, err := raw.RespondActivityTaskCompleted(ctx, &orchpb.RespondActivityTaskCompletedRequest{Namespace: "default", TaskToken: at.GetTaskToken()}); err != nil {
		t.Fatal(err)
	}
	wt, err = raw.PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: "orders", Identity: "w"})
	if err != nil || len(wt.GetTaskToken()) == 0 {
		t.Fatalf("the task after the activity: %v %v", wt, err)
	}
	if _, err := raw.RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: wt.GetTaskToken()}); err != nil {
		t.Fatal(err)
	}
	ctl := controlapi.NewClient(sv["control"]["url"], sv["control"]["token"], nil)
	if _, err := ctl.Advance(ctx, time.Hour); err != nil {
		t.Fatalf("the control API with the first start's token: %v", err)
	}
	wt, err = raw.PollWorkflowTaskQueue(ctx, &orchpb.PollWorkflowTaskQueueRequest{Namespace: "default", TaskQueue: "orders", Identity: "w"})
	if err != nil || len(wt.GetTaskToken()) == 0 || wt.GetHistory()[len(wt.GetHistory())-3].GetEventType() != orchpb.EventType_TimerFired {
		t.Fatalf("the task after the timer: %v", err)
	}
	if _, err := raw.RespondWorkflowTaskCompleted(ctx, &orchpb.RespondWorkflowTaskCompletedRequest{Namespace: "default", TaskToken: wt.GetTaskToken(), Commands: []*orchpb.Command{
		{CommandType: orchpb.CommandType_COMPLETE_WORKFLOW_EXECUTION, Attributes: &orchpb.Command_CompleteWorkflowExecutionCommandAttributes{CompleteWorkflowExecutionCommandAttributes: &orchpb.CompleteWorkflowExecutionCommandAttributes{}}},
	}}); err != nil {
		t.Fatal(err)
	}
	if info, err := oc.DescribeWorkflow(ctx, "order-7", run.RunID); err != nil || info.GetStatus() != orchpb.WorkflowExecutionStatus_COMPLETED {
		t.Errorf("the workflow after the restart: %v %v, want completed", info.GetStatus(), err)
	}
	if errOut := stop(t, second, syscall.SIGTERM); !strings.Contains(errOut, "--seed demo not loaded") {
		t.Errorf("stderr %q does not say the seed was not loaded again", errOut)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if v == "" || b[k] != v {
			return false
		}
	}
	return true
}

// A crash keeps the credentials and the last snapshot (POST /api/snapshot):
// what came before it is there after a restart, what came after it is not.
func TestStateDirAfterACrash(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	first := startProcess(t, append(portsToRestartOn(t), "--state-dir", dir, "--frozen-clock")...)
	sv := first.services
	ec, err := erp.New(sv["erp"]["url"], erp.WithAPIKey(sv["erp"]["api_key"]))
	if err != nil {
		t.Fatal(err)
	}
	before, err := ec.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "Before the snapshot"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := controlapi.NewClient(sv["control"]["url"], sv["control"]["token"], nil).Snapshot(ctx)
	if err != nil || info.Path != filepath.Join(dir, "state.json") || info.Bytes == 0 {
		t.Fatalf("POST /api/snapshot: %+v %v", info, err)
	}
	after, err := ec.CreateThirdparty(ctx, &erp.CreateThirdpartyRequest{Name: "After the snapshot"})
	if err != nil {
		t.Fatal(err)
	}
	stop(t, first, syscall.SIGKILL)

	second := startProcess(t, append([]string{"--state-dir", dir, "--frozen-clock"}, samePorts(t, first)...)...)
	if !equalMaps(credentialsOf(second), credentialsOf(first)) {
		t.Errorf("credentials after a crash differ: %v, first %v", credentialsOf(second), credentialsOf(first))
	}
	if got, err := ec.GetThirdparty(ctx, before.ID); err != nil || got.Name != before.Name {
		t.Errorf("a record of before the snapshot: %+v %v", got, err)
	}
	if _, err := ec.GetThirdparty(ctx, after.ID); !errors.Is(err, erp.ErrNotFound) {
		t.Errorf("a record of after the last snapshot, after a crash: %v, want not found", err)
	}
}

// run runs the program in-process with args until it is ready (then stops
// it) or fails; it returns what it printed and its error.
func run(t *testing.T, env map[string]string, args ...string) (stdout string, err error) {
	t.Helper()
	args = append([]string{"--erp-port", "0", "--cloudauth-port", "0", "--orch-grpc-port", "0", "--orch-http-port", "0",
		"--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0", "--frozen-clock"}, args...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- fakecmd.Run(ctx, args, pw, io.Discard, func(k string) string { return env[k] })
		pw.Close()
	}()
	var out bytes.Buffer
	buf := make([]byte, 4096)
	for !strings.Contains(out.String(), "ready\n") {
		n, rerr := pr.Read(buf)
		out.Write(buf[:n])
		if rerr != nil {
			break
		}
	}
	cancel()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	return out.String(), <-done
}

// Without -state-dir nothing is kept, as before: each start makes new
// credentials.
func TestWithoutStateDirEachStartIsNew(t *testing.T) {
	t.Parallel()
	a, err := run(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := run(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := func(out string) string {
		_, rest, _ := strings.Cut(out, "api_key=")
		k, _, _ := strings.Cut(rest, " ")
		return k
	}
	if key(a) == "" || key(a) == key(b) {
		t.Errorf("two starts without -state-dir printed the ERP key %q and %q, want two new ones", key(a), key(b))
	}
}

// A flag or variable given at a later start wins over what the directory
// keeps, for that start: ERP_ADMIN_PASSWORD, APITWIN_CONTROL_TOKEN,
// --cloudauth-admin-password.
func TestStateDirGivenCredentialsWin(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	if _, err := run(t, nil, "--state-dir", dir); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, map[string]string{"ERP_ADMIN_PASSWORD": "from-env", "APITWIN_CONTROL_TOKEN": "a-control-token-of-mine"},
		"--state-dir", dir, "--cloudauth-admin-password", "from-flag")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"admin_password=from-env", "password=from-flag", "token=a-control-token-of-mine"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A state directory that cannot be used is a clear error naming the file
// and what to do, before anything is served or printed; no secret of the
// files is in the error.
func TestStateDirRefusals(t *testing.T) {
	t.Parallel()
	good := filepath.Join(t.TempDir(), "state")
	if _, err := run(t, nil, "--state-dir", good); err != nil {
		t.Fatal(err)
	}
	creds, err := os.ReadFile(filepath.Join(good, "credentials.json"))
	if err != nil {
		t.Fatal(err)
	}
	secret := string(creds[strings.Index(string(creds), `"api_key": "`)+12:][:32])
	mk := func(t *testing.T, files map[string]string, mode os.FileMode) string {
		dir := filepath.Join(t.TempDir(), "state")
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		for name, body := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		dir  func(t *testing.T) string
		want string
	}{
		{"a file", func(*testing.T) string { return notADir }, "not a directory"},
		{"open to others", func(t *testing.T) string { return mk(t, nil, 0o755) }, "chmod 700"},
		{"a corrupt state", func(t *testing.T) string {
			return mk(t, map[string]string{"state.json": `{"format":"apitwin-fakes","version":1,"erp":`}, 0o700)
		}, "state.json: fake: not a snapshot"},
		{"a state of another version", func(t *testing.T) string {
			return mk(t, map[string]string{"state.json": `{"format":"apitwin-fakes","version":9}`}, 0o700)
		}, "version 9"},
		{"a state whose part does not hold", func(t *testing.T) string {
			return mk(t, map[string]string{"state.json": `{"format":"apitwin-fakes","version":1,"erp":{"format":"erpfake","version":1,"orders":[{"id":1,"thirdparty":5}]},"cloudauth":{},"orch":{},"sourcehost":{}}`}, 0o700)
		}, "remove it to start with empty fakes"},
		{"corrupt credentials", func(t *testing.T) string {
			return mk(t, map[string]string{"credentials.json": strings.Replace(string(creds), `"token"`, `"tokn"`, 1)}, 0o700)
		}, "credentials.json"},
		{"credentials of another version", func(t *testing.T) string {
			return mk(t, map[string]string{"credentials.json": strings.Replace(string(creds), `"version": 1`, `"version": 2`, 1)}, 0o700)
		}, "version 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, nil, "--state-dir", tt.dir(t))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
			if out != "" {
				t.Errorf("printed %q before failing", out)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows a kept secret: %v", err)
			}
		})
	}
}

// Following the wall clock, a restart keeps what the clock was advanced by
// through the control API: the clock goes on from the snapshot's time, not
// back to the wall clock's.
func TestStateDirKeepsTheClocksAdvance(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "state")
	first := startProcess(t, append(portsToRestartOn(t), "--state-dir", dir)...)
	ctl := controlapi.NewClient(first.services["control"]["url"], first.services["control"]["token"], nil)
	advanced, err := ctl.Advance(ctx, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	stop(t, first, syscall.SIGTERM)

	second := startProcess(t, append([]string{"--state-dir", dir}, samePorts(t, first)...)...)
	ctl = controlapi.NewClient(second.services["control"]["url"], second.services["control"]["token"], nil)
	st, err := ctl.Clock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Now.Before(advanced.Now) || !st.FollowingWallClock {
		t.Errorf("the clock after the restart: %v (following %v), want at least %v, the day advanced before, and following", st.Now, st.FollowingWallClock, advanced.Now)
	}
}
