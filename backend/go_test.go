package backend_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/backend/backendtest"
)

func TestGoConformance(t *testing.T) {
	threads := []int{1, 2, 3}
	if raceEnabled {
		threads = []int{2} // the race detector needs only the parallel paths
	}
	for _, threads := range threads {
		be := backend.NewGo(threads)
		t.Run(be.Name()+"/threads="+strconv.Itoa(threads), func(t *testing.T) {
			backendtest.Run(t, be)
		})
	}
}

// TestGoTakesSparse makes sure the conformance suite's Sparse cases ran on
// the CPU driver instead of its check of a backend that rejects sparse
// operands: a sparse gather must succeed and match its dense twin.
func TestGoTakesSparse(t *testing.T) {
	checkTakesSparse(t, backend.NewGo(2))
}

func checkTakesSparse(t *testing.T, be backend.Backend) {
	x, err := pursuit.SparseFrom(3, 4, []int64{0, 2, 2, 3}, []int32{0, 3, 1}, []float32{1, 2, -1})
	if err != nil {
		t.Fatal(err)
	}
	dense := pursuit.NewMatrix(3, 4)
	for i := range 3 {
		x.RowTo(dense.Row(i), i)
	}
	k := pursuit.Kernel{Kind: pursuit.RBF, Gamma: 0.5}
	got, want := pursuit.NewMatrix(2, 3), pursuit.NewMatrix(2, 3)
	if err := be.KernelGather(got, k, x, nil, []int{2, 0}, x, nil); err != nil {
		t.Fatalf("%s: sparse gather: %v", be.Name(), err)
	}
	if err := be.KernelGather(want, k, dense, nil, []int{2, 0}, dense, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		for j := range 3 {
			if g, w := got.At(i, j), want.At(i, j); math.Abs(float64(g-w)) > 1e-6 {
				t.Errorf("%s: sparse K[%d][%d] = %v, dense %v", be.Name(), i, j, g, w)
			}
		}
	}
}
