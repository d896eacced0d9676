package cuda

import (
	"io"

	"github.com/pursuit-ml/pursuit/backend"
)

// This file is part of every build (it imports no CUDA code), so that
// algorithm packages can look for the device-resident capability by type
// assertion in the CPU build as well, where no backend ever provides it.

// Buffer is memory on the device owned by a Resident backend: either a
// row-major float32 matrix (Rows×Cols) or a float64 vector (1×Cols). Buffers
// are opaque on the host; move data with the backend's Write/Read methods.
type Buffer interface {
	Rows() int
	Cols() int
	// Float64 reports whether the buffer holds float64 (vectors from
	// AllocF64) rather than float32.
	Float64() bool
	// Free releases the device memory. Using a freed buffer is an error;
	// freeing twice is a no-op. Closing the backend frees every buffer.
	Free() error
}

// Resident is the optional capability of a backend that keeps operands in
// device memory across calls, so that an algorithm moves data over the bus
// only at its edges: upload X and allocate the dictionary once, then per step
// write a few vectors, run the *On operations, and read back a few numbers.
// Find it by type assertion:
//
//	if r, ok := b.(cuda.Resident); ok { ... }
//
// Shapes follow the backend.Backend methods of the same name; norms buffers
// may be nil (the backend then computes them). Every method returns an error
// naming the operation and the offending shape, never panics.
type Resident interface {
	backend.Backend
	io.Closer

	// Upload copies the host matrix m into new device memory.
	Upload(m backend.Matrix) (Buffer, error)
	// Alloc allocates a zeroed rows×cols float32 device matrix.
	Alloc(rows, cols int) (Buffer, error)
	// Write copies the host matrix m into dst, which must have its shape.
	Write(dst Buffer, m backend.Matrix) error
	// Read copies the device matrix src into the host matrix dst, which
	// must have its shape.
	Read(dst backend.Matrix, src Buffer) error

	// AllocF64 allocates a zeroed float64 device vector of length n.
	AllocF64(n int) (Buffer, error)
	// WriteF64 copies src into the float64 vector dst (len(src) ≤ dst.Cols()).
	WriteF64(dst Buffer, src []float64) error
	// ReadF64 copies the first len(dst) elements of the float64 vector src.
	ReadF64(dst []float64, src Buffer) error

	// SqNormsOn writes ‖x_i‖² into the float32 matrix dst, read as a flat
	// vector of at least x.Rows() elements.
	SqNormsOn(dst, x Buffer) error
	// KernelBlockOn is KernelBlock on device operands.
	KernelBlockOn(dst Buffer, k backend.Kernel, a, aNorms, b, bNorms Buffer) error
	// KernelGatherOn is KernelGather on device operands; idx is a host
	// slice (copied to the device per call: len(idx) integers).
	KernelGatherOn(dst Buffer, k backend.Kernel, a, aNorms Buffer, idx []int, b, bNorms Buffer) error
	// DictProductsOn writes <d_i, v_j> to dst[j*dict.Rows()+i] in the
	// float64 vector dst, in one pass over dict per group of 8 vectors.
	DictProductsOn(dst, dict, vecs Buffer) error
	// RankUpdateOn applies d ← d + alpha·Σ_t u_t v_tᵀ on the device.
	RankUpdateOn(d Buffer, alpha float32, u, v Buffer) error
	// ScoredArgMaxOn is ScoredArgMax over the float64 vectors s and n (the
	// first min(s.Cols(), n.Cols()) candidates), with skip a host slice
	// (nil for none) copied per call. Only the index and score come back.
	ScoredArgMaxOn(s, n Buffer, skip []bool) (int, float64, error)
}
