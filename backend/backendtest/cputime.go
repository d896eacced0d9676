package backendtest

import (
	"time"

	"github.com/pursuit-ml/pursuit/internal/cputime"
)

// CPUTime returns the CPU time (user + system) used so far by the process,
// all threads together, and whether it is available (cputime.Used).
func CPUTime() (time.Duration, bool) { return cputime.Used() }
