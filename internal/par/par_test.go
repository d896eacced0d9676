package par

import (
	"math"
	"sync/atomic"
	"testing"
)

func TestFor(t *testing.T) {
	for _, c := range [][2]int{{0, 4}, {1, 4}, {7, 3}, {100, 0}, {5, 9}} {
		n, threads := c[0], c[1]
		seen := make([]atomic.Int32, n)
		For(n, threads, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if v := seen[i].Load(); v != 1 {
				t.Fatalf("n = %d, threads = %d: index %d visited %d times", n, threads, i, v)
			}
		}
	}
}

func TestSplitHiLo(t *testing.T) {
	v := []float64{1.0 / 3, math.Pi * 1e5, -2.5e-7, 0}
	hi, lo := make([]float32, len(v)), make([]float32, len(v))
	SplitHiLo(v, hi, lo)
	for i, x := range v {
		if got := float64(hi[i]) + float64(lo[i]); math.Abs(got-x) > 1e-14*math.Abs(x) {
			t.Errorf("%v split into %v + %v = %v", x, hi[i], lo[i], got)
		}
		if float64(hi[i]) != float64(float32(x)) {
			t.Errorf("hi part of %v is %v, want float32(x)", x, hi[i])
		}
	}
}
