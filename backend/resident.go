package backend

import (
	"errors"

	"github.com/pursuit-ml/pursuit"
)

// Block is a kernel block K(a[idx], b) that a backend keeps where it
// computed it (device memory on a GPU), so that the products of its rows
// with a few vectors are taken there and only the products cross the bus:
// stochastic KMP computes s kernel rows of all l training points every step
// and needs only their 2s products with the residual, not the s×l values.
type Block interface {
	// Rows returns the number of kernel rows (len(idx) of the gather).
	Rows() int
	// Cols returns the number of points (rows of the prepared b).
	Cols() int
	// Release frees what the block holds. Using it afterwards is an error
	// wrapping ErrPrepared; releasing twice is a no-op.
	Release() error
}

// ResidentBlock is the optional capability of a backend that keeps gathered
// kernel blocks resident between the gather and the reductions that read
// them. Find it by type assertion (the engine does: engine.Engine.GatherBlock,
// which falls back to a host matrix on backends without it). Each method has
// the contract of the Backend method it names, with the block in place of a
// host matrix.
type ResidentBlock interface {
	Preparer
	// NewBlock allocates a rows×cols block.
	NewBlock(rows, cols int) (Block, error)
	// KernelGatherBlock writes dst[r][j] = k(a_{idx[r]}, b_j) for the
	// prepared b (KernelGatherPrepared); dst is len(idx)×b.Rows.
	KernelGatherBlock(dst Block, k pursuit.Kernel, a pursuit.Matrix, aNorms []float32, idx []int, b Prepared) error
	// BlockProducts writes dst[j*blk.Rows()+i] = ⟨blk_i, v_j⟩
	// (DictProducts with the block as the dictionary).
	BlockProducts(dst []float64, blk Block, vecs pursuit.Matrix) error
	// BlockSqNorms writes ‖blk_i‖² into dst[:blk.Rows()] (SqNorms).
	BlockSqNorms(dst []float32, blk Block) error
	// ReadBlock copies rows r0 … r0+dst.Rows−1 of blk into dst, which has
	// blk.Cols() columns.
	ReadBlock(dst pursuit.Matrix, blk Block, r0 int) error
}

// DeviceMemory is the optional capability of a backend with memory of its
// own (a GPU) to say how much of it is free: plans keep there what fits.
// An allocation there that fails for want of memory wraps
// ErrDeviceMemory.
type DeviceMemory interface {
	MemoryInfo() (free, total int64, err error)
}

// ErrDeviceMemory is wrapped by errors of allocations that a backend's own
// memory could not hold.
var ErrDeviceMemory = errors.New("out of device memory")

// BlockSetProducts is the optional capability of a ResidentBlock backend
// that takes a block's products with several sets of vectors in one call
// (one-vs-rest KMP's outputs over a dictionary kept on the device). Each
// set's products are, bit for bit, those of BlockProducts(dst[s], blk,
// sets[s]), whatever the other sets (as SetProducts requires).
type BlockSetProducts interface {
	BlockProductsSets(dst [][]float64, blk Block, sets []pursuit.Matrix) error
}

// Vectors is a rows×cols float64 matrix that a backend keeps in its memory
// (device memory on a GPU): the l-length state of a fitter — residual,
// targets, the chosen atoms' kernel rows and an orthonormal basis — so that
// a stochastic-KMP step updates it where the kernel block lives and only
// O(s + n) numbers cross the bus. Rows are the vectors.
type Vectors interface {
	// Rows returns the number of vectors.
	Rows() int
	// Cols returns their length.
	Cols() int
	// Release frees what the vectors hold. Using them afterwards is an
	// error wrapping ErrPrepared; releasing twice is a no-op.
	Release() error
}

// ResidentVectors is the optional capability of a backend that keeps
// float64 vectors resident beside its resident kernel blocks and works on
// them there. Find it by type assertion (the engine does:
// engine.Engine.NewVectors, which falls back to host memory on backends
// without it). Sums are taken in float64 in an order of the backend's
// choosing; every method returns an error wrapping ErrShape for rows or
// lengths that do not fit and ErrPrepared for a released or foreign handle.
type ResidentVectors interface {
	ResidentBlock
	// NewVectors allocates rows vectors of length cols (contents
	// undefined until written).
	NewVectors(rows, cols int) (Vectors, error)
	// WriteVectors copies src (a whole number of rows) into rows r0, r0+1, …
	// of dst.
	WriteVectors(dst Vectors, r0 int, src []float64) error
	// ReadVectors copies rows r0, r0+1, … of src into dst (a whole number
	// of rows).
	ReadVectors(dst []float64, src Vectors, r0 int) error
	// BlockVectorProducts writes dst[j*blk.Rows()+i] = ⟨blk_i, v_{r0+j}⟩
	// for r0 ≤ r0+j < r1, with the block's float32 values taken exactly and
	// the sums in float64.
	BlockVectorProducts(dst []float64, blk Block, v Vectors, r0, r1 int) error
	// VectorDots writes dst[i] = ⟨a_{a0+i}, b_{rb}⟩ for a0 ≤ a0+i < a1.
	VectorDots(dst []float64, a Vectors, a0, a1 int, b Vectors, rb int) error
	// CombineVectors sets y_{ry} ← β·y_{ry} + Σ_i coef[i]·a_{a0+i}, where
	// β = 0 ignores the old y (which may be undefined); y_{ry} may be one
	// of the a rows.
	CombineVectors(y Vectors, ry int, beta float64, coef []float64, a Vectors, a0 int) error
	// BlockSqNorms64 writes ‖blk_i‖², summed in float64, into
	// dst[:blk.Rows()] (BlockSqNorms rounds them to float32).
	BlockSqNorms64(dst []float64, blk Block) error
	// CopyBlockRow sets dst_r to row br of blk, converted to float64.
	CopyBlockRow(dst Vectors, r int, blk Block, br int) error
	// SignMismatches returns the number of positions e where
	// a_{ra}[e]·b_{rb}[e] > 0 does not hold (NaN included): the training
	// points a classifier with outputs b gets wrong for labels a.
	SignMismatches(a Vectors, ra int, b Vectors, rb int) (int, error)
}
