//go:build unix

package fakekit

import "syscall"

// openFileLimit is the process's limit on open files (RLIMIT_NOFILE's
// soft limit).
func openFileLimit() (uint64, bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return uint64(rl.Cur), true
}
