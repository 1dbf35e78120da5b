package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/erp"
	"github.com/apitwin/apitwin/fake/control"
	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/internal/fakecmd"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/mcp"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
	"github.com/apitwin/apitwin/sourcehost"
)

// TestServesEveryFakeAsAProcess starts the program as its own
// process on free ports, and calls each service through the URL and
// credentials it prints.
func TestServesEveryFakeAsAProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	bin := testtools.ProgramPath(t, "apitwin-fake")
	cmd := exec.Command(bin, "--seed", "demo", "--erp-port", "0", "--cloudauth-port", "0",
		"--orch-grpc-port", "0", "--orch-http-port", "0", "--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0")
	cmd.Env = append(os.Environ(), "ERP_ADMIN_PASSWORD=from-the-environment")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	services := map[string]map[string]string{}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "ready" {
		fields := strings.Fields(lines.Text())
		kv := map[string]string{}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			kv[k] = v
		}
		services[fields[0]] = kv
	}
	for _, name := range []string{"erp", "cloudauth", "orch", "sourcehost", "mcp"} {
		if services[name]["url"] == "" {
			t.Fatalf("no url printed for %s; stderr:\n%s", name, stderr.String())
		}
	}
	ctx := context.Background()

	if got := services["erp"]["admin_password"]; got != "from-the-environment" {
		t.Errorf("erp admin password %q, want ERP_ADMIN_PASSWORD's", got)
	}
	ec, err := erp.New(services["erp"]["url"], erp.WithAPIKey(services["erp"]["api_key"]))
	if err != nil {
		t.Fatal(err)
	}
	products, err := ec.ListProducts(ctx, nil)
	if err != nil || len(products.Items) != 3 {
		t.Errorf("erp products: %v, %v (want the demo's 3)", products, err)
	}
	lc, err := erp.New(services["erp"]["url"], erp.WithLogin("admin", services["erp"]["admin_password"]))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.ListUsers(ctx, nil); err != nil {
		t.Errorf("erp session login with the printed password: %v", err)
	}

	ac, err := cloudauth.New(services["cloudauth"]["url"])
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ac.Login(ctx, &cloudauth.LoginRequest{Username: services["cloudauth"]["username"],
		Password: services["cloudauth"]["password"], Tenant: services["cloudauth"]["tenant"]})
	if err != nil {
		t.Fatalf("cloudauth login with the printed credentials: %v", err)
	}
	if _, err := ac.VerifyToken(ctx, tok.Raw()); err != nil {
		t.Errorf("cloudauth token: %v", err)
	}

	// orch: a workflow started over gRPC is seen over HTTP/JSON.
	og, err := orch.Dial(services["orch"]["grpc"], orch.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	defer og.Close()
	run, err := og.StartWorkflow(ctx, "OrderWorkflow", "orders", map[string]int{"order": 42}, &orch.StartWorkflowOptions{ID: "order-42"})
	if err != nil {
		t.Fatalf("orch over gRPC: %v", err)
	}
	oh, err := orch.NewHTTP(services["orch"]["url"])
	if err != nil {
		t.Fatal(err)
	}
	info, err := oh.DescribeWorkflow(ctx, "order-42", "")
	if err != nil || info.GetExecution().GetRunId() != run.RunID {
		t.Errorf("orch over HTTP: %v, %v (want run %s)", info, err, run.RunID)
	}
	if n, err := oh.WithNamespace("orders").CountWorkflows(ctx, ""); err != nil || n != 0 {
		t.Errorf("orch: the demo's orders namespace: %d, %v", n, err)
	}

	sc, err := sourcehost.New(services["sourcehost"]["url"], sourcehost.WithToken(services["sourcehost"]["token"]))
	if err != nil {
		t.Fatal(err)
	}
	p, err := sc.CreateProject(ctx, &sourcehost.CreateProjectRequest{Name: "from-a-process"})
	if err != nil {
		t.Fatalf("sourcehost: %v", err)
	}

	mc, err := mcp.New(services["mcp"]["url"], mcp.WithToken(services["mcp"]["token"]))
	if err != nil {
		t.Fatal(err)
	}
	got, err := mc.GetProject(ctx, &mcp.GetProjectParams{ProjectID: p.ID})
	if err != nil || got.ID != p.ID {
		t.Errorf("mcp get_project %d: %v, %v", p.ID, got, err)
	}

	// The control line: a 503 fault on the ERP through the control API
	// fails the next ERP call, which the request log shows; an advance of
	// the clock fires the orch run's timeout.
	ctl := controlapi.NewClient(services["control"]["url"], services["control"]["token"], nil)
	if err := ctl.InjectFault(ctx, "erp", "", control.Fault{Status: 503, Times: 1}); err != nil {
		t.Fatalf("control: %v", err)
	}
	noRetry, _ := erp.New(services["erp"]["url"], erp.WithAPIKey(services["erp"]["api_key"]), erp.WithoutRetries())
	if _, err := noRetry.ListProducts(ctx, nil); err == nil {
		t.Error("the ERP answered through a 503 fault")
	}
	if reqs, err := ctl.Requests(ctx, "erp", controlapi.RequestFilter{Status: 503}); err != nil || len(reqs) != 1 || !reqs[0].Fault {
		t.Errorf("control: the ERP's log: %+v %v", reqs, err)
	}
	if _, err := og.StartWorkflow(ctx, "Timed", "orders", nil, &orch.StartWorkflowOptions{ID: "timed", ExecutionTimeout: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Freeze(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.Advance(ctx, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	if info, err := oh.DescribeWorkflow(ctx, "timed", ""); err != nil || info.GetStatus() != orchpb.WorkflowExecutionStatus_TIMED_OUT {
		t.Errorf("after advancing 2h through the control API: %v %v", info.GetStatus(), err)
	}

	// SIGTERM: a clean shutdown, exit status 0.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("stderr %q does not say it shut down", stderr.String())
	}
}

func TestRunRefusesBadSettings(t *testing.T) {
	t.Parallel()
	seedFile := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(seedFile, []byte("erp:\n  prodcts: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"bad ERP_PORT", nil, map[string]string{"ERP_PORT": "http"}, `ERP_PORT "http"`},
		{"arguments", []string{"serve"}, nil, "unexpected arguments"},
		{"unknown flag", []string{"--nope"}, nil, "nope"},
		{"missing seed", []string{"--seed", filepath.Join(t.TempDir(), "none.json")}, nil, "no such file"},
		{"bad seed", []string{"--seed", seedFile}, nil, "prodcts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			getenv := func(k string) string { return tt.env[k] }
			err := fakecmd.Run(context.Background(), tt.args, &out, &errOut, getenv)
			if err == nil || !strings.Contains(err.Error()+errOut.String(), tt.wantErr) {
				t.Fatalf("error %v (stderr %q), want one mentioning %q", err, errOut.String(), tt.wantErr)
			}
			if out.Len() != 0 {
				t.Errorf("printed %q before failing", out.String())
			}
		})
	}
}

func TestRunStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- fakecmd.Run(ctx, []string{"--erp-port", "0", "--cloudauth-port", "0",
			"--orch-grpc-port", "0", "--orch-http-port", "0", "--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0", "--frozen-clock"},
			pw, io.Discard, func(string) string { return "" })
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	for lines.Scan() && lines.Text() != "ready" {
	}
	cancel()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v", err)
	}
}
