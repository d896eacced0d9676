package f32

// SqNorm returns Σ x_i² summed in float64 with four independent
// accumulators (so that the loop is not bound by the latency of one chain
// of additions), combined as (s0+s1)+(s2+s3).
func SqNorm(x []float32) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+3 < len(x); i += 4 {
		a, b, c, d := float64(x[i]), float64(x[i+1]), float64(x[i+2]), float64(x[i+3])
		s0 += a * a
		s1 += b * b
		s2 += c * c
		s3 += d * d
	}
	for ; i < len(x); i++ {
		a := float64(x[i])
		s0 += a * a
	}
	return (s0 + s1) + (s2 + s3)
}

// PowInt returns x^n for n ≥ 1 by repeated squaring (relative error below
// 2·log2(n)+1 float64 roundings, far below float32 resolution for the
// degrees kernels use).
func PowInt(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 != 0 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}
