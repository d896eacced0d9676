package kmp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/pursuit-ml/pursuit/backend"
)

// fitGeneral is matching pursuit with a non-squared loss (Vincent & Bengio,
// Section 3, Figure 4): the residual is the negative gradient of the loss
// at the training points, the atom most collinear with it is chosen, its
// coefficient found by a line search, and with BackFit all coefficients are
// re-optimised by conjugate gradients every RefitEvery steps. The search
// (in memory, streamed or stochastic) is the searcher's.
func (p *problem) fitGeneral() (*result, error) {
	cfg, dc, be := p.cfg, p.dict, p.e
	m, l := len(dc.atoms), len(p.y)
	backfit := cfg.Variant == BackFit

	search := newSearcher(p)
	ns := search.size
	f := make([]float64, l)
	g := make([]float64, l)
	vecs := backend.NewMatrix(2, l)
	score, nrm := search.score, search.nrm
	var skip, cskip []bool
	if backfit {
		skip, cskip = make([]bool, m), make([]bool, ns)
	}
	var (
		atoms []int
		coef  []float64
		rows  [][]float64 // the chosen atoms at the training points
		vrows [][]float64 // and at the validation points
		pos   = map[int]int{}
		fVal  []float64
		rowsN int // chosen atoms checked against the budget so far
		pa    = &path{}
		snapN int
	)
	if p.val != nil {
		fVal = make([]float64, len(p.valY))
	}
	negGrad(cfg.Loss, p.y, f, g)
	tr := newTracker(p)
	limit := p.maxSteps()
	for step := 1; step <= limit; step++ {
		if floats.Norm(g, 2) == 0 {
			break
		}
		splitHiLo(g, vecs.Row(0), vecs.Row(1))
		cand := search.next()
		n := len(cand)
		var each func(b0, nb int, _ []float64)
		if backfit {
			each = func(b0, nb int, _ []float64) {
				for c := b0; c < b0+nb; c++ {
					cskip[c] = skip[cand[c]]
				}
			}
		}
		err := search.scan(cand, vecs, each)
		if err != nil {
			return nil, err
		}
		var sk []bool
		if backfit {
			sk = cskip[:n]
		}
		gi, _ := be.ScoredArgMax(score[:n], nrm[:n], sk)
		if gi < 0 {
			break
		}
		k := cand[gi]
		i, seen := pos[k]
		var row, vr []float64
		if seen {
			row, vr = rows[i], vrows[i]
		} else {
			row = make([]float64, l)
			if err := search.row64(k, row); err != nil {
				return nil, err
			}
			if fVal != nil {
				if vr, err = p.val.row(k); err != nil {
					return nil, err
				}
			}
		}
		a := lineSearch(cfg.Loss, p.y, f, row, score[gi]/nrm[gi])
		floats.AddScaled(f, a, row)
		if seen {
			coef[i] += a
		} else {
			// Computed atoms are the memory cost that grows with the steps:
			// check it against the budget each time it doubles (in memory
			// the dictionary itself is the larger cost).
			if dc.stream != nil && len(rows)+1 > rowsN {
				rowsN = min(max(64, 2*rowsN), limit)
				if err := p.e.Reserve(fmt.Sprintf("the %d chosen functions at %d points", rowsN, l), int64(rowsN)*int64(l)*8); err != nil {
					return nil, fmt.Errorf("kmp: step %d: %w", step, err)
				}
			}
			pos[k] = len(atoms)
			atoms = append(atoms, k)
			coef = append(coef, a)
			rows = append(rows, row)
			vrows = append(vrows, vr)
		}
		if backfit {
			skip[k] = true
			search.remove(k)
		}
		if fVal != nil {
			floats.AddScaled(fVal, a, vr)
		}
		if backfit && cfg.RefitEvery > 0 && step%cfg.RefitEvery == 0 {
			refit(cfg.Loss, p.y, rows, coef, cfg.RefitIterations)
			expand(f, rows, coef)
			if fVal != nil {
				expand(fVal, vrows, coef)
			}
		}
		if backfit {
			if snapN += len(coef); snapN <= maxSnapFloats {
				pa.snaps = append(pa.snaps, append([]float64(nil), coef...))
			}
		} else {
			pa.atoms, pa.inc = append(pa.atoms, k), append(pa.inc, a)
		}
		negGrad(cfg.Loss, p.y, f, g)
		if tr.record(step, k, len(atoms), floats.Norm(g, 2), f, fVal, atoms, coef) {
			break
		}
	}
	res := tr.result()
	if backfit {
		pa.atoms = atoms
	}
	res.path = pa
	return res, nil
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
func lineSearch(loss Loss, y, f, d []float64, a0 float64) float64 {
	phi := func(a float64) (v, g, h float64) {
		for i, t := range y {
			z := f[i] + a*d[i]
			v += lossValue(loss, t, z)
			g += lossDeriv(loss, t, z) * d[i]
			h += lossDeriv2(loss, t, z) * d[i] * d[i]
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

// refit re-optimises all coefficients by conjugate gradients on
// Σ_i L(y_i, Σ_j coef_j rows_j[i]), in place; it keeps the old coefficients
// if the optimiser does not improve on them.
func refit(loss Loss, y []float64, rows [][]float64, coef []float64, iters int) {
	l := len(y)
	f := make([]float64, l)
	dl := make([]float64, l)
	prob := optimize.Problem{
		Func: func(x []float64) float64 {
			expand(f, rows, x)
			var v float64
			for i, t := range y {
				v += lossValue(loss, t, f[i])
			}
			return v
		},
		Grad: func(grad, x []float64) {
			expand(f, rows, x)
			for i, t := range y {
				dl[i] = lossDeriv(loss, t, f[i])
			}
			for j, r := range rows {
				grad[j] = floats.Dot(r, dl)
			}
		},
	}
	start := prob.Func(coef)
	res, err := optimize.Minimize(prob, append([]float64(nil), coef...),
		&optimize.Settings{MajorIterations: iters, FuncEvaluations: 10 * iters, GradientThreshold: 1e-8,
			Converger: &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-9, Iterations: 10}}, &optimize.CG{})
	_ = err // a stalled line search still leaves a usable point; keep it only if better
	if res != nil && res.F < start && !floats.HasNaN(res.X) {
		copy(coef, res.X)
	}
}
