//go:build !unix

package benchfloor

import "time"

// ProcessCPU is not measured here: it reads 0, and ReportCPU reports nothing.
func ProcessCPU() time.Duration { return 0 }
