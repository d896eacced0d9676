package fuzzlimit

import (
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
