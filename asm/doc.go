// Package asm is Pursuit's AVX2/FMA backend: a backend.Backend whose hot
// loops run in hand-written amd64 assembly (Plan 9 syntax, one commented
// block per step) while blocking, packing and threading stay in Go.
//
// What runs in assembly (files *_amd64.s):
//
//   - DictProducts and SqNorms: one pass over the dictionary with fused
//     multiply-adds into several independent float32 accumulators per vector,
//     flushed into float64 partial sums every 512 elements (dots_amd64.s), for
//     k = 1, 2, 4 and 8 vectors; other k are grouped from those while the
//     dictionary row is still in cache, so the dictionary is read once.
//   - RankUpdate: d_i ← d_i + Σ_t (α u_t[i]) v_t row by row, for any k in one
//     pass (axpy_amd64.s).
//   - KernelBlock and KernelGather: a 6×16 register-blocked SGEMM micro-kernel
//     (12 ymm accumulators, broadcast + FMA) on packed panels (sgemm_amd64.s),
//     followed, on each 6×16 tile while it is in L1, by the RBF transform
//     exp(−γ max(‖a‖²+‖b‖²−2a·b, 0)) with a vectorised exp (exp_amd64.s).
//     Polynomial and sigmoid kernels apply (γ a·b + c0)^p and tanh in Go on
//     the same tile (float64 math), which is slower than the RBF path.
//
// ScoredArgMax is O(M) and not hot; it uses backend.ScoredArgMaxRef.
//
// # Vectorised exp
//
// exp(x) = 2^n · p(r) with n = round(x·log₂e), r = x − n·ln2 in two
// Cody–Waite steps, and p a degree-6 polynomial (Chebyshev interpolant of
// e^r on [−ln2/2, ln2/2], coefficients rounded to float32). Inputs below
// −126·ln2 ≈ −87.3365 return exactly 0 (no subnormals), and NaN propagates.
// The measured maximum relative error over x ∈ [−87.3, 0] is stated and
// checked in TestExpAccuracy (about 2 ulp; see expMaxRelErr).
//
// # Selection and forcing paths
//
// New fails unless the build has assembly (amd64 without the purego tag) and
// the CPU reports AVX2 and FMA3 (klauspost/cpuid). WithAVX2(false) or
// WithFMA(false) mask those features the way klauspost/reedsolomon does: the
// backend then runs the same blocking and threading code with the pure-Go
// twin of each kernel, which is how the tests exercise both paths on one
// machine and how the purego build is tested.
package asm
