package engine

import (
	"errors"
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Prepared is a matrix made ready once for use as the b operand of many
// kernel blocks — an SMO solver's data matrix X, read in full by every batch
// of kernel rows K(X[idx], X). When the backend implements
// backend.Preparer the matrix is packed into its GEMM panel layout (or
// uploaded, on a device) once instead of on every call; otherwise the
// handle keeps the matrix as it is. Either way its squared row norms are
// computed once. Use it with KernelGatherPrepared and KernelBlockPrepared
// of the engine that made it: with a backend.Preparer (every backend of
// this module) a value of those blocks does not depend on the rows computed
// beside it. The matrix must not change while the handle
// is in use.
type Prepared struct {
	m     pursuit.Matrix
	norms []float32
	bn    []float64        // squared norms in float64 of a dense m (precision.go)
	bMax  float64          // the largest of bn
	h     backend.Prepared // nil when the backend lacks the capability
	be    backend.Backend  // the backend h belongs to (the host CPU for a sparse b on a backend without sparse kernels)
}

// Prepare makes b ready for repeated use as the b operand of kernel blocks.
// The backend's prepared copy counts against the memory budget; when it does
// not fit, or not in a device's memory (backend.ErrDeviceMemory), or the
// backend cannot prepare operands, the handle falls back to the plain
// operations on b, with the same results. A sparse b is not
// copied on the CPU: the handle keeps its CSR and norms (only the norms are
// charged); a device backend uploads the CSR (charged too); a backend
// without sparse kernels has it prepared on the host CPU driver.
func (e *Engine) Prepare(b pursuit.Matrix) (*Prepared, error) {
	if err := b.Validate(); err != nil {
		return nil, fmt.Errorf("engine: prepare: %w: %v", pursuit.ErrShape, err)
	}
	be := e.sparseBackend(b)
	if p, ok := be.(backend.Preparer); ok && e.Reserve("a prepared copy of the data", preparedBytes(be, b)) == nil {
		h, err := p.Prepare(b)
		switch {
		case errors.Is(err, backend.ErrDeviceMemory):
			// A copy larger than the device's memory: the operations take b
			// plainly, and a device streams it through in slabs.
			e.Release(preparedBytes(be, b))
		case err != nil:
			return nil, fmt.Errorf("engine: prepare: %w", err)
		default:
			p := &Prepared{m: b, norms: h.Norms(), bn: denseNorms(b), h: h, be: be}
			p.bMax = maxOf(p.bn)
			return p, nil
		}
	}
	norms, err := e.SqNorms(b)
	if err != nil {
		return nil, fmt.Errorf("engine: prepare: %w", err)
	}
	p := &Prepared{m: b, norms: norms, bn: denseNorms(b)}
	p.bMax = maxOf(p.bn)
	return p, nil
}

// handle returns b's prepared handle for an operation that runs on be:
// when the handle is be's, or another engine's (which be's Preparer
// refuses with backend.ErrPrepared); not when it is this engine's other
// backend's (a sparse b prepared on the host CPU driver while a dense a
// runs on the device, or the other way round), for which the operation
// takes b and its norms plainly.
func (e *Engine) handle(b *Prepared, be backend.Backend) (backend.Preparer, backend.Prepared, bool) {
	if b.h == nil {
		return nil, nil, false
	}
	if b.be != be && (b.be == e.be || b.be == e.sparseBackend(sparseProbe)) {
		return nil, nil, false
	}
	p, ok := be.(backend.Preparer)
	return p, b.h, ok
}

func (p *Prepared) Matrix() pursuit.Matrix { return p.m }

// Norms returns the squared row norms, computed once. Do not modify them.
func (p *Prepared) Norms() []float32 { return p.norms }

// Backed reports whether the backend holds a prepared copy (false: the
// plain operations run on the matrix).
func (p *Prepared) Backed() bool { return p.h != nil }

// Release frees the backend's prepared copy (device memory on a GPU). Using
// the handle afterwards is an error wrapping backend.ErrPrepared; releasing
// twice, or a nil handle, is a no-op.
func (p *Prepared) Release() error {
	if p != nil && p.h != nil {
		return p.h.Release()
	}
	return nil
}

// TileRows returns how many kernel rows the backend computes as one tile
// (backend.RowTiler), or 0 when it does not say: a gather of a multiple of
// it rows wastes no work.
func (e *Engine) TileRows() int {
	if t, ok := e.be.(backend.RowTiler); ok {
		return t.TileRows()
	}
	return 0
}

// TileRowsOf is TileRows for gathers against the prepared b: its handle's
// tile where it has one (backend.RowTiler: 1 for a sparse b on the CPU
// driver, whose rows each cost their own columns), else TileRows.
func (e *Engine) TileRowsOf(b *Prepared) int {
	if b != nil {
		if t, ok := b.h.(backend.RowTiler); ok {
			return t.TileRows()
		}
	}
	return e.TileRows()
}

// KernelBlockPrepared writes dst[i][j] = k(a_i, b_j) for the prepared b;
// see backend.Backend.KernelBlock.
func (e *Engine) KernelBlockPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, b *Prepared) error {
	if b == nil {
		return fmt.Errorf("KernelBlock: %w: b is nil", backend.ErrPrepared)
	}
	return e.rbfOp(dst, k, a, aNorms, nil, b.m, b.norms, b.bn, b.bMax, func(aNorms, _ []float32) error {
		be := e.sparseBackend(a, b.m)
		if p, h, ok := e.handle(b, be); ok {
			return p.KernelBlockPrepared(dst, k, a, aNorms, h)
		}
		return be.KernelBlock(dst, k, a, aNorms, b.m, b.norms)
	})
}

// KernelGatherPrepared writes dst[r][j] = k(a_{idx[r]}, b_j) for the
// prepared b; see backend.Backend.KernelGather.
func (e *Engine) KernelGatherPrepared(dst pursuit.Matrix, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b *Prepared) error {
	if b == nil {
		return fmt.Errorf("KernelGather: %w: b is nil", backend.ErrPrepared)
	}
	return e.rbfOp(dst, k, a, aNorms, idx, b.m, b.norms, b.bn, b.bMax, func(aNorms, _ []float32) error {
		be := e.sparseBackend(a, b.m)
		if p, h, ok := e.handle(b, be); ok {
			return p.KernelGatherPrepared(dst, k, a, aNorms, idx, h)
		}
		return be.KernelGather(dst, k, a, aNorms, idx, b.m, b.norms)
	})
}

// denseNorms returns rowSqNorms of a dense b, nil for a sparse one.
func denseNorms(b pursuit.Matrix) []float64 {
	if b.IsSparse() {
		return nil
	}
	return rowSqNorms(b, nil)
}

// maxOf returns the largest of v (NaN when one is NaN), −1 for none: the
// screen then computes it.
func maxOf(v []float64) float64 {
	if v == nil {
		return -1
	}
	_, hi := minMax(v)
	return max(hi, 0)
}
