package kmp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// cgs2Always is the projection cgs2 replaced, classical Gram–Schmidt
// applied twice every time (four passes over Q), for BenchmarkCGS2.
func cgs2Always(v, d []float64, qs []float64, l, n int) []float64 {
	copy(v, d)
	rc := make([]float64, n, n+1)
	r := make([]float64, n)
	q := blas64.General{Rows: n, Cols: l, Stride: l, Data: qs}
	for range 2 {
		blas64.Gemv(blas.NoTrans, 1, q, blas64.Vector{N: l, Inc: 1, Data: v}, 0, blas64.Vector{N: n, Inc: 1, Data: r})
		blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: n, Inc: 1, Data: r}, 1, blas64.Vector{N: l, Inc: 1, Data: v})
		floats.Add(rc, r)
	}
	return rc
}

// BenchmarkCGS2 projects a random vector on an orthonormal n × 50,000
// float64 basis on one thread: cgs2 with its
// tile sizes, and CGS applied twice. GB/s counts one pass over the basis.
func BenchmarkCGS2(b *testing.B) {
	const l = 50000
	for _, n := range []int{600, 1800} {
		rng := rand.New(rand.NewPCG(1, 1))
		// Orthonormal rows (DCT-II), so that cgs2 skips its second
		// projection as it does on a basis it built.
		qs := make([]float64, n*l)
		for i := range n {
			for j := range l {
				qs[i*l+j] = math.Sqrt(2.0/l) * math.Cos(math.Pi*(float64(i)+0.5)*(float64(j)+0.5)/l)
			}
		}
		d := make([]float64, l)
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		v := make([]float64, l)
		b.Run(fmt.Sprintf("n=%d/cgs2x2", n), func(b *testing.B) {
			b.SetBytes(int64(n) * l * 8)
			for range b.N {
				cgs2Always(v, d, qs, l, n)
			}
		})
		for _, tb := range []int{256 << 10, 2 << 20, 8 << 20, 32 << 20} {
			b.Run(fmt.Sprintf("n=%d/tile=%dK", n, tb>>10), func(b *testing.B) {
				old := cgsTileBytes
				cgsTileBytes = tb
				defer func() { cgsTileBytes = old }()
				b.SetBytes(int64(n) * l * 8)
				for range b.N {
					if _, reorth := cgs2(nil, v, d, qs, l, n, 1, nil); reorth {
						b.Fatal("second projection on an orthonormal basis")
					}
				}
			})
		}
	}
}
