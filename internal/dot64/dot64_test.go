package dot64

import (
	"math"
	"math/rand/v2"
	"testing"
)

// reference is the sum Dots defines, one product at a time in float64.
func reference(zt []float64, ldz, n int, idx []int32, val []float64) []float64 {
	out := make([]float64, n)
	for u := range n {
		s := 0.0
		for q, j := range idx {
			p := val[q] * zt[int(j)*ldz+u]
			s = s + p
		}
		out[u] = s
	}
	return out
}

func TestDotsMatchReferenceBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := rng.IntN(50)
		ldz := n + rng.IntN(5)
		d := 1 + rng.IntN(70)
		zt := make([]float64, d*ldz)
		for i := range zt {
			zt[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
		}
		// A dense row with zeros, and its non-zeros alone.
		dense := make([]float64, d)
		var idx, all []int32
		var val []float64
		for j := range dense {
			all = append(all, int32(j))
			if rng.IntN(3) > 0 {
				dense[j] = rng.NormFloat64()
				if rng.IntN(2) == 0 {
					dense[j] = -dense[j]
				}
				idx = append(idx, int32(j))
				val = append(val, dense[j])
			}
		}
		want := reference(zt, ldz, n, idx, val)
		got := make([]float64, n)
		for i := range got {
			got[i] = math.NaN() // Dots overwrites
		}
		Dots(got, zt, ldz, idx, val)
		withZeros := make([]float64, n)
		Dots(withZeros, zt, ldz, all, dense)
		goOnly := make([]float64, n)
		dotsGo(goOnly, zt, 0, ldz, idx, val)
		for u := range n {
			if math.Float64bits(got[u]) != math.Float64bits(want[u]) ||
				math.Float64bits(withZeros[u]) != math.Float64bits(want[u]) ||
				math.Float64bits(goOnly[u]) != math.Float64bits(want[u]) {
				t.Fatalf("trial %d (n %d, ldz %d, d %d, asm %v): sum %d is %v (non-zeros), %v (with zeros), %v (Go), want %v",
					trial, n, ldz, d, useAsm, u, got[u], withZeros[u], goOnly[u], want[u])
			}
		}
	}
}

func TestDotsEmptyRow(t *testing.T) {
	got := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}
	Dots(got, make([]float64, 17), 17, nil, nil)
	for u, v := range got {
		if v != 0 || math.Signbit(v) {
			t.Fatalf("sum %d of an empty row is %v, want +0", u, v)
		}
	}
}

func BenchmarkDots(b *testing.B) {
	const d, n = 256, 32
	zt := make([]float64, d*n)
	idx := make([]int32, d)
	val := make([]float64, d)
	for j := range d {
		idx[j] = int32(j)
		val[j] = float64(j%7) - 3
		for u := range n {
			zt[j*n+u] = float64(u+j) / 100
		}
	}
	dots := make([]float64, n)
	b.Run("dispatch", func(b *testing.B) {
		for b.Loop() {
			Dots(dots, zt, n, idx, val)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*d*n), "ns/product")
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			dotsGo(dots, zt, 0, n, idx, val)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*d*n), "ns/product")
	})
}
