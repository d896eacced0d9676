package kmp

import (
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
// re-optimised by conjugate gradients every RefitEvery steps.
func (p *problem) fitGeneral() (*result, error) {
	cfg, dc, be := p.cfg, p.dict, p.e.Backend()
	m, l := dc.d.Rows, dc.d.Cols
	backfit := cfg.Variant == BackFit

	f := make([]float64, l)
	g := make([]float64, l)
	vecs := backend.NewMatrix(2, l)
	prod := make([]float64, 2*m)
	s := make([]float64, m)
	var skip []bool
	if backfit {
		skip = make([]bool, m)
	}
	var (
		atoms []int
		coef  []float64
		rows  [][]float64 // the chosen atoms at the training points
		vrows [][]float64 // and at the validation points
		pos   = map[int]int{}
		fVal  []float64
	)
	if p.val != nil {
		fVal = make([]float64, len(p.valY))
	}
	tr := newTracker(p)
	pa := &path{}
	snapFloats := 0
	limit := p.maxSteps()
	for step := 1; step <= limit; step++ {
		for i, y := range p.y {
			g[i] = -lossDeriv(cfg.Loss, y, f[i])
		}
		gnorm := floats.Norm(g, 2)
		if gnorm == 0 {
			break
		}
		splitHiLo(g, vecs.Row(0), vecs.Row(1))
		if err := dc.products(be, prod, vecs); err != nil {
			return nil, err
		}
		for k := range s {
			s[k] = prod[k] + prod[m+k]
		}
		k, _ := be.ScoredArgMax(s, dc.nrm2, skip)
		if k < 0 {
			break
		}
		row := make([]float64, l)
		dc.row64(k, row)
		a := lineSearch(cfg.Loss, p.y, f, row, s[k]/dc.nrm2[k])
		floats.AddScaled(f, a, row)
		var vr []float64
		if fVal != nil {
			var err error
			if vr, err = p.val.row(k); err != nil {
				return nil, err
			}
		}
		if i, ok := pos[k]; ok {
			coef[i] += a
		} else {
			pos[k] = len(atoms)
			atoms = append(atoms, k)
			coef = append(coef, a)
			rows = append(rows, row)
			vrows = append(vrows, vr)
		}
		if backfit {
			skip[k] = true
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
			if snapFloats += len(coef); snapFloats <= maxSnapFloats {
				pa.snaps = append(pa.snaps, append([]float64(nil), coef...))
			}
		} else {
			pa.atoms, pa.inc = append(pa.atoms, k), append(pa.inc, a)
		}
		for i, y := range p.y {
			g[i] = -lossDeriv(cfg.Loss, y, f[i])
		}
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
