//go:build !amd64

package slmc

// axpy adds w·x to dst[:len(x)], each product rounded before it is added
// (the conversion keeps the compiler from fusing them), as the scalar sums
// over sparse rows do.
func axpy(dst []float64, w float64, x []float64) {
	dst = dst[:len(x)]
	for j, v := range x {
		dst[j] += float64(w * v)
	}
}
