package dot64

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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

// TestDots4MatchReferenceBits: four rows sharing their columns (the
// dense path), every width from 0 to 41 sums so that each kernel (16, 8
// and 4 wide) and the Go tail run, with all-zero rows, rows of one
// non-zero and empty column lists among them.
func TestDots4MatchReferenceBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := range 42 {
		for trial := range 12 {
			ldz := n + rng.IntN(6)
			d := rng.IntN(40)
			if trial == 0 {
				d = 0
			}
			zt := make([]float64, d*ldz)
			for i := range zt {
				zt[i] = rng.NormFloat64() * math.Exp(3*rng.NormFloat64())
				if rng.IntN(10) == 0 {
					zt[i] = math.Copysign(0, -1)
				}
			}
			idx := make([]int32, 0, d)
			for j := range d {
				if trial%3 != 1 || rng.IntN(4) == 0 {
					idx = append(idx, int32(j))
				}
			}
			var val, dots [4][]float64
			for r := range 4 {
				val[r] = make([]float64, len(idx))
				switch {
				case r == 1: // all zeros: every sum is +0
				case r == 2 && len(idx) > 0: // one non-zero
					val[r][rng.IntN(len(idx))] = rng.NormFloat64()
				default:
					for q := range val[r] {
						val[r][q] = rng.NormFloat64()
						if rng.IntN(4) == 0 {
							val[r][q] = 0
						}
					}
				}
				dots[r] = make([]float64, n)
				for u := range dots[r] {
					dots[r][u] = math.NaN() // overwritten
				}
			}
			Dots4(&dots, zt, ldz, idx, &val)
			for r := range 4 {
				want := reference(zt, ldz, n, idx, val[r])
				one := make([]float64, n)
				Dots(one, zt, ldz, idx, val[r])
				for u := range n {
					if math.Float64bits(dots[r][u]) != math.Float64bits(want[u]) ||
						math.Float64bits(one[u]) != math.Float64bits(want[u]) {
						t.Fatalf("n %d, ldz %d, d %d, nnz %d, row %d (asm %v): sum %d is %v (Dots4), %v (Dots), want %v",
							n, ldz, d, len(idx), r, useAsm, u, dots[r][u], one[u], want[u])
					}
					if r == 1 && (dots[r][u] != 0 || math.Signbit(dots[r][u])) {
						t.Fatalf("n %d: sum %d of an all-zero row is %v, want +0", n, u, dots[r][u])
					}
				}
			}
		}
	}
}

// TestDotsIndexOutOfRange: an index past zt's rows, or a negative one,
// panics rather than reading outside zt: with dot64's message where a
// kernel runs (four sums or more; the kernels check each index), with
// Go's bounds check in the Go tail.
func TestDotsIndexOutOfRange(t *testing.T) {
	for _, n := range []int{3, 4, 8, 16, 28} {
		for _, bad := range []int32{-1, 5, 1 << 30} {
			zt := make([]float64, 5*n)
			idx := []int32{0, 2, bad}
			val := []float64{1, 2, 3}
			func() {
				defer func() {
					p := recover()
					msg, _ := p.(string)
					if p == nil || (useAsm && n >= 4 && !strings.HasPrefix(msg, "dot64: column index")) {
						t.Errorf("n %d, index %d: recovered %v, want an out-of-range panic", n, bad, p)
					}
				}()
				Dots(make([]float64, n), zt, n, idx, val)
			}()
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

// BenchmarkDots times one row of 256 non-zeros against n vectors (Dots)
// and four rows sharing their columns (Dots4), n = 20 (16 + 4) and 100
// (6·16 + 4), against the Go loop.
func BenchmarkDots(b *testing.B) {
	const d = 256
	for _, n := range []int{20, 100} {
		ldz := (n + 3) &^ 3
		zt := make([]float64, d*ldz)
		idx := make([]int32, d)
		var val [4][]float64
		for r := range val {
			val[r] = make([]float64, d)
		}
		for j := range d {
			idx[j] = int32(j)
			for r := range val {
				val[r][j] = float64((j+r)%7) - 3
			}
			for u := range n {
				zt[j*ldz+u] = float64(u+j) / 100
			}
		}
		var dots [4][]float64
		for r := range dots {
			dots[r] = make([]float64, ldz)
		}
		b.Run(fmt.Sprintf("n=%d/dots", n), func(b *testing.B) {
			for b.Loop() {
				Dots(dots[0], zt, ldz, idx, val[0])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*d*n), "ns/product")
		})
		b.Run(fmt.Sprintf("n=%d/dots4", n), func(b *testing.B) {
			for b.Loop() {
				Dots4(&dots, zt, ldz, idx, &val)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*4*d*n), "ns/product")
		})
		b.Run(fmt.Sprintf("n=%d/go", n), func(b *testing.B) {
			for b.Loop() {
				dotsGo(dots[0], zt, 0, ldz, idx, val[0])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*d*n), "ns/product")
		})
	}
}
