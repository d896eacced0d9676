package engine

import "github.com/pursuit-ml/pursuit/internal/par"

// The engine decides the parallelism of the learners' own loops. It holds
// Threads()−1 worker slots, the threads a loop may add to the goroutine
// that runs it; a loop takes the slots that are free when it starts and
// gives them back when it ends. A loop inside concurrent tasks (one-vs-rest
// KMP's fitters in lock-step, each with its own loops) therefore finds the
// slots taken by the tasks and runs on its own goroutine instead of
// multiplying the threads. How a loop splits its range depends only on
// Threads(), never on how many slots it got, so results do not depend on
// what else runs.

// Borrow takes up to n of the free worker slots without waiting and
// returns how many it took and a function that gives them back (call it
// once). Concurrent tasks that a learner runs itself take their slots
// here: k tasks at once borrow k−1.
func (e *Engine) Borrow(n int) (got int, release func()) {
	if e == nil || e.slots == nil {
		return 0, func() {}
	}
	for got < n {
		select {
		case e.slots <- struct{}{}:
			got++
			continue
		default:
		}
		break
	}
	return got, func() {
		for range got {
			<-e.slots
		}
		got = 0
	}
}

// For runs body over [0, n) split into parts contiguous chunks of nearly
// equal length (the split par.For makes with parts threads), on the
// calling goroutine and the worker slots free at the start. The chunks are
// the same whatever the number of slots, so a loop whose chunks write
// their own partial results gives the same bits on a busy engine as on an
// idle one. parts ≤ 0 means Threads(). A nil engine runs the chunks on the
// calling goroutine alone.
func (e *Engine) For(n, parts int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if parts <= 0 {
		parts = e.Threads()
	}
	chunk := par.ChunkLen(n, parts, 1, 1)
	tasks := (n + chunk - 1) / chunk
	extra, release := e.Borrow(tasks - 1)
	defer release()
	par.Chunks(n, chunk, extra+1, nil, nil, func(_ struct{}, lo, hi int) { body(lo, hi) })
}
