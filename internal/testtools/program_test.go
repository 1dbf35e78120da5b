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
