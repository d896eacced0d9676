package modelfile

import (
	"encoding/json"
	"testing"

	"github.com/pursuit-ml/pursuit"
)

func TestSparseRowsRoundTrip(t *testing.T) {
	m, err := pursuit.SparseFrom(3, 5, []int64{0, 2, 2, 3}, []int32{1, 4, 0}, []float32{1, -2, 3})
	if err != nil {
		t.Fatal(err)
	}
	view := m.Slice(1, 3, 0, 5) // offsets not from 0
	b, err := json.Marshal(SparseRowsOf(view))
	if err != nil {
		t.Fatal(err)
	}
	var s SparseRows
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	got, err := s.Matrix(2, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		for j := range 5 {
			if got.At(i, j) != view.At(i, j) {
				t.Fatalf("(%d, %d) = %v, want %v", i, j, got.At(i, j), view.At(i, j))
			}
		}
	}
	if SparseRowsOf(pursuit.NewMatrix(1, 1)) != nil {
		t.Errorf("SparseRowsOf a dense matrix is not nil")
	}
	for _, bad := range []SparseRows{
		{Offsets: []int64{0, 1}, Indices: []int32{5}, Values: []float32{1}},       // column out of range
		{Offsets: []int64{0, 2}, Indices: []int32{1, 1}, Values: []float32{1, 2}}, // repeated column
		{Offsets: []int64{0, 1}, Indices: []int32{1, 2}, Values: []float32{1, 2}}, // a non-zero past the last row
		{Offsets: []int64{0}, Indices: nil, Values: nil},                          // too few offsets
	} {
		if _, err := bad.Matrix(1, 5); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
