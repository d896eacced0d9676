//go:build !amd64

package dot64

const useAsm = false

func dots16(dots, zt []float64, ldz int, idx []int32, val []float64) {
	dotsGo(dots[:16], zt, 0, ldz, idx, val)
}
