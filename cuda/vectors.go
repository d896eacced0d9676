//go:build cuda

package cuda

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	cu "gorgonia.org/cu"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// backend.ResidentVectors: float64 vectors in device memory beside the
// resident kernel blocks, so that a stochastic-KMP step keeps its residual,
// targets, chosen kernel rows and orthonormal basis on the device and only
// the candidates' products, the n projection values the host fitter solves
// with and its coefficients cross the bus.

// cudaVectors is rows float64 vectors of length cols, packed, on the device.
// The memory is a live devMatrix of rows × 2·cols float32 words (freed by
// Release or Close), so that m.at(r, 0) is the address of vector r.
type cudaVectors struct {
	owner    *Backend
	m        *devMatrix
	cols     int
	released atomic.Bool
}

var _ backend.ResidentVectors = (*Backend)(nil)

func (v *cudaVectors) Rows() int { return v.m.rows }
func (v *cudaVectors) Cols() int { return v.cols }

// row returns the device address of element e of vector r.
func (v *cudaVectors) row(r, e int) cu.DevicePtr { return v.m.at(r, 2*e) }

// Release frees the vectors' device memory.
func (v *cudaVectors) Release() error {
	if !v.released.CompareAndSwap(false, true) {
		return nil
	}
	err := v.owner.do(v.m.free)
	if err == errClosed {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cuda: releasing %d vectors of length %d: %w", v.m.rows, v.cols, err)
	}
	return nil
}

// NewVectors allocates rows float64 vectors of length cols on the device;
// see backend.ResidentVectors.
func (b *Backend) NewVectors(rows, cols int) (backend.Vectors, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("cuda: NewVectors: %w: negative shape %d×%d", pursuit.ErrShape, rows, cols)
	}
	v := &cudaVectors{owner: b, cols: cols}
	err := b.do(func() error {
		var err error
		v.m, err = b.liveMatrix(rows, 2*cols, fmt.Sprintf("%d float64 vectors of length %d", rows, cols))
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (b *Backend) vectors(op string, h backend.Vectors) (*cudaVectors, error) {
	v, ok := h.(*cudaVectors)
	switch {
	case !ok || v == nil || v.owner != b:
		return nil, fmt.Errorf("cuda: %s: %w: the vectors (%T) are not this backend's", op, backend.ErrPrepared, h)
	case v.released.Load():
		return nil, fmt.Errorf("cuda: %s: %w: the vectors were released", op, backend.ErrPrepared)
	}
	return v, nil
}

// checkRows validates rows r0 … r0+n−1 of v.
func checkRows(op string, v *cudaVectors, r0, n int) error {
	if r0 < 0 || n < 0 || r0+n > v.m.rows {
		return fmt.Errorf("cuda: %s: %w: rows %d…%d of %d vectors", op, pursuit.ErrShape, r0, r0+n-1, v.m.rows)
	}
	return nil
}

// wholeRows returns the number of vectors of length cols in n values.
func wholeRows(op string, n, cols int) (int, error) {
	if cols == 0 || n%cols != 0 {
		return 0, fmt.Errorf("cuda: %s: %w: %d values for vectors of length %d", op, pursuit.ErrShape, n, cols)
	}
	return n / cols, nil
}

// rowSpan checks that a host buffer of length values covers whole rows
// r0, r0+1, … of h, and returns h's vectors and the number of rows.
func (b *Backend) rowSpan(op string, h backend.Vectors, r0, length int) (*cudaVectors, int, error) {
	v, err := b.vectors(op, h)
	if err != nil {
		return nil, 0, err
	}
	n, err := wholeRows(op, length, v.cols)
	if err != nil {
		return nil, 0, err
	}
	if err := checkRows(op, v, r0, n); err != nil {
		return nil, 0, err
	}
	return v, n, nil
}

// WriteVectors uploads src into rows r0, r0+1, … of dst.
func (b *Backend) WriteVectors(dst backend.Vectors, r0 int, src []float64) error {
	v, n, err := b.rowSpan("WriteVectors", dst, r0, len(src))
	if err != nil || n == 0 {
		return err
	}
	return b.do(func() error {
		return b.toDevice(v.row(r0, 0), unsafe.Pointer(&src[0]), int64(len(src))*8)
	})
}

// ReadVectors downloads rows r0, r0+1, … of src into dst.
func (b *Backend) ReadVectors(dst []float64, src backend.Vectors, r0 int) error {
	v, n, err := b.rowSpan("ReadVectors", src, r0, len(dst))
	if err != nil || n == 0 {
		return err
	}
	return b.do(func() error {
		return b.fromDevice(unsafe.Pointer(&dst[0]), v.row(r0, 0), int64(len(dst))*8)
	})
}

// vecProductsDev writes out[j*rows+i] = ⟨row_i, v_j⟩ for the nv vectors
// from vp (leading dimension ldv), the rows being those of the float32
// matrix d or, when d is nil, the float64 rows at a (leading dimension
// lda) (worker thread).
func (b *Backend) vecProductsDev(out cu.DevicePtr, d *devMatrix, a cu.DevicePtr, lda, rows, cols int, vp cu.DevicePtr, ldv, nv int) error {
	if rows == 0 || nv == 0 {
		return nil
	}
	chunk, nchunks := dictChunks(rows, cols, b.info.sms)
	part, err := b.ensure(slotPart, int64(rows)*int64(nchunks)*dpMaxVecs*8)
	if err != nil {
		return err
	}
	var dp uintptr
	ldd := 0
	if d != nil {
		dp, ldd = uintptr(d.mem.ptr), d.ld
	}
	for g := 0; g < nv; g += dpMaxVecs {
		n := min(dpMaxVecs, nv-g)
		p := vecPartialParams(uintptr(part.ptr), dp, ldd, uintptr(a), lda, uintptr(vp)+uintptr(8*g*ldv), ldv, rows, cols, n, chunk)
		if err := b.launch(b.fn.vecPartial, nameVecPartial, rows, nchunks, dpThreads, 1, p); err != nil {
			return err
		}
		q := dictReduceParams(uintptr(out+cu.DevicePtr(8*g*rows)), uintptr(part.ptr), rows, nchunks, n)
		if err := b.launch(b.fn.dictReduce, nameDictReduce, ceilDiv(rows*n, 256), 1, 256, 1, q); err != nil {
			return err
		}
	}
	return nil
}

// BlockVectorProducts writes the products of the resident block's rows
// with vectors r0 … r1−1; only the products come back.
func (b *Backend) BlockVectorProducts(dst []float64, blk backend.Block, vh backend.Vectors, r0, r1 int) error {
	const op = "BlockVectorProducts"
	c, err := b.block(op, blk)
	if err != nil {
		return err
	}
	v, err := b.vectors(op, vh)
	if err != nil {
		return err
	}
	if err := checkRows(op, v, r0, r1-r0); err != nil {
		return err
	}
	nb, nv := c.m.rows, r1-r0
	switch {
	case v.cols != c.m.cols:
		return fmt.Errorf("cuda: %s: %w: block rows of length %d, vectors of length %d", op, pursuit.ErrShape, c.m.cols, v.cols)
	case len(dst) < nb*nv:
		return fmt.Errorf("cuda: %s: %w: dst has %d elements, want %d×%d", op, pursuit.ErrShape, len(dst), nv, nb)
	}
	if nb*nv == 0 {
		return nil
	}
	return b.do(func() error {
		out, err := b.ensure(slotOut64, int64(nb*nv)*8)
		if err != nil {
			return err
		}
		if err := b.vecProductsDev(out.ptr, c.m, 0, 0, nb, v.cols, v.row(r0, 0), v.cols, nv); err != nil {
			return err
		}
		if err := syncDevice(op); err != nil {
			return err
		}
		return b.fromDevice(unsafe.Pointer(&dst[0]), out.ptr, int64(nb*nv)*8)
	})
}

// BlockSqNorms64 writes the float64 squared norms of the resident block's
// rows; only they come back.
func (b *Backend) BlockSqNorms64(dst []float64, blk backend.Block) error {
	const op = "BlockSqNorms64"
	c, err := b.block(op, blk)
	if err != nil {
		return err
	}
	nb := c.m.rows
	if len(dst) < nb {
		return fmt.Errorf("cuda: %s: %w: dst has %d elements for %d rows", op, pursuit.ErrShape, len(dst), nb)
	}
	if nb == 0 {
		return nil
	}
	return b.do(func() error {
		out, err := b.ensure(slotOut64, int64(nb)*8)
		if err != nil {
			return err
		}
		// vec_partial with no vectors: each row with itself.
		if err := b.vecProductsDev(out.ptr, c.m, 0, 0, nb, c.m.cols, 0, 0, 1); err != nil {
			return err
		}
		if err := syncDevice(op); err != nil {
			return err
		}
		return b.fromDevice(unsafe.Pointer(&dst[0]), out.ptr, int64(nb)*8)
	})
}

// VectorDots writes ⟨a_{a0+i}, b_{rb}⟩; only the a1−a0 dots come back.
func (b *Backend) VectorDots(dst []float64, ah backend.Vectors, a0, a1 int, bh backend.Vectors, rb int) error {
	const op = "VectorDots"
	a, err := b.vectors(op, ah)
	if err != nil {
		return err
	}
	bv, err := b.vectors(op, bh)
	if err != nil {
		return err
	}
	if err := checkRows(op, a, a0, a1-a0); err != nil {
		return err
	}
	if err := checkRows(op, bv, rb, 1); err != nil {
		return err
	}
	n := a1 - a0
	if a.cols != bv.cols || len(dst) < n {
		return fmt.Errorf("cuda: %s: %w: vectors of length %d and %d into %d values for %d products", op, pursuit.ErrShape, a.cols, bv.cols, len(dst), n)
	}
	if n == 0 {
		return nil
	}
	return b.do(func() error {
		out, err := b.ensure(slotOut64, int64(n)*8)
		if err != nil {
			return err
		}
		// Vectors of length 0 give zeros (vec_partial over an empty range).
		if err := b.vecProductsDev(out.ptr, nil, a.row(a0, 0), max(a.cols, 1), n, a.cols, bv.row(rb, 0), max(a.cols, 1), 1); err != nil {
			return err
		}
		if err := syncDevice(op); err != nil {
			return err
		}
		return b.fromDevice(unsafe.Pointer(&dst[0]), out.ptr, int64(n)*8)
	})
}

// CombineVectors sets y_{ry} ← β·y_{ry} + Σ coef[i]·a_{a0+i} on the device;
// only coef goes up.
func (b *Backend) CombineVectors(yh backend.Vectors, ry int, beta float64, coef []float64, ah backend.Vectors, a0 int) error {
	const op = "CombineVectors"
	y, err := b.vectors(op, yh)
	if err != nil {
		return err
	}
	a, err := b.vectors(op, ah)
	if err != nil {
		return err
	}
	if err := checkRows(op, y, ry, 1); err != nil {
		return err
	}
	if err := checkRows(op, a, a0, len(coef)); err != nil {
		return err
	}
	if a.cols != y.cols {
		return fmt.Errorf("cuda: %s: %w: vectors of length %d and %d", op, pursuit.ErrShape, y.cols, a.cols)
	}
	if y.cols == 0 {
		return nil
	}
	return b.do(func() error {
		var cp, ap cu.DevicePtr
		if len(coef) > 0 {
			mem, err := b.ensure(slotIn64, int64(len(coef))*8)
			if err != nil {
				return err
			}
			if err := b.toDevice(mem.ptr, unsafe.Pointer(&coef[0]), int64(len(coef))*8); err != nil {
				return fmt.Errorf("cuda: %s: copying %d coefficients: %w", op, len(coef), err)
			}
			cp, ap = mem.ptr, a.row(a0, 0)
		}
		p := vecCombineParams(uintptr(y.row(ry, 0)), beta, uintptr(cp), uintptr(ap), a.cols, len(coef), y.cols)
		if err := b.launch(b.fn.vecCombine, nameVecCombine, elementBlocks(y.cols), 1, vcThreads, 1, p); err != nil {
			return err
		}
		return syncDevice(op)
	})
}

// elementBlocks is the grid of the element-wise kernels over n elements:
// one element per thread, at most 4096 blocks (grid-stride beyond).
func elementBlocks(n int) int { return max(1, min(ceilDiv(n, vcThreads), 4096)) }

// CopyBlockRow sets dst_r to row br of the resident block as float64,
// on the device.
func (b *Backend) CopyBlockRow(dh backend.Vectors, r int, blk backend.Block, br int) error {
	const op = "CopyBlockRow"
	c, err := b.block(op, blk)
	if err != nil {
		return err
	}
	v, err := b.vectors(op, dh)
	if err != nil {
		return err
	}
	if err := checkRows(op, v, r, 1); err != nil {
		return err
	}
	if br < 0 || br >= c.m.rows || v.cols != c.m.cols {
		return fmt.Errorf("cuda: %s: %w: row %d of a %d×%d block into vectors of length %d", op, pursuit.ErrShape, br, c.m.rows, c.m.cols, v.cols)
	}
	if v.cols == 0 {
		return nil
	}
	return b.do(func() error {
		p := blockRowF64Params(uintptr(v.row(r, 0)), uintptr(c.m.at(br, 0)), v.cols)
		if err := b.launch(b.fn.blockRowF64, nameBlockRowF64, elementBlocks(v.cols), 1, vcThreads, 1, p); err != nil {
			return err
		}
		return syncDevice(op)
	})
}

// SignMismatches counts the positions where a_{ra}·b_{rb} > 0 fails, on the
// device; one number comes back.
func (b *Backend) SignMismatches(ah backend.Vectors, ra int, bh backend.Vectors, rb int) (int, error) {
	const op = "SignMismatches"
	a, err := b.vectors(op, ah)
	if err != nil {
		return 0, err
	}
	bv, err := b.vectors(op, bh)
	if err != nil {
		return 0, err
	}
	if err := checkRows(op, a, ra, 1); err != nil {
		return 0, err
	}
	if err := checkRows(op, bv, rb, 1); err != nil {
		return 0, err
	}
	if a.cols != bv.cols {
		return 0, fmt.Errorf("cuda: %s: %w: vectors of length %d and %d", op, pursuit.ErrShape, a.cols, bv.cols)
	}
	if a.cols == 0 {
		return 0, nil
	}
	var count float64
	err = b.do(func() error {
		// A few blocks per multiprocessor: a reduction with one count per
		// block, whatever l.
		nb := min(elementBlocks(a.cols), 4*max(b.info.sms, 1))
		part, err := b.ensure(slotPart, int64(nb)*dpMaxVecs*8)
		if err != nil {
			return err
		}
		out, err := b.ensure(slotOut64, 8)
		if err != nil {
			return err
		}
		p := signMismatchParams(uintptr(part.ptr), uintptr(a.row(ra, 0)), uintptr(bv.row(rb, 0)), a.cols)
		if err := b.launch(b.fn.signMismatch, nameSignMismatch, nb, 1, vcThreads, 1, p); err != nil {
			return err
		}
		q := dictReduceParams(uintptr(out.ptr), uintptr(part.ptr), 1, nb, 1)
		if err := b.launch(b.fn.dictReduce, nameDictReduce, 1, 1, 256, 1, q); err != nil {
			return err
		}
		if err := syncDevice(op); err != nil {
			return err
		}
		return b.fromDevice(unsafe.Pointer(&count), out.ptr, 8)
	})
	return int(count), err
}
