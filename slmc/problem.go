package slmc

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/dot64"
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
// rows as given and, for dense rows, a float64 copy for the kernel values
// and the gradients. Sparse rows get no copy: both read their non-zeros,
// with sums that give the same bits as the dense copy's (dot64).
type problem struct {
	eng *engine.Engine // nil: no budget, one thread
	k   pursuit.Kernel
	x   pursuit.Matrix // N×d
	xf  *mat.Dense     // N×d float64 copy of dense x (nil for sparse x)
	xsq []float64      // ‖x_i‖² in float64, summed in feature order
	y   []float64      // ±1
	// cols, for dense rows with at most half their values zero, lists
	// every feature 0..d−1: zDots then hands the kernel the whole float64
	// row, zeros included (they change no sum), instead of gathering its
	// non-zeros.
	cols []int32
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
// prepares the float64 copies. eng may be nil (Float64Kernels): then nothing
// is held against a budget and Ψ is computed on one thread.
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
	return p, nil
}

// sparseNorms checks sparse rows for non-finite values and takes their
// float64 squared norms (engine.SqNorm64).
func (p *problem) sparseNorms() error {
	for i := range p.x.Rows {
		var bad error
		p.x.ForEachNonZero(i, func(j int, v float32) {
			f := float64(v)
			if bad == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				bad = fmt.Errorf("training example %d, feature %d is %v, not finite", i+1, j+1, v)
			}
		})
		if bad != nil {
			return bad
		}
		p.xsq[i] = engine.SqNorm64(p.x, i)
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
	var zeros int64
	defer func() {
		if 2*zeros <= int64(n)*int64(d) {
			p.cols = make([]int32, d)
			for j := range p.cols {
				p.cols[j] = int32(j)
			}
		}
	}()
	for i := range n {
		dst := p.xf.RawRowView(i)
		for j, v := range p.x.Row(i) {
			f := float64(v)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return fmt.Errorf("training example %d, feature %d is %v, not finite", i+1, j+1, v)
			}
			dst[j] = f
			if f == 0 {
				zeros++
			}
		}
		p.xsq[i] = engine.SqNorm64(p.x, i) // as sparseNorms: a zero adds +0
	}
	return nil
}

// n returns the number of training examples, d their dimension.
func (p *problem) n() int { return p.x.Rows }
func (p *problem) d() int { return p.x.Cols }

// psi returns Ψ = K(Z, X), Nz×N, in float64, with the same bits for dense
// and sparse storage of the same rows (zDots, and the squared norms summed
// in feature order), so that every value that
// feeds SLMC's optimisation, and with it the whole L-BFGS path, is the same
// for both: the engine's float32 kernel blocks round differently for dense
// and sparse operands, and the non-convex minimisation of W(Z) amplified
// that last-bit difference to a few percent of the decisions. With an
// engine the training rows are split over its threads and the block is
// held against its memory budget.
func (p *problem) psi(z *mat.Dense) (*mat.Dense, error) {
	nz, d := z.Dims()
	n := p.n()
	if p.eng != nil {
		if err := p.eng.Reserve(fmt.Sprintf("the %d×%d kernel block K(Z, X)", nz, n), int64(nz)*int64(n)*8); err != nil {
			return nil, err
		}
	}
	out := mat.NewDense(nz, n, nil)
	zsq := rowSqNorms(z)
	// Zᵀ with rows padded to a multiple of 4 values (the narrowest
	// kernel's width; the padding's sums are not read).
	ldz := (nz + 3) &^ 3
	zt := make([]float64, d*ldz)
	for u := range nz {
		for j, v := range z.RawRowView(u) {
			zt[j*ldz+u] = v
		}
	}
	parts := 1
	if p.eng != nil && nz*n*max(d, 1) >= 1<<18 {
		parts = p.eng.Threads()
	}
	raw := out.RawMatrix()
	p.eng.For(n, parts, func(lo, hi int) {
		var dots [4][]float64
		for r := range dots {
			dots[r] = make([]float64, ldz)
		}
		put := func(i int, dots []float64) {
			for u, dot := range dots[:nz] {
				raw.Data[u*raw.Stride+i] = p.k.FromDot(dot, zsq[u]+p.xsq[i]-2*dot)
			}
		}
		i := lo
		if p.cols != nil {
			// Four dense rows at a time: they share their column list,
			// which keeps the kernels for the last 8 or 4 vectors as
			// fast per value as the 16-wide one (the same bits as one
			// row at a time).
			var vals [4][]float64
			for ; i+4 <= hi; i += 4 {
				for r := range vals {
					vals[r] = p.xf.RawRowView(i + r)
				}
				dot64.Dots4(&dots, zt, ldz, p.cols, &vals)
				for r := range dots {
					put(i+r, dots[r])
				}
			}
		}
		idx, val := make([]int32, 0, d), make([]float64, 0, d)
		for ; i < hi; i++ {
			p.zDots(dots[0], zt, ldz, i, idx, val)
			put(i, dots[0])
		}
	})
	return out, nil
}

// zDots writes z_u·x_i into dots[u] for the rows z_u of Z, given as its
// transpose zt (d rows of ldz ≥ len(dots) values): dot64.Dots over the
// non-zeros of x_i in feature order, a dense row's zeros skipped, so that
// dense and sparse storage of the row give the same bits (a mostly
// non-zero dense row goes whole, its zeros adding ±0, which changes no
// sum). idx and val are scratch of d entries.
func (p *problem) zDots(dots, zt []float64, ldz int, i int, idx []int32, val []float64) {
	idx, val = idx[:0], val[:0]
	switch {
	case p.cols != nil:
		idx, val = p.cols, p.xf.RawRowView(i)
	case p.xf != nil:
		for j, v := range p.xf.RawRowView(i) {
			if v != 0 {
				idx = append(idx, int32(j))
				val = append(val, v)
			}
		}
	default:
		ix, vx := p.x.SparseRow(i)
		idx = ix
		for _, v := range vx {
			val = append(val, float64(v))
		}
	}
	dot64.Dots(dots, zt, ldz, idx, val)
}

// addRow adds w·x_i to dst (length d): for a dense row an axpy over its
// float64 copy (a zero adds ±0, which leaves an entry that is not −0 as it
// is), for a sparse one the products of its non-zeros, each rounded before
// it is added as axpy does: the same bits.
func (p *problem) addRow(dst []float64, w float64, i int) {
	if p.xf != nil {
		axpy(dst, w, p.xf.RawRowView(i))
		return
	}
	idx, val := p.x.SparseRow(i)
	for q, j := range idx {
		dst[j] += float64(w * float64(val[q]))
	}
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
