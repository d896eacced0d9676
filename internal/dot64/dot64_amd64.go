//go:build amd64 && !purego

package dot64

import "github.com/klauspost/cpuid/v2"

// useAsm: the AVX2 kernels (VMULPD then VADDPD: the products rounded, as
// dotsGo) run where the processor has AVX2.
var useAsm = cpuid.CPU.Supports(cpuid.AVX2)

// The kernels below compute the sums of Dots for the first 16, 8 or 4
// columns of zt (a row-major matrix with ldz values a row), over n entries
// of idx and val; they return 0 without finishing when an index is
// negative or not below limit (the rows of zt the kernel may read).

//go:noescape
func dots16AVX2(dots *float64, zt *float64, ldz int, idx *int32, val *float64, n, limit int) int

//go:noescape
func dots8x2AVX2(d0, d1 *float64, zt *float64, ldz int, idx *int32, v0, v1 *float64, n, limit int) int

//go:noescape
func dots4x4AVX2(d0, d1, d2, d3 *float64, zt *float64, ldz int, idx *int32, v0, v1, v2, v3 *float64, n, limit int) int

// dots16 writes dots[0:16] for one row; false if an index is out of range.
func dots16(dots, zt []float64, ldz int, idx []int32, val []float64, limit int) bool {
	_ = dots[15]
	return dots16AVX2(&dots[0], &zt[0], ldz, &idx[0], &val[0], len(idx), limit) != 0
}

// dots8x2 writes d0[0:8] and d1[0:8] for the rows v0 and v1.
func dots8x2(d0, d1, zt []float64, ldz int, idx []int32, v0, v1 []float64, limit int) bool {
	_, _ = d0[7], d1[7]
	return dots8x2AVX2(&d0[0], &d1[0], &zt[0], ldz, &idx[0], &v0[0], &v1[0], len(idx), limit) != 0
}

// dots4x4 writes dots[r][c0:c0+4] for the four rows val[r]; zt starts at
// column c0.
func dots4x4(dots *[4][]float64, zt []float64, c0, ldz int, idx []int32, val *[4][]float64, limit int) bool {
	d0, d1, d2, d3 := dots[0][c0:c0+4], dots[1][c0:c0+4], dots[2][c0:c0+4], dots[3][c0:c0+4]
	return dots4x4AVX2(&d0[0], &d1[0], &d2[0], &d3[0], &zt[0], ldz, &idx[0],
		&val[0][0], &val[1][0], &val[2][0], &val[3][0], len(idx), limit) != 0
}
