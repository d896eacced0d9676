//go:build !linux

package asm

import "time"

// cpuTime is not measured off Linux; the perf report then shows wall time only.
func cpuTime() time.Duration { return 0 }
