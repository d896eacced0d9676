package main

import (
	"os"
	"runtime/debug"
)

// heapOverhead is what the process may use beyond --mem-budget: the Go
// runtime, the program, goroutine stacks, read buffers and the small
// allocations the budget does not count. The measured peak RSS of a run
// whose data fills most of the budget is within it (see
// TestMemBudgetRunStaysWithin).
const heapOverhead = 64 << 20

// gcPercent is the garbage collector's GOGC while a command holds its data:
// the heap may grow by this percentage of what is live before the next
// collection (Go's default is 100). A training run's live heap is nearly all
// its data and working arrays, which hold no pointers, so a collection costs
// well under a millisecond there; with the default, the small buffers each
// step leaves behind grow the heap to twice the live data before one runs.
// On a covtype-like set (50,000 + 30,000 rows of 54 features, basic
// stochastic KMP, 200 steps) the peak RSS was 62 MB with 100, 50 MB with 25
// and 46 MB with 10, the collector's CPU share under 1% each time. With
// the backend's per-step buffers pooled (so that a step leaves about 35 KB
// of garbage, not 100 KB), the whole run (2,400 steps, 1,668 kept, --test)
// peaked at 34.4-34.6 MB with 20 and 31.4-32.5 MB with 10 (before the
// pools: 34.7-36.1 MB), in 0.88-1.13 of the CPU time and 1.08-1.14 of the
// wall time of the run before (three alternated pairs under load). A soft memory limit
// instead (GOMEMLIMIT 22 or 24 MiB, about the live heap) gave 30.0 MB but
// 1.75-1.8 times the CPU time: the collector then runs nearly all the time.
// Once the CPU driver kept its per-call buffers through collections (its
// free lists), a step left little garbage, and 3 took the same run to
// 28.2-28.5 MB against 29.8-29.9 with 10, in the same time; the collector's
// own CPU time stayed negligible (20 s of that run: 43 collections, 37 ms,
// against 34 and 27 ms; USPS 8 vs rest, in-memory KMP, 200 steps: 24 and 20
// ms against 23 and 19 ms).
const gcPercent = 3

// limitHeap sets the Go runtime's soft memory limit to the budget plus
// heapOverhead, so that the garbage collector returns freed copies before
// the process grows past what --mem-budget promises (by default the
// collector lets the heap grow to twice what is live). A GOMEMLIMIT in the
// environment is left in charge.
func limitHeap(budget int64) {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return
	}
	debug.SetMemoryLimit(budget + heapOverhead)
}

// setGCPercent sets the collector's percentage to gcPercent for the whole
// process (main calls it; commands run in-process by the tests keep Go's
// default), unless GOGC in the environment sets it.
func setGCPercent() {
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(gcPercent)
	}
}
