package kmp

import (
	"errors"
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit/backend"
	"github.com/pursuit-ml/pursuit/engine"
)

// problem is the training of one output (one binary machine, one class of
// one-vs-rest, or a regression) on a dictionary shared by all outputs.
type problem struct {
	e      *engine.Engine
	cfg    *Config
	task   Task
	dict   *dictionary
	y      []float64 // targets at the training points (±1 or real)
	val    *valSet   // nil without validation
	valY   []float64 // validation targets for this output
	output int
}

// valSet evaluates dictionary atoms at the validation points, caching them
// across the outputs of one-vs-rest.
type valSet struct {
	e     *engine.Engine
	cfg   *Config
	tr    trainSet // centres
	pts   trainSet // validation points
	cache map[int][]float64
	atoms []atom
}

// row returns dictionary atom k evaluated at the validation points.
func (v *valSet) row(k int) ([]float64, error) {
	if r, ok := v.cache[k]; ok {
		return r, nil
	}
	dst := backend.NewMatrix(1, v.pts.x.Rows)
	if err := fillAtoms(v.e, v.cfg, v.atoms[k:k+1], v.tr, v.pts, dst); err != nil {
		return nil, fmt.Errorf("kmp: validation kernel values: %w", err)
	}
	r := make([]float64, dst.Cols)
	for j, x := range dst.Row(0) {
		r[j] = float64(x)
	}
	v.cache[k] = r
	return r, nil
}

// result is a fitted expansion: dictionary atoms and their coefficients, and
// the learning curve.
type result struct {
	atoms []int
	coef  []float64
	curve []Step
	kept  int   // steps kept (the best validation step, or all)
	path  *path // how the expansion grew, for Model.Truncate (nil: not recorded)
}

// tracker records the learning curve, evaluates validation error, and keeps
// the best snapshot for early stopping.
type tracker struct {
	p         *problem
	start     time.Time
	curve     []Step
	bestErr   float64
	bestLoss  float64
	bestStep  int
	bestAtoms []int
	bestCoef  []float64
}

func newTracker(p *problem) *tracker {
	return &tracker{p: p, start: time.Now(), bestErr: math.Inf(1), bestLoss: math.Inf(1)}
}

// record appends a step. fTrain and fVal are the current outputs at the
// training and validation points (fVal nil without validation); atoms and
// coef the current expansion (copied only on improvement). It reports
// whether training should stop for lack of patience.
func (t *tracker) record(step, k int, basis int, resid float64, fTrain, fVal []float64, atoms []int, coef []float64) bool {
	p := t.p
	a := p.dict.atoms[k]
	s := Step{
		Step: step, Basis: basis, Atom: k, Support: a.center, Kernel: a.kernel, Output: p.output,
		Residual:  resid,
		TrainLoss: meanLoss(p.cfg.Loss, p.y, fTrain),
		TrainErr:  errorOf(p.task, p.y, fTrain),
		ValLoss:   math.NaN(), ValErr: math.NaN(),
		Elapsed: time.Since(t.start),
	}
	improved := false
	if fVal != nil {
		s.ValLoss = meanLoss(p.cfg.Loss, p.valY, fVal)
		s.ValErr = errorOf(p.task, p.valY, fVal)
		switch p.cfg.Select {
		case SelectLoss:
			improved = s.ValLoss < t.bestLoss
		case SelectErrorLoss:
			improved = s.ValErr < t.bestErr || (s.ValErr == t.bestErr && s.ValLoss < t.bestLoss)
		default:
			improved = s.ValErr < t.bestErr || (p.task == Regression && s.ValErr == t.bestErr && s.ValLoss < t.bestLoss)
		}
	} else {
		improved = true // without validation the last step is kept
	}
	t.curve = append(t.curve, s)
	if improved {
		t.bestErr, t.bestLoss, t.bestStep = s.ValErr, s.ValLoss, step
		t.bestAtoms = append(t.bestAtoms[:0], atoms...)
		t.bestCoef = append(t.bestCoef[:0], coef...)
	}
	if p.cfg.Progress != nil {
		p.cfg.Progress(s)
	}
	return fVal != nil && p.cfg.Patience > 0 && step-t.bestStep >= p.cfg.Patience
}

func (t *tracker) result() *result {
	return &result{atoms: t.bestAtoms, coef: t.bestCoef, curve: t.curve, kept: t.bestStep}
}

// maxSteps is the step limit: N, or (N = 0, early stopping) the dictionary
// size for the variants that never repeat an atom.
func (p *problem) maxSteps() int {
	if p.cfg.N > 0 {
		return p.cfg.N
	}
	if p.cfg.Variant == Basic {
		return math.MaxInt
	}
	return len(p.dict.atoms)
}

// fit trains the output with the configured variant and loss.
func (p *problem) fit() (*result, error) {
	if p.cfg.Loss != Squared {
		return p.fitGeneral()
	}
	if p.dict.stream != nil {
		return p.fitStream() // scale_fit.go
	}
	return p.fitSquared()
}

// fitSquared runs basic matching pursuit, back-fitting or pre-fitting with
// the squared loss.
//
// Back-fitting and pre-fitting keep an orthonormal basis Q of the chosen
// atoms (float64, re-orthogonalised twice) and the triangular factor Rf with
// D_Γ = Q Rf, so the coefficients are α = Rf⁻¹ c with c = Qᵀy, and the
// residual R = y − Q c stays orthogonal to span Q. Each step is one pass
// over the unmodified dictionary computing Dᵀ[R, q] (R and the newest q
// each split into two float32 vectors so that the products are accurate to
// about float64 precision with respect to the stored dictionary); pre-fitting
// keeps ‖d_k⊥‖² = ‖d_k‖² − Σ_j ⟨q_j, d_k⟩² for every candidate and scores
// ⟨d_k, R⟩/‖d_k⊥‖ (Explicit deflation instead keeps D ← D − (Dq)qᵀ).
func (p *problem) fitSquared() (*result, error) {
	cfg, dc, be := p.cfg, p.dict, p.e.Backend()
	m, l := dc.d.Rows, dc.d.Cols
	variant := cfg.Variant
	prefit := variant == PreFit
	explicit := prefit && cfg.Deflation == Explicit

	resid := append([]float64(nil), p.y...)
	fTrain := make([]float64, l)
	vecs := backend.NewMatrix(4, l)
	prod := make([]float64, 4*m)
	s := make([]float64, m)
	skip := make([]bool, m)
	norms := dc.nrm2 // the score denominators
	var nperp []float64
	if prefit {
		nperp = append([]float64(nil), dc.nrm2...)
		norms = nperp
	}
	var dx backend.Matrix // explicit deflation's working copy
	if explicit {
		if err := p.e.Reserve("the explicitly deflated copy of the KMP dictionary", int64(m)*int64(l)*4); err != nil {
			return nil, fmt.Errorf("kmp: %w", err)
		}
		dx = backend.NewMatrix(m, l)
		copy(dx.Data, dc.d.Data)
	}

	var (
		qs    []float64   // orthonormal basis, row-major n×l
		rcols [][]float64 // column j of the triangular factor, length j+1
		cs    []float64   // Qᵀy
		atoms []int
		coef  []float64
		pos   = map[int]int{} // atom → position (basic MP)
		// basic MP's atom and coefficient increment per step
		stepAtoms []int
		stepInc   []float64
		lastQ     []float64
		v         = make([]float64, l)
		dk        = make([]float64, l)
		fVal      []float64
	)
	if p.val != nil {
		fVal = make([]float64, len(p.valY))
	}
	if variant != Basic && cfg.N > 0 {
		// The orthonormal basis is the other large allocation (N×l float64).
		n := min(cfg.N, m, l)
		if err := p.e.Reserve(fmt.Sprintf("the orthonormal basis of %d functions at %d training points (float64)", n, l), int64(n)*int64(l)*8); err != nil {
			return nil, fmt.Errorf("kmp: %w", err)
		}
		qs = make([]float64, 0, n*l)
	}
	tr := newTracker(p)
	ynorm := floats.Norm(p.y, 2)
	limit := p.maxSteps()

	for step := 1; step <= limit; step++ {
		if floats.Norm(resid, 2) <= 1e-13*ynorm || ynorm == 0 {
			break // the targets are fitted exactly
		}
		// One pass over the dictionary: Dᵀ[R, q].
		splitHiLo(resid, vecs.Row(0), vecs.Row(1))
		nv := 2
		if prefit && !explicit && lastQ != nil {
			splitHiLo(lastQ, vecs.Row(2), vecs.Row(3))
			nv = 4
		}
		if explicit {
			if err := be.DictProducts(prod, dx, vecs.Slice(0, nv, 0, l)); err != nil {
				return nil, fmt.Errorf("kmp: products with the deflated dictionary: %w", err)
			}
		} else if err := dc.products(be, prod, vecs.Slice(0, nv, 0, l)); err != nil {
			return nil, err
		}
		for k := range s {
			s[k] = prod[k] + prod[m+k]
		}
		if nv == 4 {
			for k := range nperp {
				pk := prod[2*m+k] + prod[3*m+k]
				nperp[k] -= pk * pk
			}
		}
		if explicit {
			copy(nperp, rowSqNorms64(dx, p.e.Threads()))
		}
		if prefit {
			for k := range nperp {
				if !skip[k] && nperp[k] <= cfg.Tol*dc.nrm2[k] {
					skip[k] = true
				}
			}
		}

		// Choose.
		var (
			g   int
			rnn float64
			rc  []float64
		)
		if variant == Basic {
			g, _ = be.ScoredArgMax(s, norms, nil)
			if g < 0 {
				break
			}
		} else {
			found := false
			for try := 0; ; try++ {
				g, _ = be.ScoredArgMax(s, norms, skip)
				if g < 0 {
					break
				}
				dc.row64(g, dk)
				// Below ~1M multiply-adds a goroutine costs more than it saves.
				rc = cgs2(v, dk, qs, l, min(p.e.Threads(), len(qs)>>20))
				nn := floats.Dot(v, v)
				if nn <= cfg.Tol*dc.nrm2[g] {
					skip[g] = true // numerically dependent on the basis
					if prefit {
						nperp[g] = nn
					}
					continue
				}
				// Pre-fitting's running ‖d⊥‖² is checked against the exact
				// value; if they differ, correct it and choose again.
				if prefit && try < 8 && math.Abs(nn-nperp[g]) > 1e-6*nn {
					nperp[g] = nn
					continue
				}
				rnn = math.Sqrt(nn)
				found = true
				break
			}
			if !found {
				break
			}
		}

		// Update.
		var resNorm float64
		if variant == Basic {
			// The coefficient from an exact float64 product with the chosen
			// atom (the pass's products may carry float32 partial sums).
			dc.row64(g, dk)
			a := floats.Dot(dk, resid) / dc.nrm2[g]
			floats.AddScaled(resid, -a, dk)
			stepAtoms, stepInc = append(stepAtoms, g), append(stepInc, a)
			if i, ok := pos[g]; ok {
				coef[i] += a
			} else {
				pos[g] = len(atoms)
				atoms = append(atoms, g)
				coef = append(coef, a)
			}
			if fVal != nil {
				vr, err := p.val.row(g)
				if err != nil {
					return nil, err
				}
				floats.AddScaled(fVal, a, vr)
			}
		} else {
			q := make([]float64, l)
			floats.ScaleTo(q, 1/rnn, v)
			col := append(rc, rnn)
			c := floats.Dot(q, resid)
			floats.AddScaled(resid, -c, q)
			qs, rcols, cs = append(qs, q...), append(rcols, col), append(cs, c)
			atoms = append(atoms, g)
			skip[g] = true
			lastQ = q
			if prefit {
				nperp[g] = 0
			}
			if explicit {
				if err := deflate(be, dc, dx, q, prod[:2*m], vecs); err != nil {
					return nil, err
				}
			}
			if fVal != nil {
				var err error
				coef, err = triSolve(rcols, cs)
				if err != nil {
					return nil, err
				}
			}
			if fVal != nil {
				for j := range fVal {
					fVal[j] = 0
				}
				for i, a := range atoms {
					vr, err := p.val.row(a)
					if err != nil {
						return nil, err
					}
					floats.AddScaled(fVal, coef[i], vr)
				}
			}
		}
		resNorm = floats.Norm(resid, 2)
		floats.SubTo(fTrain, p.y, resid)
		if fVal == nil && variant != Basic {
			// The coefficients are only needed for the kept step.
			coef = coef[:0]
		}
		if tr.record(step, g, len(atoms), resNorm, fTrain, fVal, atoms, coef) {
			break
		}
	}
	res := tr.result()
	if variant == Basic {
		res.path = &path{atoms: stepAtoms, inc: stepInc}
	} else {
		res.path = &path{atoms: atoms, rcols: rcols, cs: cs}
	}
	if variant != Basic && p.val == nil && len(res.atoms) > 0 {
		c, err := triSolve(rcols[:len(res.atoms)], cs[:len(res.atoms)])
		if err != nil {
			return nil, err
		}
		res.coef = c
	}
	return res, nil
}

// deflate applies D ← D − (D q) qᵀ to the explicit copy through the
// backend's RankUpdate.
func deflate(be backend.Backend, dc *dictionary, dx backend.Matrix, q []float64, prod []float64, vecs backend.Matrix) error {
	m, l := dx.Rows, dx.Cols
	splitHiLo(q, vecs.Row(0), vecs.Row(1))
	if err := be.DictProducts(prod, dx, vecs.Slice(0, 2, 0, l)); err != nil {
		return fmt.Errorf("kmp: explicit deflation products: %w", err)
	}
	u := backend.NewMatrix(1, m)
	for k := range m {
		u.Data[k] = float32(prod[k] + prod[m+k])
	}
	qv := backend.NewMatrix(1, l)
	for i, x := range q {
		qv.Data[i] = float32(x)
	}
	if err := be.RankUpdate(dx, -1, u, qv); err != nil {
		return fmt.Errorf("kmp: explicit deflation: %w", err)
	}
	return nil
}

// cgs2 writes into v the component of d orthogonal to the rows of the
// orthonormal basis qs (n×l, row-major) by classical Gram–Schmidt applied
// twice, and returns the projection coefficients Qᵀd, the new column of the
// triangular factor (with room for its diagonal). Each pass is two
// matrix–vector products through gonum's BLAS, split over threads by
// column blocks of Q.
func cgs2(v, d []float64, qs []float64, l, threads int) []float64 {
	copy(v, d)
	n := len(qs) / l
	rc := make([]float64, n, n+1)
	if n == 0 {
		return rc
	}
	threads = max(1, min(threads, l))
	chunk := (l + threads - 1) / threads
	parts := make([][]float64, threads)
	for t := range parts {
		parts[t] = make([]float64, n)
	}
	for range 2 {
		// r = Q v, as a sum of the column blocks' partial products.
		parallelFor(threads, threads, func(lo, hi int) {
			for t := lo; t < hi; t++ {
				c0, c1 := t*chunk, min((t+1)*chunk, l)
				r := parts[t]
				if c0 >= c1 {
					clear(r)
					continue
				}
				q := blas64.General{Rows: n, Cols: c1 - c0, Stride: l, Data: qs[c0:]}
				blas64.Gemv(blas.NoTrans, 1, q, blas64.Vector{N: c1 - c0, Inc: 1, Data: v[c0:c1]}, 0, blas64.Vector{N: n, Inc: 1, Data: r})
			}
		})
		r := parts[0]
		for t := 1; t < threads; t++ {
			floats.Add(r, parts[t])
		}
		// v −= Qᵀ r, block by block.
		parallelFor(threads, threads, func(lo, hi int) {
			for t := lo; t < hi; t++ {
				c0, c1 := t*chunk, min((t+1)*chunk, l)
				if c0 >= c1 {
					continue
				}
				q := blas64.General{Rows: n, Cols: c1 - c0, Stride: l, Data: qs[c0:]}
				blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: n, Inc: 1, Data: r}, 1, blas64.Vector{N: c1 - c0, Inc: 1, Data: v[c0:c1]})
			}
		})
		floats.Add(rc, r)
	}
	return rc
}

// orthogonalize is cgs2 for a basis held as separate vectors (modified
// Gram–Schmidt, applied twice).
func orthogonalize(v, d []float64, qs [][]float64) []float64 {
	copy(v, d)
	rc := make([]float64, len(qs), len(qs)+1)
	for range 2 {
		for j, q := range qs {
			r := floats.Dot(q, v)
			floats.AddScaled(v, -r, q)
			rc[j] += r
		}
	}
	return rc
}

// triSolve solves Rf α = c for the upper-triangular factor given by columns.
func triSolve(rcols [][]float64, c []float64) ([]float64, error) {
	n := len(c)
	if n == 0 {
		return nil, nil
	}
	t := mat.NewTriDense(n, mat.Upper, nil)
	for j := range n {
		for i := 0; i <= j; i++ {
			t.SetTri(i, j, rcols[j][i])
		}
	}
	var a mat.VecDense
	err := a.SolveVec(t, mat.NewVecDense(n, append([]float64(nil), c...)))
	var cond mat.Condition
	if err != nil && !errors.As(err, &cond) {
		return nil, fmt.Errorf("kmp: solving for the coefficients: %w", err)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = a.AtVec(i)
	}
	return out, nil
}
