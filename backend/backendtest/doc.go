// Package backendtest is the conformance suite and the benchmark set that
// every backend.Backend implementation runs: the pure-Go backend in package
// backend, the AVX2 backend in package asm and the CUDA backend in package
// cuda.
//
// # Conformance
//
// Run compares every operation of a Backend with a straightforward float64
// reference written here (plain loops, no blocking) on awkward shapes — 0, 1,
// primes and sizes that are not multiples of 8, 16 or 32 in every dimension —
// on unaligned views (a Stride larger than Cols and Data starting at an odd
// element), with NaN guard bands around every output (checked untouched
// afterwards) and NaN padding inside the input views (any read outside a
// view poisons the result). It also checks that inputs are left unmodified
// and that every invalid argument gives an error (wrapping pursuit.ErrShape
// for shapes) rather than a panic. Use it from the backend's own tests:
//
//	func TestConformance(t *testing.T) {
//		be, err := asm.New()
//		if err != nil {
//			t.Skip(err)
//		}
//		backendtest.Run(t, be)
//	}
//
// # Tolerances
//
// Backends store matrices in float32, so results are compared with bounds
// derived from float32 rounding (u = 2⁻²⁴) rather than a fixed epsilon. With
// S = Σ|a_i·b_i| the scale of an inner product of length d:
//
//   - Inner products computed in float32 in any order (sequential, blocked,
//     pairwise, with or without FMA) are within (d−1)·u·S of the exact value;
//     the suite allows eDot = 2·(d+4)·u·S.
//   - Kernel values allow |f′|·eArg + (8 + 2·degree)·u·|K| + 1e-30, where eArg
//     is the error of the kernel's argument and |f′| bounds the derivative of
//     the transform over [arg−eArg, arg+eArg]: linear eArg = eDot; polynomial
//     and sigmoid eArg = γ·eDot + 4u·(γ|x·z| + |c0|); RBF eArg =
//     γ·(4·(d+4)·u·(‖a‖²+‖b‖²) + 4u·dist), which also covers squared norms
//     accumulated in float32 and the cancellation in ‖a‖²+‖b‖²−2a·b. The
//     relative term allows a float32 exp/tanh/pow of a few ulps. RBF values
//     must moreover lie in [0, 1]: the clamp of the distance at 0 is checked
//     on pairs of equal rows.
//   - DictProducts must accumulate in float64, possibly after float32 runs of
//     at most 32 products: tolerance (64·u + d·2⁻⁵²)·S. The suite includes a
//     dimension-10000 case (a constant 0.1 vector against a row of ones) on
//     which plain float32 accumulation is off by far more than that.
//   - RankUpdate: 2·(k+4)·u·(|d_ij| + |α|·Σ_t|u_ti·v_tj|) per element.
//   - SqNorms: 2·(d+4)·u·‖x‖².
//   - ScoredArgMax: the same index as the reference (the inputs avoid near
//     ties; exact ties must go to the smallest index) and the score within
//     1e-12 relative.
//
// # Benchmarks
//
// Bench runs the standard benchmark set as sub-benchmarks — RBF kernel
// blocks (1024×1024×256 and 4096×4096×256) reported in GFLOP/s with
// flops = 2·n·m·d, gathered kernel rows, DictProducts on an 8192×8192
// dictionary for k = 1, 2, 4, 8 in GB/s of dictionary read, and rank-1 and
// rank-8 updates of an 8192×8192 matrix in GB/s of the matrix read+written. Each size is allocated
// only when its sub-benchmark runs, so a -bench filter keeps memory small.
// Every benchmark also reports the same work per CPU-second of the process
// (GFLOP/cpu-s, GB/cpu-s): on a machine shared with other jobs the wall-clock
// rate falls with the load, while the CPU-time rate of a single-threaded
// backend stays near its unloaded speed (for a multi-threaded one it is the
// rate per busy core).
// From another backend's package:
//
//	func BenchmarkAVX2(b *testing.B) {
//		be, err := asm.New(asm.WithThreads(1))
//		if err != nil {
//			b.Skip(err)
//		}
//		backendtest.Bench(b, be)
//	}
//
//	go test -run '^$' -bench 'AVX2/KernelBlock' -benchtime 3x ./asm
//
// The single-operation helpers (BenchKernelBlock, BenchKernelGather,
// BenchDictProducts, BenchRankUpdate) take explicit sizes for custom sets.
// Compare backends as ratios measured in the same run (for example against
// backend.NewGo(1)), never as bare times.
package backendtest
