package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Tasks runs body(s, t) for every task t in [0, n) on up to workers
// goroutines, the calling one included (workers ≤ 1: the calling one only).
// setup, if not nil, is called once per goroutine before its first task and
// its result is passed to every body call of that goroutine; done, if not
// nil, receives it afterwards.
func Tasks[S any](n, workers int, setup func() S, done func(S), body func(s S, t int)) {
	if n <= 0 {
		return
	}
	workers = max(min(workers, n), 1)
	var next atomic.Int64
	work := func() {
		var s S
		if setup != nil {
			s = setup()
		}
		for {
			t := int(next.Add(1) - 1)
			if t >= n {
				break
			}
			body(s, t)
		}
		if done != nil {
			done(s)
		}
	}
	if workers == 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers - 1)
	for range workers - 1 {
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// Chunks splits [0, n) into pieces of chunk elements (the last shorter) and
// runs body(s, lo, hi) for each on up to workers goroutines, with setup and
// done as in Tasks.
func Chunks[S any](n, chunk, workers int, setup func() S, done func(S), body func(s S, lo, hi int)) {
	if n <= 0 {
		return
	}
	chunk = max(chunk, 1)
	Tasks((n+chunk-1)/chunk, workers, setup, done, func(s S, t int) {
		body(s, t*chunk, min((t+1)*chunk, n))
	})
}

// ChunkLen returns the length, a multiple of grain, of the pieces that cut
// [0, n) into about perWorker pieces for each of workers goroutines.
func ChunkLen(n, workers, perWorker, grain int) int {
	grain = max(grain, 1)
	parts := max(workers*perWorker, 1)
	c := (n + parts - 1) / parts
	return max((c+grain-1)/grain*grain, grain)
}

// For splits [0, n) into contiguous chunks, one per thread, run on up to
// threads goroutines (GOMAXPROCS when threads ≤ 0), and waits for them.
func For(n, threads int, body func(lo, hi int)) {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	Chunks(n, ChunkLen(n, threads, 1, 1), threads, nil, nil, func(_ struct{}, lo, hi int) { body(lo, hi) })
}

// SplitHiLo writes v as the sum of two float32 vectors hi + lo, so that a
// float32 dictionary product with both recovers ⟨d, v⟩ to about float64
// accuracy (the error is that of d's own float32 values).
func SplitHiLo(v []float64, hi, lo []float32) {
	for i, x := range v {
		h := float32(x)
		hi[i] = h
		lo[i] = float32(x - float64(h))
	}
}
