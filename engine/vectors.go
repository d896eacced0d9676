package engine

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/internal/f32"
	"github.com/pursuit-ml/pursuit/internal/par"
)

// Vectors are rows×cols float64 vectors kept where the backend keeps its
// kernel blocks: in device memory when the backend implements
// backend.ResidentVectors, so that a fitter's l-length state (residual,
// targets, chosen kernel rows, orthonormal basis) never crosses the bus, in
// host memory otherwise. Make them with NewVectors, use them with the
// engine's *Vector* methods and with blocks from GatherBlock, and Release
// them when done. See backend.ResidentVectors for the operations'
// contracts.
type Vectors struct {
	h          backend.Vectors // resident vectors, or nil
	d          []float64       // host vectors, rows×cols row-major
	rows, cols int
}

// Rows returns the number of vectors.
func (v *Vectors) Rows() int { return v.rows }

// Cols returns their length.
func (v *Vectors) Cols() int { return v.cols }

// Resident reports whether the vectors live in the backend's memory.
func (v *Vectors) Resident() bool { return v.h != nil }

// Release frees the vectors' memory. Releasing twice, or nil vectors, is a
// no-op.
func (v *Vectors) Release() error {
	if v == nil {
		return nil
	}
	v.d = nil
	if v.h != nil {
		return v.h.Release()
	}
	return nil
}

// ResidentVectors reports whether the backend keeps float64 vectors
// resident (backend.ResidentVectors).
func (e *Engine) ResidentVectors() bool {
	_, ok := e.be.(backend.ResidentVectors)
	return ok
}

// NewVectors allocates rows vectors of length cols, resident when the
// backend can keep them (then they work with resident blocks only),
// otherwise in host memory (then with host blocks only). Their contents are
// undefined until written.
func (e *Engine) NewVectors(rows, cols int) (*Vectors, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("engine: NewVectors: %w: negative shape %d×%d", pursuit.ErrShape, rows, cols)
	}
	v := &Vectors{rows: rows, cols: cols}
	if rv, ok := e.be.(backend.ResidentVectors); ok {
		h, err := rv.NewVectors(rows, cols)
		if err != nil {
			return nil, fmt.Errorf("engine: %d resident vectors of length %d: %w", rows, cols, err)
		}
		v.h = h
		return v, nil
	}
	v.d = make([]float64, rows*cols)
	return v, nil
}

func (e *Engine) vectorsOp(op string, vs ...*Vectors) (backend.ResidentVectors, error) {
	resident := 0
	for _, v := range vs {
		if v == nil {
			return nil, fmt.Errorf("%s: %w: vectors are nil", op, backend.ErrPrepared)
		}
		if v.h != nil {
			resident++
		} else if v.d == nil && v.rows*v.cols > 0 {
			return nil, fmt.Errorf("%s: %w: the vectors were released", op, backend.ErrPrepared)
		}
	}
	if resident == 0 {
		return nil, nil
	}
	rv, ok := e.be.(backend.ResidentVectors)
	if !ok || resident != len(vs) {
		return nil, fmt.Errorf("%s: %w: resident and host vectors mixed", op, backend.ErrPrepared)
	}
	return rv, nil
}

func rowsErr(op string, v *Vectors, r0, n int) error {
	if r0 < 0 || n < 0 || r0+n > v.rows {
		return fmt.Errorf("%s: %w: rows %d…%d of %d vectors", op, pursuit.ErrShape, r0, r0+n-1, v.rows)
	}
	return nil
}

func (v *Vectors) row(r int) []float64 { return v.d[r*v.cols : (r+1)*v.cols] }

// WriteVectors copies src (a whole number of rows) into rows r0, r0+1, … of
// dst.
func (e *Engine) WriteVectors(dst *Vectors, r0 int, src []float64) error {
	const op = "WriteVectors"
	rv, err := e.vectorsOp(op, dst)
	if err != nil {
		return err
	}
	if rv != nil {
		return rv.WriteVectors(dst.h, r0, src)
	}
	if dst.cols == 0 || len(src)%dst.cols != 0 {
		return fmt.Errorf("%s: %w: %d values for vectors of length %d", op, pursuit.ErrShape, len(src), dst.cols)
	}
	if err := rowsErr(op, dst, r0, len(src)/dst.cols); err != nil {
		return err
	}
	copy(dst.d[r0*dst.cols:], src)
	return nil
}

// ReadVectors copies rows r0, r0+1, … of src into dst (a whole number of
// rows).
func (e *Engine) ReadVectors(dst []float64, src *Vectors, r0 int) error {
	const op = "ReadVectors"
	rv, err := e.vectorsOp(op, src)
	if err != nil {
		return err
	}
	if rv != nil {
		return rv.ReadVectors(dst, src.h, r0)
	}
	if src.cols == 0 || len(dst)%src.cols != 0 {
		return fmt.Errorf("%s: %w: %d values for vectors of length %d", op, pursuit.ErrShape, len(dst), src.cols)
	}
	if err := rowsErr(op, src, r0, len(dst)/src.cols); err != nil {
		return err
	}
	copy(dst, src.d[r0*src.cols:])
	return nil
}

// BlockVectorProducts writes dst[j*blk.Rows()+i] = ⟨blk_i, v_{r0+j}⟩ for
// r0 ≤ r0+j < r1 (block values exact, float64 sums).
func (e *Engine) BlockVectorProducts(dst []float64, blk *Block, v *Vectors, r0, r1 int) error {
	const op = "BlockVectorProducts"
	if blk == nil {
		return fmt.Errorf("%s: %w: block is nil", op, backend.ErrPrepared)
	}
	rv, err := e.vectorsOp(op, v)
	if err != nil {
		return err
	}
	if (rv != nil) != blk.Resident() {
		return fmt.Errorf("%s: %w: a resident block with host vectors or the reverse", op, backend.ErrPrepared)
	}
	if rv != nil {
		return rv.BlockVectorProducts(dst, blk.h, v.h, r0, r1)
	}
	if err := rowsErr(op, v, r0, r1-r0); err != nil {
		return err
	}
	nb := blk.rows
	switch {
	case v.cols != blk.cols:
		return fmt.Errorf("%s: %w: block rows of length %d, vectors of length %d", op, pursuit.ErrShape, blk.cols, v.cols)
	case len(dst) < nb*(r1-r0):
		return fmt.Errorf("%s: %w: dst has %d elements, want %d×%d", op, pursuit.ErrShape, len(dst), r1-r0, nb)
	case blk.m.Data == nil && nb*blk.cols > 0:
		return fmt.Errorf("%s: %w: the block was released", op, backend.ErrPrepared)
	}
	par.For(nb, e.Threads(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			b := blk.m.Row(i)
			for j := r0; j < r1; j++ {
				var s float64
				for c, x := range v.row(j) {
					s += float64(b[c]) * x
				}
				dst[(j-r0)*nb+i] = s
			}
		}
	})
	return nil
}

// BlockSqNorms64 writes ‖blk_i‖², summed in float64, into dst[:blk.Rows()]
// (BlockSqNorms rounds them to float32).
func (e *Engine) BlockSqNorms64(dst []float64, blk *Block) error {
	const op = "BlockSqNorms64"
	if blk == nil {
		return fmt.Errorf("%s: %w: block is nil", op, backend.ErrPrepared)
	}
	if blk.h != nil {
		rv, ok := e.be.(backend.ResidentVectors)
		if !ok {
			return fmt.Errorf("%s: %w: the backend keeps no float64 vectors", op, backend.ErrPrepared)
		}
		return rv.BlockSqNorms64(dst, blk.h)
	}
	switch {
	case len(dst) < blk.rows:
		return fmt.Errorf("%s: %w: dst has %d elements for %d rows", op, pursuit.ErrShape, len(dst), blk.rows)
	case blk.m.Data == nil && blk.rows*blk.cols > 0:
		return fmt.Errorf("%s: %w: the block was released", op, backend.ErrPrepared)
	}
	par.For(blk.rows, e.Threads(), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dst[i] = f32.SqNorm(blk.m.Row(i))
		}
	})
	return nil
}

// VectorDots writes dst[i] = ⟨a_{a0+i}, b_{rb}⟩ for a0 ≤ a0+i < a1.
func (e *Engine) VectorDots(dst []float64, a *Vectors, a0, a1 int, b *Vectors, rb int) error {
	const op = "VectorDots"
	rv, err := e.vectorsOp(op, a, b)
	if err != nil {
		return err
	}
	if rv != nil {
		return rv.VectorDots(dst, a.h, a0, a1, b.h, rb)
	}
	if err := errorsOf(rowsErr(op, a, a0, a1-a0), rowsErr(op, b, rb, 1)); err != nil {
		return err
	}
	if a.cols != b.cols || len(dst) < a1-a0 {
		return fmt.Errorf("%s: %w: vectors of length %d and %d into %d values for %d products", op, pursuit.ErrShape, a.cols, b.cols, len(dst), a1-a0)
	}
	bv := b.row(rb)
	for i := a0; i < a1; i++ {
		var s float64
		for c, x := range a.row(i) {
			s += x * bv[c]
		}
		dst[i-a0] = s
	}
	return nil
}

// CombineVectors sets y_{ry} ← β·y_{ry} + Σ_i coef[i]·a_{a0+i} (β = 0
// ignores the old y; y_{ry} may be one of the a rows).
func (e *Engine) CombineVectors(y *Vectors, ry int, beta float64, coef []float64, a *Vectors, a0 int) error {
	const op = "CombineVectors"
	rv, err := e.vectorsOp(op, y, a)
	if err != nil {
		return err
	}
	if rv != nil {
		return rv.CombineVectors(y.h, ry, beta, coef, a.h, a0)
	}
	if err := errorsOf(rowsErr(op, y, ry, 1), rowsErr(op, a, a0, len(coef))); err != nil {
		return err
	}
	if a.cols != y.cols {
		return fmt.Errorf("%s: %w: vectors of length %d and %d", op, pursuit.ErrShape, y.cols, a.cols)
	}
	yv := y.row(ry)
	for c := range yv {
		var s float64
		if beta != 0 {
			s = beta * yv[c]
		}
		for i, w := range coef {
			s += w * a.d[(a0+i)*a.cols+c]
		}
		yv[c] = s
	}
	return nil
}

// CopyBlockRow sets dst_r to row br of blk as float64.
func (e *Engine) CopyBlockRow(dst *Vectors, r int, blk *Block, br int) error {
	const op = "CopyBlockRow"
	if blk == nil {
		return fmt.Errorf("%s: %w: block is nil", op, backend.ErrPrepared)
	}
	rv, err := e.vectorsOp(op, dst)
	if err != nil {
		return err
	}
	if (rv != nil) != blk.Resident() {
		return fmt.Errorf("%s: %w: a resident block with host vectors or the reverse", op, backend.ErrPrepared)
	}
	if rv != nil {
		return rv.CopyBlockRow(dst.h, r, blk.h, br)
	}
	if err := rowsErr(op, dst, r, 1); err != nil {
		return err
	}
	if br < 0 || br >= blk.rows || dst.cols != blk.cols {
		return fmt.Errorf("%s: %w: row %d of a %d×%d block into vectors of length %d", op, pursuit.ErrShape, br, blk.rows, blk.cols, dst.cols)
	}
	if blk.m.Data == nil && blk.cols > 0 {
		return fmt.Errorf("%s: %w: the block was released", op, backend.ErrPrepared)
	}
	d := dst.row(r)
	for c, x := range blk.m.Row(br) {
		d[c] = float64(x)
	}
	return nil
}

// SignMismatches returns the number of positions where a_{ra}·b_{rb} > 0
// does not hold (NaN included).
func (e *Engine) SignMismatches(a *Vectors, ra int, b *Vectors, rb int) (int, error) {
	const op = "SignMismatches"
	rv, err := e.vectorsOp(op, a, b)
	if err != nil {
		return 0, err
	}
	if rv != nil {
		return rv.SignMismatches(a.h, ra, b.h, rb)
	}
	if err := errorsOf(rowsErr(op, a, ra, 1), rowsErr(op, b, rb, 1)); err != nil {
		return 0, err
	}
	if a.cols != b.cols {
		return 0, fmt.Errorf("%s: %w: vectors of length %d and %d", op, pursuit.ErrShape, a.cols, b.cols)
	}
	n := 0
	bv := b.row(rb)
	for c, x := range a.row(ra) {
		if !(x*bv[c] > 0) {
			n++
		}
	}
	return n, nil
}

// errorsOf returns the first non-nil error.
func errorsOf(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
