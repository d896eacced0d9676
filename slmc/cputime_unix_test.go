//go:build unix

package slmc

import (
	"syscall"
	"time"
)

// cpuTime returns the user CPU time this process has used so far (false
// where it cannot be read): on a shared machine a steadier figure than
// wall time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano()), true
}
