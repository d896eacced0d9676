package backend

import "runtime"

// NewGo returns the portable pure-Go Backend, which runs on every platform:
// the CPU driver with GoKernels. It uses up to threads goroutines per call
// (the calling goroutine included); threads ≤ 0 means runtime.GOMAXPROCS(0)
// at the time of the call to NewGo. Calls below a small amount of work run
// on the calling goroutine alone.
//
// Kernel blocks are a cache-blocked, register-tiled float32 GEMM (see CPU
// and GoKernels) with the kernel transform applied in float64 to each tile
// while it is in cache (RBF: ‖a‖²+‖b‖²−2a·b clamped at 0, then an exp
// accurate to 1e-8 relative; the result is rounded once to float32).
// Unprepared blocks of at most eight rows skip the packing and use the
// dictionary-product kernels instead.
//
// DictProducts reads blocks of 16 dictionary rows × 1024 features, summing
// float32 products over runs of 32 elements and adding each run into
// float64; RankUpdate is parallel over rows in float32, up to four vectors
// per pass over a row.
//
// Packing buffers come from sync.Pools owned by the Backend value and are
// reused across calls; the only per-call allocations are the O(rows)
// squared-norm vectors an RBF block needs when the caller passes nil norms,
// and a per-goroutine accumulator. The inner loops never allocate.
//
// The value returned by NewGo is safe for concurrent use by several
// goroutines.
func NewGo(threads int) Backend {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	return NewCPU("go", threads, GoKernels())
}
