// Package redistest gives tests the address of a real Redis server.
//
// Addr returns, in this order of preference:
//
//   - the address in the environment variable MCP_TEST_REDIS (host:port),
//     a server someone else runs (CI starts one; see .ci/run);
//   - else, when redis-server is on PATH, a server this test binary starts
//     on a free loopback port the first time a test asks, with nothing
//     saved to disk (--save "" --appendonly no, in a temporary directory),
//     and shares with every later test of the binary;
//   - else nothing: the test is skipped, or fails when APITWIN_REQUIRE_REDIS
//     is 1 (so that CI cannot pass by skipping).
//
// A server the binary starts is a child process, stopped by Main once the
// tests have run, so a package that may start one calls Main from its
// TestMain:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
// Stopping it from the cleanup of the test that happened to start it would
// pull it from under the tests still running, and a library cannot stop a
// child at process exit by itself; Addr therefore fails the test, saying
// so, when it would start a server and Main is not running.
//
// Tests share the server: each keeps to its own key prefix (its name and a
// counter, say) and removes its keys when it ends.
//
// A test that must see what an outage or a restart of Redis does starts a
// server of its own with Start, which it may stop and start again; the
// shared one is never stopped by a test.
//
// A Redis Cluster of three masters comes the same way: ClusterAddrs reads
// MCP_TEST_REDIS_CLUSTER (the nodes, comma-separated; CI starts one),
// else starts one the binary shares, else skips (fails with
// APITWIN_REQUIRE_REDIS=1); StartCluster starts one of the test's own,
// whose nodes it may stop.
package redistest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The environment variables Addr reads.
const (
	// EnvAddr names a running server to use instead of starting one.
	EnvAddr = "MCP_TEST_REDIS"
	// EnvRequire, set to 1, turns a missing server from a skip into a
	// failure.
	EnvRequire = "APITWIN_REQUIRE_REDIS"
)

// startTimeout bounds how long a started server may take to answer PING.
const startTimeout = 10 * time.Second

var (
	inMain atomic.Bool

	once    sync.Once
	addr    string
	skip    string // why there is no server, when there is none
	failure error  // why the server could not be used
	server  *child // the server this binary started, if any
)

// child is a redis-server this binary started.
type child struct {
	cmd    *exec.Cmd
	dir    string
	exited chan struct{} // closed when the process has exited
}

// Main runs the tests, then stops the server Addr started for them, if any,
// and exits with the tests' code. Call it from TestMain.
func Main(m *testing.M) {
	inMain.Store(true)
	code := m.Run()
	stop()
	os.Exit(code)
}

// Addr returns the host:port of a Redis server for t (see the package
// documentation), or ends t: skipped when there is no server to be had and
// APITWIN_REQUIRE_REDIS is not 1, failed when there should be one and is
// not.
func Addr(t testing.TB) string {
	t.Helper()
	once.Do(setup)
	endUnlessThere(t, failure, skip, EnvAddr)
	return addr
}

// endUnlessThere ends t when what Addr or ClusterAddrs gives is not there:
// failed when setting it up failed, or when it is missing (skip says why)
// and APITWIN_REQUIRE_REDIS is 1; else skipped, naming env, the variable
// that would have given it.
func endUnlessThere(t testing.TB, failure error, skip, env string) {
	t.Helper()
	switch {
	case failure != nil:
		t.Fatalf("redistest: %v", failure)
	case skip != "" && os.Getenv(EnvRequire) == "1":
		t.Fatalf("redistest: %s, and %s=1 requires one", skip, EnvRequire)
	case skip != "":
		t.Skipf("redistest: %s (set %s or install redis-server)", skip, env)
	}
}

// serverBin is redis-server's path for a test that starts a server of its
// own (what: "a test of its own Redis"), or ends t: skipped without one,
// failed when APITWIN_REQUIRE_REDIS is 1.
func serverBin(t testing.TB, what string) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	switch {
	case err != nil && os.Getenv(EnvRequire) == "1":
		t.Fatalf("redistest: %s needs redis-server on PATH, and %s=1 requires one", what, EnvRequire)
	case err != nil:
		t.Skipf("redistest: %s needs redis-server on PATH", what)
	}
	return bin
}

// setup finds or starts the server, once per test binary.
func setup() {
	if a := os.Getenv(EnvAddr); a != "" {
		if err := ping(a); err != nil {
			failure = fmt.Errorf("%s=%s does not answer PING: %w", EnvAddr, a, err)
			return
		}
		addr = a
		return
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		skip = "no Redis: " + EnvAddr + " is not set and redis-server is not on PATH"
		return
	}
	if !inMain.Load() {
		failure = errors.New("starting redis-server needs redistest.Main to stop it: add func TestMain(m *testing.M) { redistest.Main(m) } to the package's tests")
		return
	}
	// A free port can be taken by someone else between our probe and the
	// server's bind: try a few.
	for range 3 {
		addr, server, failure = start(bin)
		if failure == nil {
			return
		}
	}
}

// start runs redis-server on a free loopback port and waits until it
// answers PING.
func start(bin string) (string, *child, error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	return startOn(bin, port)
}

// startOn runs redis-server on port of the loopback address, empty and
// saving nothing, with extra arguments, and waits until it answers PING.
func startOn(bin string, port int, extra ...string) (string, *child, error) {
	dir, err := os.MkdirTemp("", "redistest-")
	if err != nil {
		return "", nil, err
	}
	logFile := filepath.Join(dir, "redis.log")
	cmd := exec.Command(bin, append([]string{
		"--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--dir", dir, "--logfile", logFile}, extra...)...)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	c := &child{cmd: cmd, dir: dir, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(c.exited) }()

	a := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(startTimeout)
	wait := 5 * time.Millisecond
	for {
		err := ping(a)
		if err == nil {
			return a, c, nil
		}
		select {
		case <-c.exited:
			log, _ := os.ReadFile(logFile)
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("redis-server on port %d exited before answering: %s", port, tail(string(log)))
		case <-time.After(wait):
		}
		if time.Now().After(deadline) {
			c.stop()
			return "", nil, fmt.Errorf("redis-server on port %d did not answer PING within %s: %w", port, startTimeout, err)
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// stop ends the servers this binary started.
func stop() {
	if server != nil {
		server.stop()
	}
	for _, c := range clusterNodes {
		c.stop()
	}
}

func (c *child) stop() {
	c.cmd.Process.Kill()
	<-c.exited
	os.RemoveAll(c.dir)
}

// ping sends PING (see command) and expects PONG.
func ping(addr string) error {
	reply, err := command(addr, "PING")
	if err == nil && reply != "PONG" {
		err = fmt.Errorf("PING answered %q", reply)
	}
	return err
}

// freePort returns a loopback port nobody listened on a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail is the last lines of a log, for an error message.
func tail(log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// Server is a redis-server of one test's own (see Start).
type Server struct {
	t    testing.TB
	bin  string
	port int
	addr string

	mu sync.Mutex
	c  *child // nil while stopped
}

// Start runs a redis-server for t alone, on a free loopback port, empty and
// saving nothing, and stops it when t ends. The test may stop it (an
// outage: connections are refused) and start it again on the same port,
// empty, as a Redis without persistence comes back from a restart. It
// needs redis-server on PATH, whatever MCP_TEST_REDIS says (a server
// someone else runs is never stopped by a test): without it t is skipped,
// or failed when APITWIN_REQUIRE_REDIS is 1.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, bin: serverBin(t, "a test of its own Redis")}
	var err error
	for range 3 { // a free port can be taken between the probe and the bind
		var port int
		if port, err = freePort(); err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s.addr, s.c, err = startOn(s.bin, port)
		if err == nil {
			s.port = port
			t.Cleanup(s.Stop)
			return s
		}
	}
	t.Fatalf("redistest: starting redis-server: %v", err)
	return nil
}

// Addr is the server's host:port, the same across restarts.
func (s *Server) Addr() string { return s.addr }

// Stop ends the server (SIGKILL: no goodbye to its clients). Stopping a
// stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		s.c.stop()
		s.c = nil
	}
}

// Restart stops the server if it runs and starts it again, empty, on the
// same port, once it answers PING.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	_, c, err := startOn(s.bin, s.port)
	if err != nil {
		s.t.Fatalf("redistest: starting redis-server again on port %d: %v", s.port, err)
	}
	s.c = c
}
