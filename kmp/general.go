package kmp

import (
	"math"

	"github.com/pursuit-ml/pursuit"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// fitGeneral is matching pursuit with a non-squared loss (Vincent & Bengio,
// Section 3, Figure 4): the residual is the negative gradient of the loss
// at the training points, the atom most collinear with it is chosen, its
// coefficient found by a line search, and with BackFit all coefficients are
// re-optimised (refit) every RefitEvery steps. The search
// (in memory, streamed or stochastic) is the searcher's.
//
// With BackFit, as in pre-fitting, an atom numerically dependent on the
// expansion (its part orthogonal to the chosen atoms' orthonormal basis,
// fit.go's orthoBasis, has squared norm ≤ Tol·‖d_k‖²) may not join it: the
// refit leaves the gradient only nearly orthogonal to the chosen atoms, so a
// copy of one (a repeated training point) would otherwise score like a new
// function. Such atoms are found when they win a search and are then
// skipped for good; training stops (StopExhausted) when no eligible atom
// is left.
//
// Basic matching pursuit refits nothing, and keeps neither that basis nor
// the chosen atoms' values at the training points (each l float64 per
// function): as with the squared loss (repeat.go), its line search along
// any atom, dependent on the expansion or not, lowers the loss or leaves it,
// an atom of the expansion chosen again adds to its coefficient, and what
// is refused is a copy of an atom of the expansion (the same kernel on a
// point with the same coordinates). A chosen atom's values are computed
// when it is chosen, whether it is new or not. After a line search the
// gradient is orthogonal to the atom searched along, so a dependent atom
// that adds nothing scores near zero and training stops (StopOrthogonal).
//
// The fit's state is a genFit; a step is its pass, choose, update and
// record (run).
func (p *problem) fitGeneral() (*result, error) {
	s := p.newGenFit()
	defer s.ob.release()
	stop, err := s.run()
	if err != nil {
		return nil, err
	}
	if err := p.sh.failed(); err != nil {
		return nil, err
	}
	res := s.tr.result()
	res.stop = stop
	if s.backfit {
		s.pa.atoms = s.atoms
	}
	res.path = s.pa
	return res, nil
}

// genFit is one non-squared-loss fit between its steps: the expansion at
// the training and validation points, the negative gradient, and the
// chosen atoms with their orthonormal basis.
type genFit struct {
	p       *problem
	cfg     *Config
	search  *searcher
	l       int
	backfit bool
	f, g    []float64      // the expansion and the negative gradient at the training points
	gnorm   float64        // ‖g‖, kept up to date as g changes
	vecs    pursuit.Matrix // g as a float32 hi/lo pair
	atoms   []int
	coef    []float64
	rows    [][]float64 // back-fitting: the chosen atoms at the training points
	vrows   [][]float64 // and at the validation points
	ob      *orthoBasis // back-fitting: their orthonormal basis
	rep     *repeats    // basic: the atoms in the expansion, to refuse copies
	pos     map[int]int // atom → position in the expansion
	fVal    []float64
	rowsN   int // chosen atoms checked against the budget so far
	pa      *path
	snapN   int
	tr      *tracker
	limit   int
	// scratch receives the atoms tried; a chosen one keeps it
	scratch []float64
	// This step's searched atoms, and the chosen atom at the training
	// points and whether it is in the expansion already.
	cand []int
	row  []float64
	seen bool
	each func(b0, nb int, prod []float64) // s.scanned, bound once
}

func (p *problem) newGenFit() *genFit {
	l := len(p.y)
	s := &genFit{p: p, cfg: p.cfg, l: l, backfit: p.cfg.Variant == BackFit,
		f: make([]float64, l), g: make([]float64, l), vecs: pursuit.NewMatrix(2, l),
		pos: map[int]int{}, pa: &path{}}
	if s.backfit {
		s.ob = newOrthoBasis(p.e, l, p.sh)
	} else {
		s.ob, s.rep = &orthoBasis{}, newRepeats() // an empty basis: release is a no-op
	}
	s.search = newSearcher(p)
	if p.val != nil {
		s.fVal = make([]float64, len(p.valY))
	}
	negGrad(s.cfg.Loss, p.y, s.f, s.g)
	s.gnorm = p.sh.norm(s.g)
	s.tr = newTracker(p)
	s.limit = p.maxSteps()
	s.each = s.scanned
	return s
}

// run takes the steps until one stops the fit, and returns why ("" at the
// step limit).
func (s *genFit) run() (StopReason, error) {
	p, cfg := s.p, s.cfg
	for step := 1; step <= s.limit; step++ {
		if err := p.sh.failed(); err != nil {
			return "", err
		}
		if s.gnorm == 0 {
			return StopFitted, nil
		}
		splitHiLo(s.g, s.vecs.Row(0), s.vecs.Row(1))
		s.cand = s.search.next()
		if err := s.search.scan(s.cand, s.vecs, true, s.each); err != nil {
			return "", err
		}
		// The best eligible atom: one of the expansion (basic MP chooses
		// them again), or one independent of it.
		s.row, s.seen = nil, false
		gi, how, err := s.search.choose(s.cand, s.search.nrm, s.check)
		switch {
		case err != nil:
			return "", err
		case how == resample:
			// Every sampled atom turned out unusable (and is now out of
			// the draw): sample again for this step.
			step--
			continue
		case how == exhausted:
			return StopExhausted, nil
		}
		if !s.backfit {
			if dg := p.sh.dots(s.row, s.g, s.g, s.g); negligible(dg[0], dg[1], s.search.nrm[gi], cfg.Tol) {
				return StopOrthogonal, nil
			}
		}
		k := s.cand[gi]
		if err := s.update(step, gi, k); err != nil {
			return "", err
		}
		negGrad(cfg.Loss, p.y, s.f, s.g)
		s.gnorm = p.sh.norm(s.g)
		if s.tr.record(step, k, len(s.atoms), s.gnorm, s.f, s.fVal, s.atoms, s.coef) {
			return StopPatience, nil
		}
	}
	return "", nil
}

// scanned marks, for a block of a scan, the searched atoms that may not be
// chosen.
func (s *genFit) scanned(b0, nb int, _ []float64) {
	for c := b0; c < b0+nb; c++ {
		s.search.cskip[c] = s.search.skip[s.cand[c]]
	}
}

// check takes an atom of the expansion (row and seen), or one independent
// of it (row, in scratch), and refuses a dependent one; basic matching
// pursuit refuses only a copy of an atom of the expansion (row in scratch
// either way).
func (s *genFit) check(gi, k int) (verdict, error) {
	if !s.backfit {
		_, s.seen = s.pos[k]
		if !s.seen && s.rep.repeated(s.p.dict, k) {
			return refuse, nil
		}
		if s.scratch == nil {
			s.scratch = make([]float64, s.l)
		}
		s.row = s.scratch
		return take, s.search.row64(k, s.scratch)
	}
	if j, ok := s.pos[k]; ok {
		s.row, s.seen = s.rows[j], true
		return take, nil
	}
	if s.scratch == nil {
		s.scratch = make([]float64, s.l)
	}
	if err := s.search.row64(k, s.scratch); err != nil {
		return take, err
	}
	if !s.ob.dependent(s.scratch, s.search.nrm[gi], s.cfg.Tol) {
		s.row = s.scratch
		return take, nil
	}
	return refuse, nil
}

// update takes the step along atom k (at gi): its coefficient by a line
// search, the expansion (a new atom joins the basis), back-fitting's refit
// every RefitEvery steps, and the path Truncate follows.
func (s *genFit) update(step, gi, k int) error {
	p, cfg := s.p, s.cfg
	if !s.seen {
		s.search.accepted(k)
	}
	var vr []float64
	if s.seen && s.backfit {
		vr = s.vrows[s.pos[k]]
	} else if s.fVal != nil {
		var err error
		if vr, err = p.val.row(k); err != nil {
			return err
		}
	}
	a := lineSearch(cfg.Loss, p.sh, p.y, s.f, s.row, s.search.score[gi]/s.search.nrm[gi])
	floats.AddScaled(s.f, a, s.row)
	switch {
	case s.seen:
		s.coef[s.pos[k]] += a
	case !s.backfit:
		s.rep.keep(s.p.dict, k)
		s.pos[k] = len(s.atoms)
		s.atoms = append(s.atoms, k)
		s.coef = append(s.coef, a)
	default:
		// The chosen atoms and their orthonormal basis are the memory
		// cost that grows with the steps (2 float64 per point).
		if err := p.growBasis(s.ob, &s.rowsN, s.limit, step, 2); err != nil {
			return err
		}
		s.ob.push()
		s.scratch = nil // now rows' own
		s.pos[k] = len(s.atoms)
		s.atoms = append(s.atoms, k)
		s.coef = append(s.coef, a)
		s.rows = append(s.rows, s.row)
		s.vrows = append(s.vrows, vr)
	}
	if s.backfit {
		s.search.retire(k)
	}
	if s.fVal != nil {
		floats.AddScaled(s.fVal, a, vr)
	}
	if s.backfit && cfg.RefitEvery > 0 && step%cfg.RefitEvery == 0 {
		refit(cfg.Loss, p.sh, p.y, s.rows, s.coef, cfg.RefitIterations)
		expand(s.f, s.rows, s.coef)
		if s.fVal != nil {
			expand(s.fVal, s.vrows, s.coef)
		}
	}
	if s.backfit {
		if s.snapN += len(s.coef); s.snapN <= maxSnapFloats {
			s.pa.snaps = append(s.pa.snaps, append([]float64(nil), s.coef...))
		}
	} else {
		s.pa.atoms, s.pa.inc = append(s.pa.atoms, k), append(s.pa.inc, a)
	}
	return nil
}

// negGrad writes g = −∂L(y, f)/∂f at every point.
func negGrad(loss Loss, y, f, g []float64) {
	for i, t := range y {
		g[i] = -lossDeriv(loss, t, f[i])
	}
}

// expand writes f = Σ_j coef_j rows_j.
func expand(f []float64, rows [][]float64, coef []float64) {
	for i := range f {
		f[i] = 0
	}
	for j, r := range rows {
		floats.AddScaled(f, coef[j], r)
	}
}

// lineSearch returns argmin_a Σ L(y_i, f_i + a d_i), starting from a0, by
// Newton's method (gonum/optimize); it returns 0 if no decrease is found.
// With sh (a sharded run) the sums run over every rank's points: each
// evaluation is one collective, and every rank takes the same path.
func lineSearch(loss Loss, sh *shard, y, f, d []float64, a0 float64) float64 {
	phi := func(a float64) (v, g, h float64) {
		for i, t := range y {
			z := f[i] + a*d[i]
			v += lossValue(loss, t, z)
			g += lossDeriv(loss, t, z) * d[i]
			h += lossDeriv2(loss, t, z) * d[i] * d[i]
		}
		if sh.sharded() {
			s := []float64{v, g, h}
			sh.sum(s)
			v, g, h = s[0], s[1], s[2]
		}
		return v, g, h
	}
	base, _, _ := phi(0)
	if math.IsNaN(a0) || math.IsInf(a0, 0) {
		a0 = 0
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { v, _, _ := phi(x[0]); return v },
		Grad: func(grad, x []float64) { _, g, _ := phi(x[0]); grad[0] = g },
		Hess: func(hess *mat.SymDense, x []float64) { _, _, h := phi(x[0]); hess.SetSym(0, 0, h) },
	}
	best, bestV := 0.0, base
	if v, _, _ := phi(a0); v < bestV {
		best, bestV = a0, v
	}
	res, err := optimize.Minimize(prob, []float64{best}, &optimize.Settings{MajorIterations: 50, FuncEvaluations: 200, GradientThreshold: 1e-10,
		Converger: &optimize.FunctionConverge{Absolute: 1e-14, Relative: 1e-12, Iterations: 5}}, &optimize.Newton{})
	if res != nil && (err == nil || res.F < bestV) && res.F <= bestV && !math.IsNaN(res.X[0]) {
		best = res.X[0]
	}
	return best
}

// refitTol is refit's stopping rule: the largest partial derivative of the
// training loss with respect to the coefficients must fall below refitTol
// times its value at zero coefficients (LIBLINEAR's rule, in the ∞-norm
// gonum checks). It is relative to the gradient at zero, not at the warm
// start, so that a good warm start does not ask for more accuracy than the
// arithmetic allows.
const refitTol = 1e-8

// refit re-optimises all coefficients on Σ_i L(y_i, Σ_j coef_j rows_j[i])
// by Newton's method with the exact Hessian (gonum/optimize's Newton, which
// adds a multiple of the identity where the Hessian of the non-convex tanh
// loss is not positive definite), warm-started from coef and overwriting
// it. It stops when the gradient is refitTol of its value at zero, when the
// line search can no longer decrease the loss in floating point (the
// gradient is then at its rounding floor), or after iters iterations; it
// keeps the old coefficients if the optimiser does not improve on them.
// The chosen atoms are often nearly dependent (up to Tol), so the problem
// can be ill-conditioned: first-order methods (conjugate gradients,
// L-BFGS) then take hundreds of iterations, Newton a handful. A Hessian
// costs n(n+1)/2 dot products of length l, about n/4 gradients.
// With sh (a sharded run) the sums run over every rank's points: one
// collective per evaluation of the loss and its gradient together and one
// per Hessian, and every rank takes the same path.
func refit(loss Loss, sh *shard, y []float64, rows [][]float64, coef []float64, iters int) {
	n, l := len(coef), len(y)
	f := make([]float64, l)  // the expansion at x
	dl := make([]float64, l) // the loss's derivatives there
	wr := make([]float64, l)
	// buf holds the loss and its gradient at x (evaluated together: the
	// line searches ask for both at each point).
	x, buf, have := make([]float64, n), make([]float64, 1+n), false
	at := func(c []float64) {
		if !have || !floats.Equal(c, x) {
			copy(x, c)
			expand(f, rows, c)
			have = false
		}
	}
	eval := func(c []float64) []float64 {
		if have && floats.Equal(c, x) {
			return buf
		}
		at(c)
		buf[0] = 0
		for i, t := range y {
			buf[0] += lossValue(loss, t, f[i])
			dl[i] = lossDeriv(loss, t, f[i])
		}
		for j, r := range rows {
			buf[1+j] = floats.Dot(r, dl)
		}
		sh.sum(buf)
		have = true
		return buf
	}
	hb := make([]float64, n*(n+1)/2)
	prob := optimize.Problem{
		Func: func(c []float64) float64 { return eval(c)[0] },
		Grad: func(grad, c []float64) { copy(grad, eval(c)[1:]) },
		Hess: func(h *mat.SymDense, c []float64) {
			at(c)
			k := 0
			for a, ra := range rows {
				for i, t := range y {
					wr[i] = lossDeriv2(loss, t, f[i]) * ra[i]
				}
				for _, rb := range rows[a:] {
					hb[k] = floats.Dot(wr, rb)
					k++
				}
			}
			sh.sum(hb)
			k = 0
			for a := range n {
				for b := a; b < n; b++ {
					h.SetSym(a, b, hb[k])
					k++
				}
			}
		},
	}
	gref := floats.Norm(eval(make([]float64, n))[1:], math.Inf(1))
	start := prob.Func(coef)
	settings := &optimize.Settings{
		GradientThreshold: refitTol * gref,
		Converger:         optimize.NeverTerminate{},
		MajorIterations:   iters,
		FuncEvaluations:   10 * iters,
	}
	res, _ := optimize.Minimize(prob, append([]float64(nil), coef...), settings, &optimize.Newton{GradStopThreshold: math.NaN()})
	// A failed line search (the error) still leaves a usable point.
	if res != nil && res.F < start && !floats.HasNaN(res.X) {
		copy(coef, res.X)
	}
}
