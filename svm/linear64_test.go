package svm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestLinear64Rows checks Rows64 (four rows at a time, in parallel over
// the vectors for large batches) against the plain float64 dot product of
// each requested row with each vector: batches of 1 to 13 rows, repeated
// rows, dimensions that are not multiples of four, and a problem large
// enough to take the parallel path.
func TestLinear64Rows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct{ n, d int }{{1, 1}, {7, 3}, {50, 13}, {3000, 37}} {
		x := make([]float64, c.n*c.d)
		for i := range x {
			x[i] = 2*rng.Float64() - 1
		}
		f, err := NewLinear64(c.n, c.d, x)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []int{1, 3, 4, 5, 8, 13} {
			idx := make([]int, m)
			for r := range idx {
				idx[r] = rng.IntN(c.n)
			}
			if m > 2 {
				idx[2] = idx[0]
			}
			dst := make([]float64, m*c.n)
			if err := f.Rows64(dst, idx); err != nil {
				t.Fatal(err)
			}
			for r, i := range idx {
				for j := range c.n {
					var want float64
					for k := range c.d {
						want += x[i*c.d+k] * x[j*c.d+k]
					}
					if got := dst[r*c.n+j]; math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
						t.Fatalf("n %d d %d m %d: K[%d][%d] = %v, want %v", c.n, c.d, m, i, j, got, want)
					}
				}
			}
		}
	}
	f, _ := NewLinear64(2, 2, []float64{1, 2, 3, 4})
	if err := f.Rows64(make([]float64, 2), []int{0, 1}); err == nil {
		t.Error("a short destination was accepted")
	}
	if err := f.Rows64(make([]float64, 2), []int{2}); err == nil {
		t.Error("an index out of range was accepted")
	}
}
