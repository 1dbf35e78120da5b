//go:build race && unix

package testtools

import (
	"os"
	"strings"
	"syscall"
)

// quickRaceExit starts this process again, in place (same pid, same
// arguments), with the race detector told not to sleep at exit, unless it
// already was told.
//
// The race runtime sleeps a second (GORACE atexit_sleep_ms, default 1000)
// before a process that ends with status 0 exits, so that goroutines still
// running get a last chance to report. A test that runs a program as a
// process dozens of times pays that second for every one: cloudctl's
// process tests took 26 s under -race instead of under 1 s. The test waits
// for the program to finish its work before it reads what it printed, so
// the sleep guards nothing it checks; races found while the program ran are
// reported as before, and its status is still 66 when one was.
func quickRaceExit() {
	gorace := os.Getenv("GORACE")
	if strings.Contains(gorace, "atexit_sleep_ms") {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return // run as is: only slower
	}
	env := []string{"GORACE=" + strings.TrimSpace(gorace+" atexit_sleep_ms=0")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	_ = syscall.Exec(exe, os.Args, env) // returns only on failure: run as is
}
