package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/apitwin/apitwin/fake/cloudauthfake"
	"github.com/apitwin/apitwin/internal/fakecmd"
	"github.com/apitwin/apitwin/internal/testtools"
)

// TestBinaryEndToEnd runs cloudctl as a separate process
// against the fake: login from the environment with the password on
// standard input, status, logout, status again, and a refused login.
//
// The process gets a fresh HOME and XDG_CONFIG_HOME and no session bus, so
// it can never reach the machine's keyring: the keyring fails, cloudctl
// warns and keeps the token in its private file. On macOS and Windows the
// keyring needs no session bus, so the test does not run there.
func TestBinaryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the process could reach this machine's keyring")
	}
	t.Parallel()
	bin := testtools.ProgramPath(t, "cloudctl")

	// The process reads the wall clock, so the fake runs on a clock set
	// to the wall time it starts at (its default).
	srv := cloudauthfake.Start(t, cloudauthfake.WithKey(testKey(), "k1"))
	home, config := t.TempDir(), t.TempDir()
	baseEnv := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + config,
		"DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(home, "no-bus"),
		"PATH=",
		"CLI_URL=" + srv.URL(),
		"CLI_USERNAME=admin",
		"CLI_TENANT=default",
	}
	cloudctl := func(stdin string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = testtools.ProgramEnv(baseEnv...)
		cmd.Dir = home
		cmd.Stdin = strings.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(errOut.String(), "goroutine ") {
			t.Fatalf("stack trace:\n%s", errOut.String())
		}
		return code, out.String(), errOut.String()
	}

	code, out, errOut := cloudctl(cloudauthfake.AdminPassword+"\n", "auth", "login")
	if code != 0 || out != "Logged in to "+srv.URL()+" as admin (tenant default)\n" {
		t.Fatalf("login: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	tokenFile := filepath.Join(config, "cloudctl", "tokens", "default.token")
	if strings.Contains(errOut, "Warning: Could not store token securely") {
		// No keyring: the token is in the private file.
		fi, err := os.Stat(tokenFile)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("fallback token file: %v %v", fi, err)
		}
	} else if errOut != "Password: \n" {
		t.Fatalf("login stderr %q", errOut)
	}
	if fi, err := os.Stat(filepath.Join(config, "cloudctl", "config.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", fi, err)
	}

	code, out, _ = cloudctl("", "auth", "status", "--verbose")
	if code != 0 || !strings.Contains(out, "Logged in to "+srv.URL()+" as admin (tenant default)") || !strings.Contains(out, "Token expires at") {
		t.Fatalf("status: exit %d: %s", code, out)
	}
	if n := len(srv.RequestsTo(cloudauthfake.RouteLogin)); n != 1 {
		t.Fatalf("%d logins", n)
	}

	code, out, errOut = cloudctl("", "auth", "logout")
	if code != 0 || !strings.HasSuffix(out, "Logged out of "+srv.URL()+"\n") {
		t.Fatalf("logout: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if len(srv.RequestsTo(cloudauthfake.RouteLogout)) != 1 {
		t.Fatal("the server was not told")
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Fatalf("token file after logout: %v", err)
	}
	if code, out, _ = cloudctl("", "auth", "status"); code != 4 || !strings.HasPrefix(out, "Not logged in") {
		t.Fatalf("status after logout: exit %d: %s", code, out)
	}

	code, out, errOut = cloudctl("wrong-password\n", "auth", "login")
	if code != 1 || out != "" || errOut != "Password: \nAuthentication failed: 401 Unauthorized\n" {
		t.Fatalf("refused login: exit %d\nstdout: %q\nstderr: %q", code, out, errOut)
	}
	if code, _, _ = cloudctl("", "--help"); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
}

// TestMain lets the test binary be the programs the process tests start
// (testtools.ProgramPath): cloudctl, and apitwin-fake to log in to.
func TestMain(m *testing.M) {
	testtools.Programs(map[string]func(){"cloudctl": main, "apitwin-fake": fakecmd.Main})
	os.Exit(m.Run())
}
