package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// SqNorms64 is the in-order float64 sum of squares, the same bits for a
// dense matrix and the sparse storage of the same rows, for a subset of
// rows, on a busy engine, an idle one and a nil one.
func TestSqNorms64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dense := randMatrix(rng, 97, 33)
	var offsets []int64
	var indices []int32
	var values []float32
	offsets = append(offsets, 0)
	for i := range dense.Rows {
		row := dense.Row(i)
		for j := range row {
			if rng.Float64() < 0.6 {
				row[j] = 0
				continue
			}
			indices, values = append(indices, int32(j)), append(values, row[j])
		}
		offsets = append(offsets, int64(len(indices)))
	}
	sparse, err := pursuit.SparseFrom(dense.Rows, dense.Cols, offsets, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, dense.Rows)
	for i := range want {
		var s float64
		for _, v := range dense.Row(i) {
			s += float64(v) * float64(v)
		}
		want[i] = s
	}
	e, err := New(WithThreads(3))
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{5, 96, 0, 5}
	for _, eng := range []*Engine{e, nil} {
		for _, m := range []pursuit.Matrix{dense, sparse} {
			got := make([]float64, m.Rows)
			eng.SqNorms64(got, m, nil)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("sparse=%v engine=%v: row %d: %v, want %v", m.IsSparse(), eng != nil, i, got[i], want[i])
				}
			}
			sub := make([]float64, len(idx))
			eng.SqNorms64(sub, m, idx)
			for r, i := range idx {
				if sub[r] != want[i] || SqNorm64(m, i) != want[i] {
					t.Fatalf("sparse=%v: row %d of the subset: %v, want %v", m.IsSparse(), i, sub[r], want[i])
				}
			}
		}
	}
}
