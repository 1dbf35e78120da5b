package main

import (
	"bytes"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apitwin/apitwin/internal/testtools"
)

// columnsSpaced is the space between a table's columns.
var columnsSpaced = regexp.MustCompile(`  +`)

// TestOperatorSearchAttributeCommands creates, lists and removes custom
// search attributes over both transports, and the refusals: a name taken
// with another type, an unknown name, a system one, a bad command line.
func TestOperatorSearchAttributeCommands(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, c cli) {
		got := c.ok("operator", "search-attribute", "create", "--name", "CustomerId", "--type", "Keyword", "--name", "Amount", "--type", "DOUBLE")
		if got != "Created search attributes CustomerId, Amount in namespace default\n" {
			t.Errorf("create printed %q", got)
		}
		c.ok("operator", "sa", "create", "--name", "CustomerId", "--type", "keyword") // the same type again: accepted
		c.fails(exitFailure, "already exists", "operator", "search-attribute", "create", "--name", "CustomerId", "--type", "Int")

		out := c.ok("operator", "search-attribute", "list")
		// (columns compared by their order, not their width, which the
		// longest name sets)
		for _, want := range []string{"NAME ", "Amount Double custom\n", "CustomerId Keyword custom\n", "WorkflowType Keyword system\n"} {
			if !strings.Contains(columnsSpaced.ReplaceAllString(out, " "), want) {
				t.Errorf("list printed\n%s\nwant %q", out, want)
			}
		}
		var listed struct {
			Custom map[string]string `json:"custom_attributes"`
		}
		decode(t, c.ok("-o", "json", "operator", "search-attribute", "list"), &listed)
		if diff := cmp.Diff(map[string]string{"Amount": "DOUBLE", "CustomerId": "KEYWORD"}, listed.Custom); diff != "" {
			t.Errorf("list -o json custom attributes (-want +got):\n%s", diff)
		}

		// The attribute is usable in queries while it exists.
		c.ok("workflow", "start", "-t", "X", "-q", "q", "-w", "w-sa")
		if got := c.ok("workflow", "count", "--query", "CustomerId = 'c-1'"); got != "0\n" {
			t.Errorf("count by CustomerId: %q", got)
		}

		if got := c.ok("operator", "search-attribute", "remove", "--name", "Amount"); got != "Removed search attributes Amount from namespace default\n" {
			t.Errorf("remove printed %q", got)
		}
		c.fails(exitFailure, "does not exist", "operator", "search-attribute", "remove", "--name", "Amount")
		c.fails(exitFailure, "InvalidArgument", "operator", "search-attribute", "remove", "--name", "WorkflowType")
		if out := c.ok("operator", "search-attribute", "list"); strings.Contains(out, "Amount") {
			t.Errorf("Amount still listed:\n%s", out)
		}

		c.fails(exitUsage, "--type", "operator", "search-attribute", "create", "--name", "X", "--type", "Colour")
		c.fails(exitUsage, "as many --type as --name", "operator", "search-attribute", "create", "--name", "X")
		c.fails(exitUsage, "at least one --name", "operator", "search-attribute", "remove")
	})
}

// TestOperatorAgainstApitwinFakeWithAuth runs orchctl as a process against
// apitwin-fake --orch-auth as a process: the search-attribute commands
// with the printed API key in ORCH_TOKEN, and exit status 4 without it.
func TestOperatorAgainstApitwinFakeWithAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two programs as processes")
	}
	t.Parallel()
	orchctl := testtools.ProgramPath(t, "orchctl")
	o := startApitwinFake(t, testtools.ProgramPath(t, "apitwin-fake"), "--orch-auth")["orch"]
	run := func(token string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(orchctl, args...)
		cmd.Env = testtools.ProgramEnv("ORCH_ADDR="+o["url"], "ORCH_TOKEN="+token, "HOME="+t.TempDir(), "PATH=")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errb.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errb.String()
	}
	if code, _, stderr := run("", "operator", "search-attribute", "list"); code != exitNotAuthenticated {
		t.Errorf("without the key: exit %d, %s", code, stderr)
	}
	if code, out, stderr := run(o["api_key"], "operator", "search-attribute", "create", "--name", "Region", "--type", "Keyword"); code != 0 || out != "Created search attributes Region in namespace default\n" {
		t.Fatalf("create: exit %d, %q, %s", code, out, stderr)
	}
	if code, out, stderr := run(o["api_key"], "operator", "search-attribute", "list"); code != 0 || !strings.Contains(columnsSpaced.ReplaceAllString(out, " "), "Region Keyword custom") {
		t.Errorf("list: exit %d\n%s%s", code, out, stderr)
	}
	if code, _, stderr := run(o["api_key"], "operator", "search-attribute", "remove", "--name", "Region"); code != 0 {
		t.Errorf("remove: exit %d, %s", code, stderr)
	}
}
