package backend

import (
	"math"

	"github.com/pursuit-ml/pursuit"
)

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

// SubproblemSolver is the optional capability of solving the subproblem of
// a batched SVM solver's working set where the backend computes (on a
// device, in one launch, with no host round trip per step).
// SolveSubproblem is SolveSubproblemRef, with its results bit for bit.
type SubproblemSolver interface {
	SolveSubproblem(kb, y, c, g, a []float64, eps float64, limit int) (int, error)
}

// SolveSubproblemRef solves the dual over m = len(g) variables, the others
// fixed, by SMO with Fan, Chen & Lin's second-order working-set selection,
// on the m×m kernel block kb (row-major) with labels y (±1), bounds c,
// gradient g and α a; g and a are updated in place. Each step takes i, the
// last variable of I_up with the largest −y_i g_i, and j, the last of I_low
// with the smallest −diff²/quad (quad clamped at SMOTau), and LIBSVM's
// clipped pair step. It stops when the violation falls below
// max(eps, gap₀/10), gap₀ the violation before the first step (ThunderSVM's
// local tolerance), when no pair is left, or after limit steps, and returns
// the steps taken.
func SolveSubproblemRef(kb, y, c, g, a []float64, eps float64, limit int) int {
	m := len(g)
	kb, y, c, a = kb[:m*m], y[:m], c[:m], a[:m]
	inUp := func(i int) bool {
		if y[i] > 0 {
			return a[i] < c[i]
		}
		return a[i] > 0
	}
	inLow := func(i int) bool {
		if y[i] > 0 {
			return a[i] > 0
		}
		return a[i] < c[i]
	}
	tol := eps
	steps := 0
	for ; steps < limit; steps++ {
		gmax, imax := math.Inf(-1), -1
		for i := range m {
			if inUp(i) {
				if v := -y[i] * g[i]; v >= gmax {
					gmax, imax = v, i
				}
			}
		}
		gmax2, jmin, objMin := math.Inf(-1), -1, math.Inf(1)
		for j := range m {
			if !inLow(j) {
				continue
			}
			yg := y[j] * g[j]
			if yg >= gmax2 {
				gmax2 = yg
			}
			if imax < 0 {
				continue
			}
			if diff := gmax + yg; diff > 0 {
				quad := kb[imax*m+imax] + kb[j*m+j] - 2*kb[imax*m+j]
				if quad <= 0 {
					quad = SMOTau
				}
				if o := -diff * diff / quad; o <= objMin {
					objMin, jmin = o, j
				}
			}
		}
		gap := gmax + gmax2
		if steps == 0 {
			tol = math.Max(eps, gap/10)
		}
		if imax < 0 || jmin < 0 || gap < tol {
			break
		}
		i, j := imax, jmin
		oldI, oldJ := a[i], a[j]
		ai, aj := PairStep(y[i], y[j], g[i], g[j], oldI, oldJ, c[i], c[j], kb[i*m+i]+kb[j*m+j]-2*kb[i*m+j])
		a[i], a[j] = ai, aj
		wi, wj := y[i]*(ai-oldI), y[j]*(aj-oldJ)
		ri, rj := kb[i*m:(i+1)*m], kb[j*m:(j+1)*m]
		for t := range m {
			// The conversions round each product: no fused multiply-add
			// (a device computes the same bits).
			g[t] += float64(y[t] * float64(float64(wi*ri[t])+float64(wj*rj[t])))
		}
	}
	return steps
}

// PairStep solves the two-variable subproblem on (i, j): labels yi, yj,
// gradients gi, gj, current values ai, aj, bounds ci, cj and curvature
// quad = Q_ii + Q_jj − 2 K_ij (SMOTau when not positive). It returns the new
// α_i, α_j: LIBSVM's clipped step, analytic and
// in float64 (no fused multiply-add can change it).
func PairStep(yi, yj, gi, gj, ai, aj, ci, cj, quad float64) (float64, float64) {
	if quad <= 0 {
		quad = SMOTau
	}
	if yi != yj {
		delta := (-gi - gj) / quad
		diff := ai - aj
		ai += delta
		aj += delta
		if diff > 0 {
			if aj < 0 {
				aj, ai = 0, diff
			}
		} else if ai < 0 {
			ai, aj = 0, -diff
		}
		if diff > ci-cj {
			if ai > ci {
				ai, aj = ci, ci-diff
			}
		} else if aj > cj {
			aj, ai = cj, cj+diff
		}
		return ai, aj
	}
	delta := (gi - gj) / quad
	sum := ai + aj
	ai -= delta
	aj += delta
	if sum > ci {
		if ai > ci {
			ai, aj = ci, sum-ci
		}
	} else if aj < 0 {
		aj, ai = 0, sum
	}
	if sum > cj {
		if aj > cj {
			aj, ai = cj, sum-cj
		}
	} else if ai < 0 {
		ai, aj = 0, sum
	}
	return ai, aj
}

// SVMDevice is the optional capability of keeping a batched SVM solver's
// per-iteration work where the backend computes (a device): the working
// set's kernel rows stay in a pool of row slots there, the subproblem's
// block is gathered from them and solved there, and the gradient of every
// variable is updated from them there, so that an outer iteration moves
// O(q + n) numbers across the bus instead of q rows of n values each way.
// Every result is the host's bit for bit: the rows are the backend's
// KernelGatherPrepared values, the block is built as the host builds it,
// the subproblem is SolveSubproblemRef and the update SMOAddScaledRef for
// each row in turn.
type SVMDevice interface {
	// NewSVMPool makes a pool of slots rows of x's kernel values for a
	// problem of len(y) variables with labels y; kidx maps variables to
	// the points of x (nil: variable t is point t).
	NewSVMPool(x Prepared, k pursuit.Kernel, slots int, y []float64, kidx []int) (SVMPool, error)
}

// SVMPool is a batched SVM solver's device pool (SVMDevice).
type SVMPool interface {
	// Fill computes the kernel rows of the points idx of x into the
	// slots (len(slots) == len(idx)).
	Fill(slots, idx []int) error
	// Solve builds the m×m block kb[i][j] = kb[j][i] = row(slot_i)[key_j]
	// (j ≥ i, the float32 values widened) and runs SolveSubproblemRef on it
	// with the set's y, c, g and a (updated in place); it returns the steps.
	Solve(slots, keys []int, y, c, g, a []float64, eps float64, limit int) (int, error)
	// Update adds (w_r·y_t)·row(slot_r)[k(t)] to g[t] for r in order, for
	// every variable t (k(t) the variable's point); g is the whole
	// gradient, sent and returned.
	Update(slots []int, w []float64, g []float64) error
	// Release frees the pool; using it afterwards is an error.
	Release() error
}
