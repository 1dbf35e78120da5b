// Package testtools serves tests that drive programs. Find finds an
// installed one (chromium, curl): such a test skips when its program is
// missing, or fails instead when APITWIN_REQUIRE_TOOLS=1, as .ci/run sets it
// after installing them, so that CI cannot pass by skipping. Main and
// ProgramPath run the project's own programs as processes without building
// them: the test binary is the program. Golden compares an answer with a
// golden file (-update-golden rewrites it). H2Client talks HTTP/2 to a
// gRPC server frame by frame, as a hostile client does. Whether a value
// prints a secret is internal/leaktest's to check (NoSecretIn).
package testtools

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// RequireEnv names the variable that turns a missing program into a
// failure.
const RequireEnv = "APITWIN_REQUIRE_TOOLS"

// Find returns the path of the first of names on PATH, or skips tb (fails
// it under RequireEnv=1) when there is none.
func Find(tb testing.TB, names ...string) string {
	tb.Helper()
	for _, name := range names {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf("none of %s is installed (%s=1)", strings.Join(names, ", "), RequireEnv)
	}
	tb.Skipf("none of %s is installed", strings.Join(names, ", "))
	return ""
}
