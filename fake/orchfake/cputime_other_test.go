//go:build !unix

package orchfake_test

import "time"

// processCPU is not measured here: the cpu-ns/op metric reads 0.
func processCPU() time.Duration { return 0 }
