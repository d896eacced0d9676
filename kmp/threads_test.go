package kmp

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// busyGoroutines counts the goroutines of a stack dump that are running or
// runnable and execute Pursuit's code.
func busyGoroutines(dump []byte) int {
	n := 0
	for _, g := range bytes.Split(dump, []byte("\n\n")) {
		header, _, _ := bytes.Cut(g, []byte("\n"))
		busy := bytes.Contains(header, []byte("[running]")) || bytes.Contains(header, []byte("[runnable]"))
		// The sampler is left out, and so is a fitter handing its
		// vectors over in lockstep.products: runnable there, it is
		// between a channel send and a receive, and does no work.
		_, top, _ := bytes.Cut(g, []byte("\n"))
		top, _, _ = bytes.Cut(top, []byte("\n"))
		handoff := bytes.Contains(top, []byte("kmp.(*lockstep).products"))
		if busy && !handoff && bytes.Contains(g, []byte("pursuit-ml/pursuit")) && !bytes.Contains(g, []byte("kmp.checkBusy.func")) {
			n++
		}
	}
	return n
}

// TestLockstepThreads: one-vs-rest KMP in lock-step runs up to Threads()
// fitters at once, and each fitter's own parallel loops (explicit
// deflation's norms every step) must not add Threads()−1 goroutines more:
// the number of goroutines busy with Pursuit's work, sampled all through
// training, stays within the engine's threads plus a small constant
// (the lock-step coordinator, a goroutine between two states).
func TestLockstepThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("samples goroutine dumps during a training run")
	}
	const threads = 4
	e, err := engine.New(engine.WithBackend(engine.BackendGo), engine.WithThreads(threads))
	if err != nil {
		t.Fatal(err)
	}
	for _, deflation := range []Deflation{Implicit, Explicit} {
		t.Run(map[Deflation]string{Implicit: "implicit", Explicit: "explicit"}[deflation], func(t *testing.T) { checkBusy(t, e, deflation) })
	}
}

func checkBusy(t *testing.T, e *engine.Engine, deflation Deflation) {
	const threads = 4
	x, y := blobsK(900, 6, 6, 3)
	stop, peak := make(chan struct{}), make(chan int)
	var lastDump string
	go func() {
		p, buf := 0, make([]byte, 1<<22)
		for {
			select {
			case <-stop:
				peak <- p
				return
			default:
			}
			n := runtime.Stack(buf, true)
			if n == len(buf) {
				buf = make([]byte, 2*len(buf))
				continue
			}
			if c := busyGoroutines(buf[:n]); c > p {
				p = c
				lastDump = string(buf[:n])
			}
			runtime.Gosched()
		}
	}()
	cfg := Config{Variant: PreFit, Deflation: deflation, Task: Classification,
		Kernels: []pursuit.Kernel{pursuit.NewRBF(0.5)}, Bias: true, N: 40}
	if deflation == Implicit {
		// a large basis: the fitters orthogonalise with parallel passes
		cfg.N = 300
	}
	_, err := TrainOneVsRest(e, x, y, cfg)
	close(stop)
	p := <-peak
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("peak busy goroutines %d with %d threads", p, threads)
	if testing.Verbose() {
		for _, g := range strings.Split(lastDump, "\n\n") {
			if busyGoroutines([]byte(g)) > 0 || strings.Contains(g, "wg.Wait") || strings.Contains(g, "Wait()") {
				t.Log(g)
			}
		}
	}
	if p > threads+1 {
		t.Errorf("%d goroutines busy at once with %d threads: nested parallel loops oversubscribe", p, threads)
	}
	if p == 0 {
		t.Error("no busy goroutine was ever sampled: the test measured nothing")
	}
}
