//go:build !unix

package backendtest

import "time"

// cpuTime is unavailable outside Unix; the CPU-time metrics are omitted.
func CPUTime() (time.Duration, bool) { return 0, false }
