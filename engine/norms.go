package engine

import "github.com/pursuit-ml/pursuit"

// SqNorms64 writes into dst[r] the squared Euclidean norm of row idx[r] of
// m (row r when idx is nil) in float64: the row's stored values squared,
// each square rounded to float64 (exact for float32 values) and added in
// feature order from +0. A dense row's zeros add +0, so a dense matrix and
// the sparse storage of the same rows give the same bits, and no backend
// computes them. Rows run in parallel on the engine's threads (a nil
// engine runs them on the calling goroutine); each row's sum is the same
// whatever the split.
//
// It is the float64 row norm of every package: kmp's dictionary, greedy's
// sparse KPCA, svm's kernel diagonal and the engine's own RBF precision
// plan, so that they round alike.
func (e *Engine) SqNorms64(dst []float64, m pursuit.Matrix, idx []int) {
	n := m.Rows
	if idx != nil {
		n = len(idx)
	}
	dst = dst[:n]
	e.For(n, 0, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			i := r
			if idx != nil {
				i = idx[r]
			}
			dst[r] = SqNorm64(m, i)
		}
	})
}

// SqNorm64 is SqNorms64 of row i of m alone.
func SqNorm64(m pursuit.Matrix, i int) float64 {
	var row []float32
	if m.IsSparse() {
		_, row = m.SparseRow(i)
	} else {
		row = m.Row(i)
	}
	var s float64
	for _, v := range row {
		s += float64(v) * float64(v)
	}
	return s
}
