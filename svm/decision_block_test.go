package svm

import (
	"math"
	"runtime"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// TestDecisionBlockBounded checks that Decision computes its kernel
// values in blocks of a few MB, whatever the number of rows: 12,000 rows
// against 1,000 support vectors are a 48 MB kernel matrix, and one call
// allocates less than 8 MB. The values do not depend on the blocks: they
// are those of the same rows decided in other blocks (slices of 9 to
// 3,000 rows at several offsets), on dense and sparse rows, on one thread
// and two.
func TestDecisionBlockBounded(t *testing.T) {
	const n, nsv, d = 12000, 1000, 8
	m := &Model{Type: EpsilonSVR, Kernel: pursuit.NewRBF(0.3), Rho: []float64{0.1},
		Coef: [][]float64{make([]float64, nsv)}, SV: pursuit.NewMatrix(nsv, d)}
	for i := range m.SV.Data {
		m.SV.Data[i] = float32(math.Sin(float64(i) * 0.7))
	}
	for i := range m.Coef[0] {
		m.Coef[0][i] = math.Cos(float64(i))
	}
	dense := pursuit.NewMatrix(n, d)
	for i := range dense.Data {
		if i%3 != 0 {
			dense.Data[i] = float32(math.Cos(float64(i) * 0.3))
		}
	}
	sparse := data.Sparsify(&data.Dataset{X: dense, Y: make([]float64, n)}).X
	for _, threads := range []int{1, 2} {
		e, err := engine.New(engine.WithThreads(threads))
		if err != nil {
			t.Fatal(err)
		}
		for name, x := range map[string]pursuit.Matrix{"dense": dense, "sparse": sparse} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := m.Decision(e, x)
			if err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("%s, %d threads: Decision of %d rows against %d support vectors allocated %.1f MB, want under 8", name, threads, n, nsv, float64(alloc)/(1<<20))
			}
			for _, c := range []struct{ r0, rows int }{{0, 9}, {1040, 3000}, {5000, 600}, {n - 9, 9}, {700, 2100}} {
				part, err := m.Decision(e, x.Slice(c.r0, c.r0+c.rows, 0, d))
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range part {
					if v != got[c.r0+i] {
						t.Fatalf("%s, %d threads, row %d: %v among all %d rows, %v among %d", name, threads, c.r0+i, got[c.r0+i], n, v, c.rows)
					}
				}
			}
		}
	}
}
