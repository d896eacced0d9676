package kmp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/checkpoint"
)

// fitSquared runs basic matching pursuit, back-fitting or pre-fitting with
// the squared loss.
//
// Basic MP keeps no basis: it refuses only copies of atoms in the
// expansion (repeats), so its memory does not grow with l × steps.
// Back-fitting and pre-fitting keep an orthonormal basis Q of the chosen
// atoms (orthoBasis: float64, projected by cgs2, re-orthogonalised when
// needed) and the triangular factor Rf with D_Γ = Q Rf, and refuse atoms
// numerically dependent on it; their coefficients are α = Rf⁻¹ c with
// c = Qᵀy, and the residual R = y − Q c stays orthogonal to span Q. Each step is one pass
// over the searched atoms (the searcher's: the stored dictionary, all atoms
// recomputed block by block, or a random active set) computing Dᵀ[R, q] (R
// and q each split into two float32 vectors, hi and lo, except in
// full-search pre-fitting, which takes the float32 vectors alone: see
// incremental). Pre-fitting scores ⟨d_k, R⟩/‖d_k⊥‖ with ‖d_k⊥‖² = ‖d_k‖² −
// Σ_j ⟨q_j, d_k⟩²: a full search keeps it for every atom and updates it with
// the newest q each step (Explicit deflation instead keeps D ← D − (Dq)qᵀ);
// the stochastic search computes it afresh for the s sampled atoms from a
// float32 hi/lo copy of the basis, O(l·n·s) per step. When the stochastic
// search keeps its kernel blocks resident (a GPU), the l-length vectors stay
// there too (deviceFit) and the products are taken with the float64 vectors
// directly.
//
// The fit's state is a sqFit; a step is its pass, choose, update and
// record, in that order (run).
func (p *problem) fitSquared() (*result, error) {
	s, err := p.newSqFit()
	defer s.release() // nothing keeps the basis vectors (the result keeps Rf)
	if err != nil {
		return nil, err
	}
	stop, err := s.run()
	if err != nil {
		return nil, err
	}
	if err := p.sh.failed(); err != nil {
		return nil, err
	}
	return s.result(stop)
}

// sqFit is one squared-loss fit between its steps: the variant, the
// residual and the expansion, pre-fitting's running products, and the
// vectors of this step's pass.
type sqFit struct {
	p      *problem
	cfg    *Config
	dc     *dictionary
	search *searcher
	l, lv  int // this rank's training points, and the vectors' stride (each starts on a cache line)

	basic, prefit, explicit bool
	// running: every atom is searched every step (searcher.running).
	running bool
	// incremental: full-search pre-fitting updates ⟨d_k, R⟩ as the
	// residual moves: R ← R − c·q gives ⟨d_k, R⟩ − c·⟨d_k, q⟩, and
	// ⟨d_k, q⟩ is in the pass anyway (for ‖d_k⊥‖²), so most passes take q
	// alone (qOnly). Every rdotRefresh steps, and after the chosen atom's
	// value had to be corrected, the pass takes R again.
	//
	// Its passes take R and q as float32 vectors alone (vq's rows 0 and 1),
	// without lo halves: those would add under a part in 10⁷ of
	// ‖d_k‖·‖v‖ to products whose float32 runs (32 products per lane)
	// already round that much (on USPS ⟨d_k, q⟩ for a random unit q was off
	// by 1.24e-9·‖d_k‖ rms without the lo half, 1.15e-9 with it). The
	// chosen atom's values are checked in float64 (see checkOrtho).
	incremental bool

	dx    pursuit.Matrix // explicit deflation's working copy
	dprod []float64      // and its deflation products

	resid []float64 // y − f at the training points
	// vq holds the vectors the searched atoms are multiplied with, rows lv
	// apart: R as a float32 hi/lo pair, then (stochastic pre-fitting)
	// every q of the basis as one; full-search pre-fitting keeps R and
	// the newest q as plain float32 rows (incremental). Basic MP on a host
	// stream has none (split): its pass splits R a chunk at a time.
	vq    []float32
	split bool
	denom []float64   // ‖d_k‖² or ‖d_k⊥‖² of the searched atoms
	nperp []float64   // full-search pre-fitting: ‖d_k⊥‖² of every atom
	ob    *orthoBasis // of the atoms in the expansion (back-fitting, pre-fitting)
	rep   *repeats    // basic MP: the chosen atoms' centres
	cs    []float64   // Qᵀy (back-fitting, pre-fitting)
	atoms []int       // the expansion
	coef  []float64   // and its coefficients (see record)
	pos   map[int]int // atom → position (basic MP)
	dk    []float64   // the chosen atom at the training points (host)
	dv    *deviceFit  // the vectors on the device (nil: the host slices)
	fVal  []float64   // the expansion at the validation points (nil without)
	tr    *tracker
	// basis size checked against the budget so far
	basisN int
	// basic MP's atom and coefficient increment per step (Model.Truncate)
	stepAtoms []int
	stepInc   []float64
	dr        []float64 // basic MP: ⟨d, R⟩ and ‖R‖² for the chosen atom

	rdot      []float64 // incremental: ⟨d_k, R⟩ of every atom, kept up to date
	lastC     float64   // the last step's c
	sinceRDot int       // steps since ⟨d_k, R⟩ was taken from a pass

	ynorm, rnorm float64 // ‖y‖, and ‖R‖ kept up to date as R changes
	limit        int

	// This step's pass: whether it takes q alone, the numbers of vectors
	// and of basis vectors (stochastic pre-fitting) it multiplies, the host
	// vectors (dv keeps its own) and the searched atoms.
	qOnly  bool
	nv, nq int
	vecs   pursuit.Matrix
	cand   []int
	each   func(b0, nb int, prod []float64) // s.scored, bound once
	// checkOrtho's state within a step: how often it ran, and the atom
	// whose part orthogonal to the basis it computed last (in dk and ob,
	// or dv) with that part's squared norm: a correction often chooses it
	// again.
	tries     int
	projected int
	lastNN    float64
}

// newSqFit sets up the fit: the working vectors, the reservations, and the
// device vectors. The fit it returns is to be released even with an error.
func (p *problem) newSqFit() (*sqFit, error) {
	cfg, dc := p.cfg, p.dict
	m, l := dc.atoms.len(), len(p.y)
	s := &sqFit{p: p, cfg: cfg, dc: dc, l: l, lv: pursuit.AlignedStride(l),
		basic: cfg.Variant == Basic, prefit: cfg.Variant == PreFit, ob: &orthoBasis{}}
	s.explicit = s.prefit && cfg.Deflation == Explicit
	if dc.stream != nil && cfg.Deflation == Explicit {
		return s, fmt.Errorf("kmp: explicit deflation needs the dictionary in memory, not the %s mode", dc.stream.plan.Mode)
	}
	s.search = newSearcher(p)
	s.running = s.search.running
	if s.explicit {
		if err := p.reserve("the explicitly deflated copy of the KMP dictionary", int64(m)*int64(pursuit.AlignedStride(l))*4); err != nil {
			return s, fmt.Errorf("kmp: %w", err)
		}
		s.dx = pursuit.NewAlignedMatrix(m, l)
		for k := range m {
			copy(s.dx.Row(k), dc.d.Row(k))
		}
		s.search.d = s.dx
		s.dprod = make([]float64, 2*m)
	}
	s.resid = append([]float64(nil), p.y...)
	// R's hi/lo pair, or R and q; pre-fitting appends a pair per step
	// (room for the first), basic MP never does.
	vqCap := 4 * s.lv
	if s.basic {
		vqCap = 2 * s.lv
	}
	if s.split = s.basic && s.search.splits(); !s.split {
		s.vq = make([]float32, 2*s.lv, vqCap)
	}
	s.denom = make([]float64, s.search.size)
	s.ob = newOrthoBasis(p.e, l, p.sh)
	s.pos = map[int]int{}
	s.dk = make([]float64, l)
	s.incremental = s.prefit && s.running && !s.explicit
	if s.prefit && s.running {
		s.nperp = append([]float64(nil), dc.nrm2...)
	}
	if s.incremental {
		s.rdot = make([]float64, m)
	}
	if s.basic {
		s.rep = newRepeats()
	}
	if p.val != nil {
		s.fVal = make([]float64, len(p.valY))
	}
	s.tr = newTracker(p)
	s.ynorm = p.sh.norm(p.y)
	s.rnorm = s.ynorm
	s.limit = p.maxSteps()
	s.each = s.scored
	if st := dc.stream; st != nil && st.resident && !s.running && p.e.ResidentVectors() == p.e.ResidentBlocks() {
		// The vectors live where the blocks do: on the device, or in host
		// memory when a test forces the resident path on a CPU backend.
		// (A full search keeps them on the host: pre-fitting's ‖d_k⊥‖² of
		// every atom is then updated with the newest q alone each step,
		// where deviceFit would take every basis vector's products.)
		s.ob.external = true
		capN := min(s.limit, m, l, 64)
		if s.basic {
			capN = 0 // basic MP keeps no basis
		}
		dv, err := newDeviceFit(p.e, st, p.y, s.ob, capN)
		if err != nil {
			return s, err
		}
		s.dv = dv
	}
	if cfg.N > 0 && dc.stream == nil && !s.basic {
		// In memory the orthonormal basis is the other large allocation
		// (N×l float64): reserve it at once.
		s.basisN = min(cfg.N, m, p.n)
		if err := p.reserve(fmt.Sprintf("the orthonormal basis of %d functions at %d training points (float64)", s.basisN, l), int64(s.basisN)*int64(l)*8); err != nil {
			return s, fmt.Errorf("kmp: %w", err)
		}
		s.ob.reserve(s.basisN, s.basisN)
	}
	return s, nil
}

// release frees the device vectors and the basis.
func (s *sqFit) release() {
	if s.dv != nil {
		_ = s.dv.release()
	}
	s.ob.release()
}

// run takes the steps until one stops the fit, and returns why ("" at the
// step limit).
func (s *sqFit) run() (StopReason, error) {
	first := 1
	if s.p.cfg.ck != nil {
		var err error
		if err = s.ckSupported(); err == nil {
			first, err = s.resume()
		}
		if err != nil && s.p.sh.sharded() && errors.Is(err, pursuit.ErrBadInput) {
			// Every rank replays the same state and refuses it alike.
			err = together(checkpoint.EveryRank(err))
		}
		if err != nil {
			return "", err
		}
	}
	for step := first; step <= s.limit; step++ {
		if err := s.p.sh.failed(); err != nil {
			return "", err
		}
		if s.dv != nil {
			var err error
			if s.rnorm, err = s.dv.residNorm(); err != nil {
				return "", err
			}
		}
		if s.ynorm == 0 || s.rnorm <= 1e-13*s.ynorm {
			return StopFitted, nil
		}
		if err := s.pass(); err != nil {
			return "", err
		}
		check := s.checkOrtho
		if s.basic {
			check = s.checkBasic
		}
		s.tries, s.projected, s.lastNN = 0, -1, 0
		gi, how, err := s.search.choose(s.cand, s.denom, check)
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
		if s.basic {
			if neg, err := s.negligible(gi); err != nil {
				return "", err
			} else if neg {
				return StopOrthogonal, nil
			}
		}
		g := s.cand[gi]
		if _, in := s.pos[g]; !in {
			s.search.accepted(g)
		}
		if s.basic {
			err = s.updateBasic(gi, g)
		} else {
			err = s.updateOrtho(step, g)
		}
		if err != nil {
			return "", err
		}
		if stop, err := s.record(step, g); err != nil {
			return "", err
		} else if stop {
			return StopPatience, nil
		}
		if err := s.checkpoint(step); err != nil {
			return "", err
		}
	}
	return "", nil
}

// pass prepares the step's vectors and scans the searched atoms, filling
// the searcher's scores and norms and denom (scored).
func (s *sqFit) pass() error {
	l, lv := s.l, s.lv
	// qOnly: this pass takes q alone and ⟨d_k, R⟩ follows from rdot.
	s.qOnly = s.incremental && len(s.cs) > 0 && s.sinceRDot < rdotRefresh
	switch {
	case s.dv != nil || s.qOnly || s.split:
	case s.incremental:
		toFloat32(s.vq[:l], s.resid)
	default:
		splitHiLo(s.resid, s.vq[:l], s.vq[lv:lv+l])
	}
	s.nv, s.nq = 2, 0
	switch {
	case s.explicit:
		rowSqNorms64To(s.p.e, s.nperp, s.dx)
		s.p.sh.sum(s.nperp)
	case s.qOnly:
		s.nv = 1
	case s.incremental && len(s.cs) > 0:
		s.nv = 2 // R and q
	case s.incremental:
		s.nv = 1
	case s.prefit && !s.running:
		s.nq = len(s.cs)
		s.nv = 2 + 2*s.nq
	}
	s.vecs = pursuit.Matrix{}
	if s.dv == nil && !s.split {
		v0 := 0
		if s.qOnly {
			v0 = lv // q
		}
		s.vecs = pursuit.Matrix{Rows: s.nv, Cols: l, Stride: lv, Data: s.vq[v0 : v0+(s.nv-1)*lv+l]}
	}
	if s.incremental {
		if s.qOnly {
			s.sinceRDot++
		} else {
			s.sinceRDot = 0
		}
	}
	s.cand = s.search.next()
	switch {
	case s.dv != nil:
		return s.dv.scan(s.search, s.cand, s.nq > 0, s.each)
	case s.split:
		return s.search.scanSplit(s.cand, s.resid, s.each)
	}
	return s.search.scan(s.cand, s.vecs, !s.incremental, s.each)
}

// scored is the pass's work on a block of nb searched atoms at b0 with
// their products prod: each atom's denominator, pre-fitting's deflated
// norms and (full search) running ⟨d_k, R⟩, and the refusal of atoms
// whose deflated norm shows them dependent.
func (s *sqFit) scored(b0, nb int, prod []float64) {
	sr := s.search
	score, nrm, skip := sr.score, sr.nrm, sr.skip
	for i := range nb {
		c, k := b0+i, s.cand[b0+i]
		s.denom[c] = nrm[c]
		if s.prefit {
			switch {
			case s.qOnly:
				pk := prod[i]
				s.nperp[k] -= pk * pk
				s.rdot[k] -= s.lastC * pk
				score[c] = s.rdot[k]
				s.denom[c] = s.nperp[k]
			case s.running:
				if s.incremental {
					if s.nv == 2 {
						pk := prod[nb+i]
						s.nperp[k] -= pk * pk
					}
					s.rdot[k] = score[c]
				}
				s.denom[c] = s.nperp[k]
			case s.nq > 0:
				var pp float64
				for j := range s.nq {
					pj := prod[(2+2*j)*nb+i] + prod[(3+2*j)*nb+i]
					pp += pj * pj
				}
				s.denom[c] = nrm[c] - pp
			}
			if !skip[k] && s.denom[c] <= s.cfg.Tol*nrm[c] {
				sr.refuse(k, c)
			}
		}
		sr.cskip[c] = skip[k]
	}
}

// load puts atom g at the training points in dk (or dv).
func (s *sqFit) load(g int) error {
	if s.dv != nil {
		return s.dv.load(s.dc, g)
	}
	return s.search.row64(g, s.dk)
}

// project computes the loaded atom's part orthogonal to the basis (in ob,
// or dv) and returns its squared norm.
func (s *sqFit) project() (float64, error) {
	if s.dv != nil {
		return s.dv.project()
	}
	return s.ob.project(s.dk), nil
}

// checkBasic is basic MP's choice (Figure 1): it may choose an atom of the
// expansion again, but a copy of one (the same kernel on a point with the
// same coordinates) may not join it (repeats).
func (s *sqFit) checkBasic(_, g int) (verdict, error) {
	if _, in := s.pos[g]; in || !s.rep.repeated(s.dc, g) {
		return take, s.load(g)
	}
	return refuse, nil
}

// checkOrtho is back-fitting's and pre-fitting's choice: an atom
// numerically dependent on the basis is refused; pre-fitting's ‖d⊥‖² and
// the incremental ⟨d, R⟩ are checked against their exact values, and a
// drifted one is corrected and the choice made again (at most 8 times).
func (s *sqFit) checkOrtho(gi, g int) (verdict, error) {
	try := s.tries
	s.tries++
	nrm := s.search.nrm
	nn := s.lastNN
	if g != s.projected {
		if err := s.load(g); err != nil {
			return take, err
		}
		var err error
		if nn, err = s.project(); err != nil {
			return take, err
		}
		s.projected, s.lastNN = g, nn
	}
	if nn <= s.cfg.Tol*nrm[gi] {
		// Numerically dependent on the basis.
		if s.prefit {
			s.denom[gi] = nn
			if s.running {
				s.nperp[g] = nn
			}
		}
		return refuse, nil
	}
	// Pre-fitting's ‖d⊥‖² is checked against the exact value; if they
	// differ, correct it and choose again.
	if s.prefit && try < 8 && math.Abs(nn-s.denom[gi]) > 1e-6*nn {
		s.denom[gi] = nn
		if s.running {
			s.nperp[g] = nn
		}
		return rescore, nil
	}
	// So is the updated ⟨d, R⟩, to the accuracy of a pass's product (1e-6
	// of ‖d‖·‖R‖); if it drifted further, every atom's is taken from the
	// next pass.
	if s.qOnly && try < 8 {
		exact := s.p.sh.dot(s.dk, s.resid)
		if math.Abs(exact-s.rdot[g]) > 1e-6*math.Sqrt(nrm[gi])*s.rnorm {
			s.rdot[g], s.search.score[gi] = exact, exact
			s.sinceRDot = rdotRefresh
			return rescore, nil
		}
	}
	return take, nil
}

// negligible reports whether basic MP's chosen atom (at gi, loaded) is
// numerically orthogonal to the residual, so that a step along it would
// change nothing.
func (s *sqFit) negligible(gi int) (bool, error) {
	nrm := s.search.nrm[gi]
	if s.dv != nil {
		return s.dv.negligible(nrm, s.cfg.Tol)
	}
	// ⟨d, R⟩ and ‖R‖² (summed over the ranks in one collective).
	s.dr = s.p.sh.dots(s.dk, s.resid, s.resid, s.resid)
	return negligible(s.dr[0], s.dr[1], nrm, s.cfg.Tol), nil
}

// updateBasic takes basic MP's step along atom g (at gi): the residual,
// the coefficient (the atom may be in the expansion already) and the
// validation outputs.
func (s *sqFit) updateBasic(gi, g int) error {
	// The coefficient from an exact float64 product with the chosen atom
	// (the pass's products may carry float32 partial sums).
	nrm := s.search.nrm[gi]
	var a float64
	if s.dv != nil {
		var err error
		if a, err = s.dv.stepBasic(nrm); err != nil {
			return err
		}
	} else {
		a = s.dr[0] / nrm
		floats.AddScaled(s.resid, -a, s.dk)
	}
	s.stepAtoms, s.stepInc = append(s.stepAtoms, g), append(s.stepInc, a)
	if i, ok := s.pos[g]; ok {
		s.coef[i] += a
	} else {
		s.rep.keep(s.dc, g)
		s.pos[g] = len(s.atoms)
		s.atoms = append(s.atoms, g)
		s.coef = append(s.coef, a)
	}
	if s.fVal != nil {
		vr, err := s.p.val.row(g)
		if err != nil {
			return err
		}
		floats.AddScaled(s.fVal, a, vr)
	}
	return nil
}

// updateOrtho adds atom g (projected) to the basis, moves the residual
// along the new basis vector q, keeps pre-fitting's vectors (the deflated
// copy, q for the next pass, or q's hi/lo pair) and, with validation,
// solves for the coefficients.
func (s *sqFit) updateOrtho(step, g int) error {
	p, l, lv := s.p, s.l, s.lv
	withHiLo := s.prefit && !s.running && s.dv == nil
	n0 := s.basisN
	if err := p.growBasis(s.ob, &s.basisN, s.limit, step, basisFloats(withHiLo)); err != nil {
		return err
	}
	if withHiLo && s.basisN > n0 {
		s.vq = slices.Grow(s.vq, 2*(s.basisN-len(s.cs))*lv)
	}
	var q []float64 // on the host (nil with dv)
	var c float64
	if s.dv != nil {
		if err := s.dv.push(); err != nil {
			return err
		}
		var err error
		if c, err = s.dv.stepOrtho(); err != nil {
			return err
		}
	} else {
		q = s.ob.push()
		c = p.sh.dot(q, s.resid)
		floats.AddScaled(s.resid, -c, q)
	}
	s.lastC = c
	s.cs = append(s.cs, c)
	s.atoms = append(s.atoms, g)
	s.search.retire(g)
	switch {
	case s.explicit:
		s.nperp[g] = 0
		if err := deflate(p.e, p.sh, s.dx, q, s.dprod, s.vecs.Slice(0, 2, 0, l)); err != nil {
			return err
		}
	case s.incremental:
		s.nperp[g] = 0
		toFloat32(s.vq[lv:lv+l], q)
	case s.prefit && s.dv == nil:
		n0 := len(s.vq)
		s.vq = append(s.vq, make([]float32, 2*lv)...)
		splitHiLo(q, s.vq[n0:n0+l], s.vq[n0+lv:n0+lv+l])
	}
	if s.fVal != nil {
		var err error
		if s.coef, err = triSolve(s.ob.rcols, s.cs); err != nil {
			return err
		}
		clear(s.fVal)
		for i, a := range s.atoms {
			vr, err := p.val.row(a)
			if err != nil {
				return err
			}
			floats.AddScaled(s.fVal, s.coef[i], vr)
		}
	}
	return nil
}

// record adds step (atom g) to the learning curve with the residual's norm
// and the training loss and error, and reports whether training should
// stop for lack of patience.
func (s *sqFit) record(step, g int) (bool, error) {
	if s.fVal == nil && !s.basic {
		s.coef = s.coef[:0] // only the kept step's coefficients are needed
	}
	var lossS, errS float64 // this rank's sums of the training loss and error
	if s.dv != nil {
		var err error
		if s.rnorm, lossS, errS, err = s.dv.stats(s.cfg.Task); err != nil {
			return false, err
		}
	} else {
		s.rnorm = s.p.sh.norm(s.resid)
		lossS, errS = residSums(s.cfg.Loss, s.cfg.Task, s.p.y, s.resid)
	}
	return s.tr.recordSums(step, g, len(s.atoms), s.rnorm, lossS, errS, s.fVal, s.atoms, s.coef), nil
}

// result is the fit's expansion at the kept step, with the path Truncate
// follows.
func (s *sqFit) result(stop StopReason) (*result, error) {
	res := s.tr.result()
	res.stop = stop
	if s.basic {
		res.path = &path{atoms: s.stepAtoms, inc: s.stepInc}
	} else {
		res.path = &path{atoms: s.atoms, rcols: s.ob.rcols, cs: s.cs}
	}
	if !s.basic && s.p.val == nil && len(res.atoms) > 0 {
		c, err := triSolve(s.ob.rcols[:len(res.atoms)], s.cs[:len(res.atoms)])
		if err != nil {
			return nil, err
		}
		res.coef = c
	}
	return res, nil
}
