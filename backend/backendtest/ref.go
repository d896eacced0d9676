package backendtest

import (
	"math"

	"github.com/pursuit-ml/pursuit"
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
func statsGrid(a pursuit.Matrix, aRows []int, b pursuit.Matrix) [][]pairStats {
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
func refKernel(k pursuit.Kernel, p pairStats) (val, tol float64) {
	eDot := 2 * (float64(p.d) + 4) * u * p.abs
	var deriv, eArg, degree float64
	switch k.Kind {
	case pursuit.Linear:
		val = p.dot
		deriv, eArg = 1, eDot
	case pursuit.Polynomial:
		t := k.Gamma*p.dot + k.Coef0
		val = math.Pow(t, float64(k.Degree))
		eArg = k.Gamma*eDot + 4*u*(k.Gamma*math.Abs(p.dot)+math.Abs(k.Coef0))
		degree = float64(k.Degree)
		deriv = degree * math.Pow(math.Abs(t)+eArg, degree-1)
	case pursuit.Sigmoid:
		t := k.Gamma*p.dot + k.Coef0
		val = math.Tanh(t)
		eArg = k.Gamma*eDot + 4*u*(k.Gamma*math.Abs(p.dot)+math.Abs(k.Coef0))
		deriv = 1
	case pursuit.RBF:
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

// refSMOGradient is the definition of backend.SMOGradientRef, in two
// passes: the update, then the maximum of up·g over the non-NaN products
// and the last index equal to it.
func refSMOGradient(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64) {
	for a := range g {
		t := float64(wi*float64(qi[a])) + float64(wj*float64(qj[a]))
		g[a] += float64(y[a] * t)
	}
	return lastExtreme(len(g), func(a int) float64 { return up[a] * g[a] }, math.Inf(-1), func(v, m float64) bool { return v > m })
}

// refSMOSelect is the definition of backend.SMOSelectRef: the objectives of
// the candidates (diff > 0), their minimum and the last index equal to it,
// and the maximum of low·g over the non-NaN products.
func refSMOSelect(low, g, qd []float64, qi []float32, gmax, qdi float64) (int, float64, float64, []float64) {
	obj := make([]float64, len(g))
	for a := range g {
		obj[a] = math.NaN() // not a candidate
		diff := gmax + low[a]*g[a]
		if !(diff > 0) {
			continue
		}
		quad := (qdi + qd[a]) - 2*float64(qi[a])
		if quad <= 0 {
			quad = backend.SMOTau
		}
		obj[a] = float64(-diff*diff) / quad
	}
	j, o := lastExtreme(len(g), func(a int) float64 { return obj[a] }, math.Inf(1), func(v, m float64) bool { return v < m })
	_, lm := lastExtreme(len(g), func(a int) float64 { return low[a] * g[a] }, math.Inf(-1), func(v, m float64) bool { return v > m })
	for a, v := range obj {
		if v != v {
			obj[a] = math.Inf(1)
		}
	}
	return j, o, lm, obj
}

// lastExtreme returns the extreme (under better) of the non-NaN values
// v(a), a < n, and the last a whose value equals it; (−1, none) when every
// value is NaN. Equal values of opposite zero sign count as equal, and the
// value returned is the chosen index's.
func lastExtreme(n int, v func(int) float64, none float64, better func(v, m float64) bool) (int, float64) {
	m, found := none, false
	for a := range n {
		if x := v(a); x == x && (!found || better(x, m)) {
			m, found = x, true
		}
	}
	k := -1
	for a := range n {
		if v(a) == m && found {
			k = a
		}
	}
	if k < 0 {
		return -1, none
	}
	return k, v(k)
}

// refSMOAddScaled is the definition of backend.SMOAddScaledRef.
func refSMOAddScaled(dst, y []float64, row []float32, w float64) {
	for a := range dst {
		dst[a] += float64(w*y[a]) * float64(row[a])
	}
}
