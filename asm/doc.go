// Package asm is Pursuit's AVX2/FMA backend: a backend.Backend (Name
// "avx2") that is the one CPU driver of package backend (backend.CPU:
// blocking, packing, threading, prepared operands) fed with a table of
// amd64 assembly kernels, generated with avo by asm/_gen (`go generate
// ./asm`; a module of its own, so avo is no dependency of pursuit): one
// template per family instantiates the AVX2 / AVX-512 twins, the k-variants
// and the role swaps, and CI checks that the committed FAMILY_amd64.s and
// their Go declarations FAMILY_amd64.go regenerate byte for byte
// (scripts/asm-gen.sh). This package holds only those generated files, the
// wrappers, the kernel table and the options. The engine selects it when
// Available reports true.
//
// What runs in assembly:
//
//   - DictProducts and SqNorms (dots_amd64.s): the dictionary is processed
//     in blocks of 16 rows × 1024 columns so that the vectors' pieces stay in
//     L1; kernels stream 4 rows against 1 or 2 vectors, or 2 rows against 4
//     vectors (with AVX-512F: 4 rows × 4 vectors and 2 rows × 8 vectors),
//     prefetching the rows ahead, with fused multiply-adds
//     into independent float32 accumulators that are widened and added into
//     float64 every 256 elements (so every float32 run is at most 32
//     products long). Other k are grouped (with AVX2 8 = 4 + 4; 7 = 4 + 2 +
//     1) while the rows are in cache: the dictionary is read from memory
//     once.
//   - RankUpdate (axpy_amd64.s): four rows of d at a time get
//     Σ_t (α u_t[i]) v_t in one load and one store, for any k.
//   - KernelBlock and KernelGather (sgemm_amd64.s): a
//     register-blocked SGEMM micro-kernel — 6×16 tiles with 12 ymm
//     accumulators (AVX2), or 12×32 tiles with 24 zmm accumulators where the
//     CPU has AVX-512F — on packed panels (kc = 256, mc = 144, nc = 1024;
//     B panels through an AVX2 8×8 transposing copy, pack_amd64.s), threads
//     splitting the longer output dimension into chunks. Right
//     after a tile's last block it is transformed while in L1: RBF
//     exp(−γ·max(‖a‖²+‖b‖²−2a·b, 0)) with a vectorised exp (exp_amd64.s)
//     and the polynomial (γ a·b + c0)^p (poly_amd64.s).
//     The sigmoid's tanh is applied in Go (float64 math.Tanh) on the tile,
//     which makes sigmoid blocks slower than the others. Unprepared blocks
//     with at most 8 rows skip the GEMM and use the DictProducts kernels:
//     one pass over b, no packing.
//   - Prepare (backend.Preparer) packs a b operand once into those B panels
//     for all of its rows (an SMO solver's X); KernelBlockPrepared and
//     KernelGatherPrepared then read the panels instead of packing b again
//     on every call, and always take the GEMM, so that every value is the
//     same whatever rows it is computed with (the results of blocks of more
//     than 8 rows are the plain calls' bit for bit).
//
// The SMO scans (smo_amd64.s: backend.SMOScanner) take four variables per
// instruction in two groups of lanes, with the references' operations in
// their order and no fused multiply-adds, so the results are theirs bit for
// bit; each lane keeps its best and last index, reduced in Go.
//
// ScoredArgMax (argmax_amd64.s) scores four candidates per instruction
// (sqrt and divide, so the scores equal backend.ScoredArgMaxRef's exactly)
// and keeps a best score and index per lane.
//
// # Vectorised exp
//
// exp(x) = 2ⁿ·p(r) with n = round(x·log₂e), r = x − n·ln2 in two
// Cody–Waite steps, and p a degree-6 polynomial (the Chebyshev interpolant
// of eʳ on [−ln2/2, ln2/2], coefficients rounded to float32). Its maximum
// relative error over the RBF input range x ∈ [−87.34, 0] is 9.1e-8
// (1.52 units of 2⁻²⁴, at x ≈ −59.26) against math.Exp over every float32
// in [−88, 0] (PURSUIT_EXP_EXHAUSTIVE=1, both the AVX2 and AVX-512
// versions); the default TestExpAccuracy checks every 61st float32 against
// the bound 2·2⁻²⁴.
// Inputs below −126·ln2 ≈ −87.3365 give exactly +0 (no subnormals), −∞
// gives 0, and NaN stays NaN; no other input x ≤ 0 gives NaN. Positive
// inputs are outside its domain (the RBF argument is never positive).
//
// # Selection and forcing paths
//
// New fails, wrapping ErrUnavailable, unless the build has assembly (amd64
// without the purego tag) and the CPU reports AVX2 and FMA3
// (klauspost/cpuid). Options mask features the way klauspost/reedsolomon
// does: WithAVX2(false) or WithFMA(false) run the same blocking and
// threading code with the pure-Go kernel table (backend.GoKernels, the
// pure-Go backend's; how the tests exercise both paths on one machine, and
// what the purego build runs in tests); WithAVX512(false) keeps to AVX2 where AVX-512F kernels exist
// (GEMM, RBF transform, 4- and 8-vector dictionary products). WithThreads
// sets the goroutines per operation.
package asm

//go:generate go -C _gen run . ..
