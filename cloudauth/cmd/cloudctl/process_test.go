package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/apitwin/apitwin/cloudauth"
	"github.com/apitwin/apitwin/internal/testtools"
	"github.com/apitwin/apitwin/internal/version"
)

// startApitwinFake runs apitwin-fake as its own process on
// free ports until the test ends; it returns what it printed for the
// cloud login gateway (url, username, password, tenant).
func startApitwinFake(t *testing.T) map[string]string {
	t.Helper()
	return startApitwinFakeLines(t)["cloudauth"]
}

// startApitwinFakeLines runs apitwin-fake as its own process on free
// ports until the test ends; it returns what it printed, by the first
// word of each line ("cloudauth", "control", …): each line's key=value
// fields.
func startApitwinFakeLines(t *testing.T) map[string]map[string]string {
	t.Helper()
	bin := testtools.ProgramPath(t, "apitwin-fake")
	cmd := exec.Command(bin, "--erp-port", "0", "--cloudauth-port", "0", "--orch-grpc-port", "0",
		"--orch-http-port", "0", "--sourcehost-port", "0", "--mcp-port", "0", "--control-port", "0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
	})
	printed := map[string]map[string]string{}
	lines := bufio.NewScanner(stdout)
	for lines.Scan() && lines.Text() != "ready" {
		fields := strings.Fields(lines.Text())
		if len(fields) == 0 {
			continue
		}
		m := map[string]string{}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			m[k] = v
		}
		printed[fields[0]] = m
	}
	if printed["cloudauth"]["url"] == "" {
		// Its standard error is complete, and no longer written, once it
		// has exited.
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		t.Fatalf("apitwin-fake printed no cloudauth url; stderr:\n%s", stderr.String())
	}
	return printed
}

// TestCommandsAgainstApitwinFake drives every command of cloudctl, built
// and run as a process, against apitwin-fake run as another process: the
// way a user without Go tries cloudctl. Each command's output and exit
// status are checked, JSON output is parsed.
func TestCommandsAgainstApitwinFake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two programs as processes")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the process could reach this machine's keyring")
	}
	t.Parallel()
	bin := testtools.ProgramPath(t, "cloudctl")
	cloud := startApitwinFake(t)
	u := cloud["url"]

	home, config := t.TempDir(), t.TempDir()
	env := testtools.ProgramEnv("HOME="+home, "XDG_CONFIG_HOME="+config, "PATH=", "DBUS_SESSION_BUS_ADDRESS=")
	type out struct {
		code           int
		stdout, stderr string
	}
	cloudctl := func(stdin string, args ...string) out {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir, cmd.Stdin = env, home, strings.NewReader(stdin)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(e.String(), "goroutine ") {
			t.Fatalf("cloudctl %v: stack trace:\n%s", args, e.String())
		}
		return out{code, o.String(), e.String()}
	}
	expect := func(r out, code int, stdoutHas string, args ...string) {
		t.Helper()
		if r.code != code || !strings.Contains(r.stdout, stdoutHas) {
			t.Fatalf("cloudctl %s: exit %d (want %d)\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
		}
	}
	run := func(stdin string, code int, stdoutHas string, args ...string) out {
		t.Helper()
		r := cloudctl(stdin, args...)
		expect(r, code, stdoutHas, args...)
		return r
	}
	jsonOf := func(r out) map[string]any {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, r.stdout)
		}
		return m
	}

	run("", 0, "cloudctl version "+version.Version, "--version")
	help := cloudctl("", "--help").stdout + cloudctl("", "auth", "--help").stdout + cloudctl("", "profile", "--help").stdout
	for _, c := range []string{"whoami", "token", "delete", "completion", "--output", "--timeout", "--version", "Exit status:", "130  interrupted"} {
		if !strings.Contains(help, c) {
			t.Errorf("--help does not name %s", c)
		}
	}
	run("", 4, "Not logged in", "auth", "status")
	run("", 4, "", "auth", "token")
	run("", 4, "", "auth", "whoami")

	// Profiles, then a scripted login into one.
	run("", 0, "Created profile fake", "profile", "create", "fake", "--url", u, "--tenant", cloud["tenant"], "-u", cloud["username"])
	run("", 0, "Created profile other", "profile", "create", "other", "--url", silentServer(t), "-u", "admin")
	r := run("", 0, "", "profile", "list", "--output", "json")
	if m := jsonOf(r); m["current_profile"] != "fake" || len(m["profiles"].([]any)) != 2 {
		t.Fatalf("profile list: %v", m)
	}
	if m := jsonOf(run("", 0, "", "profile", "current", "-o", "json")); m["name"] != "fake" || m["url"] != u {
		t.Fatalf("profile current: %v", m)
	}
	r = run(cloud["password"]+"\n", 0, "Logged in to "+u+" as admin", "auth", "login", "--password-stdin", "--timeout", "10s")
	if strings.Contains(r.stderr, "Password") || !strings.Contains(r.stderr, "Warning: Could not store token securely (no keyring available: ") ||
		strings.Count(r.stderr, "keyring") != 1 {
		t.Fatalf("login stderr %q", r.stderr)
	}
	run("", 0, "Logged in to "+u+" as admin (tenant "+cloud["tenant"]+")", "auth", "status")
	if m := jsonOf(run("", 0, "", "auth", "status", "-o", "json")); m["logged_in"] != true || m["issuer"] != u {
		t.Fatalf("status json: %v", m)
	}
	run("", 0, "Username: admin", "auth", "whoami")
	if m := jsonOf(run("", 0, "", "auth", "whoami", "-o", "json")); m["username"] != "admin" || m["server_url"] != u {
		t.Fatalf("whoami json: %v", m)
	}
	tok := strings.TrimSpace(run("", 0, "", "auth", "token").stdout)
	if strings.Count(tok, ".") != 2 {
		t.Fatalf("auth token printed %q", tok)
	}
	if m := jsonOf(run("", 0, "", "auth", "token", "-o", "json")); m["token"] != tok || m["profile"] != "fake" {
		t.Fatalf("token json: %v", m)
	}
	if data, err := readFile(filepath.Join(config, "cloudctl", "tokens", "fake.token")); err != nil || data != tok {
		t.Fatalf("the fallback token file: %v", err)
	}

	// Completion scripts for each shell, and the answers they ask for.
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if r := run("", 0, "cloudctl", "completion", sh); len(r.stdout) < 500 {
			t.Errorf("completion %s: %d bytes", sh, len(r.stdout))
		}
	}
	run("", 0, "fake\t"+u, "__complete", "profile", "use", "")

	// Usage and errors: 2 and 1.
	run("", 2, "", "auth", "status", "--output", "yaml")
	run("", 2, "", "bogus")
	run("", 1, "", "profile", "use", "nope")
	// A server that does not answer in time: --timeout.
	if r := run("pw", 1, "", "auth", "login", "--password-stdin", "--profile", "other", "--timeout", "100ms"); r.stderr != "Authentication failed: Connection timeout\n" {
		t.Fatalf("--timeout: %q", r.stderr)
	}

	// Deleting a profile revokes its token: the token is refused after.
	run("", 0, "Deleted profile fake", "profile", "delete", "fake")
	env = append(env, "CLI_TOKEN="+tok, "CLI_URL="+u)
	r = run("", 4, "no longer accepts the token from CLI_TOKEN", "auth", "status")
	run("", 4, "", "auth", "whoami")

	// Logout of a fresh login, with CLI_TOKEN set too.
	env = env[:len(env)-2]
	run(cloud["password"], 0, "Logged in", "auth", "login", "--password-stdin", "--url", u, "-u", "admin", "--tenant", cloud["tenant"])
	r = run("", 0, "Revoked the stored token (profile default) on "+u, "auth", "logout")
	if !strings.Contains(r.stdout, "Removed the stored token (profile default)\nLogged out of "+u+"\n") {
		t.Fatalf("logout: %q", r.stdout)
	}
	run("", 4, "Not logged in", "auth", "status")
}

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// TestParallelProcesses (issue 20, defect 5): twenty cloudctl processes
// creating a profile each at once keep all twenty.
func TestParallelProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	t.Parallel()
	bin := testtools.ProgramPath(t, "cloudctl")
	home, config := t.TempDir(), t.TempDir()
	errs := make(chan error, 20)
	for i := range 20 {
		go func() {
			name := fmt.Sprintf("p%02d", i)
			cmd := exec.Command(bin, "profile", "create", name, "--url", "https://"+name+".example.com")
			cmd.Env = testtools.ProgramEnv("HOME="+home, "XDG_CONFIG_HOME="+config, "PATH=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%s: %v\n%s", name, err, out)
			}
			errs <- err
		}()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	cfg, err := cloudauth.LoadConfig(filepath.Join(config, "cloudctl"))
	if err != nil || len(cfg.Profiles) != 20 {
		t.Fatalf("%d profiles of 20: %v", len(cfg.Profiles), err)
	}
}

// TestInterruptExits130: Ctrl-C (SIGINT) while auth login waits, on the
// server or at the password prompt, ends cloudctl with status 130 (128 +
// SIGINT, as shells, gh and kubectl report it) and a one-line message, and
// leaves no token and no profile written.
func TestInterruptExits130(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the program as a process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the process could reach this machine's keyring; SIGINT is Unix's")
	}
	t.Parallel()
	bin := testtools.ProgramPath(t, "cloudctl")
	for name, tc := range map[string]struct {
		stdin string // "" leaves standard input open and unwritten; else it is closed after
		args  func(url string) []string
		// waiting is written to standard error, or the request is sent to
		// the server, once cloudctl waits.
		waitOnPrompt bool
	}{
		"waiting on the server": {stdin: "pw\n", args: func(u string) []string {
			return []string{"auth", "login", "--password-stdin", "--url", u, "-u", "admin", "--tenant", "t"}
		}},
		"waiting at the password prompt": {waitOnPrompt: true, args: func(u string) []string {
			return []string{"auth", "login", "--url", u, "-u", "admin", "--tenant", "t"}
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A server that holds every request until the test ends, and
			// says when one has come.
			arrived := make(chan struct{}, 1)
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case arrived <- struct{}{}:
				default:
				}
				<-release
				http.Error(w, "too late", http.StatusServiceUnavailable)
			}))
			t.Cleanup(srv.Close) // after release is closed: cleanups run last first
			t.Cleanup(func() { close(release) })

			home, config := t.TempDir(), t.TempDir()
			cmd := exec.Command(bin, tc.args(srv.URL)...)
			cmd.Env = testtools.ProgramEnv("HOME="+home, "XDG_CONFIG_HOME="+config, "PATH=", "DBUS_SESSION_BUS_ADDRESS=")
			cmd.Dir = home
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill() }) // harmless once it has exited
			if tc.stdin != "" {
				if _, err := io.WriteString(stdin, tc.stdin); err != nil {
					t.Fatal(err)
				}
				stdin.Close()
			}
			// Read standard error until cloudctl waits at the prompt.
			var errText bytes.Buffer
			if tc.waitOnPrompt {
				buf := make([]byte, 256)
				for !strings.Contains(errText.String(), "Password: ") {
					n, err := stderr.Read(buf)
					errText.Write(buf[:n])
					if err != nil {
						t.Fatalf("cloudctl ended before its password prompt: %v\n%s", err, errText.String())
					}
				}
			} else {
				<-arrived
			}
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			rest, _ := io.ReadAll(stderr)
			errText.Write(rest)
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			msg := errText.String()
			if tc.waitOnPrompt {
				msg = strings.TrimPrefix(msg, "Password: \n")
			}
			if code != 130 || msg != "interrupted\n" || stdout.Len() != 0 {
				t.Errorf("exit %d (want 130)\nstdout: %q\nstderr: %q", code, stdout.String(), errText.String())
			}
			// Nothing written: no token, no profile.
			dir := filepath.Join(config, "cloudctl")
			if files, _ := filepath.Glob(filepath.Join(dir, "tokens", "*")); len(files) != 0 {
				t.Errorf("token files left: %v", files)
			}
			if cfg, err := cloudauth.LoadConfig(dir); err != nil || len(cfg.Profiles) != 0 || cfg.Current != "" {
				t.Errorf("the configuration after an interrupted login: %+v, %v", cfg, err)
			}
		})
	}
}
