package backend_test

import (
	"math/rand/v2"
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
