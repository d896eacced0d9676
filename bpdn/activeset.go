package bpdn

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Variable states of the active-set method.
const (
	atZero  int8 = iota // a_i = 0
	isFree              // a_i free, sign fixed to sgn[i]
	atUpper             // a_i = C
	atLower             // a_i = −C
)

// pivotTol is the smallest relative Cholesky pivot (squared) with which a
// variable joins the free set: below it, K(·, x_i) is numerically in the
// span of the free ones (on the hyperplane Σa = 0, see state.rho).
const pivotTol = 1e-13

// dropTol: components of a zero-curvature direction below dropTol times its
// largest are taken as rounding noise (see dependentStep).
const dropTol = 1e-9

// certTol: a zero-curvature ray proves the hard tube infeasible only when
// ‖Kd‖∞ ≤ certTol·‖d‖₁·max_i K_ii (see infeasible).
const certTol = 1e-10

// state is the primal active-set method for
//
//	min −aᵀy + ½aᵀKa + ε Σ s_i a_i  on the face s_i a_i ≥ 0, |a_i| ≤ C, 1ᵀa = 0.
//
// Only the free set's Gram matrix is ever factored, never the whole K, which
// may be singular (for RBF kernels on a few hundred points it almost always
// is numerically). What the equality-constrained step needs is that K_FF be
// positive definite on the hyperplane 1ᵀa_F = const, which is weaker than
// K_FF positive definite; so the factor kept is the Cholesky factor of
//
//	H = K_FF + ρ11ᵀ   (ρ = max_i K_ii),
//
// which, K being positive semi-definite, is positive definite exactly when
// no direction d ≠ 0 has K_FF d = 0 and 1ᵀd = 0. On the hyperplane the two
// quadratic forms differ by a constant, so the step is the same (only the
// multiplier moves by ρ·1ᵀa_F, see solveEQP).
//
// A variable whose column of H is numerically dependent on the free set's
// (relative pivot² ≤ pivotTol) is not factored in. It is not simply refused
// either, which would stall the hard tube (C = ∞) on nearly singular Gram
// matrices: the direction d that moves it into its sign and keeps Σa = 0
// with the least curvature has dᵀKd ≈ 0 (below what float64 resolves), and
// the objective decreases along it at the rate of the variable's KKT
// violation. dependentStep follows that direction, as a zero-curvature ray,
// to the first free variable that reaches zero (or the box) and swaps the
// two, so the free set's H stays well conditioned. A ray that nothing blocks
// proves, with C = ∞, that the hard tube is infeasible: Kd = 0 and 1ᵀd = 0
// mean Σ d_i (y_i − f(x_i) − b) = dᵀy for every f in the span and every b,
// so some residual is at least dᵀy/‖d‖₁ in size (InfeasibleError).
type state struct {
	n      int
	k, y   []float64
	eps, c float64
	a, ka  []float64 // a and K·a
	st     []int8
	sgn    []float64
	free   []int // the free set, in the order of the Cholesky factor
	chol   mat.Cholesky
	nu     float64
	rho    float64 // ρ of H = K_FF + ρ11ᵀ
	skip   []bool  // variables refused (dependent column, no move) since the last move
	// stalled: run stopped because the only violators left are dependent
	// columns that cannot move.
	stalled bool
}

func newState(n int, k, y []float64, eps, c float64) *state {
	s := &state{n: n, k: k, y: y, eps: eps, c: c,
		a: make([]float64, n), ka: make([]float64, n), st: make([]int8, n), sgn: make([]float64, n), skip: make([]bool, n)}
	for i := range n {
		s.rho = math.Max(s.rho, k[i*n+i])
	}
	return s
}

// row returns row i of K.
func (s *state) row(i int) []float64 { return s.k[i*s.n : (i+1)*s.n] }

// addTo adds delta·K[:, i] to K·a.
func (s *state) addTo(i int, delta float64) {
	if delta == 0 {
		return
	}
	for j, v := range s.row(i) {
		s.ka[j] += delta * v
	}
}

// start sets a feasible starting point from an approximate solution a0
// (Σa0 ≈ 0): its signs and bounds define the faces; Σa is made exactly 0 by
// shrinking the free coefficients on the side of the excess. It falls back
// to a = 0 when that cannot be done or K_FF cannot be factored.
func (s *state) start(a0 []float64) {
	var sum, pos, neg float64
	for i, v := range a0 {
		switch {
		case v >= s.c:
			s.a[i], s.st[i] = s.c, atUpper
		case v <= -s.c:
			s.a[i], s.st[i] = -s.c, atLower
		case v > 0:
			s.a[i], s.st[i], s.sgn[i] = v, isFree, 1
			pos += v
		case v < 0:
			s.a[i], s.st[i], s.sgn[i] = v, isFree, -1
			neg -= v
		}
		sum += s.a[i]
	}
	ok := true
	switch {
	case sum > 0 && sum < pos:
		f := 1 - sum/pos
		for i := range s.a {
			if s.st[i] == isFree && s.a[i] > 0 {
				s.a[i] *= f
			}
		}
	case sum < 0 && -sum < neg:
		f := 1 + sum/neg
		for i := range s.a {
			if s.st[i] == isFree && s.a[i] < 0 {
				s.a[i] *= f
			}
		}
	case sum != 0:
		ok = false
	}
	if ok {
		for i := range s.a {
			if s.st[i] == isFree {
				s.free = append(s.free, i)
			}
		}
		ok = s.refactor()
	}
	if !ok {
		s.reset()
		return
	}
	for i, v := range s.a {
		s.addTo(i, v)
	}
}

// reset returns to a = 0.
func (s *state) reset() {
	for i := range s.a {
		s.a[i], s.ka[i], s.st[i], s.sgn[i] = 0, 0, atZero, 0
	}
	s.free = s.free[:0]
	s.chol.Reset()
}

// refactor factors H = K_FF + ρ11ᵀ from scratch; false (and the factor
// reset) when a pivot is numerically zero.
func (s *state) refactor() bool {
	if !s.factor(s.free, &s.chol) {
		s.chol.Reset()
		return false
	}
	return true
}

// factor factors K + ρ11ᵀ restricted to the set free into ch; false when it
// is not positive definite or a relative pivot² is ≤ pivotTol.
func (s *state) factor(free []int, ch *mat.Cholesky) bool {
	m := len(free)
	ch.Reset()
	if m == 0 {
		return true
	}
	kf := mat.NewSymDense(m, nil)
	for r, i := range free {
		row := s.row(i)
		for c := r; c < m; c++ {
			kf.SetSym(r, c, row[free[c]]+s.rho)
		}
	}
	if !ch.Factorize(kf) {
		return false
	}
	u := ch.RawU()
	for r, i := range free {
		if d := u.At(r, r); d*d <= pivotTol*(s.row(i)[i]+s.rho) {
			return false
		}
	}
	return true
}

// extend adds variable i to the free set with sign sg; false (and nothing
// changed) when its column of H = K + ρ11ᵀ is numerically dependent on the
// free ones.
func (s *state) extend(i int, sg float64) bool {
	m := len(s.free)
	row := s.row(i)
	v := mat.NewVecDense(m+1, nil)
	for r, j := range s.free {
		v.SetVec(r, row[j]+s.rho)
	}
	v.SetVec(m, row[i]+s.rho)
	if m == 0 {
		if !s.chol.Factorize(mat.NewSymDense(1, []float64{row[i] + s.rho})) {
			return false
		}
	} else {
		var ext mat.Cholesky
		if !ext.ExtendVecSym(&s.chol, v) {
			return false
		}
		u := ext.RawU()
		if d := u.At(m, m); d*d <= pivotTol*(row[i]+s.rho) {
			return false
		}
		s.chol = ext
	}
	s.free = append(s.free, i)
	s.st[i], s.sgn[i] = isFree, sg
	return true
}

// solveEQP returns the minimiser of the sign-fixed problem with the
// variables outside the free set held where they are, and its multiplier ν.
//
// It solves K_FF a_F + ν1 = r, 1ᵀa_F = σ through H = K_FF + ρ11ᵀ: on the
// hyperplane H a_F = K_FF a_F + ρσ1, so H a_F + ν'1 = r with ν = ν' + ρσ.
func (s *state) solveEQP() ([]float64, float64, error) {
	m := len(s.free)
	rhs := mat.NewVecDense(m, nil)
	var sigma float64 // −Σ_{bounded} a_j
	for j, st := range s.st {
		if st == atUpper || st == atLower {
			sigma -= s.a[j]
		}
	}
	for r, i := range s.free {
		// Σ_{j bounded} K_ij a_j = (Ka)_i − Σ_{j free} K_ij a_j.
		row := s.row(i)
		bnd := s.ka[i]
		for _, j := range s.free {
			bnd -= row[j] * s.a[j]
		}
		rhs.SetVec(r, s.y[i]-s.eps*s.sgn[i]-bnd)
	}
	ones := mat.NewVecDense(m, nil)
	for r := range m {
		ones.SetVec(r, 1)
	}
	var w mat.VecDense
	if err := s.cholSolve(&w, ones); err != nil {
		return nil, 0, err
	}
	sw := mat.Sum(&w)
	if !(sw > 0) {
		return nil, 0, fmt.Errorf("bpdn: the free set's Schur complement 1ᵀH⁻¹1 = %v is not positive", sw)
	}
	solve := func(r *mat.VecDense, sig float64) (*mat.VecDense, float64, error) {
		var u mat.VecDense
		if err := s.cholSolve(&u, r); err != nil {
			return nil, 0, err
		}
		nu := (mat.Sum(&u) - sig) / sw
		u.AddScaledVec(&u, -nu, &w)
		return &u, nu + s.rho*sig, nil
	}
	af, nu, err := solve(rhs, sigma)
	if err != nil {
		return nil, 0, err
	}
	// One step of iterative refinement against the exact K.
	res := mat.NewVecDense(m, nil)
	var sumA float64
	for r, i := range s.free {
		row := s.row(i)
		v := rhs.AtVec(r) - nu
		for c, j := range s.free {
			v -= row[j] * af.AtVec(c)
		}
		res.SetVec(r, v)
		sumA += af.AtVec(r)
	}
	da, dnu, err := solve(res, sigma-sumA)
	if err != nil {
		return nil, 0, err
	}
	af.AddVec(af, da)
	return af.RawVector().Data, nu + dnu, nil
}

// cholSolve solves H x = b (H = K_FF + ρ11ᵀ), accepting gonum's ill-conditioning warning.
func (s *state) cholSolve(dst *mat.VecDense, b *mat.VecDense) error {
	err := s.chol.SolveVecTo(dst, b)
	var cond mat.Condition
	if err != nil && !errors.As(err, &cond) {
		return fmt.Errorf("bpdn: solving on the free set: %w", err)
	}
	return nil
}

// run iterates until the KKT conditions hold to tol or maxIter iterations;
// it returns the number of iterations.
func (s *state) run(maxIter int, tol float64) (int, error) {
	for it := 1; it <= maxIter; it++ {
		if len(s.free) == 0 {
			i, j, nu, done := s.pairCheck(tol)
			s.nu = nu
			if done {
				return it, nil
			}
			si, sj := 1.0, -1.0
			if s.st[i] == atLower {
				si = -1
			}
			if s.st[j] == atUpper {
				sj = 1
			}
			oldI := s.st[i]
			if !s.extend(i, si) {
				return it, nil // cannot happen: H_ii = K_ii + ρ > 0
			}
			if s.extend(j, sj) {
				continue
			}
			// K(·, x_j) − K(·, x_i) is numerically zero: move the pair
			// along that zero-curvature ray instead.
			moved, err := s.dependentStep(j, sj, tol)
			if err != nil {
				return it, err
			}
			if !moved {
				s.st[i], s.sgn[i] = oldI, 0
				s.free = s.free[:0]
				s.chol.Reset()
				s.stalled = true
				return it, nil // a dependent pair that cannot move: not converged
			}
			continue
		}
		target, nu, err := s.solveEQP()
		if err != nil {
			return it, err
		}
		s.nu = nu
		t, block := 1.0, -1
		for r, i := range s.free {
			d := target[r] - s.a[i]
			var lim float64 = math.Inf(1)
			if s.sgn[i] > 0 {
				if d < 0 {
					lim = s.a[i] / -d
				} else if d > 0 && !math.IsInf(s.c, 1) {
					lim = (s.c - s.a[i]) / d
				}
			} else {
				if d > 0 {
					lim = -s.a[i] / d
				} else if d < 0 && !math.IsInf(s.c, 1) {
					lim = (s.c + s.a[i]) / -d
				}
			}
			if lim < t {
				t, block = lim, r
			}
		}
		t = math.Max(t, 0)
		for r, i := range s.free {
			var v float64
			if t == 1 {
				v = target[r]
			} else {
				v = s.a[i] + t*(target[r]-s.a[i])
			}
			if s.sgn[i]*v < 0 {
				v = 0
			}
			s.addTo(i, v-s.a[i])
			s.a[i] = v
		}
		if block >= 0 {
			i := s.free[block]
			s.settle(i)
			s.free = append(s.free[:block], s.free[block+1:]...)
			if !s.refactor() {
				return it, errors.New("bpdn: the free set's Gram matrix lost positive definiteness")
			}
			clear(s.skip)
			continue
		}
		clear(s.skip)
		// At the minimiser of the face: free the most violating variable.
		tol := math.Max(tol, roundingFloor(s.n, s.k, s.a))
		best, bestV, bestS := -1, tol, 0.0
		for j, st := range s.st {
			if s.skip[j] {
				continue
			}
			g := s.ka[j] - s.y[j] + s.nu
			var v, sg float64
			switch st {
			case atZero:
				v = math.Abs(g) - s.eps
				sg = -math.Copysign(1, g)
			case atUpper:
				v, sg = g+s.eps, 1
			case atLower:
				v, sg = s.eps-g, -1
			default:
				continue
			}
			if v > bestV {
				best, bestV, bestS = j, v, sg
			}
		}
		if best < 0 {
			return it, nil
		}
		for !s.extend(best, bestS) {
			moved, err := s.dependentStep(best, bestS, tol)
			if err != nil {
				return it, err
			}
			if moved {
				break
			}
			s.skip[best] = true
			best, bestV = -1, tol
			for j, st := range s.st {
				if s.skip[j] || st == isFree {
					continue
				}
				g := s.ka[j] - s.y[j] + s.nu
				var v, sg float64
				switch st {
				case atZero:
					v, sg = math.Abs(g)-s.eps, -math.Copysign(1, g)
				case atUpper:
					v, sg = g+s.eps, 1
				case atLower:
					v, sg = s.eps-g, -1
				}
				if v > bestV {
					best, bestV, bestS = j, v, sg
				}
			}
			if best < 0 {
				s.stalled = true
				return it, nil // only dependent columns that cannot move violate: not converged
			}
		}
	}
	return maxIter, nil
}

// dependentStep handles variable j (not free; sg is the sign it has once
// moved: the one it moves into from zero, its own from a bound) whose column
// of H is numerically dependent on the free set's (see state). It moves a
// along the direction d with d_j = ±1 (into the feasible side), 1ᵀd = 0 and
// least curvature dᵀKd — which is below float64's resolution, so the move is
// taken as a ray — up to the first free variable that reaches zero or the
// box (or j its own bound), and swaps that variable out of the free set for
// j. It reports whether it moved; false when d is not a descent direction,
// when the ray is blocked at once, or when the swapped set cannot be
// factored either. With C = ∞ and nothing blocking, the hard tube is
// infeasible and it returns an *InfeasibleError.
func (s *state) dependentStep(j int, sg float64, tol float64) (bool, error) {
	m := len(s.free)
	if m == 0 {
		return false, nil // j alone cannot move and keep Σa = 0
	}
	dir := sg // d_j: from zero into the sign, from a bound towards zero
	switch s.st[j] {
	case atUpper:
		dir = -1
	case atLower:
		dir = 1
	}
	row := s.row(j)
	hj := mat.NewVecDense(m, nil)
	ones := mat.NewVecDense(m, nil)
	for r, i := range s.free {
		hj.SetVec(r, row[i]+s.rho)
		ones.SetVec(r, 1)
	}
	var u, w mat.VecDense
	if err := s.cholSolve(&u, hj); err != nil {
		return false, err
	}
	if err := s.cholSolve(&w, ones); err != nil {
		return false, err
	}
	// v = H⁻¹(H_Fj + λ1) with 1ᵀv = 1 minimises (e_j − v)ᵀK(e_j − v) on the
	// hyperplane; d_F = −dir·v.
	lambda := (1 - mat.Sum(&u)) / mat.Sum(&w)
	d := make([]float64, m)
	dmax := 1.0 // |d_j|
	for r := range s.free {
		d[r] = -dir * (u.AtVec(r) + lambda*w.AtVec(r))
		dmax = math.Max(dmax, math.Abs(d[r]))
	}
	// Components at the level of the solve's rounding are zero: kept, they
	// would block the ray at an astronomical step (a duplicated point's
	// direction is e_j − e_i, and the rest is noise). Their sum goes to the
	// largest component, so that 1ᵀd = 0 still holds.
	var drop float64
	big := -1
	for r := range d {
		if math.Abs(d[r]) <= dropTol*dmax {
			drop += d[r]
			d[r] = 0
		} else if big < 0 || math.Abs(d[r]) > math.Abs(d[big]) {
			big = r
		}
	}
	if big >= 0 {
		d[big] += drop
	}
	slope := dir * (s.ka[j] - s.y[j] + s.eps*sg)
	for r, i := range s.free {
		slope += d[r] * (s.ka[i] - s.y[i] + s.eps*s.sgn[i])
	}
	if !(slope < 0) {
		return false, nil
	}
	// Ratio test: free variables against zero and the box, j against its
	// far end (the box from zero, zero from the box).
	t, block := math.Inf(1), -1
	for r, i := range s.free {
		var lim float64 = math.Inf(1)
		if s.sgn[i]*d[r] < 0 {
			lim = math.Abs(s.a[i]) / math.Abs(d[r])
		} else if d[r] != 0 && !math.IsInf(s.c, 1) {
			lim = (s.c - math.Abs(s.a[i])) / math.Abs(d[r])
		}
		if lim < t {
			t, block = lim, r
		}
	}
	if !math.IsInf(s.c, 1) && s.c < t {
		t, block = s.c, m
	}
	if math.IsInf(t, 1) {
		return s.infeasible(j, dir, d, tol)
	}
	if !(t > 0) {
		return false, nil
	}
	// The step must lower (25): along d it changes by slope·t + ½κt², κ =
	// dᵀKd. κ is below what the pivot test resolves but not always negligible
	// (on a badly conditioned free set d itself is inexact): past the
	// minimiser t = −slope/κ the variable is refused instead.
	if kappa := s.curvature(j, dir, d); kappa > 0 && kappa*t > -slope {
		return false, nil
	}
	newFree := s.free
	if block < m {
		newFree = make([]int, 0, m)
		newFree = append(newFree, s.free[:block]...)
		newFree = append(newFree, s.free[block+1:]...)
		newFree = append(newFree, j)
		var ch mat.Cholesky
		if !s.factor(newFree, &ch) {
			return false, nil
		}
		s.chol = ch
	}
	for r, i := range s.free {
		v := s.a[i] + t*d[r]
		if r != block && s.sgn[i]*v < 0 {
			v = 0 // rounding: only the blocking variable reaches zero
		}
		s.addTo(i, v-s.a[i])
		s.a[i] = v
	}
	vj := s.a[j] + t*dir
	s.addTo(j, vj-s.a[j])
	s.a[j] = vj
	// The blocking variable goes to zero or the box.
	bi := j
	if block < m {
		bi = s.free[block]
	}
	s.settle(bi)
	if block < m {
		s.st[j], s.sgn[j] = isFree, sg
		s.free = newFree
	}
	clear(s.skip)
	return true, nil
}

// curvature returns dᵀKd for d = dir on j and d on the free set.
func (s *state) curvature(j int, dir float64, d []float64) float64 {
	row := s.row(j)
	kdd := dir * dir * row[j]
	for r, i := range s.free {
		if d[r] == 0 {
			continue
		}
		ri := s.row(i)
		kdd += 2 * dir * d[r] * row[i]
		for c, l := range s.free {
			kdd += d[r] * d[c] * ri[l]
		}
	}
	return kdd
}

// infeasible builds the error for an unblocked zero-curvature ray d (d_j =
// dir on j, d on the free set), or reports no move when the ray does not
// prove anything beyond rounding.
func (s *state) infeasible(j int, dir float64, d []float64, tol float64) (bool, error) {
	type ex struct {
		i int
		d float64
	}
	all := []ex{{j, dir}}
	for r, i := range s.free {
		all = append(all, ex{i, d[r]})
	}
	var dy, l1, dmax float64
	for _, e := range all {
		dy += e.d * s.y[e.i]
		l1 += math.Abs(e.d)
		dmax = math.Max(dmax, math.Abs(e.d))
	}
	// Σ d_i r_i = dᵀy for every f and b (Kd = 0, 1ᵀd = 0), so some |r_i| is
	// at least dᵀy/‖d‖₁.
	viol := dy/l1 - s.eps
	if !(viol > tol) {
		return false, nil
	}
	var kdd, kmax float64 // dᵀKd and ‖Kd‖∞: how close to zero
	kd := make([]float64, s.n)
	for _, e := range all {
		for c, v := range s.row(e.i) {
			kd[c] += e.d * v
		}
	}
	for _, e := range all {
		kdd += e.d * kd[e.i]
	}
	for _, v := range kd {
		kmax = math.Max(kmax, math.Abs(v))
	}
	// The ray proves infeasibility only when Kd is zero to rounding: then
	// Σ d_i f(x_i) = (Kd)ᵀc is negligible for any f = Σ c_i K(·, x_i) that
	// float64 can represent. On a badly conditioned free set the computed d
	// may be far from K's null space; that is no proof, and j is refused.
	if kmax > certTol*l1*s.rho {
		return false, nil
	}
	sort.Slice(all, func(a, b int) bool { return math.Abs(all[a].d) > math.Abs(all[b].d) })
	var idx []int
	for _, e := range all {
		if math.Abs(e.d) >= 1e-3*dmax && len(idx) < 8 {
			idx = append(idx, e.i)
		}
	}
	sort.Ints(idx)
	return false, &InfeasibleError{Epsilon: s.eps, Violation: viol, Examples: idx, Curvature: kdd, KdMax: kmax}
}

// roundingFloor is the largest KKT violation that float64 rounding alone
// can cause at a: 16·ε_mach·max_i Σ_j |K_ij a_j|, the error of computing
// (Ka)_i. It matters only for large coefficients (‖a‖₁ ≳ 1e4·max|y|), where
// a residual cannot be computed to the default tolerance.
func roundingFloor(n int, k, a []float64) float64 {
	var worst float64
	for i := range n {
		row := k[i*n : (i+1)*n]
		var s float64
		for j, aj := range a[:n] {
			if aj != 0 {
				s += math.Abs(row[j] * aj)
			}
		}
		worst = math.Max(worst, s)
	}
	return 16 * 0x1p-52 * worst
}

// pairCheck handles an empty free set, where ν is not fixed by the free
// variables: the point is optimal iff some ν satisfies every condition,
// i.e. the cheapest increase plus the cheapest decrease (a pair move keeps
// Σa = 0) costs nothing. It returns that pair, the midpoint ν of the
// feasible interval (LIBSVM's choice), and whether the point is optimal.
func (s *state) pairCheck(tol float64) (up, down int, nu float64, done bool) {
	up, down = -1, -1
	minUp, minDown := math.Inf(1), math.Inf(1)
	for j, st := range s.st {
		h := s.ka[j] - s.y[j]
		var cu, cd float64 = math.Inf(1), math.Inf(1)
		switch st {
		case atZero:
			cu, cd = h+s.eps, -h+s.eps
		case atLower:
			cu = h - s.eps
		case atUpper:
			cd = -h - s.eps
		}
		if cu < minUp {
			up, minUp = j, cu
		}
		if cd < minDown {
			down, minDown = j, cd
		}
	}
	// ν must lie in [−minUp, minDown].
	lo, hi := -minUp, minDown
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		nu = 0
	case math.IsInf(lo, -1):
		nu = hi
	case math.IsInf(hi, 1):
		nu = lo
	default:
		nu = (lo + hi) / 2
	}
	return up, down, nu, up < 0 || down < 0 || minUp+minDown >= -tol
}

// settle puts the blocking variable i exactly where it stopped: at zero, or
// at the box ±C (whichever it is nearer), updating the gradient with the
// move and leaving it out of the sign pattern.
func (s *state) settle(i int) {
	switch v := s.a[i]; {
	case math.Abs(v) < 0.5*s.c:
		s.addTo(i, -v)
		s.a[i], s.st[i] = 0, atZero
	case v > 0:
		s.addTo(i, s.c-v)
		s.a[i], s.st[i] = s.c, atUpper
	default:
		s.addTo(i, -s.c-v)
		s.a[i], s.st[i] = -s.c, atLower
	}
	s.sgn[i] = 0
}
