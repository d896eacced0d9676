package modelfile

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
)

// SparseRows is a sparse matrix of a model file (support vectors or
// centres held as compressed sparse rows): the non-zeros of row i are
// Values[Offsets[i]:Offsets[i+1]] at the columns Indices[…], counted from
// 0 and increasing within a row. Its rows and columns are the model's
// declared shape.
type SparseRows struct {
	Offsets []int64   `json:"offsets"`
	Indices []int32   `json:"indices"`
	Values  []float32 `json:"values"`
}

// SparseRowsOf returns m's rows as stored (offsets from 0), nil for a
// dense m.
func SparseRowsOf(m pursuit.Matrix) *SparseRows {
	if !m.IsSparse() {
		return nil
	}
	c := m.Sparse
	lo, hi := c.Offsets[0], c.Offsets[m.Rows]
	s := &SparseRows{Offsets: make([]int64, m.Rows+1), Indices: c.Indices[lo:hi], Values: c.Values[lo:hi]}
	for i, o := range c.Offsets[:m.Rows+1] {
		s.Offsets[i] = o - lo
	}
	return s
}

// Matrix returns the stored rows as a rows×cols sparse matrix after
// checking them against that shape (pursuit.Matrix.Validate: offsets,
// columns in range and increasing). A file's arrays are trusted only when
// they are consistent.
func (s *SparseRows) Matrix(rows, cols int) (pursuit.Matrix, error) {
	if rows < 0 || cols < 0 {
		return pursuit.Matrix{}, fmt.Errorf("sparse rows of shape %d×%d", rows, cols)
	}
	if len(s.Offsets) == 0 && rows == 0 {
		s.Offsets = []int64{0}
	}
	m, err := pursuit.SparseFrom(rows, cols, s.Offsets, s.Indices, s.Values)
	if err != nil {
		return pursuit.Matrix{}, fmt.Errorf("sparse rows: %w", err)
	}
	if len(s.Offsets) > 0 && (s.Offsets[0] != 0 || s.Offsets[rows] != int64(len(s.Indices))) {
		return pursuit.Matrix{}, fmt.Errorf("sparse rows: offsets span [%d, %d] of %d non-zeros", s.Offsets[0], s.Offsets[rows], len(s.Indices))
	}
	return m, nil
}
