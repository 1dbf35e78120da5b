//go:build unix

package benchfloor

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time the process has used, every thread counted.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
