// Package engine is what Pursuit's algorithms run on: it detects the CPU's
// features with klauspost/cpuid, chooses the fastest available backend (CUDA
// when the binary was built with -tags cuda and a device is present, the AVX2
// assembly backend of package asm when the CPU has AVX2 and FMA, the pure-Go
// backend otherwise), says which one it chose and why, and holds the kernel
// specifications and memory budget the algorithms share.
//
// The choice can be forced with the WithBackend option or the PURSUIT_BACKEND
// environment variable (go, avx2 or cuda); naming a backend that cannot run
// here is an error that says why, never a silent fallback.
//
// Residency: Prepare makes a data matrix ready once for many kernel blocks
// (packed on the CPU, uploaded on a device: backend.Preparer), and
// GatherBlock keeps a gathered kernel block where the backend computed it
// (device memory with backend.ResidentBlock, a host matrix otherwise) for
// BlockProducts and BlockSqNorms, so that on a GPU only indices, vectors and
// products cross the bus. NewVectors keeps float64 vectors beside the blocks
// (backend.ResidentVectors, host memory otherwise) — a fitter's residual and
// basis — multiplied with a block, dotted and combined in place, so that
// even the vectors stay on the device. Algorithms use these methods and
// never name a backend.
//
// Sparse data: a sparse pursuit.Matrix (compressed sparse rows) is an
// operand like a dense one for SqNorms, the kernel blocks and gathers,
// Prepare and GatherBlock, and memory charges use its storage
// (Matrix.Bytes), not Rows×Cols. The CPU and CUDA backends compute with
// it directly (the CUDA backend keeps a prepared sparse matrix's CSR on the
// device); a backend that rejects such calls (backend.ErrSparse) has them
// run on the host CPU driver instead (SparseOnHost reports it). Dictionary
// products and rank updates take dense matrices only. See sparse.go.
//
// Kernel specifications (pursuit.Kernel, made by pursuit.NewRBF and the
// other constructors) follow LIBSVM's conventions: NewRBF(γ) is
// exp(−γ‖x−z‖²); NewRBFSigma(σ) is the form exp(−‖x−z‖²/σ²) used by the kernel
// matching pursuit papers, i.e. γ = 1/σ².
package engine
