// Package backend defines the compute interface that Pursuit's algorithms run on
// and ships the portable pure-Go implementation of it.
//
// The hot operations of kernel machines are few: kernel blocks K(A, B) (a GEMM
// followed by an elementwise transform), batched inner products of a dictionary
// with a handful of vectors in one pass over the dictionary, rank-k deflation
// updates, and a scored arg-max over candidates. A Backend supplies exactly
// these; package engine chooses which implementation runs (pure Go, AVX2
// assembly in package asm, or CUDA in package cuda) and the algorithms in
// packages kmp, svm and slmc call them through the engine.
//
// # One CPU driver
//
// CPU is the one blocked driver of both CPU backends: BLIS-order cache
// blocking of kernel blocks and gathers with the transform applied per tile,
// dictionary products in blocks of 16 rows × 1024 features, rank updates
// four rows at a time, and prepared (packed-once) operands, all on one
// worker pool (internal/par). It is fed by a table of inner loops,
// CPUKernels: NewGo is the driver with GoKernels, package asm the same
// driver with its assembly table.
//
// # Sparse operands
//
// SqNorms, KernelBlock, KernelGather and the Preparer methods take sparse
// a and b (pursuit.CSR rows) on the CPU driver, alike with dense ones:
// batches of CPUKernels.SparseRows rows of one operand are scattered
// column-interleaved into a small block, and the other operand's non-zeros
// are streamed against it, one broadcast and one SparseRows-wide
// multiply-add each (sparse.go has the roles, the memory bounds and why a
// value does not depend on its batch). A prepared sparse b also keeps its
// non-zeros by column, so that a gather of a few rows (an SMO solver's
// single kernel rows) walks only the columns each row has, with the same
// bits (CPUKernels.SparseScatter; the handle's RowTiler says 1).
// DictProducts and RankUpdate take dense matrices only; a backend without
// sparse kernels rejects sparse operands with ErrSparse, and the engine
// runs those calls on the CPU driver (the CUDA backend has its own:
// package cuda's sparse.go).
//
// # Optional capabilities
//
// A backend may do some things better than the interface lets it; such
// capabilities are interfaces declared here, found by type assertion (by the
// engine, never by the algorithms). Preparer prepares a matrix once for use
// as the b operand of many kernel blocks: both CPU backends pack it into
// their GEMM micro-panels once, where KernelGather would pack all of it again
// for every batch of SMO kernel rows, and compute every value of a prepared
// block alike whatever rows it is computed with, so that a kernel row has
// the same bits in every batch.
// SetProducts computes the products of a dictionary with several sets of
// vectors (one-vs-rest KMP's classes) in one pass: the CPU driver applies
// each block of rows to every set's vectors while it is in cache, each set
// in the kernel calls its own DictProducts makes, so its products are the
// same bit for bit.
// SMOScanner runs an SMO iteration's passes over the variables (the
// gradient update with the next i, the second-order choice of j, G-bar's
// update) as vector kernels; the CPU backends implement it (AVX2 in asm),
// with results equal bit for bit to the Go references, which the engine
// runs for a backend without it.
// SubproblemSolver and SVMDevice move a batched SVM solver's per-iteration
// work to a device: its q-variable subproblem (SolveSubproblemRef, whose
// bits they keep), and a pool of its working sets' kernel rows there, with
// the subproblem's block and every variable's gradient update computed from
// it (the cuda backend has both).
// RowTiler says how many rows a kernel block computes as one tile (the CPU
// driver's micro-kernel height), so that the SVM batches its kernel rows in
// whole tiles.
//
// # Storage and precision
//
// Large matrices (data, kernel blocks, dictionaries) are stored as float32
// row-major pursuit.Matrix values (the type lives in the module's leaf
// package, so that learners need not import this one): halving the bytes halves the time of every
// memory-bound pass, and the kernel values themselves are only meaningful to
// about 1e-6 relative. Where float64 is used, and why:
//
//   - Kernel blocks accumulate the inner products x·z in float32, like SGEMM;
//     the feature dimension is moderate and the result is stored in float32
//     anyway. The RBF distance ‖x‖²+‖z‖²−2x·z is clamped at 0.
//   - That distance cancels: its error is about u·(‖x‖²+‖z‖²) (u = 2⁻²⁴;
//     at most 4·(d+4)·u·(‖x‖²+‖z‖²) for d features, the bound backendtest
//     allows), whatever the distance, so a kernel value exp(−γ‖x−z‖²) is off
//     by up to γ times that, about κ = γ·(‖x‖²+‖z‖²) ulps. Data scaled to
//     [0, 1] or [−1, 1] with γ ≈ 1/d have κ ≤ 2; features in the hundreds
//     (unscaled Boston housing, γ = 1: κ ≈ 10⁶) or far from the origin
//     lose every digit, and then each backend gives other values. The
//     backends keep the fast form; package engine computes κ for every pair
//     of a dense RBF operation from the rows' norms and, above
//     engine.RBFCancellationLimit (16), computes the value itself in float64
//     (Σ(x_k−z_k)², as pursuit.Kernel.Eval, rounded once): the same bits on
//     every backend, within a float32 rounding of the exact value.
//     backendtest.RunAccurate is that contract's test. Sparse operands
//     are not checked by the engine (centring would fill them in): their
//     distances have the same bound, with ‖x‖² the row's sum of squares;
//     scale sparse data (or keep γ·‖x‖² small) where it matters.
//   - DictProducts returns float64 and accumulates each inner product over
//     the long dimension (thousands of training points) with float64 partial
//     sums, because the algorithms compare these scores across candidates and
//     subtract nearly equal quantities (orthogonalisation, residual updates).
//     Backends may sum short float32 runs first (at most 32 products, the
//     bound backendtest allows for) and add them into float64.
//   - Scores, residuals and coefficients (vectors of length l or M) are float64
//     in the algorithms; ScoredArgMax works on float64.
//
// # Conformance
//
// Package backendtest holds the conformance suite every Backend runs: each
// operation is compared against a simple float64 reference on awkward sizes
// and unaligned sub-slices, with tolerances stated there.
package backend
