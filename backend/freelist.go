package backend

import "sync"

// freeList keeps buffers of one kind for reuse by later calls, safe for
// concurrent use. A sync.Pool would drop them at every garbage collection,
// and a long run calling an operation step after step would then allocate
// them again after each one: on a covtype-like stochastic KMP run (50,000
// points, 2,400 steps, a collection every second or so) that churn of
// half-megabyte buffers fragmented the heap, and the process's peak
// resident set was 1.1 MB larger than with the buffers kept. A free list
// keeps at most keep buffers (what the calls running at once use); a
// buffer put back beyond that is left to the collector.
type freeList[T any] struct {
	mu   sync.Mutex
	free []T
}

// get returns a kept buffer, or the zero T (a nil pointer) when none is
// kept.
func (f *freeList[T]) get() T {
	f.mu.Lock()
	defer f.mu.Unlock()
	var zero T
	n := len(f.free)
	if n == 0 {
		return zero
	}
	x := f.free[n-1]
	f.free[n-1] = zero
	f.free = f.free[:n-1]
	return x
}

// put keeps x for a later get, unless keep buffers are kept already.
func (f *freeList[T]) put(x T, keep int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.free) < keep {
		f.free = append(f.free, x)
	}
}
