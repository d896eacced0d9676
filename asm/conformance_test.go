package asm

import (
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

// TestConformance runs the shared conformance suite on every path: the
// assembly (1 and 2 threads) and the pure-Go kernels forced by masking.
func TestConformance(t *testing.T) {
	for name, b := range testBackends(t) {
		t.Run(name, func(t *testing.T) { backendtest.Run(t, b) })
	}
}

// TestTakesSparse makes sure the suite's Sparse cases ran on every path
// (not its check of a backend that rejects sparse operands): a sparse
// gather succeeds and matches its dense twin.
func TestTakesSparse(t *testing.T) {
	x, err := pursuit.SparseFrom(3, 4, []int64{0, 2, 2, 3}, []int32{0, 3, 1}, []float32{1, 2, -1})
	if err != nil {
		t.Fatal(err)
	}
	dense := pursuit.NewMatrix(3, 4)
	for i := range 3 {
		x.RowTo(dense.Row(i), i)
	}
	k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.5}
	for name, b := range testBackends(t) {
		got, want := pursuit.NewMatrix(2, 3), pursuit.NewMatrix(2, 3)
		if err := b.KernelGather(got, k, x, nil, []int{2, 0}, x, nil); err != nil {
			t.Fatalf("%s: sparse gather: %v", name, err)
		}
		if err := b.KernelGather(want, k, dense, nil, []int{2, 0}, dense, nil); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			for j := range 3 {
				if g, w := got.At(i, j), want.At(i, j); math.Abs(float64(g-w)) > 1e-6 {
					t.Errorf("%s: sparse K[%d][%d] = %v, dense %v", name, i, j, g, w)
				}
			}
		}
	}
}
