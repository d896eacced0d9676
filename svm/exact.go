package svm

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// ExactRows computes kernel rows in float64 from float64 copies of the
// data's non-zeros (Rows64Of), with the sums of Decision64: products and
// RBF distances (Σ(x_k − z_k)², no cancellation of ‖x‖² + ‖z‖² − 2x·z)
// merged feature by feature, then pursuit.Kernel.FromDot. Zeros are dropped
// before any sum, so a dense matrix and the sparse storage of the same rows
// give the same bits, and no backend computes them (the engine supplies
// threads only): a model trained on ExactRows (Params.Exact) depends on
// neither the storage nor the backend. Each value costs a scalar merge of
// two rows, several times the engine's float32 kernel blocks.
type ExactRows struct {
	e    *engine.Engine
	x    *Rows64
	k    pursuit.Kernel
	diag []float64
}

// NewExactRows returns the float64 kernel-row source of the rows of x
// under kernel k. It holds a float64 copy of x's non-zeros, charged to the
// engine's memory budget.
func NewExactRows(e *engine.Engine, x pursuit.Matrix, k pursuit.Kernel) (*ExactRows, error) {
	if e == nil {
		return nil, errors.New("svm: exact kernel rows: nil engine")
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("svm: exact kernel rows: data matrix: %w", err)
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("svm: exact kernel rows: %w", err)
	}
	if err := e.Reserve("the float64 copy of the data for exact kernel rows", exactCopyBytes(x)); err != nil {
		return nil, err
	}
	r := &ExactRows{e: e, x: Rows64Of(x), k: k, diag: make([]float64, x.Rows)}
	for i := range r.diag {
		r.diag[i] = r.value(i, i)
	}
	return r, nil
}

// exactCopyBytes bounds the size of Rows64Of(x): 12 bytes a stored value
// (its index and float64 value) and two slice headers a row.
func exactCopyBytes(x pursuit.Matrix) int64 {
	n := int64(x.Rows) * int64(x.Cols)
	if x.IsSparse() {
		n = x.Sparse.Offsets[x.Rows]
	}
	return 12*n + 48*int64(x.Rows)
}

// value is K(x_i, x_j).
func (r *ExactRows) value(i, j int) float64 {
	xi, xv := r.x.Index[i], r.x.Value[i]
	zi, zv := r.x.Index[j], r.x.Value[j]
	if r.k.Kind == pursuit.RBF {
		return r.k.FromDot(0, sqDist64(xi, xv, zi, zv))
	}
	return r.k.FromDot(dot64(xi, xv, zi, zv), 0)
}

// Len returns l.
func (r *ExactRows) Len() int { return r.x.Len() }

// Diag returns K(i, i) for every point.
func (r *ExactRows) Diag() []float64 { return r.diag }

// Rows64 writes dst[t·l + j] = K(idx[t], j), the rows in parallel on the
// engine's threads.
func (r *ExactRows) Rows64(dst []float64, idx []int) error {
	l := r.x.Len()
	if len(dst) < len(idx)*l {
		return fmt.Errorf("svm: exact kernel rows: destination holds %d values, want %d", len(dst), len(idx)*l)
	}
	for _, i := range idx {
		if i < 0 || i >= l {
			return fmt.Errorf("svm: exact kernel rows: index %d out of range [0, %d)", i, l)
		}
	}
	// Split the len(idx)·l values into contiguous runs, so that a single
	// row still uses every thread.
	r.e.For(len(idx)*l, 0, func(lo, hi int) {
		t, j := lo/l, lo%l
		for p := lo; p < hi; p++ {
			dst[p] = r.value(idx[t], j)
			if j++; j == l {
				t, j = t+1, 0
			}
		}
	})
	return nil
}
