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
