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
