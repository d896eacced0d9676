package pursuit

import (
	"strings"
	"testing"
)

// sparseExample is the 3×5 matrix
//
//	[0 1 0 0 2]
//	[0 0 0 0 0]
//	[3 0 0 4 0]
func sparseExample(t *testing.T) Matrix {
	t.Helper()
	m, err := SparseFrom(3, 5, []int64{0, 2, 2, 4}, []int32{1, 4, 0, 3}, []float32{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestSparseMatchesDense(t *testing.T) {
	s := sparseExample(t)
	d, err := MatrixFrom(3, 5, []float32{0, 1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !s.IsSparse() || d.IsSparse() {
		t.Fatal("IsSparse wrong")
	}
	if s.NNZ() != 4 || d.NNZ() != 15 {
		t.Errorf("NNZ = %d, %d; want 4, 15", s.NNZ(), d.NNZ())
	}
	buf := make([]float32, 5)
	for i := 0; i < 3; i++ {
		for j := 0; j < 5; j++ {
			if s.At(i, j) != d.At(i, j) {
				t.Errorf("At(%d,%d) = %v, dense %v", i, j, s.At(i, j), d.At(i, j))
			}
		}
		for j, v := range s.RowTo(buf, i) {
			if v != d.At(i, j) {
				t.Errorf("RowTo(%d)[%d] = %v, dense %v", i, j, v, d.At(i, j))
			}
		}
	}
	v := s.Slice(1, 3, 0, 5)
	if v.Rows != 2 || v.NNZ() != 2 || v.At(1, 3) != 4 || v.At(0, 0) != 0 {
		t.Errorf("row view: %d rows, %d non-zeros, (1,3)=%v", v.Rows, v.NNZ(), v.At(1, 3))
	}
	if err := v.Validate(); err != nil {
		t.Errorf("row view invalid: %v", err)
	}
}

func TestSparseValidate(t *testing.T) {
	cases := []struct {
		name    string
		offsets []int64
		indices []int32
		want    string
	}{
		{"unsorted", []int64{0, 2}, []int32{3, 1}, "must increase"},
		{"duplicate", []int64{0, 2}, []int32{2, 2}, "must increase"},
		{"beyond cols", []int64{0, 1}, []int32{5}, "outside [0, 5)"},
		{"negative", []int64{0, 1}, []int32{-1}, "outside [0, 5)"},
		{"offsets short", []int64{0}, nil, "offsets"},
		{"offsets decrease", []int64{1, 0}, []int32{0}, "decrease"},
		{"offsets past end", []int64{0, 3}, []int32{0, 1}, "outside its 2 non-zeros"},
	}
	for _, c := range cases {
		vals := make([]float32, len(c.indices))
		_, err := SparseFrom(1, 5, c.offsets, c.indices, vals)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to say %q", c.name, err, c.want)
		}
	}
}

func TestSparseRowPanics(t *testing.T) {
	s := sparseExample(t)
	defer func() {
		if recover() == nil {
			t.Error("Row of a sparse matrix did not panic")
		}
	}()
	s.Row(0)
}
