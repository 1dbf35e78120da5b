package orchtest_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The env runs without a network: the package imports nothing that dials
// or serves (net, net/http, gRPC, the fakes), and it links nothing that
// orch/workflow, which every workflow's code links already, does not,
// besides this module's own small packages.
// (orch links gRPC as a library for its client; the env makes no client,
// so nothing of it runs.) go list is what `go build` of an importer reads,
// test files aside.
func TestEnvImportsNoNetwork(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	list := func(args ...string) []string {
		out, err := exec.Command(goTool, append([]string{"list"}, args...)...).Output()
		if err != nil {
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr)
		}
		return strings.Fields(string(out))
	}
	const module = "github.com/apitwin/apitwin/"
	imports := list("-f", `{{join .Imports " "}}`, module+"orch/orchtest")
	if len(imports) == 0 {
		t.Fatal("go list gave no imports: the test would prove nothing")
	}
	for _, p := range imports {
		if p == "net" || strings.HasPrefix(p, "net/") || strings.HasPrefix(p, "google.golang.org/grpc") ||
			strings.HasPrefix(p, module+"fake") || strings.HasPrefix(p, module+"internal/fakekit") || p == "os/exec" {
			t.Errorf("orch/orchtest imports %s", p)
		}
	}
	// What it links beyond orch/workflow must be this module's own
	// packages (itself, the rules it shares with orchfake), importing
	// nothing beyond orch/workflow's links or each other.
	wf := list("-deps", module+"orch/workflow")
	extra := map[string][]string{}
	for _, line := range list("-deps", "-f", `{{.ImportPath}}|{{join .Imports ","}}`, module+"orch/orchtest") {
		path, imports, _ := strings.Cut(line, "|")
		if !slices.Contains(wf, path) {
			extra[path] = strings.Split(imports, ",")
		}
	}
	if _, ok := extra[module+"orch/orchtest"]; !ok {
		t.Fatal("go list -deps did not list orch/orchtest itself: the test would prove nothing")
	}
	for p, imports := range extra {
		if !strings.HasPrefix(p, module) {
			t.Errorf("orch/orchtest links %s, which orch/workflow does not", p)
		}
		for _, i := range imports {
			if _, ok := extra[i]; i != "" && !ok && !slices.Contains(wf, i) {
				t.Errorf("%s imports %s", p, i)
			}
		}
	}
}

// Where the machine lets a user make a network namespace (unshare -rn:
// no interface up, not even loopback), the env's tests run in one and
// pass: nothing they do needs a network. Skipped where it cannot.
func TestEnvRunsWithTheNetworkOff(t *testing.T) {
	t.Parallel()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare command")
	}
	if err := exec.Command(unshare, "-rn", "true").Run(); err != nil {
		t.Skipf("unshare -rn is not allowed here: %v", err)
	}
	run := "^(Example|TestActivityMockReturnsAndRecordsCalls|TestSignalAfterTwoHours|TestMockedChildWorkflow|TestBlockedWorkflowIsReported)$"
	out, err := exec.Command(unshare, "-rn", os.Args[0], "-test.run", run, "-test.v").CombinedOutput()
	if err != nil {
		t.Fatalf("without a network: %v\n%s", err, out)
	}
	if n := strings.Count(string(out), "--- PASS"); n != 5 {
		t.Fatalf("%d tests passed without a network, want 5:\n%s", n, out)
	}
}
