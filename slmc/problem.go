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
// float32 matrix for the engine's kernel blocks and, for dense rows, a
// float64 copy for the gradients. Sparse rows get no copy: the gradients
// and the float64 reference kernels read their non-zeros.
type problem struct {
	eng    *engine.Engine // nil: kernels in float64 (reference path)
	k      pursuit.Kernel
	x      pursuit.Matrix // N×d
	xNorms []float32      // ‖x_i‖² (float32, for the engine)
	xf     *mat.Dense     // N×d float64 copy of dense x (nil for sparse x)
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
	p := &problem{eng: eng, k: k, x: x, y: y, xsq: make([]float64, x.Rows)}
	if x.IsSparse() {
		if err := p.sparseNorms(); err != nil {
			return nil, err
		}
	} else if err := p.denseCopy(); err != nil {
		return nil, err
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

// sparseNorms checks sparse rows for non-finite values and takes their
// float64 squared norms from their non-zeros.
func (p *problem) sparseNorms() error {
	for i := range p.x.Rows {
		var bad error
		p.x.ForEachNonZero(i, func(j int, v float32) {
			f := float64(v)
			if bad == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				bad = fmt.Errorf("training example %d, feature %d is %v, not finite", i+1, j+1, v)
			}
			p.xsq[i] += f * f
		})
		if bad != nil {
			return bad
		}
	}
	return nil
}

// denseCopy makes the float64 copy of dense rows (held against the
// engine's budget) with their squared norms, checking for non-finite
// values.
func (p *problem) denseCopy() error {
	n, d := p.x.Rows, p.x.Cols
	if p.eng != nil {
		if err := p.eng.Reserve(fmt.Sprintf("a float64 copy of the %d×%d training matrix", n, d), int64(n)*int64(d)*8); err != nil {
			return err
		}
	}
	p.xf = mat.NewDense(n, d, nil)
	for i := range n {
		dst := p.xf.RawRowView(i)
		var s float64
		for j, v := range p.x.Row(i) {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("training example %d, feature %d is %v, not finite", i+1, j+1, v)
			}
			dst[j] = f
			s += f * f
		}
		p.xsq[i] = s
	}
	return nil
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
		if p.x.IsSparse() {
			kernelRefSparse(out, p.k, z, p.x, p.xsq)
		} else {
			kernelRef(out, p.k, z, p.xf, p.xsq)
		}
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

// kernelRefSparse is kernelRef against sparse rows b (squared norms bsq):
// the dot products read b's non-zeros.
func kernelRefSparse(dst *mat.Dense, k pursuit.Kernel, a *mat.Dense, b pursuit.Matrix, bsq []float64) {
	ra, _ := a.Dims()
	asq := rowSqNorms(a)
	for i := range ra {
		row, ar := dst.RawRowView(i), a.RawRowView(i)
		for j := range b.Rows {
			var dot float64
			b.ForEachNonZero(j, func(c int, v float32) { dot += ar[c] * float64(v) })
			row[j] = k.FromDot(dot, asq[i]+bsq[j]-2*dot)
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

// toDense converts a float32 pursuit.Matrix, dense or sparse, to a dense
// float64 matrix.
func toDense(m pursuit.Matrix) *mat.Dense {
	out := mat.NewDense(max(m.Rows, 1), max(m.Cols, 1), nil)
	if m.Rows == 0 || m.Cols == 0 {
		return out
	}
	for i := range m.Rows {
		dst := out.RawRowView(i)
		m.ForEachNonZero(i, func(j int, v float32) { dst[j] = float64(v) })
	}
	return out
}

// rowsOf returns a dense float64 matrix of the rows idx of p's training
// data (sparse rows densified: idx are few, initial expansion vectors).
func (p *problem) rowsOf(idx []int) *mat.Dense {
	out := mat.NewDense(len(idx), p.d(), nil)
	for r, i := range idx {
		if p.xf == nil {
			dst := out.RawRowView(r)
			p.x.ForEachNonZero(i, func(j int, v float32) { dst[j] = float64(v) })
			continue
		}
		copy(out.RawRowView(r), p.xf.RawRowView(i))
	}
	return out
}
