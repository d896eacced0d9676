package backendtest

import (
	"math"

	"github.com/pursuit-ml/pursuit/backend"
)

// The float64 references and the error bounds of the package documentation.
// Everything here is deliberately plain: one loop per definition.

// u is the float32 unit roundoff.
const u = 1.0 / (1 << 24)

// pairStats are the float64 quantities every kernel of a pair of rows is
// computed from.
type pairStats struct {
	d                      int
	dot, abs, na, nb, dist float64 // x·z, Σ|x_i z_i|, ‖x‖², ‖z‖², ‖x−z‖²
}

func statsOf(a, b []float32) pairStats {
	p := pairStats{d: len(a)}
	for i := range a {
		x, z := float64(a[i]), float64(b[i])
		p.dot += x * z
		p.abs += math.Abs(x * z)
		p.na += x * x
		p.nb += z * z
		p.dist += (x - z) * (x - z)
	}
	return p
}

// statsGrid returns the stats of rows aRows of a against every row of b.
func statsGrid(a backend.Matrix, aRows []int, b backend.Matrix) [][]pairStats {
	g := make([][]pairStats, len(aRows))
	for r, i := range aRows {
		g[r] = make([]pairStats, b.Rows)
		for j := range b.Rows {
			g[r][j] = statsOf(a.Row(i), b.Row(j))
		}
	}
	return g
}

// refKernel returns the exact (float64) kernel value of a pair of rows and
// the tolerance a float32 backend is allowed on it.
func refKernel(k backend.Kernel, p pairStats) (val, tol float64) {
	eDot := 2 * (float64(p.d) + 4) * u * p.abs
	var deriv, eArg, degree float64
	switch k.Kind {
	case backend.Linear:
		val = p.dot
		deriv, eArg = 1, eDot
	case backend.Polynomial:
		t := k.Gamma*p.dot + k.Coef0
		val = math.Pow(t, float64(k.Degree))
		eArg = k.Gamma*eDot + 4*u*(k.Gamma*math.Abs(p.dot)+math.Abs(k.Coef0))
		degree = float64(k.Degree)
		deriv = degree * math.Pow(math.Abs(t)+eArg, degree-1)
	case backend.Sigmoid:
		t := k.Gamma*p.dot + k.Coef0
		val = math.Tanh(t)
		eArg = k.Gamma*eDot + 4*u*(k.Gamma*math.Abs(p.dot)+math.Abs(k.Coef0))
		deriv = 1
	case backend.RBF:
		val = math.Exp(-k.Gamma * p.dist)
		eDist := 4 * (float64(p.d) + 4) * u * (p.na + p.nb)
		eArg = k.Gamma * (eDist + 4*u*p.dist)
		deriv = math.Exp(-k.Gamma * math.Max(p.dist-eDist, 0))
	}
	tol = deriv*eArg + (8+2*degree)*u*math.Abs(val) + 1e-30
	return val, tol
}

// refSqNorm returns ‖x‖² and its tolerance.
func refSqNorm(x []float32) (val, tol float64) {
	for _, v := range x {
		val += float64(v) * float64(v)
	}
	return val, 2 * (float64(len(x)) + 4) * u * val
}

// refDict returns <d, v> in float64 and the DictProducts tolerance.
func refDict(d, v []float32) (val, tol float64) {
	var s float64
	for i := range d {
		p := float64(d[i]) * float64(v[i]) // exact: 24+24 bits
		val += p
		s += math.Abs(p)
	}
	return val, (64*u + float64(len(d))*0x1p-52) * s
}

// refScoredArgMax is the definition of backend.Backend.ScoredArgMax.
func refScoredArgMax(s, n []float64, skip []bool) (int, float64) {
	best, bestScore := -1, 0.0
	for k := range s {
		if !(n[k] > 0) || (skip != nil && skip[k]) {
			continue
		}
		score := math.Abs(s[k]) / math.Sqrt(n[k])
		if math.IsNaN(score) {
			continue
		}
		if best == -1 || score > bestScore {
			best, bestScore = k, score
		}
	}
	return best, bestScore
}

// within reports whether got is finite-or-equal and |got−want| ≤ tol.
func within(got, want, tol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol
}
