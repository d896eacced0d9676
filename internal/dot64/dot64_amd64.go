package dot64

import "github.com/klauspost/cpuid/v2"

// useAsm: the AVX2 kernel (VMULPD then VADDPD: the products rounded, as
// dotsGo) runs where the processor has AVX2.
var useAsm = cpuid.CPU.Supports(cpuid.AVX2)

// dots16AVX2 writes the sixteen sums of Dots for the columns zt[0:16] of a
// row-major matrix with ldz values a row; n entries of idx and val.
//
//go:noescape
func dots16AVX2(dots *float64, zt *float64, ldz int, idx *int32, val *float64, n int)

func dots16(dots, zt []float64, ldz int, idx []int32, val []float64) {
	if len(idx) == 0 {
		clear(dots[:16])
		return
	}
	dots16AVX2(&dots[0], &zt[0], ldz, &idx[0], &val[0], len(idx))
}
