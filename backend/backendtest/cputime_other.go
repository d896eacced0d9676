//go:build !unix

package backendtest

import "time"

// cpuTime is unavailable outside Unix; the CPU-time metrics are omitted.
func cpuTime() (time.Duration, bool) { return 0, false }
