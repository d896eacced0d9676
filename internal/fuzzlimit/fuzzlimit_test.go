package fuzzlimit

import (
	"math"
	"testing"
	"time"
)

// Timed counts CPU time: sleeping past PerInput passes, spinning past it
// fails (checked through a recording testing.TB).
func TestTimedCountsCPU(t *testing.T) {
	if _, ok := threadCPU(); !ok {
		t.Skip("no per-thread CPU time on this system")
	}
	sleep := &recorder{TB: t}
	Timed(sleep, func() { time.Sleep(PerInput + 100*time.Millisecond) })
	if sleep.failed {
		t.Error("sleeping (no CPU) failed the limit")
	}
	spin := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Timed(spin, func() {
			// Spin until this thread has used more than PerInput of CPU
			// (Timed keeps the goroutine on it), however busy the machine.
			c0, _ := threadCPU()
			for c, _ := threadCPU(); c-c0 < PerInput+100*time.Millisecond; c, _ = threadCPU() {
			}
		})
	}()
	<-done
	if !spin.failed {
		t.Error("spinning past the limit passed")
	}
}

// recorder records Fatalf instead of stopping the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.failed = true }

func TestFitsRows(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		want       bool
	}{
		{3, 0, true},
		{3, Budget / 12, true},
		{3, Budget/12 + 1, false},
		{0, math.MaxInt, true},
		{3, math.MaxInt, false},
		{3, math.MaxInt/12 + 1, false}, // 12·cols wraps negative
		{3, -1, false},
		{-1, 3, false},
	} {
		if got := FitsRows(c.rows, c.cols); got != c.want {
			t.Errorf("FitsRows(%d, %d) = %v, want %v", c.rows, c.cols, got, c.want)
		}
	}
}
