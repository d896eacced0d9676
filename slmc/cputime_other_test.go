//go:build !unix

package slmc

import "time"

// cpuTime is not measured off Unix; the benchmarks then report wall time
// only.
func cpuTime() (time.Duration, bool) { return 0, false }
