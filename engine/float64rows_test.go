package engine

import (
	"testing"

	"github.com/pursuit-ml/pursuit"
)

// TestFloat64Rows: a dense matrix comes back in float64, row after row
// without the stride's padding; a sparse one, or one over the budget,
// gives nil.
func TestFloat64Rows(t *testing.T) {
	m := pursuit.NewAlignedMatrix(3, 5) // a stride wider than the row
	for i := range m.Rows {
		for j := range m.Cols {
			m.Set(i, j, float32(i)-0.25*float32(j))
		}
	}
	e, err := New(WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	got := e.Float64Rows("test rows", m)
	if len(got) != 15 {
		t.Fatalf("%d values, want 15", len(got))
	}
	for i := range m.Rows {
		for j := range m.Cols {
			if got[i*5+j] != float64(m.At(i, j)) {
				t.Errorf("row %d col %d: %v, want %v", i, j, got[i*5+j], m.At(i, j))
			}
		}
	}
	sparse, err := pursuit.SparseFrom(1, 5, []int64{0, 1}, []int32{2}, []float32{1})
	if err != nil {
		t.Fatal(err)
	}
	if e.Float64Rows("test rows", sparse) != nil {
		t.Error("a sparse matrix was written out")
	}
	small, err := New(WithBackend("go"), WithMemoryBudget(64))
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	if small.Float64Rows("test rows", m) != nil {
		t.Error("a 120-byte copy was made under a 64-byte budget")
	}
}
