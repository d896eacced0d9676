//go:build unix

package svm

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) this process has used so
// far, all threads together, and whether it is available. On a machine
// shared with other jobs, CPU time is a far steadier measure of a run than
// wall time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
