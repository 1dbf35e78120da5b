package main

import (
	"bytes"
	"context"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/controlapi"
	"github.com/apitwin/apitwin/internal/testtools"
)

// TestAPITokensAndKeyRotationAsProcesses: apitwin-fake and cloudctl as
// processes, driven as a suite in another language would: the control
// API makes an API token, cloudctl logs in with it and calls the server;
// the signing key rotates (the token in use still verifies, as the old
// key stays published) and rotates again (it no longer does, until auth
// refresh gets a new one); a revoked API token renews nothing.
func TestAPITokensAndKeyRotationAsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two programs as processes")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the process could reach this machine's keyring")
	}
	t.Parallel()
	bin := testtools.ProgramPath(t, "cloudctl")
	printed := startApitwinFakeLines(t)
	u, ctl := printed["cloudauth"]["url"], printed["control"]
	if ctl["url"] == "" {
		t.Fatalf("apitwin-fake printed no control line: %v", printed)
	}
	control := controlapi.NewClient(ctl["url"], ctl["token"], nil)
	ctx := context.Background()

	home, config := t.TempDir(), t.TempDir()
	env := testtools.ProgramEnv("HOME="+home, "XDG_CONFIG_HOME="+config, "PATH=", "DBUS_SESSION_BUS_ADDRESS=")
	cloudctl := func(stdin string, code int, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, home, strings.NewReader(stdin)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if got != code || strings.Contains(e.String(), "goroutine ") {
			t.Fatalf("cloudctl %s: exit %d (want %d)\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, o.String(), e.String())
		}
		return o.String(), e.String()
	}

	at, err := control.IssueAPIToken(ctx, "", "admin", 0)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut := cloudctl(at.Token+"\n", 0, "auth", "login", "--url", u, "--with-token")
	if !strings.Contains(out, "as admin") || strings.Contains(out+errOut, at.Token) {
		t.Fatalf("login: %q %q", out, errOut)
	}
	if out, _ := cloudctl("", 0, "api", "/csp/gateway/am/api/userinfo", "--jq", ".username"); out != "admin\n" {
		t.Fatalf("api: %q", out)
	}

	if _, err := control.RotateCloudAuthKey(ctx); err != nil {
		t.Fatal(err)
	}
	cloudctl("", 0, "auth", "status") // the key before is still published
	if _, err := control.RotateCloudAuthKey(ctx); err != nil {
		t.Fatal(err)
	}
	if out, _ := cloudctl("", 4, "auth", "status"); !strings.Contains(out, "does not verify") {
		t.Fatalf("status two rotations on: %q", out)
	}
	cloudctl("", 0, "auth", "refresh")
	cloudctl("", 0, "auth", "status")

	if err := control.RevokeAPIToken(ctx, at.Token); err != nil {
		t.Fatal(err)
	}
	if _, errOut := cloudctl("", 1, "auth", "refresh"); !strings.Contains(errOut, "invalid_grant") || strings.Contains(errOut, at.Token) {
		t.Fatalf("refresh with a revoked API token: %q", errOut)
	}
}
