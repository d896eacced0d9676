package slmc

import "gonum.org/v1/gonum/floats"

// axpy adds w·x to dst[:len(x)], each product rounded before it is added
// (gonum's SSE2 kernel multiplies and adds separately), as the scalar sums
// over sparse rows do.
func axpy(dst []float64, w float64, x []float64) {
	floats.AddScaled(dst[:len(x)], w, x)
}
