package testtools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A test of a program that runs it as its own process need not build it:
// the test binary can be the program, the way a multi-call binary is,
// choosing by the name it was started under. That spares every such test a
// `go build` and a link of a large binary (several seconds each, twice in
// CI: once plain, once under the race detector), and under -race the
// program runs with the race detector too.
//
// The package's TestMain hands the programs to [Programs] first; a test
// starts one with exec.Command([ProgramPath](t, name), args...).

// Programs runs the program named by the base name this process was
// started under, when it is one of mains, and exits with its status (0 when
// it returns); otherwise it returns, and TestMain goes on to run the tests:
//
//	func TestMain(m *testing.M) {
//		testtools.Programs(map[string]func(){"cloudctl": main})
//		os.Exit(m.Run())
//	}
func Programs(mains map[string]func()) {
	if main, ok := mains[filepath.Base(os.Args[0])]; ok {
		quickRaceExit()
		main()
		os.Exit(0)
	}
	shareCoverDir()
}

// shareCoverDir gives the programs this test runs the directory its own
// coverage goes to. Under go test -cover the test binary, and so every
// program it is, is built for coverage: such a program started without
// GOCOVERDIR prints "warning: GOCOVERDIR not set" on its stderr, which a
// test reading that stderr sees, and its coverage is lost. With the test's
// directory (its -test.gocoverdir), the program's coverage counts in the
// package's figure, as Go's integration coverage intends.
func shareCoverDir() {
	if os.Getenv("GOCOVERDIR") != "" {
		return
	}
	for _, arg := range os.Args[1:] {
		for _, prefix := range []string{"-test.gocoverdir=", "--test.gocoverdir="} {
			if dir, ok := strings.CutPrefix(arg, prefix); ok && dir != "" {
				os.Setenv("GOCOVERDIR", dir)
				return
			}
		}
	}
}

// ProgramEnv is the environment for a program ProgramPath runs when the
// test gives it one of its own (cmd.Env) rather than its own environment:
// env, and what every process of the test binary needs, GOCOVERDIR under
// go test -cover (see Programs).
func ProgramEnv(env ...string) []string {
	if dir := os.Getenv("GOCOVERDIR"); dir != "" {
		env = append(env[:len(env):len(env)], "GOCOVERDIR="+dir) // a copy: env may be shared
	}
	return env
}

// ProgramPath returns a path that runs program name, one of the mains the
// package's TestMain gave [Programs]: a link to the test binary under that
// name, removed when tb ends.
func ProgramPath(tb testing.TB, name string) string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatalf("testtools: the test binary's path: %v", err)
	}
	path := filepath.Join(tb.TempDir(), name)
	if err := os.Symlink(exe, path); err != nil {
		tb.Fatalf("testtools: %v", err)
	}
	return path
}
