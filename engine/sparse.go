package engine

import (
	"errors"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/backend"
)

// Sparse operands.
//
// A sparse pursuit.Matrix is an operand like a dense one: SqNorms, kernel
// blocks and gathers, KernelMatrix, Prepare and the prepared blocks and
// GatherBlock take it. The CPU backends compute with it themselves (see
// package backend's sparse path), and so does the CUDA backend (its CSR
// kernels; a prepared sparse matrix's CSR stays on the device). A backend
// without sparse kernels rejects such a call with backend.ErrSparse before
// doing any work, and the engine then runs every kernel operation with a
// sparse operand on the fastest CPU driver (AVX2 where the CPU has it, else
// pure Go, with the engine's threads), its prepared handles and gathered
// blocks in host memory; dense operations stay on the backend.
// Dictionary products and rank updates take dense matrices only, on every
// backend. Memory charges for a sparse matrix use its storage,
// Matrix.Bytes (O(non-zeros)), never Rows×Cols.

// sparseProbe is the tiny sparse matrix the engine asks its backend about.
var sparseProbe = pursuit.Matrix{Rows: 1, Cols: 1, Sparse: &pursuit.CSR{Offsets: []int64{0, 1}, Indices: []int32{0}, Values: []float32{1}}}

// sparseBackend returns the backend that runs a kernel operation on the
// operands ms: e's own unless one of them is sparse and e's backend
// rejects sparse operands, then the host CPU driver.
func (e *Engine) sparseBackend(ms ...pursuit.Matrix) backend.Backend {
	sparse := false
	for _, m := range ms {
		sparse = sparse || m.IsSparse()
	}
	if !sparse {
		return e.be
	}
	e.sparseOnce.Do(func() {
		err := e.be.SqNorms(make([]float32, 1), sparseProbe)
		if !errors.Is(err, backend.ErrSparse) {
			e.sparseCPU = e.be
			return
		}
		if be, _, err := newAVX2(e.threads, true); err == nil {
			e.sparseCPU = be
			return
		}
		e.sparseCPU = backend.NewGo(e.threads)
	})
	return e.sparseCPU
}

// SparseOnHost reports whether kernel operations with sparse operands run
// on the host CPU driver instead of the engine's backend (which lacks
// sparse kernels and says so with backend.ErrSparse). False for the CPU
// and CUDA backends.
func (e *Engine) SparseOnHost() bool { return e.sparseBackend(sparseProbe) != e.be }

// preparedBytes is what be's prepared copy of b costs: what be says
// (backend.PreparedSizer: the CPU driver's packed panels, or a sparse b's
// norms and column index), else a packed (or uploaded) copy of a dense b;
// for a sparse b its norms, and its CSR when be is a device backend
// (backend.DeviceMemory), which uploads it.
func preparedBytes(be backend.Backend, b pursuit.Matrix) int64 {
	if s, ok := be.(backend.PreparedSizer); ok {
		return s.PreparedBytes(b)
	}
	if b.IsSparse() {
		if _, device := be.(backend.DeviceMemory); device {
			return b.Bytes() + 4*int64(b.Rows)
		}
		return 4 * int64(b.Rows)
	}
	return int64(b.Rows) * int64(b.Cols) * 4
}
