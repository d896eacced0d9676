//go:build cuda

package cuda

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Device residency through the capabilities package backend declares, so
// that algorithms reach it through the engine without naming this package:
//
//   - backend.Preparer: Prepare uploads a matrix (the training data X) and
//     its squared norms once; KernelGatherPrepared then ships only the
//     indices when a is the prepared matrix itself (an SMO batch of kernel
//     rows K(X[idx], X), a stochastic-KMP active set), or only the gathered
//     rows a[idx] otherwise, and brings back only the rows it computes.
//   - backend.ResidentBlock: KernelGatherBlock leaves the gathered block on
//     the device, where BlockProducts and BlockSqNorms reduce it, so that a
//     stochastic-KMP step receives 2s products and s norms, not s×l values.

// cudaPrepared is a matrix uploaded once, with its norms on the device and
// on the host: a dense one packed (x), a sparse one as CSR (off, idx, val;
// see sparse.go).
type cudaPrepared struct {
	backend.PreparedBase
	owner         *Backend
	x             *devMatrix // rows×cols, packed (dense)
	off, idx, val *devMatrix // rows+1 int64 offsets from 0, int32 columns, float32 values (sparse)
	n             *devMatrix // 1×rows squared norms
	// shape stands in for a sparse M in argument checks (shapeOnly).
	shape     pursuit.Matrix
	shapeOnce sync.Once
	// normsSeen is the first element of the last aNorms slice found equal
	// to the prepared norms, so that the comparison runs once per slice.
	normsSeen atomic.Pointer[float32]
}

var _ backend.Prepared = (*cudaPrepared)(nil)

// Prepare uploads b and its squared row norms once; see backend.Preparer.
func (b *Backend) Prepare(m pursuit.Matrix) (backend.Prepared, error) {
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: Prepare: %w: b: %v", pursuit.ErrShape, err)
	}
	p := &cudaPrepared{owner: b, PreparedBase: backend.PreparedBase{M: m, SqNorms: make([]float32, m.Rows)}}
	err := b.do(func() error {
		if m.IsSparse() {
			if err := b.prepareSparse(p, m); err != nil {
				return err
			}
			if err := syncDevice("Prepare"); err != nil {
				return err
			}
			if m.Rows > 0 {
				return b.fromDevice(unsafe.Pointer(&p.SqNorms[0]), p.n.mem.ptr, int64(m.Rows)*4)
			}
			return nil
		}
		x, err := b.liveMatrix(m.Rows, m.Cols, "a prepared matrix")
		if err != nil {
			return err
		}
		p.x = x
		if _, err := b.uploadTo(x.mem, m, false); err != nil {
			return err
		}
		if p.n, err = b.liveMatrix(1, m.Rows, "prepared norms"); err != nil {
			return err
		}
		if err := b.sqNormsDev(p.n.mem.ptr, x); err != nil {
			return err
		}
		if err := syncDevice("Prepare"); err != nil {
			return err
		}
		if m.Rows > 0 {
			return b.fromDevice(unsafe.Pointer(&p.SqNorms[0]), p.n.mem.ptr, int64(m.Rows)*4)
		}
		return nil
	})
	if err != nil {
		_ = p.Release()
		return nil, err
	}
	return p, nil
}

// liveMatrix allocates a packed rows×cols device matrix owned by a handle
// (freed by the handle's Release or by Close; worker thread).
func (b *Backend) liveMatrix(rows, cols int, what string) (*devMatrix, error) {
	mem, err := b.alloc(int64(rows)*int64(cols)*4, what)
	if err != nil {
		return nil, err
	}
	m := &devMatrix{owner: b, mem: mem, rows: rows, cols: cols, ld: max(cols, 1)}
	b.live[m] = struct{}{}
	return m, nil
}

// Release frees the device copy; see backend.Prepared.
func (p *cudaPrepared) Release() error {
	if !p.MarkReleased() {
		return nil
	}
	err := p.owner.do(func() error {
		var first error
		for _, m := range []*devMatrix{p.x, p.off, p.idx, p.val, p.n} {
			if m != nil {
				if err := m.free(); err != nil && first == nil {
					first = err
				}
			}
		}
		return first
	})
	if err == errClosed {
		return nil // Close freed it
	}
	if err != nil {
		return fmt.Errorf("cuda: releasing a prepared matrix: %w", err)
	}
	return nil
}

func (b *Backend) prepared(op string, h backend.Prepared) (*cudaPrepared, error) {
	return backend.CheckPrepared(op, h, func(p *cudaPrepared) bool { return p.owner == b && (p.x != nil || p.n != nil && p.val != nil) })
}

// KernelBlockPrepared writes dst[i][j] = k(a_i, b_j) with b on the device;
// a and dst cross the bus.
func (b *Backend) KernelBlockPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, bp backend.Prepared) error {
	p, err := b.prepared("KernelBlock", bp)
	if err != nil {
		return err
	}
	if err := backend.CheckKernelBlock(dst, k, a, aNorms, p.shapeOnly(), nil); err != nil {
		return err
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	if anySparse(a, p.M) {
		return b.do(func() error {
			return b.sparseKernel("KernelBlock", spOut{host: dst}, k, spRows{m: a, norms: aNorms}, spRows{m: p.M, p: p})
		})
	}
	return b.do(func() error { return b.kernelOnDeviceB("KernelBlock", dst, k, a, aNorms, p.x, p.n) })
}

// KernelGatherPrepared writes dst[r][j] = k(a_{idx[r]}, b_j) with b on the
// device: only idx (when a is the prepared matrix) or the rows a[idx] go up,
// and only dst comes back.
func (b *Backend) KernelGatherPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, bp backend.Prepared) error {
	p, err := b.prepared("KernelGather", bp)
	if err != nil {
		return err
	}
	if err := backend.CheckKernelGather(dst, k, a, aNorms, idx, p.shapeOnly(), nil); err != nil {
		return err
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	own := p.ownNorms(a, aNorms)
	if anySparse(a, p.M) {
		return b.do(func() error {
			return b.sparseKernel("KernelGather", spOut{host: dst}, k, p.gatherRows(a, aNorms, idx, own), spRows{m: p.M, p: p})
		})
	}
	return b.do(func() error {
		cd, err := b.scratchOut(slotC, len(idx), p.M.Rows)
		if err != nil {
			return err
		}
		if err := b.gatherDev(cd, k, a, aNorms, idx, p, own); err != nil {
			return err
		}
		if err := syncDevice("KernelGather"); err != nil {
			return err
		}
		return b.download(dst, cd)
	})
}

// sameMatrix reports whether a is the view m (same memory and shape).
func sameMatrix(a, m pursuit.Matrix) bool {
	return a.Rows == m.Rows && a.Cols == m.Cols && a.Stride == m.Stride &&
		len(a.Data) > 0 && len(m.Data) > 0 && &a.Data[0] == &m.Data[0]
}

// gatherRows is the operand a[idx] of a sparse gather against p: resident
// (only idx goes up) when own says that a is the sparse prepared matrix
// itself.
func (p *cudaPrepared) gatherRows(a pursuit.Matrix, aNorms []float32, idx []int, own bool) spRows {
	r := spRows{m: a, sel: idx, norms: aNorms}
	if own && p.M.IsSparse() {
		r.p = p
	}
	return r
}

// ownNorms reports whether a is the prepared matrix and aNorms (nil, or
// equal to the prepared norms) lets the gather read a and its norms on the
// device.
func (p *cudaPrepared) ownNorms(a pursuit.Matrix, aNorms []float32) bool {
	if !sameMatrix(a, p.M) && !sameSparse(a, p.M) {
		return false
	}
	if aNorms == nil || p.M.Rows == 0 {
		return true
	}
	first := &aNorms[0]
	if first == &p.SqNorms[0] || p.normsSeen.Load() == first {
		return true
	}
	for i, v := range p.SqNorms {
		if aNorms[i] != v {
			return false
		}
	}
	p.normsSeen.Store(first)
	return true
}

// gatherDev computes dst = K(a[idx], p) on the device (worker thread). With
// own, a is the prepared matrix and only idx is copied; otherwise the rows
// a[idx] (and their norms) are gathered on the host and copied.
func (b *Backend) gatherDev(dst *devMatrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, p *cudaPrepared, own bool) error {
	if len(idx) == 0 || p.M.Rows == 0 {
		return nil
	}
	if own {
		ip, err := b.uploadIdx(idx)
		if err != nil {
			return err
		}
		return b.kernelBlockDev(dst, k, p.x, p.n, ip, len(idx), p.x, p.n)
	}
	b.stage = grow(b.stage, len(idx)*a.Cols)
	g := pursuit.Matrix{Rows: len(idx), Cols: a.Cols, Stride: a.Cols, Data: b.stage}
	for r, i := range idx {
		copy(g.Row(r), a.Row(i))
	}
	ad, err := b.scratchMatrix(slotA, g)
	if err != nil {
		return err
	}
	var an *devMatrix
	if k.Kind == pursuit.RBF && aNorms != nil {
		gn := make([]float32, len(idx))
		for r, i := range idx {
			gn[r] = aNorms[i]
		}
		if an, err = b.scratchVec(slotANorms, gn, len(idx)); err != nil {
			return err
		}
	}
	return b.kernelBlockDev(dst, k, ad, an, 0, len(idx), p.x, p.n)
}

// cudaBlock is a kernel block resident on the device.
type cudaBlock struct {
	owner    *Backend
	m        *devMatrix
	released atomic.Bool
}

func (c *cudaBlock) Rows() int { return c.m.rows }
func (c *cudaBlock) Cols() int { return c.m.cols }

// Release frees the block's device memory.
func (c *cudaBlock) Release() error {
	if !c.released.CompareAndSwap(false, true) {
		return nil
	}
	err := c.owner.do(c.m.free)
	if err == errClosed {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cuda: releasing a %d×%d block: %w", c.m.rows, c.m.cols, err)
	}
	return nil
}

// NewBlock allocates a rows×cols block on the device; see
// backend.ResidentBlock.
func (b *Backend) NewBlock(rows, cols int) (backend.Block, error) {
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("cuda: NewBlock: %w: negative shape %d×%d", pursuit.ErrShape, rows, cols)
	}
	blk := &cudaBlock{owner: b}
	err := b.do(func() error {
		var err error
		blk.m, err = b.liveMatrix(rows, cols, fmt.Sprintf("a %d×%d kernel block", rows, cols))
		return err
	})
	if err != nil {
		return nil, err
	}
	return blk, nil
}

func (b *Backend) block(op string, blk backend.Block) (*cudaBlock, error) {
	c, ok := blk.(*cudaBlock)
	switch {
	case !ok || c == nil || c.owner != b:
		return nil, fmt.Errorf("cuda: %s: %w: the block (%T) is not one of this backend", op, backend.ErrPrepared, blk)
	case c.released.Load():
		return nil, fmt.Errorf("cuda: %s: %w: the block was released", op, backend.ErrPrepared)
	}
	return c, nil
}

// KernelGatherBlock computes the gathered kernel block into dst on the
// device; see backend.ResidentBlock.
func (b *Backend) KernelGatherBlock(dst backend.Block, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, bp backend.Prepared) error {
	const op = "KernelGather"
	p, err := b.prepared(op, bp)
	if err != nil {
		return err
	}
	c, err := b.block(op, dst)
	if err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("cuda: %s: %w", op, err)
	}
	// A sparse prepared a was validated by Prepare (its rows must not
	// change while the handle is in use): not all of its indices again.
	if !sameSparse(a, p.M) {
		if err := a.Validate(); err != nil {
			return fmt.Errorf("cuda: %s: %w: a: %v", op, pursuit.ErrShape, err)
		}
	}
	switch {
	case a.Cols != p.M.Cols:
		return fmt.Errorf("cuda: %s: %w: a has %d features, b has %d", op, pursuit.ErrShape, a.Cols, p.M.Cols)
	case c.m.rows != len(idx) || c.m.cols != p.M.Rows:
		return fmt.Errorf("cuda: %s: %w: dst is %d×%d, want %d×%d", op, pursuit.ErrShape, c.m.rows, c.m.cols, len(idx), p.M.Rows)
	case aNorms != nil && len(aNorms) < a.Rows:
		return fmt.Errorf("cuda: %s: %w: aNorms has %d elements for %d rows", op, pursuit.ErrShape, len(aNorms), a.Rows)
	}
	for r, i := range idx {
		if i < 0 || i >= a.Rows {
			return fmt.Errorf("cuda: %s: %w: idx[%d] = %d is outside [0, %d)", op, pursuit.ErrShape, r, i, a.Rows)
		}
	}
	own := p.ownNorms(a, aNorms)
	return b.do(func() error {
		if anySparse(a, p.M) {
			if err := b.sparseKernel(op, spOut{dev: c.m}, k, p.gatherRows(a, aNorms, idx, own), spRows{m: p.M, p: p}); err != nil {
				return err
			}
			return syncDevice(op)
		}
		if err := b.gatherDev(c.m, k, a, aNorms, idx, p, own); err != nil {
			return err
		}
		return syncDevice(op)
	})
}

// BlockProducts is DictProducts with the resident block as the dictionary:
// vecs go up, the products come back.
func (b *Backend) BlockProducts(dst []float64, blk backend.Block, vecs pursuit.Matrix) error {
	c, err := b.checkBlockProducts(blk, dst, vecs)
	if err != nil || c.m.rows*vecs.Rows == 0 {
		return err
	}
	return b.do(func() error { return b.blockProducts(dst, c, vecs) })
}

var _ backend.BlockSetProducts = (*Backend)(nil)

// BlockProductsSets takes every set's products with the block in one
// upload, one pass of the products kernels and one copy back, the sets'
// vectors side by side (as DictProductsSets, and with the same guarantee:
// each set's products are those of its own BlockProducts call bit for bit).
func (b *Backend) BlockProductsSets(dst [][]float64, blk backend.Block, sets []pursuit.Matrix) error {
	if len(dst) != len(sets) {
		return fmt.Errorf("cuda: DictProductsSets: %w: %d destinations for %d sets", pursuit.ErrShape, len(dst), len(sets))
	}
	var c *cudaBlock
	for s, v := range sets {
		var err error
		if c, err = b.checkBlockProducts(blk, dst[s], v); err != nil {
			return fmt.Errorf("cuda: DictProductsSets: set %d: %w", s, err)
		}
	}
	if c == nil {
		return nil
	}
	return b.sideBySide(dst, sets, c.m.rows, func(out []float64, all pursuit.Matrix) error {
		return b.blockProducts(out, c, all)
	})
}

// checkBlockProducts checks the arguments of BlockProducts.
func (b *Backend) checkBlockProducts(blk backend.Block, dst []float64, vecs pursuit.Matrix) (*cudaBlock, error) {
	const op = "DictProducts"
	c, err := b.block(op, blk)
	if err != nil {
		return nil, err
	}
	if err := vecs.Validate(); err != nil {
		return nil, fmt.Errorf("cuda: %s: %w: vecs: %v", op, pursuit.ErrShape, err)
	}
	if vecs.Cols != c.m.cols {
		return nil, fmt.Errorf("cuda: %s: %w: block rows have length %d, vecs rows %d", op, pursuit.ErrShape, c.m.cols, vecs.Cols)
	}
	if n := c.m.rows * vecs.Rows; len(dst) < n {
		return nil, fmt.Errorf("cuda: %s: %w: dst has %d elements, want %d×%d", op, pursuit.ErrShape, len(dst), vecs.Rows, c.m.rows)
	}
	return c, nil
}

// blockProducts is BlockProducts, the arguments checked (worker thread).
func (b *Backend) blockProducts(dst []float64, c *cudaBlock, vecs pursuit.Matrix) error {
	n := c.m.rows * vecs.Rows
	vd, err := b.scratchMatrix(slotB, vecs)
	if err != nil {
		return err
	}
	out, err := b.ensure(slotOut64, int64(n)*8)
	if err != nil {
		return err
	}
	if err := b.dictDev(out.ptr, c.m, vd); err != nil {
		return err
	}
	if err := syncDevice("DictProducts"); err != nil {
		return err
	}
	return b.fromDevice(unsafe.Pointer(&dst[0]), out.ptr, int64(n)*8)
}

// BlockSqNorms writes the squared norms of the block's rows; only they come
// back.
func (b *Backend) BlockSqNorms(dst []float32, blk backend.Block) error {
	const op = "SqNorms"
	c, err := b.block(op, blk)
	if err != nil {
		return err
	}
	if len(dst) < c.m.rows {
		return fmt.Errorf("cuda: %s: %w: dst has %d elements for %d rows", op, pursuit.ErrShape, len(dst), c.m.rows)
	}
	if c.m.rows == 0 {
		return nil
	}
	return b.do(func() error {
		out, err := b.ensure(slotC, int64(c.m.rows)*4)
		if err != nil {
			return err
		}
		if err := b.sqNormsDev(out.ptr, c.m); err != nil {
			return err
		}
		if err := syncDevice(op); err != nil {
			return err
		}
		return b.fromDevice(unsafe.Pointer(&dst[0]), out.ptr, int64(c.m.rows)*4)
	})
}

// ReadBlock copies rows r0 … r0+dst.Rows−1 of the block into dst.
func (b *Backend) ReadBlock(dst pursuit.Matrix, blk backend.Block, r0 int) error {
	const op = "ReadBlock"
	c, err := b.block(op, blk)
	if err != nil {
		return err
	}
	if err := dst.Validate(); err != nil {
		return fmt.Errorf("cuda: %s: %w: dst: %v", op, pursuit.ErrShape, err)
	}
	if dst.Cols != c.m.cols || r0 < 0 || r0+dst.Rows > c.m.rows {
		return fmt.Errorf("cuda: %s: %w: rows %d…%d of a %d×%d block into a %d×%d matrix", op, pursuit.ErrShape, r0, r0+dst.Rows-1, c.m.rows, c.m.cols, dst.Rows, dst.Cols)
	}
	if dst.Rows == 0 || dst.Cols == 0 {
		return nil
	}
	return b.do(func() error {
		view := &devMatrix{owner: b, mem: devMem{ptr: c.m.at(r0, 0)}, rows: dst.Rows, cols: c.m.cols, ld: c.m.ld, scratch: true}
		return b.download(dst, view)
	})
}
