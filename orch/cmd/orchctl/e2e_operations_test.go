package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// TestOperationsAgainstApitwinFake drives reset, delete and the namespace
// operations with orchctl, run as a process, against apitwin-fake run as
// another, over gRPC and HTTP; the test plays the worker by hand.
func TestOperationsAgainstApitwinFake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two programs as processes")
	}
	t.Parallel()
	dir := t.TempDir()
	orchctl := testtools.ProgramPath(t, "orchctl")
	services := startApitwinFake(t, testtools.ProgramPath(t, "apitwin-fake"))
	grpcAddr, httpURL := services["orch"]["grpc"], services["orch"]["url"]
	c, err := orch.Dial(grpcAddr, orch.WithInsecure(), orch.WithIdentity("hand-worker"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })

	run := func(address string, args ...string) (int, string, string) {
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
		return code, o.String(), e.String()
	}
	ok := func(address string, args ...string) string {
		t.Helper()
		code, stdout, stderr := run(address, args...)
		if code != 0 {
			t.Fatalf("orchctl %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}
	fails := func(address, want string, args ...string) {
		t.Helper()
		code, stdout, stderr := run(address, args...)
		if code != exitFailure || !strings.Contains(stderr, want) {
			t.Errorf("orchctl %s: exit %d, %q%q; want exit %d and %q", strings.Join(args, " "), code, stdout, stderr, exitFailure, want)
		}
	}
	has := func(what, got string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s printed\n%s\nwant %q", what, got, w)
			}
		}
	}

	// A payment whose first task a worker completed (events 1-4), then
	// approved by a signal.
	ok(grpcAddr, "workflow", "start", "-t", "Payment", "-q", "payments", "-w", "pay-1")
	task, err := c.Raw().PollWorkflowTaskQueue(t.Context(), &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: "payments", Identity: "hand-worker"})
	if err != nil || len(task.GetTaskToken()) == 0 {
		t.Fatalf("poll: %v", err)
	}
	if _, err := c.Raw().RespondWorkflowTaskCompleted(t.Context(), &orchpb.RespondWorkflowTaskCompletedRequest{TaskToken: task.GetTaskToken()}); err != nil {
		t.Fatal(err)
	}
	ok(httpURL, "workflow", "signal", "pay-1", "--name", "approved", "--input", "true")

	has("reset", ok(httpURL, "workflow", "reset", "pay-1", "--event-id", "4", "--reason", "fixed the worker"), "Reset workflow pay-1: new run ")
	has("show", ok(grpcAddr, "workflow", "show", "pay-1"), "WorkflowTaskFailed", "RESET_WORKFLOW", "name=approved")
	has("describe", ok(grpcAddr, "workflow", "describe", "pay-1"), "Status          Running\n", "Workflow task   scheduled, attempt 1, scheduled ")
	fails(grpcAddr, "workflow_task_finish_event_id", "workflow", "reset", "pay-1", "--event-id", "2")
	has("start use_existing", ok(grpcAddr, "-o", "json", "workflow", "start", "-t", "Payment", "-q", "payments", "-w", "pay-1", "--id-conflict-policy", "use_existing"),
		`"started": false`)

	// The reset run, then the run it reset (terminated by the reset).
	has("delete", ok(grpcAddr, "workflow", "delete", "pay-1"), "Deleted workflow pay-1")
	has("delete", ok(httpURL, "workflow", "delete", "pay-1"), "Deleted workflow pay-1")
	fails(httpURL, "not found", "workflow", "signal", "pay-1", "--name", "late")
	fails(grpcAddr, "not found", "workflow", "describe", "pay-1")

	ok(grpcAddr, "namespace", "create", "warehouse")
	has("namespace update", ok(httpURL, "namespace", "update", "warehouse", "--description", "Parcels", "--retention", "336h", "--data", "site=eu"),
		"Updated namespace warehouse: registered, retention 14d")
	has("namespace describe", ok(grpcAddr, "namespace", "describe", "warehouse"), "Parcels", "Data site")
	has("namespace deprecate", ok(grpcAddr, "namespace", "deprecate", "warehouse"), "Deprecated namespace warehouse")
	fails(grpcAddr, "DEPRECATED", "-n", "warehouse", "workflow", "start", "-t", "Parcel", "-q", "parcels")
	has("namespace delete", ok(httpURL, "namespace", "delete", "warehouse"), "Deleted namespace warehouse")
	fails(grpcAddr, "not found", "namespace", "describe", "warehouse")
}
