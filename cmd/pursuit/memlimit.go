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

// gcPercent is the garbage collector's GOGC while a command holds its data
// (Go's default is 100). A training run's live heap is nearly all data and
// working arrays without pointers, so a collection costs well under a
// millisecond, while with the default the buffers each step leaves behind
// grow the heap to twice the live data. On a covtype-like set (50,000 +
// 30,000 rows of 54 features, basic stochastic KMP, 2,400 steps, --test)
// the peak RSS was 34.4-34.6 MB with 20 and 31.4-32.5 MB with 10 in the
// same time. Once the CPU driver kept its per-call buffers through
// collections, 3 gave 28.2-28.5 MB against 29.8-29.9 with 10, again in the
// same time, the collector's CPU negligible (20 s of it: 43 collections, 37
// ms; USPS 8 vs rest, in-memory KMP: 24 and 20 ms against 23 and 19). A
// soft memory limit near the live heap (GOMEMLIMIT 22 or 24 MiB) gave
// 30.0 MB at 1.75-1.8 times the CPU: the collector then runs all the time.
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
