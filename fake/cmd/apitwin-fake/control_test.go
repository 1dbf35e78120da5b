package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/internal/testtools"
)

// TestControlWithCurl runs testdata/control-with-curl.sh, which drives
// every control with curl alone (as the README shows a shell or Python
// suite doing), against apitwin-fake as a process.
func TestControlWithCurl(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	testtools.Find(t, "curl")
	p := startProcess(t, "--frozen-clock")
	cmd := exec.Command("sh", "testdata/control-with-curl.sh")
	cmd.Env = append(os.Environ(),
		"CONTROL_URL="+p.services["control"]["url"], "CONTROL_TOKEN="+p.services["control"]["token"],
		"ERP_URL="+p.services["erp"]["url"], "ERP_KEY="+p.services["erp"]["api_key"])
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Fatalf("control-with-curl.sh: %v\n%s\nstderr of apitwin-fake:\n%s", err, out, p.stderr)
	}
}
