package testtools_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

func TestMain(m *testing.M) {
	testtools.Programs(map[string]func(){
		"echo-args": func() {
			fmt.Println(strings.Join(os.Args[1:], " "))
			os.Exit(3)
		},
		"quiet": func() {},
		"env-and-pid": func() {
			fmt.Printf("%d %s\n", os.Getpid(), os.Getenv("GORACE"))
		},
	})
	os.Exit(m.Run())
}

func TestProgramPathRunsTheProgramAsAProcess(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testtools.ProgramPath(t, "echo-args"), "a", "b c")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("exit %v, want status 3", err)
	}
	if string(out) != "a b c\n" {
		t.Errorf("printed %q", out)
	}
	// A program that returns exits 0.
	if out, err := exec.Command(testtools.ProgramPath(t, "quiet")).CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("quiet: %v %q", err, out)
	}
}

// Under the race detector a program started through ProgramPath runs with
// GORACE atexit_sleep_ms=0 (else each one sleeps a second as it exits),
// keeping what GORACE the test gave it, and keeps its pid: a test that
// signals cmd.Process signals the program.
func TestProgramUnderRaceSkipsTheExitSleep(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testtools.ProgramPath(t, "env-and-pid"))
	cmd.Env = []string{"GORACE=halt_on_error=1"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, gorace, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if pid != fmt.Sprint(cmd.Process.Pid) {
		t.Errorf("the program ran as pid %s, the test started %d", pid, cmd.Process.Pid)
	}
	want := "halt_on_error=1"
	if testtools.RaceEnabled {
		want = "halt_on_error=1 atexit_sleep_ms=0"
	}
	if gorace != want {
		t.Errorf("GORACE %q, want %q", gorace, want)
	}
}

// A program given an environment of its own through ProgramEnv prints
// nothing it was not asked to: under go test -cover, without GOCOVERDIR
// it would warn on its stderr that it has nowhere to put its coverage.
// Without -cover there is nothing to drop, so the test could not fail: it
// skips, and .ci/run runs it under -cover.
func TestProgramEnvKeepsTheProgramQuiet(t *testing.T) {
	t.Parallel()
	if testing.CoverMode() == "" {
		t.Skip("what ProgramEnv keeps is go test -cover's GOCOVERDIR: run with -cover")
	}
	cmd := exec.Command(testtools.ProgramPath(t, "quiet"))
	cmd.Env = testtools.ProgramEnv("HOME=" + t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("quiet with its own environment: %v %q", err, out)
	}
}

func TestProgramEnvAddsTheCoverDir(t *testing.T) {
	t.Setenv("GOCOVERDIR", "/tmp/cover")
	base := make([]string, 1, 4)
	base[0] = "A=1"
	got := testtools.ProgramEnv(base...)
	if strings.Join(got, " ") != "A=1 GOCOVERDIR=/tmp/cover" {
		t.Errorf("ProgramEnv: %q", got)
	}
	if again := testtools.ProgramEnv(base...); &again[0] == &got[0] {
		t.Error("two environments share one array: concurrent commands would overwrite each other's")
	}
	t.Setenv("GOCOVERDIR", "")
	if got := testtools.ProgramEnv("A=1"); strings.Join(got, " ") != "A=1" {
		t.Errorf("ProgramEnv without coverage: %q", got)
	}
}
