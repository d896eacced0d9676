package backend

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
)

// Backend supplies the hot operations of kernel machines. All methods are
// safe to call from one goroutine at a time per Backend value unless the
// implementation says otherwise; implementations parallelise internally.
// Every method validates its arguments and returns an error (never panics)
// on shape mismatches. Outputs must not alias inputs.
type Backend interface {
	// Name identifies the implementation ("go", "avx2", "cuda").
	Name() string

	// SqNorms writes ‖x_i‖² of each row of x into dst[:x.Rows].
	SqNorms(dst []float32, x pursuit.Matrix) error

	// KernelBlock writes dst[i][j] = k(a_i, b_j) for rows a_i of a and b_j
	// of b; dst is a.Rows×b.Rows. aNorms and bNorms hold the squared row
	// norms of a and b (used by RBF only); either may be nil, in which case
	// the backend computes them.
	KernelBlock(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b pursuit.Matrix, bNorms []float32) error

	// KernelGather is the gathered form: dst[r][j] = k(a_{idx[r]}, b_j), so
	// dst is len(idx)×b.Rows. aNorms, if not nil, is indexed like the rows
	// of a (not like idx). With b = a this gives kernel rows K(X[idx], X),
	// the transposed kernel columns K(X, X[idx]).
	KernelGather(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b pursuit.Matrix, bNorms []float32) error

	// DictProducts computes, in one pass over dict, the inner products of
	// every dictionary row d_i with every row v_j of vecs:
	// dst[j*dict.Rows+i] = <d_i, v_j>, for vecs.Rows ≤ 8 typically.
	// dict.Cols must equal vecs.Cols. Partial sums are float64 (see the
	// package documentation).
	DictProducts(dst []float64, dict pursuit.Matrix, vecs pursuit.Matrix) error

	// RankUpdate applies the rank-k update d ← d + alpha·Σ_t u_t v_tᵀ, where
	// u_t (length d.Rows) are the rows of u and v_t (length d.Cols) the rows
	// of v; u.Rows == v.Rows == k. Deflation d ← d − u vᵀ is alpha = −1.
	RankUpdate(d pursuit.Matrix, alpha float32, u pursuit.Matrix, v pursuit.Matrix) error

	// ScoredArgMax returns the index k maximising |s_k|/sqrt(n_k) over the
	// candidates with n_k > 0 and, when skip is not nil, !skip[k], together
	// with that score; it returns (-1, 0) when no candidate is eligible.
	// NaN scores are never chosen. Ties go to the smallest index.
	ScoredArgMax(s, n []float64, skip []bool) (int, float64)
}

// ErrSparse is wrapped, beside pursuit.ErrShape, by the errors of a
// backend that does not take sparse operands for a call with one: the
// engine then runs the call on the CPU driver. The CPU and CUDA backends
// take sparse a and b in SqNorms, KernelBlock, KernelGather and
// the Preparer methods; DictProducts and RankUpdate take dense matrices
// only on every backend (an error wrapping pursuit.ErrShape, not
// ErrSparse).
var ErrSparse = errors.New("sparse operands not supported by this backend")

// shapeErr formats a shape-mismatch error for operation op; it wraps
// pursuit.ErrShape.
func shapeErr(op, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", op, pursuit.ErrShape, fmt.Sprintf(format, args...))
}
