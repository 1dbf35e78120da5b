package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/fakecmd"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestMain lets the test binary be the programs the process test starts
// (testtools.ProgramPath): orchctl, and apitwin-fake for it to drive.
func TestMain(m *testing.M) {
	testtools.Programs(map[string]func(){"orchctl": main, "apitwin-fake": fakecmd.Main})
	os.Exit(m.Run())
}

// startApitwinFake runs apitwin-fake as its own process on free ports
// (with the flags of extra) until the test ends and returns what it
// printed of each service ("orch" → {"grpc": …, "url": …}).
func startApitwinFake(t *testing.T, bin string, extra ...string) map[string]map[string]string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--erp-port", "0", "--cloudauth-port", "0", "--orch-grpc-port", "0",
		"--orch-http-port", "0", "--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0"}, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
	})
	services := map[string]map[string]string{}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "ready" {
		fields := strings.Fields(lines.Text())
		if len(fields) == 0 {
			continue
		}
		kv := map[string]string{}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			kv[k] = v
		}
		services[fields[0]] = kv
	}
	if services["orch"]["grpc"] == "" || services["sourcehost"]["url"] == "" {
		// Its standard error is complete, and no longer written, once it
		// has exited.
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		t.Fatalf("apitwin-fake printed no orch or sourcehost address; stderr:\n%s", stderr.String())
	}
	return services
}

// shipment is the quickstart's order (examples/quickstart).
type shipment struct {
	Invoice   string `json:"invoice"`
	Customer  string `json:"customer"`
	Product   string `json:"product"`
	Qty       int    `json:"qty"`
	ProjectID int64  `json:"project_id"`
	Parcel    string `json:"parcel,omitempty"`
	IssueIID  int64  `json:"issue_iid,omitempty"`
}

// quickstartWorker runs the quickstart's order workflow and activities,
// as examples/quickstart registers them, against apitwin-fake.
func quickstartWorker(t *testing.T, c *orch.Client, sh *sourcehost.Client) {
	t.Helper()
	w, err := orch.NewWorker(c, "quickstart-orders", nil)
	if err != nil {
		t.Fatal(err)
	}
	step := &orch.ActivityOptions{StartToCloseTimeout: 30 * time.Second}
	if err := errors.Join(
		orch.RegisterActivity(w, "PackParcel", func(ctx context.Context, o shipment) (shipment, error) {
			o.Parcel = fmt.Sprintf("PARCEL-%s-%d", strings.Trim(o.Invoice, "()"), o.Qty)
			return o, nil
		}),
		orch.RegisterActivity(w, "OpenShippingIssue", func(ctx context.Context, o shipment) (shipment, error) {
			is, err := sh.CreateIssue(ctx, sourcehost.ProjectID(o.ProjectID), &sourcehost.CreateIssueRequest{
				Title:       fmt.Sprintf("Ship invoice %s to %s", o.Invoice, o.Customer),
				Description: fmt.Sprintf("%d x %s in parcel %s", o.Qty, o.Product, o.Parcel),
				Labels:      sourcehost.Labels{"shipping"},
			})
			if err != nil {
				return o, err
			}
			o.IssueIID = is.IID
			return o, nil
		}),
		w.RegisterWorkflow("OrderFulfilment", orch.Sequence(
			orch.ActivityStep{ActivityType: "PackParcel", Options: step},
			orch.ActivityStep{ActivityType: "OpenShippingIssue", Options: step},
		)),
	); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// TestQuickstartOrderAgainstApitwinFake drives the quickstart's order
// workflow end to end with orchctl, run as a process, against
// apitwin-fake run as another: start it, wait for its result, follow it
// through show, describe, query, list and the task queue; then a second
// order without a worker is signaled, asked to cancel and terminated; and
// a namespace is made. Over HTTP for some commands, gRPC for the others.
func TestQuickstartOrderAgainstApitwinFake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two programs as processes")
	}
	t.Parallel()
	dir := t.TempDir()
	orchctl := testtools.ProgramPath(t, "orchctl")
	services := startApitwinFake(t, testtools.ProgramPath(t, "apitwin-fake"))
	grpcAddr, httpURL := services["orch"]["grpc"], services["orch"]["url"]

	sh, err := sourcehost.New(services["sourcehost"]["url"], sourcehost.WithToken(services["sourcehost"]["token"]))
	if err != nil {
		t.Fatal(err)
	}
	project, err := sh.CreateProject(t.Context(), &sourcehost.CreateProjectRequest{Name: "orchctl-warehouse"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := orch.Dial(grpcAddr, orch.WithInsecure(), orch.WithIdentity("quickstart-worker"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	quickstartWorker(t, c, sh)

	type out struct {
		code           int
		stdout, stderr string
	}
	orchctlRun := func(address string, args ...string) out {
		t.Helper()
		cmd := exec.Command(orchctl, args...)
		cmd.Env = testtools.ProgramEnv("ORCH_ADDR="+address, "HOME="+dir, "PATH=")
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out{code, o.String(), e.String()}
	}
	ok := func(address string, args ...string) string {
		t.Helper()
		r := orchctlRun(address, args...)
		if r.code != 0 {
			t.Fatalf("orchctl %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	has := func(what, got string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s printed\n%s\nwant %q", what, got, w)
			}
		}
	}

	input := fmt.Sprintf(`{"invoice":"FA2611-0001","customer":"Ada Lovelace","product":"Desk lamp","qty":2,"project_id":%d}`, project.ID)
	var started struct {
		WorkflowID string `json:"workflow_id"`
		RunID      string `json:"run_id"`
	}
	if err := json.Unmarshal([]byte(ok(httpURL, "-o", "json", "workflow", "start", "--type", "OrderFulfilment",
		"--task-queue", "quickstart-orders", "--workflow-id", "order-FA2611-0001", "--input", input)), &started); err != nil {
		t.Fatal(err)
	}
	if started.WorkflowID != "order-FA2611-0001" || started.RunID == "" {
		t.Fatalf("start: %+v", started)
	}

	var shipped shipment
	if err := json.Unmarshal([]byte(ok(grpcAddr, "workflow", "result", "order-FA2611-0001")), &shipped); err != nil {
		t.Fatal(err)
	}
	if shipped.Parcel != "PARCEL-FA2611-0001-2" || shipped.IssueIID == 0 {
		t.Errorf("result %+v", shipped)
	}
	issue, err := sh.GetIssue(t.Context(), sourcehost.ProjectID(project.ID), shipped.IssueIID)
	if err != nil || issue.Title != "Ship invoice FA2611-0001 to Ada Lovelace" {
		t.Errorf("the shipping issue: %+v, %v", issue, err)
	}

	has("show", ok(httpURL, "workflow", "show", "order-FA2611-0001"),
		"WorkflowExecutionStarted", "type=OrderFulfilment queue=quickstart-orders",
		"ActivityTaskScheduled                     type=PackParcel id=0",
		"ActivityTaskScheduled                     type=OpenShippingIssue id=1",
		`"parcel":"PARCEL-FA2611-0001-2"`, "WorkflowExecutionCompleted")
	has("describe", ok(grpcAddr, "workflow", "describe", "order-FA2611-0001"),
		"Status          Completed\n", "Type            OrderFulfilment\n", "Run ID          "+started.RunID+"\n")
	if got := ok(grpcAddr, "workflow", "query", "order-FA2611-0001", "--type", "progress"); got != "2\n" {
		t.Errorf("query progress printed %q", got)
	}
	has("list", ok(httpURL, "workflow", "list", "--query", "WorkflowType = 'OrderFulfilment' AND ExecutionStatus = 'Completed'"),
		"Completed  order-FA2611-0001  "+started.RunID+"  OrderFulfilment  quickstart-orders")
	has("task-queue describe", ok(grpcAddr, "task-queue", "describe", "quickstart-orders", "--type", "activity"), "quickstart-worker")

	// An order nobody works on: signaled, asked to cancel, terminated.
	ok(grpcAddr, "workflow", "start", "-t", "OrderFulfilment", "-q", "held-orders", "-w", "order-held", "-i", input)
	has("signal", ok(httpURL, "workflow", "signal", "order-held", "--name", "priority", "--input", `"express"`), "Signaled workflow order-held: priority")
	has("cancel", ok(grpcAddr, "workflow", "cancel", "order-held", "--reason", "customer asked"), "Requested cancellation of workflow order-held")
	has("show", ok(grpcAddr, "workflow", "show", "order-held"), `name=priority input="express"`, `WorkflowExecutionCancelRequested`)
	has("describe", ok(httpURL, "workflow", "describe", "order-held"), "Status          Running\n")
	has("terminate", ok(httpURL, "workflow", "terminate", "order-held", "--reason", "no warehouse"), "Terminated workflow order-held")
	if r := orchctlRun(grpcAddr, "workflow", "result", "order-held"); r.code != exitNotCompleted || !strings.Contains(r.stderr, "workflow order-held terminated: no warehouse") {
		t.Errorf("result of the terminated order: exit %d, %q", r.code, r.stderr)
	}
	if got := ok(grpcAddr, "workflow", "count", "--query", "WorkflowId STARTS_WITH 'order-'"); got != "2\n" {
		t.Errorf("count printed %q", got)
	}

	has("namespace create", ok(grpcAddr, "namespace", "create", "warehouse", "--retention", "168h", "--description", "Parcels"), "Created namespace warehouse")
	has("namespace list", ok(httpURL, "namespace", "list"), "warehouse  registered  7d", "default")
	var ns map[string]any
	if err := json.Unmarshal([]byte(ok(grpcAddr, "-o", "json", "namespace", "describe", "warehouse")), &ns); err != nil || ns["namespace_info"] == nil {
		t.Errorf("namespace describe -o json: %v, %v", ns, err)
	}
	if r := orchctlRun("127.0.0.1:1", "namespace", "list"); r.code != exitFailure || !strings.Contains(r.stderr, "Unavailable") {
		t.Errorf("an address nobody serves: exit %d, %q", r.code, r.stderr)
	}
}
