package kmp

import "math"

// lossValue returns L(y, f).
func lossValue(l Loss, y, f float64) float64 {
	switch l {
	case Tanh:
		d := math.Tanh(f) - TanhTarget*y
		return d * d
	case Logistic:
		// log(1 + e^{−m}) computed without overflow.
		m := y * f
		if m > 0 {
			return math.Log1p(math.Exp(-m))
		}
		return -m + math.Log1p(math.Exp(m))
	case Exponential:
		return math.Exp(-y * f)
	}
	d := f - y
	return 0.5 * d * d
}

// lossDeriv returns ∂L(y, f)/∂f.
func lossDeriv(l Loss, y, f float64) float64 {
	switch l {
	case Tanh:
		t := math.Tanh(f)
		return 2 * (t - TanhTarget*y) * (1 - t*t)
	case Logistic:
		m := y * f
		// −y σ(−m)
		if m > 0 {
			e := math.Exp(-m)
			return -y * e / (1 + e)
		}
		return -y / (1 + math.Exp(m))
	case Exponential:
		return -y * math.Exp(-y*f)
	}
	return f - y
}

// lossDeriv2 returns ∂²L(y, f)/∂f² (used by the line search).
func lossDeriv2(l Loss, y, f float64) float64 {
	switch l {
	case Tanh:
		t := math.Tanh(f)
		s := 1 - t*t
		// d/df [2(t − a)s] = 2 s² + 2(t − a)(−2 t s)
		return 2*s*s - 4*(t-TanhTarget*y)*t*s
	case Logistic:
		m := y * f
		var p float64 // σ(m)
		if m > 0 {
			p = 1 / (1 + math.Exp(-m))
		} else {
			e := math.Exp(m)
			p = e / (1 + e)
		}
		return p * (1 - p) * y * y
	case Exponential:
		return y * y * math.Exp(-y*f)
	}
	return 1
}

// errorSum returns the summed error measure: for classification the number
// of points with sign(f) ≠ y (f = 0 counts as an error), for regression the
// sum of squared errors. meanOf(errorSum, n) is the error rate or MSE.
func errorSum(task Task, y, f []float64) float64 {
	var s float64
	for i, t := range y {
		if task == Regression {
			d := f[i] - t
			s += d * d
			continue
		}
		if !(f[i]*t > 0) {
			s++
		}
	}
	return s
}

// lossSum returns the sum of L(y_i, f_i).
func lossSum(l Loss, y, f []float64) float64 {
	var s float64
	for i, t := range y {
		s += lossValue(l, t, f[i])
	}
	return s
}

// residSums returns lossSum(l, y, f) and errorSum(task, y, f) for the
// outputs f = y − r, computed as each is summed instead of stored (the same
// f values, summed in the same order: the same sums; an l-long float64
// vector less).
func residSums(l Loss, task Task, y, r []float64) (loss, errs float64) {
	r = r[:len(y)]
	for i, t := range y {
		f := t - r[i]
		loss += lossValue(l, t, f)
		if task == Regression {
			d := f - t
			errs += d * d
		} else if !(f*t > 0) {
			errs++
		}
	}
	return loss, errs
}

// meanOf returns s/n, NaN for n = 0.
func meanOf(s float64, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}
