package bpdn

import "math"

// warmStart is the first phase: coordinate descent with soft thresholding
// on a for a fixed multiplier ν of Σa = 0,
//
//	a_i ← clip(S(y_i − ν − Σ_{j≠i} K_ij a_j, ε) / K_ii, −C, C),
//
// and a search on ν for Σa(ν) = 0 (Σa(ν) is continuous and non-increasing:
// raising ν lowers every effective target y − ν), by bracketing and Illinois
// regula falsi. Its answer is approximate — a start for the exact
// active-set phase — and the work it does is bounded (about 5·10⁸
// multiply-adds). It returns a, the sweeps and the number of ν tried.
func warmStart(n int, k, y []float64, eps, c float64) ([]float64, int, int) {
	a := make([]float64, n)
	ka := make([]float64, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range y {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	scale := math.Max(1, math.Max(math.Abs(lo), math.Abs(hi)))
	budget := int(math.Min(2000, math.Max(50, 5e8/float64(n)/float64(n))))
	perEval := min(30, budget)
	sweeps, evals := 0, 0
	// solve runs coordinate descent for ν and returns Σa.
	solve := func(nu float64) float64 {
		evals++
		for range perEval {
			if sweeps >= budget {
				break
			}
			sweeps++
			var moved float64
			for i := range n {
				row := k[i*n : (i+1)*n]
				kii := row[i]
				z := y[i] - nu - (ka[i] - kii*a[i])
				var v float64
				switch {
				case z > eps:
					v = (z - eps) / kii
				case z < -eps:
					v = (z + eps) / kii
				}
				v = math.Max(-c, math.Min(c, v))
				if d := v - a[i]; d != 0 {
					for j, kv := range row {
						ka[j] += d * kv
					}
					a[i] = v
					moved = math.Max(moved, math.Abs(d)*kii)
				}
			}
			if moved <= 1e-8*scale {
				break
			}
		}
		var s float64
		for _, v := range a {
			s += v
		}
		return s
	}
	small := func(s float64) bool {
		var l1 float64
		for _, v := range a {
			l1 += math.Abs(v)
		}
		return math.Abs(s) <= 1e-8*(1+l1)
	}
	nu0 := (lo + hi) / 2
	s0 := solve(nu0)
	if small(s0) || sweeps >= budget {
		return a, sweeps, evals
	}
	// Bracket the root: Σa > 0 means ν is too small.
	h := math.Max(eps, 0.05*(hi-lo)) + 1e-12*scale
	dir := 1.0
	if s0 < 0 {
		dir = -1
	}
	nu1, s1 := nu0, s0
	for range 60 {
		nu0, s0 = nu1, s1
		nu1 = nu0 + dir*h
		s1 = solve(nu1)
		if small(s1) || sweeps >= budget {
			return a, sweeps, evals
		}
		if (s1 > 0) != (s0 > 0) {
			break
		}
		h *= 2
	}
	if (s1 > 0) == (s0 > 0) {
		return a, sweeps, evals
	}
	// Illinois regula falsi on [nu0, nu1].
	side := 0
	for range 60 {
		nu := (nu0*s1 - nu1*s0) / (s1 - s0)
		s := solve(nu)
		if small(s) || sweeps >= budget || nu == nu0 || nu == nu1 {
			break
		}
		if (s > 0) == (s1 > 0) {
			nu1, s1 = nu, s
			if side == 1 {
				s0 /= 2
			}
			side = 1
		} else {
			nu0, s0 = nu, s
			if side == -1 {
				s1 /= 2
			}
			side = -1
		}
	}
	return a, sweeps, evals
}
