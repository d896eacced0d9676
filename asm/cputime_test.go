//go:build linux

package asm

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system) used so far by this process.
// On a machine shared with other jobs, throughput per CPU second is a far
// steadier figure than per wall second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
