package backend

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
	KernelGatherBlock(dst Block, k Kernel, a Matrix, aNorms []float32, idx []int, b Prepared) error
	// BlockProducts writes dst[j*blk.Rows()+i] = ⟨blk_i, v_j⟩
	// (DictProducts with the block as the dictionary).
	BlockProducts(dst []float64, blk Block, vecs Matrix) error
	// BlockSqNorms writes ‖blk_i‖² into dst[:blk.Rows()] (SqNorms).
	BlockSqNorms(dst []float32, blk Block) error
	// ReadBlock copies rows r0 … r0+dst.Rows−1 of blk into dst, which has
	// blk.Cols() columns.
	ReadBlock(dst Matrix, blk Block, r0 int) error
}
