package slmc

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit/svm"
)

// InnerSolver chooses how SLMC's inner SVM (the C-SVC with bias on the
// explicit whitened features φ_z) is solved.
type InnerSolver int

const (
	// InnerAuto picks InnerWeights when the n×n matrix of the features'
	// inner products does not fit the SMO cache (SolverOptions.CacheMB:
	// n > 2,896 at the default 64 MiB) and n exceeds the interior-point
	// fallback's limit (1,000 points); InnerSMO otherwise. With every row
	// cached, an SMO iteration costs O(n); once rows fall out of the cache
	// each miss costs O(n·r) and the solve is bound by recomputed rows
	// (about 30 minutes per L-BFGS iteration at n = 50,000, r = 1,050),
	// while the weight-vector solver costs O(n·r) per outer iteration of
	// up to q variables.
	InnerAuto InnerSolver = iota
	// InnerSMO is package svm's SMO on the kernel rows φ_iᵀφ_j (with the
	// interior-point fallback for stiff problems of up to 1,000 points).
	InnerSMO
	// InnerWeights is the working-set solver on the weight vector
	// w = Σ_i α_i y_i φ_i (solveWeights).
	InnerWeights
)

func (s InnerSolver) String() string {
	switch s {
	case InnerAuto:
		return "auto"
	case InnerSMO:
		return "smo"
	case InnerWeights:
		return "weights"
	}
	return fmt.Sprintf("InnerSolver(%d)", int(s))
}

// resolve returns the solver InnerAuto stands for on n points.
func (s InnerSolver) resolve(n int, o SolverOptions) InnerSolver {
	if s != InnerAuto {
		return s
	}
	if n > ipmMaxPoints && float64(n)*float64(n)*8 > o.cacheMB(n)*(1<<20) {
		return InnerWeights
	}
	return InnerSMO
}

// defaultWorkingSet is solveWeights' working-set size q when
// SolverOptions.WorkingSet is 0: forming the q×q block costs q²r/2
// multiply-adds against the 2nr of an outer iteration's two passes over
// the features, so at n = 50,000 the block costs a fifth of the passes.
const defaultWorkingSet = 512

// solveWeights solves the C-SVC dual with bias on the rows φ_i of phi
// (n×r),
//
//	min ½αᵀQα − Σα,  yᵀα = 0,  0 ≤ α_i ≤ u_i,  Q_ij = y_i y_j φ_iᵀφ_j,
//
// by decomposition on the weight vector w = Σ_i α_i y_i φ_i, never forming
// a row of Q over all points. Each outer iteration computes the exact
// gradient G = Y(Φw) − 1 (one pass over the features), stops when LIBSVM's
// maximal violation max_{I_up} −y_iG_i − min_{I_low} −y_iG_i is below tol,
// and otherwise picks the working set B: the q/2 variables of I_up with
// the largest −y_iG_i and the q/2 of I_low with the smallest, so that B
// holds the maximal violating pair. It solves the problem restricted to B
// (the others fixed, which keeps yᵀα = 0) to tol/2 by SMO on the q×q block
// Q_BB with second-order pair selection, and adds Φ_Bᵀ Y_B Δα_B to w. The
// objective falls at every outer iteration by at least the maximal pair's
// SMO step, and the stopping rule is SMO's, so both solvers return the
// same optimum to the tolerance (the same α where the optimum is unique).
// w is recomputed from α every 16 outer iterations and before convergence
// is declared, so rounding does not accumulate.
//
// warm, if not nil, is a feasible start (clipped to the bounds). maxOuter
// bounds the outer iterations; reaching it returns the last iterate with
// Converged false, as SMO does at its iteration cap.
func solveWeights(phi *mat.Dense, y, u, warm []float64, tol float64, q, maxOuter int) (*svm.Solution, error) {
	n, r := phi.Dims()
	if len(y) != n || len(u) != n {
		return nil, fmt.Errorf("linear SVM: %d labels and %d bounds for %d points", len(y), len(u), n)
	}
	if q <= 0 {
		q = defaultWorkingSet
	}
	q = max(2, min(q, n))
	alpha := make([]float64, n)
	if warm != nil {
		if len(warm) != n {
			return nil, fmt.Errorf("linear SVM: warm start has %d values for %d points", len(warm), n)
		}
		var sum, scale float64
		for i, v := range warm {
			alpha[i] = math.Min(math.Max(v, 0), u[i])
			sum += y[i] * alpha[i]
			scale += alpha[i]
		}
		if math.Abs(sum) > 1e-9*math.Max(scale, 1) {
			return nil, fmt.Errorf("linear SVM: warm start is infeasible: yᵀα = %g ≠ 0", sum)
		}
	}
	if warm == nil && !noColdStart {
		alpha = dcdStart(phi, y, u)
	}
	s := &wsSolver{
		phi: phi, y: y, u: u, alpha: alpha, n: n, r: r, tol: tol,
		w: make([]float64, r), f: make([]float64, n), g: make([]float64, n),
	}
	s.exactW()
	sol := &svm.Solution{}
	fresh := true // w was just recomputed from α
	for outer := 0; ; outer++ {
		s.gradient()
		gap := s.gap()
		if gap < tol && !fresh {
			s.exactW()
			fresh = true
			s.gradient()
			gap = s.gap()
		}
		sol.Gap = gap
		if gap < tol {
			sol.Converged = true
			break
		}
		if outer >= maxOuter {
			break
		}
		b := s.workingSet(q)
		it := s.inner(b)
		sol.Iter += it
		sol.OuterIter++
		fresh = false
		if (outer+1)%16 == 0 {
			s.exactW()
			fresh = true
		}
	}
	sol.Alpha = alpha
	sol.Grad = s.g
	sol.Rho = s.rho()
	sol.Bias = -sol.Rho
	for i, a := range alpha {
		sol.Obj += a * (s.g[i] - 1)
		if a > 0 {
			sol.NumSV++
		}
		if a >= u[i] {
			sol.NumBSV++
		}
	}
	sol.Obj /= 2
	return sol, nil
}

// noColdStart turns dcdStart off (tests and measurements of it).
var noColdStart bool

// dcdStart returns a feasible starting point for solveWeights when there is
// no warm start: from α = 0, dual coordinate descent (one variable at a
// time, in a random order per sweep, as Hsieh et al. 2008 do for the
// linear SVM without bias) on the problem with the bias b held fixed,
// which has no equality constraint; three rounds of at most 10 sweeps,
// b re-estimated after each from the free variables (y_i − wᵀφ_i); then
// the heavier class's multipliers are scaled down so that yᵀα = 0. From
// α = 0 the decomposition spends most of its outer iterations moving the
// tens of thousands of bounded multipliers q at a time; a sweep moves all
// of them for two passes over the features. The result is only a start:
// solveWeights' stopping rule decides the solution.
func dcdStart(phi *mat.Dense, y, u []float64) []float64 {
	n, r := phi.Dims()
	alpha := make([]float64, n)
	w := make([]float64, r)
	qd := make([]float64, n)
	perm := make([]int, n)
	for i := range n {
		row := phi.RawRowView(i)
		qd[i] = floats.Dot(row, row)
		perm[i] = i
	}
	rng := newRand(1)
	b := 0.0
	for range 3 {
		for range 10 {
			rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			var worst float64
			for _, i := range perm {
				row := phi.RawRowView(i)
				g := y[i]*(floats.Dot(w, row)+b) - 1
				pg := g
				switch {
				case alpha[i] <= 0:
					pg = math.Min(g, 0)
				case alpha[i] >= u[i]:
					pg = math.Max(g, 0)
				}
				worst = math.Max(worst, math.Abs(pg))
				if pg == 0 || !(qd[i] > 0) {
					continue
				}
				old := alpha[i]
				alpha[i] = math.Min(math.Max(old-g/qd[i], 0), u[i])
				floats.AddScaled(w, (alpha[i]-old)*y[i], row)
			}
			if worst < 1e-2 {
				break
			}
		}
		var sum float64
		free := 0
		for i, a := range alpha {
			if a > 0 && a < u[i] {
				sum += y[i] - floats.Dot(w, phi.RawRowView(i))
				free++
			}
		}
		if free > 0 {
			b = sum / float64(free)
		}
	}
	var sp, sn float64
	for i, a := range alpha {
		if y[i] > 0 {
			sp += a
		} else {
			sn += a
		}
	}
	for i := range alpha {
		switch {
		case sp > sn && y[i] > 0:
			alpha[i] *= sn / sp
		case sn > sp && y[i] < 0:
			alpha[i] *= sp / sn
		}
	}
	return alpha
}

// wsSolver is the state of solveWeights.
type wsSolver struct {
	phi      *mat.Dense
	y, u     []float64
	alpha    []float64
	n, r     int
	tol      float64
	w        []float64 // Σ α_i y_i φ_i
	f        []float64 // Φw
	g        []float64 // G_i = y_i f_i − 1
	v        []float64 // −y_i G_i (scratch of workingSet)
	up, low  []int     // scratch of workingSet
	inB      []bool
	phiB     *mat.Dense
	qbb      *mat.SymDense
	qb       []float64 // Q_BB, signed, row-major
	gb, db   []float64 // the subproblem's gradient and Δα_B
	ab, aOld []float64
}

// exactW recomputes w = Φᵀ(Yα).
func (s *wsSolver) exactW() {
	a := make([]float64, s.n)
	for i, v := range s.alpha {
		a[i] = v * s.y[i]
	}
	mat.NewVecDense(s.r, s.w).MulVec(s.phi.T(), mat.NewVecDense(s.n, a))
}

// gradient computes f = Φw and G = Yf − 1.
func (s *wsSolver) gradient() {
	mat.NewVecDense(s.n, s.f).MulVec(s.phi, mat.NewVecDense(s.r, s.w))
	for i, v := range s.f {
		s.g[i] = s.y[i]*v - 1
	}
}

// isUp and isLow report membership of I_up and I_low (LIBSVM's sets: the
// variables that can move up, respectively down, along y).
func isUp(y, a, u float64) bool  { return (y > 0 && a < u) || (y < 0 && a > 0) }
func isLow(y, a, u float64) bool { return (y > 0 && a > 0) || (y < 0 && a < u) }

// gap returns the maximal violation max_{I_up} −y_iG_i − min_{I_low} −y_iG_i
// (−∞ when a set is empty).
func (s *wsSolver) gap() float64 {
	m, mm := math.Inf(-1), math.Inf(1)
	for i, a := range s.alpha {
		v := -s.y[i] * s.g[i]
		if isUp(s.y[i], a, s.u[i]) && v > m {
			m = v
		}
		if isLow(s.y[i], a, s.u[i]) && v < mm {
			mm = v
		}
	}
	return m - mm
}

// workingSet returns up to q variables: alternately the next largest −y_iG_i
// of I_up and the next smallest of I_low, each taken once.
func (s *wsSolver) workingSet(q int) []int {
	if s.v == nil {
		s.v = make([]float64, s.n)
		s.inB = make([]bool, s.n)
	}
	s.up, s.low = s.up[:0], s.low[:0]
	for i, a := range s.alpha {
		s.v[i] = -s.y[i] * s.g[i]
		if isUp(s.y[i], a, s.u[i]) {
			s.up = append(s.up, i)
		}
		if isLow(s.y[i], a, s.u[i]) {
			s.low = append(s.low, i)
		}
	}
	v := s.v
	// Largest first for I_up, smallest first for I_low; ties by index so
	// that the order does not depend on the sort's internals.
	slices.SortFunc(s.up, func(a, b int) int {
		if c := cmpFloat(v[b], v[a]); c != 0 {
			return c
		}
		return a - b
	})
	slices.SortFunc(s.low, func(a, b int) int {
		if c := cmpFloat(v[a], v[b]); c != 0 {
			return c
		}
		return a - b
	})
	b := make([]int, 0, q)
	iu, il := 0, 0
	for len(b) < q && (iu < len(s.up) || il < len(s.low)) {
		for iu < len(s.up) && s.inB[s.up[iu]] {
			iu++
		}
		if iu < len(s.up) && len(b) < q {
			b = append(b, s.up[iu])
			s.inB[s.up[iu]] = true
			iu++
		}
		for il < len(s.low) && s.inB[s.low[il]] {
			il++
		}
		if il < len(s.low) && len(b) < q {
			b = append(b, s.low[il])
			s.inB[s.low[il]] = true
			il++
		}
	}
	for _, i := range b {
		s.inB[i] = false
	}
	slices.Sort(b) // rows of Φ_B in memory order
	return b
}

// inner solves the problem restricted to the working set b by SMO on the
// q×q block, then updates α and w. It returns the SMO iterations.
func (s *wsSolver) inner(b []int) int {
	q, r := len(b), s.r
	if s.phiB == nil || s.phiB.RawMatrix().Rows != q {
		s.phiB = mat.NewDense(q, r, nil)
		s.qbb = mat.NewSymDense(q, nil)
		s.qb = make([]float64, q*q)
		s.gb = make([]float64, q)
		s.db = make([]float64, q)
		s.ab = make([]float64, q)
		s.aOld = make([]float64, q)
	}
	for t, i := range b {
		copy(s.phiB.RawRowView(t), s.phi.RawRowView(i))
	}
	s.qbb.SymOuterK(1, s.phiB)
	raw := s.qbb.RawSymmetric()
	yb := make([]float64, q)
	ub := make([]float64, q)
	for t, i := range b {
		yb[t], ub[t] = s.y[i], s.u[i]
		s.gb[t] = s.g[i]
		s.ab[t] = s.alpha[i]
		s.aOld[t] = s.alpha[i]
	}
	for t := range q {
		for k := t; k < q; k++ {
			v := yb[t] * yb[k] * raw.Data[t*raw.Stride+k]
			s.qb[t*q+k], s.qb[k*q+t] = v, v
		}
	}
	iters := smoDense(s.qb, yb, ub, s.ab, s.gb, s.tol/2, innerCap*q+1000)
	for t, i := range b {
		s.db[t] = (s.ab[t] - s.aOld[t]) * yb[t]
		s.alpha[i] = s.ab[t]
	}
	// w += Φ_Bᵀ (Y_B Δα_B)
	dw := mat.NewVecDense(r, nil)
	dw.MulVec(s.phiB.T(), mat.NewVecDense(q, s.db))
	for j, v := range dw.RawVector().Data {
		s.w[j] += v
	}
	return iters
}

// smoDense minimises ½αᵀQα + pᵀα over α (in place) subject to the
// constant yᵀα and 0 ≤ α ≤ u, for a dense q×q matrix Q (row-major), with
// g = Qα + p given and kept up to date. It picks i with the largest
// −y_iG_i in I_up and j in I_low by the second-order gain (v_i − v_j)²/a_ij,
// a_ij = Q_ii + Q_jj − 2y_iy_jQ_ij, moves α along (y_i e_i − y_j e_j) to the
// clipped minimum, and stops when the maximal violation is below tol or
// after maxIter iterations. It returns the iterations made.
func smoDense(qm, y, u, alpha, g []float64, tol float64, maxIter int) int {
	q := len(y)
	const tau = 1e-12
	for it := 0; it < maxIter; it++ {
		i, vi := -1, math.Inf(-1)
		for t := range q {
			if isUp(y[t], alpha[t], u[t]) {
				if v := -y[t] * g[t]; v > vi {
					i, vi = t, v
				}
			}
		}
		if i < 0 {
			return it
		}
		j, best, vmin := -1, 0.0, math.Inf(1)
		qi := qm[i*q : (i+1)*q]
		for t := range q {
			if !isLow(y[t], alpha[t], u[t]) {
				continue
			}
			v := -y[t] * g[t]
			vmin = math.Min(vmin, v)
			if d := vi - v; d > 0 {
				a := qi[i] + qm[t*q+t] - 2*y[i]*y[t]*qi[t]
				if a <= 0 {
					a = tau
				}
				if gain := d * d / a; gain > best {
					j, best = t, gain
				}
			}
		}
		if vi-vmin < tol || j < 0 {
			return it
		}
		a := qi[i] + qm[j*q+j] - 2*y[i]*y[j]*qi[j]
		if a <= 0 {
			a = tau
		}
		vj := -y[j] * g[j]
		step := (vi - vj) / a
		// α_i moves by y_i·step, α_j by −y_j·step; clip to the bounds.
		li := u[i] - alpha[i]
		if y[i] < 0 {
			li = alpha[i]
		}
		lj := alpha[j]
		if y[j] < 0 {
			lj = u[j] - alpha[j]
		}
		step = math.Min(step, math.Min(li, lj))
		di, dj := y[i]*step, -y[j]*step
		oi, oj := alpha[i], alpha[j]
		switch {
		case step == li:
			alpha[i] = u[i]
			if y[i] < 0 {
				alpha[i] = 0
			}
		default:
			alpha[i] = oi + di
		}
		switch {
		case step == lj:
			alpha[j] = 0
			if y[j] < 0 {
				alpha[j] = u[j]
			}
		default:
			alpha[j] = oj + dj
		}
		di, dj = alpha[i]-oi, alpha[j]-oj
		qj := qm[j*q : (j+1)*q]
		for t := range q {
			g[t] += qi[t]*di + qj[t]*dj
		}
	}
	return maxIter
}

// rho returns LIBSVM's ρ from the gradient: the mean of y_iG_i over the
// free variables, or the midpoint of the interval the bounded ones allow.
func (s *wsSolver) rho() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	var sum float64
	nfree := 0
	for i, a := range s.alpha {
		yg := s.y[i] * s.g[i]
		switch {
		case a >= s.u[i]:
			if s.y[i] < 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case a <= 0:
			if s.y[i] > 0 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		default:
			nfree++
			sum += yg
		}
	}
	if nfree > 0 {
		return sum / float64(nfree)
	}
	return (ub + lb) / 2
}

// innerCap times q, plus 1000, bounds the SMO iterations of one working
// set's subproblem. On 8,000×107 synthetic features (C = 1, from the
// coordinate-descent start) 100q took 36.1 s (18 outer iterations), 10q
// 25.1 s (70) and 3q 71.0 s (347); with more features an outer iteration
// costs more and the larger cap pays.
const innerCap = 100
