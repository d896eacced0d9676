//go:build !amd64 || purego

package dot64

const useAsm = false

func dots16(dots, zt []float64, ldz int, idx []int32, val []float64, limit int) bool {
	panic("dot64: no kernel")
}

func dots8x2(d0, d1, zt []float64, ldz int, idx []int32, v0, v1 []float64, limit int) bool {
	panic("dot64: no kernel")
}

func dots4x4(dots *[4][]float64, zt []float64, c0, ldz int, idx []int32, val *[4][]float64, limit int) bool {
	panic("dot64: no kernel")
}
