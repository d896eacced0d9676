package backend

import "math"

// SMOScanner is an optional capability: the three scans of an SMO
// iteration over the solver's float64 state and a float32 kernel row, each
// one pass over the variables. The CPU backends implement it with the
// kernel table's SMO entries; the engine falls back to the references below
// for a backend without it. Every implementation must return what the
// references return, bit for bit (the same operations in the same order,
// no fused multiply-adds), so that a solver's iterations do not depend on
// the backend.
type SMOScanner interface {
	// SMOGradient is SMOGradientRef.
	SMOGradient(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64)
	// SMOSelect is SMOSelectRef.
	SMOSelect(low, g, qd []float64, qi []float32, gmax, qdi float64, obj []float64) (int, float64, float64)
	// SMOAddScaled is SMOAddScaledRef.
	SMOAddScaled(dst, y []float64, row []float32, w float64)
}

// SMOTau replaces a non-positive curvature in SMOSelect (LIBSVM's TAU).
const SMOTau = 1e-12

// SMOGradientRef adds y[a]·(wi·qi[a] + wj·qj[a]) to g[a] for every a <
// len(g) (the gradient update of a two-variable SMO step) and returns the
// last a maximising up[a]·g[a] over the updated g, with that value; (−1,
// −∞) when every up[a]·g[a] is NaN (a NaN up[a] excludes a). y, up, qi and
// qj hold at least len(g) values.
func SMOGradientRef(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64) {
	n := len(g)
	y, up, qi, qj = y[:n], up[:n], qi[:n], qj[:n]
	best, bestV := -1, math.Inf(-1)
	for a := range n {
		// The conversions round each product: no fused multiply-add.
		t := float64(wi*float64(qi[a])) + float64(wj*float64(qj[a]))
		ga := g[a] + float64(y[a]*t)
		g[a] = ga
		if v := up[a] * ga; v >= bestV {
			best, bestV = a, v
		}
	}
	return best, bestV
}

// SMOSelectRef is Fan, Chen and Lin's second-order choice of j for a chosen
// i with violation gmax, Q_ii = qdi and kernel row qi: over a < len(g) with
// yg = low[a]·g[a] and diff = gmax + yg > 0, it returns the last a
// minimising o = −diff²/quad, quad = qdi + qd[a] − 2·qi[a] (SMOTau when not
// positive), that minimum (−1, +∞ when no a has diff > 0), and the largest
// yg (−∞ when every yg is NaN; a NaN low[a] excludes a). low, qd and qi hold
// at least len(g) values. When obj is not nil (len(g) values at least), it
// also stores every a's o in obj[a], +∞ where diff ≤ 0 (for a caller that
// wants the runners-up too).
func SMOSelectRef(low, g, qd []float64, qi []float32, gmax, qdi float64, obj []float64) (int, float64, float64) {
	n := len(g)
	low, qd, qi = low[:n], qd[:n], qi[:n]
	if obj != nil {
		obj = obj[:n]
	}
	jmin, objMin, lowMax := -1, math.Inf(1), math.Inf(-1)
	for a := range n {
		yg := low[a] * g[a]
		if yg >= lowMax {
			lowMax = yg
		}
		if diff := gmax + yg; diff > 0 {
			quad := (qdi + qd[a]) - 2*float64(qi[a])
			if quad <= 0 {
				quad = SMOTau
			}
			o := float64(-diff*diff) / quad
			if o <= objMin {
				objMin, jmin = o, a
			}
			if obj != nil {
				obj[a] = o
			}
		} else if obj != nil {
			obj[a] = math.Inf(1)
		}
	}
	return jmin, objMin, lowMax
}

// SMOAddScaledRef adds w·y[a]·row[a] to dst[a] for every a < len(dst)
// (G-bar's update when a variable reaches or leaves its upper bound).
func SMOAddScaledRef(dst, y []float64, row []float32, w float64) {
	n := len(dst)
	y, row = y[:n], row[:n]
	for a := range n {
		dst[a] += float64(w*y[a]) * float64(row[a])
	}
}

var _ SMOScanner = (*CPU)(nil)

// SMOGradient runs the table's SMOGradient kernel (see SMOGradientRef).
func (b *CPU) SMOGradient(g, y, up []float64, qi, qj []float32, wi, wj float64) (int, float64) {
	return b.k.SMOGradient(g, y, up, qi, qj, wi, wj)
}

// SMOSelect runs the table's SMOSelect kernel (see SMOSelectRef).
func (b *CPU) SMOSelect(low, g, qd []float64, qi []float32, gmax, qdi float64, obj []float64) (int, float64, float64) {
	return b.k.SMOSelect(low, g, qd, qi, gmax, qdi, obj)
}

// SMOAddScaled runs the table's SMOAddScaled kernel (see SMOAddScaledRef).
func (b *CPU) SMOAddScaled(dst, y []float64, row []float32, w float64) {
	b.k.SMOAddScaled(dst, y, row, w)
}
