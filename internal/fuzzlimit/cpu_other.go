//go:build !linux

package fuzzlimit

import "time"

// threadCPU cannot read a thread's CPU time here; Timed uses wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
