package backend_test

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// TestGoAllocations checks that the steady-state allocations of each
// operation are a small constant (goroutine start-up and closures), not a
// function of the problem size: packing buffers come from the pool and the
// inner loops never allocate.
func TestGoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, threads := range []int{1, 2} {
		be := backend.NewGo(threads)
		for _, n := range []int{40, 300} {
			x, z := randMatrix(rng, n, 70), randMatrix(rng, n+3, 70)
			xn, zn := make([]float32, x.Rows), make([]float32, z.Rows)
			if err := be.SqNorms(xn, x); err != nil {
				t.Fatal(err)
			}
			if err := be.SqNorms(zn, z); err != nil {
				t.Fatal(err)
			}
			dst := pursuit.NewMatrix(n, n+3)
			prods := make([]float64, 3*n)
			u, v := randMatrix(rng, 2, n), randMatrix(rng, 2, n+3)
			rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.1}
			ops := map[string]func() error{
				"KernelBlock":  func() error { return be.KernelBlock(dst, rbf, x, xn, z, zn) },
				"DictProducts": func() error { return be.DictProducts(prods, z.Slice(0, n, 0, 70), x.Slice(0, 3, 0, 70)) },
				"RankUpdate":   func() error { return be.RankUpdate(dst, -1, u, v) },
				"SqNorms":      func() error { return be.SqNorms(xn, x) },
			}
			for name, op := range ops {
				var err error
				allocs := testing.AllocsPerRun(5, func() {
					if e := op(); e != nil {
						err = e
					}
				})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if allocs > 16 {
					t.Errorf("%s n=%d threads=%d: %v allocations per call, want a small constant", name, n, threads, allocs)
				}
				t.Logf("%s n=%d threads=%d: %v allocations per call", name, n, threads, allocs)
			}
		}
	}
}

// TestStepBuffersPooled checks that the buffers a kernel gather and a
// dictionary product need in proportion to the problem (the squared norms
// of the gathered rows and of every row of b, 4 bytes each; the dot
// kernels' accumulators, 512 bytes per vector and worker) come from the
// backend's pools: called step after step, as stochastic KMP does, they
// leave no garbage: the bytes allocated per call stay below a quarter of
// b's norms for the gather, below half of one worker's accumulators (16
// vectors: 8 KB) for the products, which were allocated on every call
// before (88 and 9.6 KB per call on one thread). A garbage collection runs
// before every call: the free lists keep their buffers through it (a
// sync.Pool would drop them, and a long run would allocate them again after
// each collection). Kernel gathers over few rows and many points (an SMO
// row, 20,000 points) take kernelFewRows' scratch from its list too.
func TestStepBuffersPooled(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled items at random")
	}
	// No collection but the test's own.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	rng := rand.New(rand.NewPCG(7, 8))
	const l, d = 20000, 54
	b, a := randMatrix(rng, l, d), randMatrix(rng, 300, d)
	idx := []int{3, 17, 40, 41, 42, 200, 299}
	dst := pursuit.NewMatrix(len(idx), l)
	many := make([]int, 64)
	for i := range many {
		many[i] = 4 * i
	}
	blk := pursuit.NewMatrix(len(many), l)
	vecs := randMatrix(rng, 16, l)
	prods := make([]float64, 16*300)
	aT := randMatrix(rng, 300, l) // a dictionary of 300 atoms at l points
	rbf := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.1}
	for _, threads := range []int{1, 2} {
		be := backend.NewGo(threads)
		ops := map[string]struct {
			run   func() error
			limit uint64 // bytes per call
		}{
			"KernelGather": {func() error { return be.KernelGather(dst, rbf, a, nil, idx, b, nil) }, l},
			"DictProducts": {func() error { return be.DictProducts(prods, aT, vecs) }, 4 << 10},
			// The GEMM's packing buffers (64 rows of a, b packed per block).
			"KernelGather block": {func() error { return be.KernelGather(blk, rbf, a, nil, many, b, nil) }, l},
		}
		for name, o := range ops {
			op := o.run
			if err := op(); err != nil { // fills the pools
				t.Fatalf("%s: %v", name, err)
			}
			const calls = 20
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range calls {
				runtime.GC()
				if err := op(); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
			runtime.ReadMemStats(&after)
			perCall := (after.TotalAlloc - before.TotalAlloc) / calls
			t.Logf("%s threads=%d: %d bytes allocated per call", name, threads, perCall)
			if perCall > o.limit {
				t.Errorf("%s threads=%d: %d bytes allocated per call, want under %d", name, threads, perCall, o.limit)
			}
		}
	}
}
