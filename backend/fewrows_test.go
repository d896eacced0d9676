package backend_test

import (
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// TestKernelFewRowsSlices checks that a kernel block of few rows over many
// points, which the CPU driver computes in slices of points, holds the
// values each point gives alone: a window of points computed as a block of
// its own (one slice) equals the same columns of the whole block bit for
// bit, at the slice boundaries and at the end. The windows end as the
// whole block does (the transform takes the last m mod 16 values of a row
// on another path): 96 points inside, 96 + l mod 16 at the end. A wrong
// offset of a slice's products or destination fails it.
func TestKernelFewRowsSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const l, d = 20011, 54 // over two slices of 8,192 points and a partial one
	b, a := randMatrix(rng, l, d), randMatrix(rng, 40, d)
	idx := []int{5, 9, 31}
	kernels := []pursuit.Kernel{
		{Kind: pursuit.RBF, Gamma: 0.1},
		{Kind: pursuit.Polynomial, Gamma: 0.5, Coef0: 1, Degree: 3},
		{Kind: pursuit.Linear},
	}
	for _, threads := range []int{1, 2} {
		be := backend.NewGo(threads)
		for _, k := range kernels {
			whole := pursuit.NewMatrix(len(idx), l)
			if err := be.KernelGather(whole, k, a, nil, idx, b, nil); err != nil {
				t.Fatal(err)
			}
			end := 96 + l%16
			for _, c0 := range []int{0, 8140, 8192 - 50, 16340, 16384 - 1, l - end} {
				n := 96
				if c0 == l-end {
					n = end
				}
				win := pursuit.NewMatrix(len(idx), n)
				if err := be.KernelGather(win, k, a, nil, idx, b.Slice(c0, c0+n, 0, d), nil); err != nil {
					t.Fatal(err)
				}
				for r := range idx {
					for j, v := range win.Row(r) {
						if got := whole.At(r, c0+j); got != v {
							t.Fatalf("%v threads=%d: row %d point %d: %v in the whole block, %v alone", k, threads, r, c0+j, got, v)
						}
					}
				}
			}
		}
	}
}
