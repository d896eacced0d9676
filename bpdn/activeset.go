package bpdn

import (
	"errors"
	"fmt"
	"math"

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
// span of the free ones.
const pivotTol = 1e-13

// state is the primal active-set method for
//
//	min −aᵀy + ½aᵀKa + ε Σ s_i a_i  on the face s_i a_i ≥ 0, |a_i| ≤ C, 1ᵀa = 0.
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
	skip   []bool // variables refused (dependent column) since the last move
}

func newState(n int, k, y []float64, eps, c float64) *state {
	return &state{n: n, k: k, y: y, eps: eps, c: c,
		a: make([]float64, n), ka: make([]float64, n), st: make([]int8, n), sgn: make([]float64, n), skip: make([]bool, n)}
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

// refactor factors K_FF from scratch; false when it is not positive
// definite.
func (s *state) refactor() bool {
	m := len(s.free)
	s.chol.Reset()
	if m == 0 {
		return true
	}
	kf := mat.NewSymDense(m, nil)
	for r, i := range s.free {
		row := s.row(i)
		for c := r; c < m; c++ {
			kf.SetSym(r, c, row[s.free[c]])
		}
	}
	return s.chol.Factorize(kf)
}

// extend adds variable i to the free set with sign sg; false (and nothing
// changed) when its kernel column is numerically dependent on the free
// ones.
func (s *state) extend(i int, sg float64) bool {
	m := len(s.free)
	row := s.row(i)
	v := mat.NewVecDense(m+1, nil)
	for r, j := range s.free {
		v.SetVec(r, row[j])
	}
	v.SetVec(m, row[i])
	if m == 0 {
		if !s.chol.Factorize(mat.NewSymDense(1, []float64{row[i]})) {
			return false
		}
	} else {
		var ext mat.Cholesky
		if !ext.ExtendVecSym(&s.chol, v) {
			return false
		}
		u := ext.RawU()
		if d := u.At(m, m); d*d <= pivotTol*row[i] {
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
		return nil, 0, fmt.Errorf("bpdn: the free set's Schur complement 1ᵀK⁻¹1 = %v is not positive", sw)
	}
	solve := func(r *mat.VecDense, sig float64) (*mat.VecDense, float64, error) {
		var u mat.VecDense
		if err := s.cholSolve(&u, r); err != nil {
			return nil, 0, err
		}
		nu := (mat.Sum(&u) - sig) / sw
		u.AddScaledVec(&u, -nu, &w)
		return &u, nu, nil
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

// cholSolve solves K_FF x = b, accepting gonum's ill-conditioning warning.
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
			if !s.extend(i, si) || !s.extend(j, sj) {
				s.free = s.free[:0]
				s.chol.Reset()
				return it, nil // a dependent pair: not converged
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
			v := s.a[i]
			switch {
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
			s.free = append(s.free[:block], s.free[block+1:]...)
			if !s.refactor() {
				return it, errors.New("bpdn: the free set's Gram matrix lost positive definiteness")
			}
			clear(s.skip)
			continue
		}
		clear(s.skip)
		// At the minimiser of the face: free the most violating variable.
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
				return it, nil // only dependent columns violate: not converged
			}
		}
	}
	return maxIter, nil
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
