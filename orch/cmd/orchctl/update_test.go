package main

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/workflow"
)

// tally takes "add" updates of positive numbers until "close" and returns
// the sum.
func tally(ctx workflow.Context, _ struct{}) (int, error) {
	sum, closed := 0, false
	workflow.SetUpdateHandlerWithArg(ctx, "add", func(_ workflow.Context, n int) (any, error) {
		sum += n
		return sum, nil
	}, func(n int) error {
		if n <= 0 {
			return fmt.Errorf("%d is not positive", n)
		}
		return nil
	})
	workflow.SetUpdateHandler(ctx, "close", func(workflow.Context) (any, error) {
		closed = true
		return nil, nil
	}, nil)
	err := workflow.Await(ctx, func() bool { return closed })
	return sum, err
}

func tallyWorker(t *testing.T, c *orch.Client) {
	t.Helper()
	w, err := orch.NewWorker(c, "tally", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := workflow.Register(w, "Tally", tally); err != nil {
		t.Fatal(err)
	}
	if err := w.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// TestWorkflowUpdateCommand sends updates with orchctl over both
// transports: the result printed, the same update id again, a rejection
// (exit 1 with the validator's words), --wait accepted, the history's
// update events, an update of a closed workflow and bad flags.
func TestWorkflowUpdateCommand(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, c cli) {
		wc := c.srv.Client(orch.WithClientLimits(orch.ClientLimits{RequestsPerSecond: orch.Unlimited}))
		t.Cleanup(func() { _ = wc.Close() })
		tallyWorker(t, wc)
		c.ok("workflow", "start", "-t", "Tally", "-q", "tally", "-w", "t1")
		if got := c.ok("workflow", "update", "t1", "--name", "add", "--input", "4", "--update-id", "u-4"); got != "4\n" {
			t.Errorf("update printed %q", got)
		}
		if got := c.ok("workflow", "update", "t1", "--name", "add", "--input", "4", "--update-id", "u-4"); got != "4\n" {
			t.Errorf("the same update id again printed %q, want the first result", got)
		}
		c.fails(exitFailure, "-2 is not positive", "workflow", "update", "t1", "--name", "add", "--input", "-2")
		// The handler answers in the task that accepts it: waiting for
		// accepted gets the result too.
		if got := c.ok("workflow", "update", "t1", "--name", "add", "--input", "3", "--wait", "accepted", "--update-id", "u-3"); got != "7\n" {
			t.Errorf("--wait accepted printed %q", got)
		}
		if got := c.ok("workflow", "update", "t1", "--name", "close"); got != "null\n" {
			t.Errorf("close printed %q", got)
		}
		if got := c.ok("workflow", "result", "t1"); got != "7\n" {
			t.Errorf("result %q", got)
		}
		show := c.ok("workflow", "show", "t1")
		for _, want := range []string{"WorkflowExecutionUpdateAccepted", "id=u-4 name=add input=4", "WorkflowExecutionUpdateCompleted", "result=4"} {
			if !strings.Contains(show, want) {
				t.Errorf("show printed\n%s\nwant %q", show, want)
			}
		}
		c.fails(exitFailure, "completed", "workflow", "update", "t1", "--name", "add", "--input", "1")
		c.fails(exitUsage, "--wait", "workflow", "update", "t1", "--name", "add", "--wait", "admitted")
		c.fails(exitUsage, "name", "workflow", "update", "t1")
	})
}

// TestWorkflowUpdateAgainstApitwinFake runs orchctl workflow update as a
// process against apitwin-fake run as another, over gRPC and HTTP.
func TestWorkflowUpdateAgainstApitwinFake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two programs as processes")
	}
	t.Parallel()
	orchctl := testtools.ProgramPath(t, "orchctl")
	services := startApitwinFake(t, testtools.ProgramPath(t, "apitwin-fake"))
	grpcAddr, httpURL := services["orch"]["grpc"], services["orch"]["url"]
	c, err := orch.Dial(grpcAddr, orch.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	tallyWorker(t, c)
	dir := t.TempDir()
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
	if code, out, stderr := run(grpcAddr, "workflow", "start", "-t", "Tally", "-q", "tally", "-w", "proc-tally"); code != 0 {
		t.Fatalf("start: exit %d\n%s%s", code, out, stderr)
	}
	for _, tc := range []struct {
		address, input, want string
		code                 int
	}{
		{httpURL, "5", "5\n", 0},
		{grpcAddr, "6", "11\n", 0},
		{httpURL, "0", "0 is not positive", exitFailure},
	} {
		code, out, stderr := run(tc.address, "workflow", "update", "proc-tally", "--name", "add", "--input", tc.input)
		if code != tc.code || !strings.Contains(out+stderr, tc.want) {
			t.Errorf("update %s over %s: exit %d\n%s%s\nwant exit %d and %q", tc.input, tc.address, code, out, stderr, tc.code, tc.want)
		}
	}
}
