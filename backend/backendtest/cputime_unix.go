//go:build unix

package backendtest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user + system) used so far by the process,
// all threads together, and whether it is available.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
