package backend

import (
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// Matrix is a dense row-major float32 matrix view. Row i occupies
// Data[i*Stride : i*Stride+Cols]. A Matrix is a view: copying it does not copy
// Data, and sub-matrices share storage with their parent.
type Matrix struct {
	Rows, Cols, Stride int
	Data               []float32
}

// NewMatrix allocates a zeroed rows×cols matrix with Stride == cols.
func NewMatrix(rows, cols int) Matrix {
	return Matrix{Rows: rows, Cols: cols, Stride: cols, Data: make([]float32, rows*cols)}
}

// NewAlignedMatrix allocates a zeroed rows×cols matrix whose rows start on
// 64-byte (cache-line) boundaries: Stride is AlignedStride(cols) and Data
// begins on such a boundary. The dot kernels stream a row with whole-line
// loads instead of loads split across two lines (about 7% faster for a
// dictionary pass that is not memory-bound); the values and every result
// computed from them are the same as with NewMatrix.
func NewAlignedMatrix(rows, cols int) Matrix {
	stride := AlignedStride(cols)
	n := rows * stride
	if n == 0 {
		return Matrix{Rows: rows, Cols: cols, Stride: stride}
	}
	buf := make([]float32, n+cacheLine/4-1)
	off := 0
	if a := uintptr(unsafe.Pointer(&buf[0])) % cacheLine; a != 0 {
		off = int(cacheLine-a) / 4
	}
	return Matrix{Rows: rows, Cols: cols, Stride: stride, Data: buf[off : off+n : off+n]}
}

// AlignedStride returns cols rounded up to a whole number of 64-byte cache
// lines of float32 (16 values).
func AlignedStride(cols int) int { return (cols + 15) &^ 15 }

const cacheLine = 64

// MatrixFrom wraps data as a rows×cols matrix with Stride == cols.
func MatrixFrom(rows, cols int, data []float32) (Matrix, error) {
	m := Matrix{Rows: rows, Cols: cols, Stride: cols, Data: data}
	return m, m.Validate()
}

// Row returns row i as a slice of length Cols sharing storage with m. Rows
// of a matrix without columns are empty (its Data may be empty too).
func (m Matrix) Row(i int) []float32 {
	if m.Cols == 0 {
		return m.Data[:0:0]
	}
	off := i * m.Stride
	return m.Data[off : off+m.Cols : off+m.Cols]
}

// At returns element (i, j).
func (m Matrix) At(i, j int) float32 { return m.Data[i*m.Stride+j] }

// Set sets element (i, j).
func (m Matrix) Set(i, j int, v float32) { m.Data[i*m.Stride+j] = v }

// Slice returns the view of rows [r0, r1) and columns [c0, c1).
func (m Matrix) Slice(r0, r1, c0, c1 int) Matrix {
	if r0 < 0 || r1 < r0 || r1 > m.Rows || c0 < 0 || c1 < c0 || c1 > m.Cols {
		panic(fmt.Sprintf("backend: Slice [%d:%d, %d:%d] out of range for %d×%d matrix", r0, r1, c0, c1, m.Rows, m.Cols))
	}
	if r1 == r0 || c1 == c0 {
		return Matrix{Rows: r1 - r0, Cols: c1 - c0, Stride: m.Stride}
	}
	return Matrix{Rows: r1 - r0, Cols: c1 - c0, Stride: m.Stride, Data: m.Data[r0*m.Stride+c0 : (r1-1)*m.Stride+c1]}
}

// Validate reports whether the view is well formed: non-negative shape,
// Stride ≥ Cols and Data long enough for the last row.
func (m Matrix) Validate() error {
	switch {
	case m.Rows < 0 || m.Cols < 0:
		return fmt.Errorf("matrix shape %d×%d is negative", m.Rows, m.Cols)
	case m.Rows > 0 && m.Stride < m.Cols:
		return fmt.Errorf("matrix stride %d is less than its %d columns", m.Stride, m.Cols)
	case m.Rows > 0 && m.Cols > 0 && len(m.Data) < (m.Rows-1)*m.Stride+m.Cols:
		return fmt.Errorf("matrix %d×%d (stride %d) needs %d elements, has %d",
			m.Rows, m.Cols, m.Stride, (m.Rows-1)*m.Stride+m.Cols, len(m.Data))
	}
	return nil
}

// KernelKind names a kernel function.
type KernelKind uint8

// The kernel functions a Backend computes in blocks.
const (
	Linear     KernelKind = iota + 1 // x·z
	Polynomial                       // (γ x·z + c0)^degree
	RBF                              // exp(−γ ‖x−z‖²)
	Sigmoid                          // tanh(γ x·z + c0)
)

func (k KernelKind) String() string {
	switch k {
	case Linear:
		return "linear"
	case Polynomial:
		return "poly"
	case RBF:
		return "rbf"
	case Sigmoid:
		return "sigmoid"
	}
	return fmt.Sprintf("KernelKind(%d)", uint8(k))
}

// Kernel specifies a kernel function and its parameters, with LIBSVM's
// conventions: Linear ignores Gamma, Coef0 and Degree.
type Kernel struct {
	Kind   KernelKind
	Gamma  float64
	Coef0  float64
	Degree int
}

// Validate reports an error for an unknown kind or parameters that make the
// kernel meaningless (γ ≤ 0 or not finite, degree < 1, c0 not finite).
func (k Kernel) Validate() error {
	switch k.Kind {
	case Linear:
		return nil
	case Polynomial, RBF, Sigmoid:
	default:
		return fmt.Errorf("unknown kernel kind %d", uint8(k.Kind))
	}
	if !(k.Gamma > 0) || math.IsInf(k.Gamma, 0) {
		return fmt.Errorf("%s kernel: gamma must be positive and finite, got %v", k.Kind, k.Gamma)
	}
	if math.IsNaN(k.Coef0) || math.IsInf(k.Coef0, 0) {
		return fmt.Errorf("%s kernel: coef0 must be finite, got %v", k.Kind, k.Coef0)
	}
	if k.Kind == Polynomial && k.Degree < 1 {
		return fmt.Errorf("poly kernel: degree must be ≥ 1, got %d", k.Degree)
	}
	return nil
}

// String formats the kernel as "rbf(gamma=0.0078125)" and the like.
func (k Kernel) String() string {
	switch k.Kind {
	case Linear:
		return "linear"
	case Polynomial:
		return fmt.Sprintf("poly(gamma=%g, coef0=%g, degree=%d)", k.Gamma, k.Coef0, k.Degree)
	case RBF:
		return fmt.Sprintf("rbf(gamma=%g)", k.Gamma)
	case Sigmoid:
		return fmt.Sprintf("sigmoid(gamma=%g, coef0=%g)", k.Gamma, k.Coef0)
	}
	return k.Kind.String()
}

// Eval evaluates the kernel on two vectors in float64. It is the scalar
// reference the fast paths are tested against, and is fine for a handful of
// evaluations; use a Backend for blocks.
func (k Kernel) Eval(x, z []float32) float64 {
	var dot, dist float64
	for i := range x {
		a, b := float64(x[i]), float64(z[i])
		dot += a * b
		dist += (a - b) * (a - b)
	}
	return k.FromDot(dot, dist)
}

// FromDot applies the kernel transform to an inner product x·z (or, for RBF,
// the squared distance ‖x−z‖²; the other argument is ignored).
func (k Kernel) FromDot(dot, sqDist float64) float64 {
	switch k.Kind {
	case Linear:
		return dot
	case Polynomial:
		return math.Pow(k.Gamma*dot+k.Coef0, float64(k.Degree))
	case RBF:
		return math.Exp(-k.Gamma * math.Max(sqDist, 0))
	case Sigmoid:
		return math.Tanh(k.Gamma*dot + k.Coef0)
	}
	return math.NaN()
}

// Backend supplies the hot operations of kernel machines. All methods are
// safe to call from one goroutine at a time per Backend value unless the
// implementation says otherwise; implementations parallelise internally.
// Every method validates its arguments and returns an error (never panics)
// on shape mismatches. Outputs must not alias inputs.
type Backend interface {
	// Name identifies the implementation ("go", "avx2", "cuda").
	Name() string

	// SqNorms writes ‖x_i‖² of each row of x into dst[:x.Rows].
	SqNorms(dst []float32, x Matrix) error

	// KernelBlock writes dst[i][j] = k(a_i, b_j) for rows a_i of a and b_j
	// of b; dst is a.Rows×b.Rows. aNorms and bNorms hold the squared row
	// norms of a and b (used by RBF only); either may be nil, in which case
	// the backend computes them.
	KernelBlock(dst Matrix, k Kernel, a Matrix, aNorms []float32, b Matrix, bNorms []float32) error

	// KernelGather is the gathered form: dst[r][j] = k(a_{idx[r]}, b_j), so
	// dst is len(idx)×b.Rows. aNorms, if not nil, is indexed like the rows
	// of a (not like idx). With b = a this gives kernel rows K(X[idx], X),
	// the transposed kernel columns K(X, X[idx]).
	KernelGather(dst Matrix, k Kernel, a Matrix, aNorms []float32, idx []int, b Matrix, bNorms []float32) error

	// DictProducts computes, in one pass over dict, the inner products of
	// every dictionary row d_i with every row v_j of vecs:
	// dst[j*dict.Rows+i] = <d_i, v_j>, for vecs.Rows ≤ 8 typically.
	// dict.Cols must equal vecs.Cols. Partial sums are float64 (see the
	// package documentation).
	DictProducts(dst []float64, dict Matrix, vecs Matrix) error

	// RankUpdate applies the rank-k update d ← d + alpha·Σ_t u_t v_tᵀ, where
	// u_t (length d.Rows) are the rows of u and v_t (length d.Cols) the rows
	// of v; u.Rows == v.Rows == k. Deflation d ← d − u vᵀ is alpha = −1.
	RankUpdate(d Matrix, alpha float32, u Matrix, v Matrix) error

	// ScoredArgMax returns the index k maximising |s_k|/sqrt(n_k) over the
	// candidates with n_k > 0 and, when skip is not nil, !skip[k], together
	// with that score; it returns (-1, 0) when no candidate is eligible.
	// NaN scores are never chosen. Ties go to the smallest index.
	ScoredArgMax(s, n []float64, skip []bool) (int, float64)
}

// ErrShape is wrapped by every shape-mismatch error a Backend returns.
var ErrShape = errors.New("shape mismatch")

// shapeErr formats a shape-mismatch error for operation op.
func shapeErr(op, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", op, ErrShape, fmt.Sprintf(format, args...))
}
