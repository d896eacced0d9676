//go:build amd64 && !purego

package asm

// Go declarations of the hand-written assembly kernels (pack, argmax and
// poly_amd64.s); the generated ones (asm/_gen) are declared beside their .s.
// Lengths n are multiples of 8 unless stated; the wrappers in
// kernels_amd64.go check bounds and handle the remainders.

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
