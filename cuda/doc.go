// Package cuda is Pursuit's backend for NVIDIA GPUs: the hot operations of
// backend.Backend run as custom CUDA kernels through the driver API
// (gorgonia.org/cu), with no CUDA runtime, cuBLAS or toolkit needed at run
// time, only the NVIDIA driver (libcuda.so.1).
//
// # Which build to use where
//
// Everything that touches CUDA is compiled only with the build tag cuda.
//
// The default build (no tag) is the CPU build. It neither imports
// gorgonia.org/cu nor needs cgo, a toolkit or a driver; in it this package
// holds no backend, and the engine reports that the binary was built
// without -tags cuda. Use it everywhere without an NVIDIA
// GPU.
//
// `go build -tags cuda` makes a GPU binary. It is a cgo binary linked against
// libcuda.so.1, so it starts only where an NVIDIA driver is installed, and
// gorgonia.org/cu initialises the driver before main runs and ends the
// process (exit status 1) when the driver finds no device. Use it on GPU
// machines only. Building it needs the CUDA headers and the libcuda link
// stub, which scripts/cuda-toolkit.sh unpacks from Debian's CUDA 11.8
// packages into a cache outside the repository:
//
//	eval "$(bash scripts/cuda-toolkit.sh)"
//	go build -tags cuda ./cmd/pursuit
//
// The tests of this package follow the same rule: `go test -tags cuda -c`
// builds them anywhere the toolkit is cached, and they run on a GPU machine:
// scripts/gpu-check.sh builds and runs them there, with the benchmarks
// (`gpu-check.sh build` on any machine, `gpu-check.sh run` on the GPU one,
// which then needs nothing but the driver).
//
// # Testing without a GPU
//
// CI (scripts/cuda-check.sh) has no GPU. Besides vetting and compiling, it
// runs the -tags cuda test binary against kernels/emu/fakecuda.cpp, a
// stand-in libcuda.so.1 that implements the driver calls this package makes
// on the CPU: device memory is host memory (poisoned with NaN when
// allocated, guarded against overruns, every copy and pointer argument
// range-checked) and a launch runs the same CUDA C of kernels/kernels.cu
// under a CPU emulation of the execution model (kernels/emu/emu.h: the
// threads of a block as fibers, __syncthreads as a barrier, shared memory per
// block). So the Go side, gorgonia.org/cu, the 8-byte argument passing and
// the kernels' logic run for real, through the conformance suite and the
// end-to-end test; what only a GPU tests is the PTX itself (nvcc's code, the
// driver's JIT), real parallel execution and speed. The untagged tests check
// the launch arguments against the PTX signatures and kernels.cu.
//
// # Kernels
//
// The kernels are CUDA C in kernels/kernels.cu, compiled to PTX by
// `go generate ./cuda` (scripts/cuda-ptx.sh: nvcc 11.8, target compute_70,
// PTX ISA 7.8) and embedded with go:embed; the driver JIT-compiles the PTX
// for the GPU it finds (Volta and newer: Ampere, Hopper, Blackwell) and
// caches the result. CI regenerates the PTX and fails when it differs from
// the committed copy, checks that ptxas assembles it without register spills
// for sm_70, sm_80 and sm_90, and runs every kernel against a float64
// reference under the CPU emulation described above.
//
//   - kernel_block: K(A, B) and the gathered K(A[idx], B) as a tiled
//     shared-memory SGEMM (128×128 tiles, 8×8 per thread) with the kernel
//     transform (exp for RBF from ‖a‖²+‖b‖²−2a·b clamped at 0, integer power,
//     tanh) fused into the epilogue; float32 accumulation like SGEMM.
//   - sq_norms: squared row norms.
//   - dict_partial + dict_reduce: DictProducts for up to 8 vectors in one
//     pass over the dictionary; float32 runs of 16 products per thread added
//     into float64, float64 block reductions, chunks summed in a fixed order
//     (results are deterministic).
//   - rank_update: d ← d + α Σ u_t v_tᵀ.
//   - vec_partial (with dict_reduce), vec_combine, block_row_f64,
//     sign_mismatch: the float64 vectors of backend.ResidentVectors —
//     products of a resident block's rows (or of float64 vectors) with up to
//     8 float64 vectors, summed in float64; y ← βy + Σ c_t a_t; a block row
//     into a vector; the count of sign mismatches.
//   - smo_sub: the batched SVM solver's subproblem (backend.SubproblemSolver,
//     SolveSubproblem): the whole inner SMO over a working set of up to a
//     few thousand variables in one launch of one block, its m×m float64
//     kernel block, labels, bounds, gradient and α uploaded once; each step
//     is two block-wide reductions and a parallel gradient update, in the
//     host's operations and order with the roundings spelled out
//     (__dadd_rn, __dmul_rn), so α, the gradient and the step count are
//     backend.SolveSubproblemRef's bit for bit.
//   - svm_block, svm_update: the batched SVM solver's rows kept on the
//     device (backend.SVMDevice, NewSVMPool): its working sets' kernel rows
//     are computed by kernel_block into a pool of row slots and stay there;
//     svm_block builds the subproblem's float64 block from them (the upper
//     triangle from the rows, mirrored, as the host builds it) for smo_sub,
//     and svm_update adds the working set's weighted rows to every
//     variable's gradient, row after row in the host's rounding. An outer
//     iteration moves the working set's indices and weights and the
//     gradient, never the rows.
//   - csr_kernel, csr_sq_norms, csr_densify_t, dense_densify_t, fill_zero:
//     kernel blocks, gathers and norms with sparse (pursuit.CSR) operands
//     (sparse.go). One operand's CSR rows are streamed, one warp a row,
//     against the other's rows densified transposed in batches of up to
//     thousands, one lane a batch row; each value is the streamed row's
//     products summed with fmaf in the order of its non-zeros, the kernel
//     transform fused (the same bits for a value in every call, whatever
//     the batch). A sparse b is streamed, else the sparse a, as on the CPU.
//
// # Using it
//
// New opens the backend on a device (WithDevice picks one) and Available
// says whether one is usable and what it is. The plain backend.Backend
// methods work on host slices: each call copies its operands into scratch
// buffers that stay allocated on the device (grown when needed, freed by
// Close), runs the kernels and copies the result back. ScoredArgMax on host
// slices runs on the host, where the O(M) scan is cheaper than the copy.
//
// Algorithms that call repeatedly on the same data keep it on the device
// through the optional capabilities package backend declares, which the
// engine uses when the backend has them (algorithms never name this
// package):
//
//   - backend.Preparer: Prepare uploads X and its norms once;
//     KernelGatherPrepared ships only the indices when a is X itself (an
//     SMO batch of kernel rows: 8 bytes per row up, the rows down), or only
//     the gathered rows a[idx] otherwise.
//   - backend.ResidentBlock: KernelGatherBlock leaves the gathered block on
//     the device, where BlockProducts and BlockSqNorms reduce it: a
//     stochastic-KMP step (package kmp, through engine.GatherBlock) sends
//     s indices and its vectors and receives the products and norms, never
//     the s×l kernel values.
//   - backend.ResidentVectors: float64 vectors beside the blocks (the
//     fitter's residual, targets, chosen kernel rows and orthonormal basis),
//     multiplied with a block, dotted and combined on the device, so that a
//     stochastic-KMP step moves only O(s + n) numbers whatever l.
//
// Traffic counts the bytes every copy moves each way; the tagged tests print
// them.
//
// Sparse operands take the same methods: a prepared sparse matrix keeps
// its CSR (offsets, column indices, values) and norms on the device, and a
// gather of its own rows ships only the indices.
//
// Prepared dense matrices and blocks are packed row-major float32 matrices in
// device memory; Release frees one, and Close frees all of them with the
// context. All driver calls run on one goroutine locked to an OS thread,
// which owns the CUDA context, so a Backend may be used from any goroutine;
// calls are serialised.
package cuda
