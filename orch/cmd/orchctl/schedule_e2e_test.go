package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

// TestScheduleCommandsAgainstApitwinFake drives every schedule command
// with orchctl, run as a process, against apitwin-fake run as another,
// over gRPC and HTTP: create, trigger, backfill, pause, unpause, update,
// describe, list, delete, and a refusal.
func TestScheduleCommandsAgainstApitwinFake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two programs as processes")
	}
	t.Parallel()
	dir := t.TempDir()
	orchctl := testtools.ProgramPath(t, "orchctl")
	services := startApitwinFake(t, testtools.ProgramPath(t, "apitwin-fake"))
	grpcAddr, httpURL := services["orch"]["grpc"], services["orch"]["url"]
	run := func(address string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(orchctl, args...)
		cmd.Env = testtools.ProgramEnv("ORCH_ADDR="+address, "HOME="+dir, "PATH=")
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), o.String(), e.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, o.String(), e.String()
	}
	ok := func(address string, wants []string, args ...string) string {
		t.Helper()
		code, stdout, stderr := run(address, args...)
		if code != 0 {
			t.Fatalf("orchctl %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		for _, w := range wants {
			if !strings.Contains(stdout, w) {
				t.Errorf("orchctl %s printed\n%s\nwant %q", strings.Join(args, " "), stdout, w)
			}
		}
		return stdout
	}

	ok(grpcAddr, []string{"Created schedule nightly"}, "schedule", "create", "nightly", "--type", "Report", "--task-queue", "reports",
		"--cron", "0 2 * * *", "--interval", "12h/1h", "--overlap-policy", "allow_all", "--input", `{"kind":"nightly"}`)
	ok(httpURL, []string{"Triggered schedule nightly"}, "schedule", "trigger", "nightly")
	ok(grpcAddr, []string{"Backfilled schedule nightly"}, "schedule", "backfill", "nightly",
		"--start-time", "2026-01-01T00:00:00Z", "--end-time", "2026-01-01T23:59:59Z")
	ok(httpURL, []string{"Paused schedule nightly"}, "schedule", "pause", "nightly", "--reason", "maintenance")
	ok(grpcAddr, []string{"Overlap policy            allow_all", "Paused                    yes", "Notes                     maintenance",
		"Actions                   4", "nightly-2026-01-01T01:00:00Z", "nightly-2026-01-01T02:00:00Z", "nightly-2026-01-01T13:00:00Z"},
		"schedule", "describe", "nightly")
	ok(grpcAddr, []string{"Unpaused schedule nightly"}, "schedule", "unpause", "nightly")
	ok(httpURL, []string{"Updated schedule nightly"}, "schedule", "update", "nightly", "--type", "Report2", "--task-queue", "reports", "--interval", "1h")
	ok(grpcAddr, []string{"nightly      Report2        every 1h0m0s  no"}, "schedule", "list")

	var listed []map[string]any
	if err := json.Unmarshal([]byte(ok(httpURL, nil, "-o", "json", "schedule", "list")), &listed); err != nil || len(listed) != 1 || listed[0]["schedule_id"] != "nightly" {
		t.Errorf("schedule list -o json: %v, %v", listed, err)
	}
	// the runs a schedule started are workflows like any other
	if got := ok(grpcAddr, nil, "workflow", "count", "--query", "ScheduledById = 'nightly'"); got != "4\n" {
		t.Errorf("count of the schedule's runs printed %q", got)
	}
	ok(httpURL, []string{"Deleted schedule nightly"}, "schedule", "delete", "nightly")
	if code, _, stderr := run(grpcAddr, "schedule", "describe", "nightly"); code == 0 || !strings.Contains(stderr, "schedule not found") {
		t.Errorf("describe after delete: exit %d, %q", code, stderr)
	}
	if code, _, stderr := run(grpcAddr, "schedule", "create", "bad", "-t", "T", "-q", "q", "--overlap-policy", "sometimes"); code == 0 || !strings.Contains(stderr, "--overlap-policy") {
		t.Errorf("a bad overlap policy: exit %d, %q", code, stderr)
	}
}
