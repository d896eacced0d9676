// Package fuzzlimit holds what the model readers' fuzz targets share: the
// small memory budget they read under and the time one input may take.
//
// A reader given a file of a few kilobytes must decide it in about the time
// reading it takes, whatever sizes the file declares (issue 36): the fuzz
// targets therefore fail any input that takes longer than PerInput, instead
// of skipping inputs that declare large sizes.
//
// Running a target for a while, for example five minutes:
//
//	go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 5m -fuzzminimizetime 1s ./kmp
//
// -fuzzminimizetime 1s matters: when the fuzzer finds an input that
// widens coverage it minimises it, and for inputs of 1–2 kB the default
// (60 s) makes it try about a million byte ranges, which shows as long
// stretches of 0 execs/s that are not slow inputs.
package fuzzlimit

import (
	"runtime"
	"testing"
	"time"
)

// Budget is the memory budget, in bytes, that the fuzz targets read models
// under: a declared size over it must be refused before it costs memory.
const Budget = 4 << 20

// FitsRows reports whether rows float32 rows of width cols fit Budget,
// without overflowing for any declared width (a model file may declare a
// width near the largest int; 12·cols would wrap to a negative size).
func FitsRows(rows, cols int) bool {
	return rows >= 0 && cols >= 0 && (rows == 0 || int64(cols) <= Budget/4/int64(rows))
}

// PerInput is the most CPU time one fuzz input may take.
const PerInput = time.Second

// Timed runs f and fails t when it takes more than PerInput of CPU time on
// its thread. CPU time, not wall time: a fuzzer shares the machine with
// other work, and a 3-byte input once took 7 s of wall time on a loaded
// 2-core machine while taking microseconds of CPU. The goroutine is locked
// to its thread for the measurement; where the thread's CPU time cannot be
// read, wall time is used.
func Timed(t testing.TB, f func()) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := threadCPU()
	t0 := time.Now()
	f()
	d := time.Since(t0)
	if c1, ok1 := threadCPU(); ok && ok1 {
		d = c1 - c0
	}
	if d > PerInput {
		t.Fatalf("the input took %v of CPU time, over %v", d, PerInput)
	}
}
