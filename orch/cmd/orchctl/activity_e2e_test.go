package main

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/orch"
	"github.com/apitwin/apitwin/orch/orchpb"
)

// TestActivityCommandsAgainstApitwinFake: orchctl activity complete and
// fail answer activities no worker answers, by workflow id and activity id,
// against apitwin-fake run as a process, over gRPC and HTTP.
func TestActivityCommandsAgainstApitwinFake(t *testing.T) {
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

	// waiting starts a workflow whose first task schedules activity a1,
	// which no worker runs.
	waiting := func(id string, opts *orch.ActivityOptions) {
		t.Helper()
		q := "approvals-" + id
		if _, err := c.StartWorkflow(t.Context(), "Approval", q, nil, &orch.StartWorkflowOptions{ID: id}); err != nil {
			t.Fatal(err)
		}
		task, err := c.Raw().PollWorkflowTaskQueue(t.Context(), &orchpb.PollWorkflowTaskQueueRequest{TaskQueue: q})
		if err != nil || len(task.GetTaskToken()) == 0 {
			t.Fatalf("workflow task: %v, %v", task, err)
		}
		cmd, err := orch.ScheduleActivityCommand("a1", "Approve", id, opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Raw().RespondWorkflowTaskCompleted(t.Context(), &orchpb.RespondWorkflowTaskCompletedRequest{TaskToken: task.GetTaskToken(), Commands: []*orchpb.Command{cmd}}); err != nil {
			t.Fatal(err)
		}
	}
	run := func(address string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(orchctl, args...)
		cmd.Env = testtools.ProgramEnv("ORCH_ADDR="+address, "HOME="+t.TempDir(), "PATH=")
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
	lastActivityEvent := func(id string) *orchpb.HistoryEvent {
		t.Helper()
		var last *orchpb.HistoryEvent
		for ev, err := range c.History(t.Context(), id, "", nil) {
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(ev.GetEventType().String(), "ActivityTask") {
				last = ev
			}
		}
		return last
	}

	waiting("approval-1", &orch.ActivityOptions{StartToCloseTimeout: time.Hour})
	code, out, errOut := run(httpURL, "activity", "complete", "--workflow-id", "approval-1", "--activity-id", "a1", "--result", `{"approved":true}`)
	if code != 0 || out != "Completed activity a1 of workflow approval-1\n" {
		t.Errorf("activity complete: exit %d, %q, %q", code, out, errOut)
	}
	ev := lastActivityEvent("approval-1")
	if ev.GetEventType() != orchpb.EventType_ActivityTaskCompleted || string(ev.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads()[0].GetData()) != `{"approved":true}` {
		t.Errorf("after activity complete: %v", ev)
	}
	if code, _, errOut := run(grpcAddr, "activity", "complete", "-w", "approval-1", "--activity-id", "a1"); code != exitFailure || !strings.Contains(errOut, "cannot find pending activity") {
		t.Errorf("completing it again: exit %d, %q", code, errOut)
	}

	waiting("approval-2", &orch.ActivityOptions{StartToCloseTimeout: time.Hour})
	code, out, errOut = run(grpcAddr, "-o", "json", "activity", "fail", "-w", "approval-2", "--activity-id", "a1", "--reason", "no reviewer", "--detail", `"ops"`, "--non-retryable")
	if code != 0 || !strings.Contains(out, `"status": "failed"`) {
		t.Errorf("activity fail: exit %d, %q, %q", code, out, errOut)
	}
	ev = lastActivityEvent("approval-2")
	if f := ev.GetActivityTaskFailedEventAttributes(); ev.GetEventType() != orchpb.EventType_ActivityTaskFailed || f.GetFailure().GetMessage() != "no reviewer" || f.GetRetryState() != orchpb.RetryState_NON_RETRYABLE_FAILURE {
		t.Errorf("after activity fail: %v", ev)
	}
	if code, _, errOut := run(grpcAddr, "activity", "fail", "--activity-id", "a1"); code != exitUsage || !strings.Contains(errOut, "workflow-id") {
		t.Errorf("fail without --workflow-id: exit %d, %q", code, errOut)
	}
}
