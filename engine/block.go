package engine

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Block is a gathered kernel block K(a[idx], b) against a prepared b, kept
// where the backend computed it: in device memory when the backend
// implements backend.ResidentBlock (so that only the products of its rows
// with a few vectors cross the bus), in a host matrix otherwise. Make it
// with GatherBlock, reduce it with BlockProducts and BlockSqNorms, read rows
// with BlockRows, and Release it when done.
type Block struct {
	h    backend.Block  // resident block, or nil
	m    pursuit.Matrix // host block (no resident capability)
	rows int
	cols int
}

// Rows returns the number of kernel rows.
func (b *Block) Rows() int { return b.rows }

// Cols returns the number of points.
func (b *Block) Cols() int { return b.cols }

// Resident reports whether the block lives in the backend's memory (a
// device) rather than in a host matrix.
func (b *Block) Resident() bool { return b.h != nil }

// Release frees the block's memory (device memory when resident). Releasing
// twice, or a nil block, is a no-op.
func (b *Block) Release() error {
	if b == nil {
		return nil
	}
	b.m = pursuit.Matrix{}
	if b.h != nil {
		return b.h.Release()
	}
	return nil
}

// ResidentBlocks reports whether the backend keeps gathered kernel blocks
// resident (backend.ResidentBlock): then reducing a whole block once
// (BlockProducts over all points) moves only the products, while on the CPU
// blocking the gather into cache-sized chunks is faster.
func (e *Engine) ResidentBlocks() bool {
	_, ok := e.be.(backend.ResidentBlock)
	return ok
}

// DeviceFree returns the bytes free in the backend's own memory
// (backend.DeviceMemory), and false when it has none or cannot tell.
func (e *Engine) DeviceFree() (int64, bool) {
	if dm, ok := e.be.(backend.DeviceMemory); ok {
		if free, _, err := dm.MemoryInfo(); err == nil {
			return free, true
		}
	}
	return 0, false
}

// GatherBlock computes K(a_{idx[r]}, b_j) for the prepared b into a block of
// len(idx)×b rows, reusing reuse (which may be nil, and is released when
// its shape does not fit) and returning the block that holds the result.
// With a resident backend and a = b's matrix, only idx crosses the bus.
func (e *Engine) GatherBlock(reuse *Block, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b *Prepared) (*Block, error) {
	if b == nil {
		return reuse, fmt.Errorf("KernelGather: %w: b is nil", backend.ErrPrepared)
	}
	rows, cols := len(idx), b.m.Rows
	rb, resident := e.be.(backend.ResidentBlock)
	resident = resident && b.h != nil && b.be == e.be && e.sparseBackend(a, b.m) == e.be
	// A gather on the float64 path (precision.go) is computed on the host.
	resident = resident && !gatherExact(k, a, idx, b)
	blk := reuse
	if blk != nil && (blk.rows != rows || blk.cols != cols || blk.Resident() != resident) {
		if err := blk.Release(); err != nil {
			return nil, err
		}
		blk = nil
	}
	if blk == nil {
		blk = &Block{rows: rows, cols: cols}
		if resident {
			h, err := rb.NewBlock(rows, cols)
			if err != nil {
				return nil, fmt.Errorf("engine: a %d×%d kernel block: %w", rows, cols, err)
			}
			blk.h = h
		} else {
			if err := e.Reserve(fmt.Sprintf("a %d×%d kernel block", rows, cols), int64(rows)*int64(cols)*4); err != nil {
				return nil, err
			}
			blk.m = pursuit.NewMatrix(rows, cols)
		}
	}
	if resident {
		return blk, rb.KernelGatherBlock(blk.h, k, a, aNorms, idx, b.h)
	}
	return blk, e.KernelGatherPrepared(blk.m, k, a, aNorms, idx, b)
}

// BlockProducts writes dst[j*blk.Rows()+i] = ⟨blk_i, v_j⟩; see
// backend.Backend.DictProducts.
func (e *Engine) BlockProducts(dst []float64, blk *Block, vecs pursuit.Matrix) error {
	if blk == nil {
		return fmt.Errorf("DictProducts: %w: block is nil", backend.ErrPrepared)
	}
	if blk.h != nil {
		return e.be.(backend.ResidentBlock).BlockProducts(dst, blk.h, vecs)
	}
	return e.be.DictProducts(dst, blk.m, vecs)
}

// BlockProductsSets writes dst[s][j*blk.Rows()+i] = ⟨blk_i, v_j⟩ for every
// row v_j of sets[s], each set's products those of BlockProducts(dst[s],
// blk, sets[s]) bit for bit, in one call where the backend can
// (backend.BlockSetProducts; a host block: DictProductsSets).
func (e *Engine) BlockProductsSets(dst [][]float64, blk *Block, sets []pursuit.Matrix) error {
	switch bs, ok := e.be.(backend.BlockSetProducts); {
	case blk == nil:
		return fmt.Errorf("DictProductsSets: %w: block is nil", backend.ErrPrepared)
	case blk.h == nil:
		return e.DictProductsSets(dst, blk.m, sets)
	case ok:
		return bs.BlockProductsSets(dst, blk.h, sets)
	}
	if len(dst) != len(sets) {
		return fmt.Errorf("DictProductsSets: %w: %d destinations for %d sets", pursuit.ErrShape, len(dst), len(sets))
	}
	for s, v := range sets {
		if err := e.BlockProducts(dst[s], blk, v); err != nil {
			return fmt.Errorf("DictProductsSets: set %d: %w", s, err)
		}
	}
	return nil
}

// BlockSqNorms writes ‖blk_i‖² into dst[:blk.Rows()]; see
// backend.Backend.SqNorms.
func (e *Engine) BlockSqNorms(dst []float32, blk *Block) error {
	if blk == nil {
		return fmt.Errorf("SqNorms: %w: block is nil", backend.ErrPrepared)
	}
	if blk.h != nil {
		return e.be.(backend.ResidentBlock).BlockSqNorms(dst, blk.h)
	}
	return e.be.SqNorms(dst, blk.m)
}

// BlockRows copies rows r0 … r0+dst.Rows−1 of blk into dst.
func (e *Engine) BlockRows(dst pursuit.Matrix, blk *Block, r0 int) error {
	if blk == nil {
		return fmt.Errorf("ReadBlock: %w: block is nil", backend.ErrPrepared)
	}
	if blk.h != nil {
		return e.be.(backend.ResidentBlock).ReadBlock(dst, blk.h, r0)
	}
	if err := dst.Validate(); err != nil || dst.Cols != blk.cols || r0 < 0 || r0+dst.Rows > blk.rows {
		return fmt.Errorf("ReadBlock: %w: rows %d…%d of a %d×%d block into a %d×%d matrix", pursuit.ErrShape, r0, r0+dst.Rows-1, blk.rows, blk.cols, dst.Rows, dst.Cols)
	}
	for i := range dst.Rows {
		copy(dst.Row(i), blk.m.Row(r0+i))
	}
	return nil
}
