//go:build amd64 && !purego

package asm

// Go declarations of the assembly kernels (the *_amd64.s files). Lengths n
// are multiples of 8 unless stated; the wrappers in kernels_amd64.go check
// bounds and handle the remainders.

// dot1AVX adds the 4 lane sums of Σ x[i]·v[i] (i < n) into acc[0:4].
//
//go:noescape
func dot1AVX(x, v *float32, n int, acc *float64)

// dot4AVX does the same for 4 vectors v_j at v + j·vs (vs in elements),
// adding into acc[4j : 4j+4]; it prefetches the v_j ahead.
//
//go:noescape
func dot4AVX(x, v *float32, vs, n int, acc *float64)

// dot4r2AVX and dot2r4AVX take 4 and 2 rows x_r = x + r·xs and 2 and 4
// vectors v_j = v + j·vs, adding the lane sums of <x_r, v_j> into
// acc[4(r·k+j) : 4(r·k+j)+4]. (4 rows × 1 vector is dot4AVX with the roles
// swapped.)
//
//go:noescape
func dot4r2AVX(x *float32, xs int, v *float32, vs, n int, acc *float64)

//go:noescape
func dot2r4AVX(x *float32, xs int, v *float32, vs, n int, acc *float64)

// dot4r4AVX512 and dot2r8AVX512 are the AVX-512F kernels for 4 rows × 4
// vectors and 2 rows × 8 vectors, with the same acc layout; n is a multiple
// of 16.
//
//go:noescape
func dot4r4AVX512(x *float32, xs int, v *float32, vs, n int, acc *float64)

//go:noescape
func dot2r8AVX512(x *float32, xs int, v *float32, vs, n int, acc *float64)

// axpyAVX adds Σ_{t<k} c[t]·v[t·vs+i] to d[i] for i < n.
//
//go:noescape
func axpyAVX(d *float32, n int, c *float32, k int, v *float32, vs int)

// axpy4AVX adds Σ_{t<k} c[4t+r]·v[t·vs+i] to d[r·ds+i] for r < 4, i < n.
//
//go:noescape
func axpy4AVX(d *float32, ds, n int, c *float32, k int, v *float32, vs int)

// sgemm6x16AVX computes the 6×16 tile c (row stride ldc elements) = a·bᵀ,
// or adds it to c when accumulate is set; a is kc×6 and b kc×16, packed by p.
//
//go:noescape
func sgemm6x16AVX(kc int, a, b, c *float32, ldc int, accumulate bool)

// sgemm12x32AVX512 is the AVX-512F micro-kernel for 12×32 tiles, with the
// same contract as sgemm6x16AVX.
//
//go:noescape
func sgemm12x32AVX512(kc int, a, b, c *float32, ldc int, accumulate bool)

// rbfAVX replaces each value t of the rows×16 tile c (stride ldc) by
// exp(negGamma·max(an[i]+bn[j]−2t, 0)).
//
//go:noescape
func rbfAVX(c *float32, ldc, rows int, an, bn *float32, negGamma float32)

// rbfAVX512 is rbfAVX for rows×32 tiles with AVX-512F.
//
//go:noescape
func rbfAVX512(c *float32, ldc, rows int, an, bn *float32, negGamma float32)

// expAVX512 is expAVX with AVX-512F; n is a multiple of 16.
//
//go:noescape
func expAVX512(dst, src *float32, n int)

// polyAVX replaces each value t of the rows×cols tile c (stride ldc, cols a
// multiple of 8) by (gamma·t + coef0)^degree, degree ≥ 1.
//
//go:noescape
func polyAVX(c *float32, ldc, rows, cols int, gamma, coef0 float32, degree int)

// scoredArgMaxAVX computes per-lane (k mod 4) best scores and indices for
// ScoredArgMax over k < m (a multiple of 4); skip may be nil.
//
//go:noescape
func scoredArgMaxAVX(s, n *float64, skip *bool, m int, best *float64, bestIdx *int64)

// pack8AVX sets dst[p·ds+r] = src[r·ss+p] for r < 8 and p < kc (a multiple
// of 8).
//
//go:noescape
func pack8AVX(dst *float32, ds int, src *float32, ss, kc int)

// expAVX sets dst[i] = exp(src[i]) for i < n.
//
//go:noescape
func expAVX(dst, src *float32, n int)
