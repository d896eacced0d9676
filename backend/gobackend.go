package backend

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// NewGo returns the portable pure-Go Backend, which runs on every platform.
// It uses up to threads goroutines per call (the calling goroutine
// included); threads ≤ 0 means runtime.GOMAXPROCS(0) at the time of the call
// to NewGo. Calls below a small amount of work run on the calling goroutine
// alone.
//
// Kernel blocks are a cache-blocked, register-tiled float32 GEMM: dst is cut
// into 64×256 tiles that goroutines claim from a shared counter; for each
// 256-feature slice the tile's rows of a and b are packed into zero-padded
// micro-panels, and a 2×4 micro-kernel (unrolled four times along the
// features, accumulators in local variables, no bounds checks in its loop)
// accumulates each 2×4 block in float32, like SGEMM. The kernel transform
// follows in float64 on the tile while it is in cache (RBF:
// ‖a‖²+‖b‖²−2a·b clamped at 0, then an exp accurate to 1e-8 relative; the
// result is rounded once to float32). Blocks of fewer than four rows skip the
// packing and use the dictionary-product kernel instead.
//
// DictProducts reads eight dictionary rows at a time (one vector) or four
// (several vectors, up to four per pass over the cache-resident rows),
// summing float32 products over runs of 32 elements and adding each run into
// float64; it is parallel over row ranges. RankUpdate is parallel over rows
// in float32, up to four vectors per pass over a row.
//
// Packing buffers come from a sync.Pool owned by the Backend value and are
// reused across calls and goroutines; the only per-call allocations are the
// O(rows) squared-norm vectors an RBF block needs when the caller passes nil
// norms (and for KernelGather's gathered norms). The inner loops never
// allocate.
//
// The value returned by NewGo holds no mutable state besides that pool, so
// unlike the Backend interface's minimum contract it is safe for concurrent
// use by several goroutines.
func NewGo(threads int) Backend {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	return &goBackend{threads: threads}
}

type goBackend struct {
	threads int
	pool    sync.Pool // *gemmScratch
}

func (g *goBackend) Name() string { return "go" }

// Work thresholds below which an operation runs on the calling goroutine
// only: starting goroutines costs about a microsecond each.
const (
	minParallelFlops = 1 << 17 // multiply-adds for kernel blocks
	minParallelElems = 1 << 15 // matrix elements for streaming operations
)

// parallel runs body(t) for every task t in [0, n) on up to workers
// goroutines, the calling one included; the goroutines claim tasks in order
// from a shared counter, so uneven tasks (or a busy core) balance out. setup,
// if not nil, is called once per goroutine before its first task and its
// result is passed to every body call of that goroutine; done, if not nil,
// receives it afterwards.
func parallel[S any](n, workers int, setup func() S, done func(S), body func(s S, t int)) {
	if workers > n {
		workers = n
	}
	if workers <= 0 {
		return
	}
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

// workersFor returns how many goroutines an operation of the given size
// deserves: 1 below threshold, else g.threads.
func (g *goBackend) workersFor(size, threshold int) int {
	if size < threshold {
		return 1
	}
	return g.threads
}

// chunkLen returns the length of the pieces that split [0, n) into about 8
// per worker, each at least grain long.
func chunkLen(n, workers, grain int) int {
	c := (n + 8*workers - 1) / (8 * workers)
	if c < grain {
		c = grain
	}
	return c
}

func (g *goBackend) SqNorms(dst []float32, x Matrix) error {
	if err := CheckSqNorms(dst, x); err != nil {
		return err
	}
	if x.Rows == 0 {
		return nil
	}
	workers := g.workersFor(x.Rows*x.Cols, minParallelElems)
	c := chunkLen(x.Rows, workers, 16)
	parallel(ceilDiv(x.Rows, c), workers, nil, nil, func(_ struct{}, t int) {
		lo, hi := t*c, min((t+1)*c, x.Rows)
		for i := lo; i < hi; i++ {
			dst[i] = float32(sqNorm(x.Row(i)))
		}
	})
	return nil
}

// sqNorm returns Σ x_i² with float64 accumulation.
func sqNorm(x []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(x); i += 4 {
		a, b, c, d := float64(x[i]), float64(x[i+1]), float64(x[i+2]), float64(x[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(x); i++ {
		a := float64(x[i])
		s0 += a * a
	}
	return (s0 + s1) + (s2 + s3)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func (g *goBackend) ScoredArgMax(s, n []float64, skip []bool) (int, float64) {
	return ScoredArgMaxRef(s, n, skip)
}
