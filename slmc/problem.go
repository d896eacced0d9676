package slmc

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// ErrKernel is wrapped by the error returned when a method is asked to use a
// kernel it does not support.
var ErrKernel = pursuit.Tag(errors.New("unsupported kernel"), pursuit.ErrConfig)

// checkRBF rejects every kernel but a valid Gaussian (RBF) kernel: the
// gradients of W(Z) and the reduced-set fixed-point iteration are derived
// for exp(−γ‖x−z‖²) only.
func checkRBF(method string, k pursuit.Kernel) error {
	if k.Kind != pursuit.RBF {
		return fmt.Errorf("slmc: %s supports only the rbf kernel exp(-gamma*|x-z|^2), got %s: %w", method, k, ErrKernel)
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("slmc: %s: %w", method, err)
	}
	return nil
}

// problem holds binary training data in the forms the methods need: the
// float32 matrix for the engine's kernel blocks and a float64 copy for the
// gradients.
type problem struct {
	eng    *engine.Engine // nil: kernels in float64 (reference path)
	k      pursuit.Kernel
	x      pursuit.Matrix // N×d
	xNorms []float32      // ‖x_i‖² (float32, for the engine)
	xf     *mat.Dense     // N×d float64 copy of x
	xsq    []float64      // ‖x_i‖² in float64
	y      []float64      // ±1
	// w, when not nil, holds a weight per training point: the number of
	// identical rows with the same label it stands for. Point i's SVM bound
	// is C·w_i, which gives the same solution as the rows it merges.
	w []float64
}

// errorRate returns the (weighted) fraction of training points with
// sign(f_i) ≠ y_i.
func (p *problem) errorRate(f []float64) float64 {
	if p.w == nil {
		return errorRate(f, p.y)
	}
	var wrong, total float64
	for i, v := range f {
		total += p.w[i]
		if sign(v) != p.y[i] {
			wrong += p.w[i]
		}
	}
	return wrong / total
}

// newProblem validates x and y (labels must be −1 or +1, both present) and
// prepares the float64 copies. eng may be nil for the float64 reference
// kernels.
func newProblem(eng *engine.Engine, k pursuit.Kernel, x pursuit.Matrix, y []float64) (*problem, error) {
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("training matrix: %w", err)
	}
	if x.Rows == 0 || x.Cols == 0 {
		return nil, fmt.Errorf("training matrix is empty (%d×%d)", x.Rows, x.Cols)
	}
	if len(y) != x.Rows {
		return nil, fmt.Errorf("%d labels for %d training rows", len(y), x.Rows)
	}
	var pos, neg int
	for i, v := range y {
		switch v {
		case 1:
			pos++
		case -1:
			neg++
		default:
			return nil, fmt.Errorf("label %d is %v; binary labels must be -1 or +1", i+1, v)
		}
	}
	if pos == 0 || neg == 0 {
		return nil, fmt.Errorf("training labels need both classes, got %d positive and %d negative", pos, neg)
	}
	p := &problem{eng: eng, k: k, x: x, y: y}
	n, d := x.Rows, x.Cols
	if eng != nil {
		if err := eng.Reserve(fmt.Sprintf("a float64 copy of the %d×%d training matrix", n, d), int64(n)*int64(d)*8); err != nil {
			return nil, err
		}
	}
	p.xf = mat.NewDense(n, d, nil)
	p.xsq = make([]float64, n)
	for i := range n {
		row := x.Row(i)
		dst := p.xf.RawRowView(i)
		var s float64
		for j, v := range row {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("training example %d, feature %d is %v, not finite", i+1, j+1, v)
			}
			dst[j] = f
			s += f * f
		}
		p.xsq[i] = s
	}
	if eng != nil {
		norms, err := eng.SqNorms(x)
		if err != nil {
			return nil, fmt.Errorf("squared norms of the training matrix: %w", err)
		}
		p.xNorms = norms
	}
	return p, nil
}

// n returns the number of training examples, d their dimension.
func (p *problem) n() int { return p.x.Rows }
func (p *problem) d() int { return p.x.Cols }

// psi returns Ψ = K(Z, X), Nz×N, through the engine (float32 kernel block,
// widened) or, without an engine, in float64.
func (p *problem) psi(z *mat.Dense) (*mat.Dense, error) {
	nz, _ := z.Dims()
	n := p.n()
	out := mat.NewDense(nz, n, nil)
	if p.eng == nil {
		kernelRef(out, p.k, z, p.xf, p.xsq)
		return out, nil
	}
	if err := p.eng.Reserve(fmt.Sprintf("the %d×%d kernel block K(Z, X)", nz, n), int64(nz)*int64(n)*12); err != nil {
		return nil, err
	}
	zm := toMatrix32(z)
	blk := pursuit.NewMatrix(nz, n)
	if err := p.eng.KernelBlock(blk, p.k, zm, nil, p.x, p.xNorms); err != nil {
		return nil, fmt.Errorf("kernel block K(Z, X): %w", err)
	}
	raw := out.RawMatrix().Data
	for i, v := range blk.Data[:nz*n] {
		raw[i] = float64(v)
	}
	return out, nil
}

// kernelRef writes K(a_i, b_j) into dst (a.Rows×b.Rows) in float64. bsq
// holds ‖b_j‖² (computed when nil).
func kernelRef(dst *mat.Dense, k pursuit.Kernel, a, b *mat.Dense, bsq []float64) {
	ra, _ := a.Dims()
	rb, _ := b.Dims()
	dst.Mul(a, b.T())
	if bsq == nil {
		bsq = rowSqNorms(b)
	}
	asq := rowSqNorms(a)
	for i := range ra {
		row := dst.RawRowView(i)
		for j := range rb {
			row[j] = k.FromDot(row[j], asq[i]+bsq[j]-2*row[j])
		}
	}
}

// rowSqNorms returns the squared Euclidean norms of the rows of a.
func rowSqNorms(a *mat.Dense) []float64 {
	r, _ := a.Dims()
	out := make([]float64, r)
	for i := range r {
		for _, v := range a.RawRowView(i) {
			out[i] += v * v
		}
	}
	return out
}

// toMatrix32 converts a float64 matrix to a float32 pursuit.Matrix.
func toMatrix32(a *mat.Dense) pursuit.Matrix {
	r, c := a.Dims()
	m := pursuit.NewMatrix(r, c)
	for i := range r {
		dst := m.Row(i)
		for j, v := range a.RawRowView(i) {
			dst[j] = float32(v)
		}
	}
	return m
}

// toDense converts a float32 pursuit.Matrix to a float64 matrix.
func toDense(m pursuit.Matrix) *mat.Dense {
	out := mat.NewDense(max(m.Rows, 1), max(m.Cols, 1), nil)
	if m.Rows == 0 || m.Cols == 0 {
		return out
	}
	for i := range m.Rows {
		dst := out.RawRowView(i)
		for j, v := range m.Row(i) {
			dst[j] = float64(v)
		}
	}
	return out
}

// rowsOf returns a float64 matrix of the rows idx of p's training data.
func (p *problem) rowsOf(idx []int) *mat.Dense {
	out := mat.NewDense(len(idx), p.d(), nil)
	for r, i := range idx {
		copy(out.RawRowView(r), p.xf.RawRowView(i))
	}
	return out
}
