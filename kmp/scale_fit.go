package kmp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/pursuit-ml/pursuit/backend"
)

// fitStream trains one output on a dictionary computed on the fly: the
// Streamed mode (every atom, block by block, each step) or the
// StochasticSearch mode (a random active set each step). The updates are
// those of fitSquared and fitGeneral; only the search differs, so with the
// whole dictionary as the active set the same atoms are chosen.
//
// Pre-fitting needs ‖d_k⊥‖² = ‖d_k‖² − Σ_j ⟨q_j, d_k⟩² for every searched
// atom. Streamed keeps it for all atoms and updates it with the newest q
// each step (one more pair of rows in the dictionary product, as in
// memory); StochasticSearch computes it afresh for the s sampled atoms from
// a float32 hi/lo copy of the basis, O(l·n·s) per step.
func (p *problem) fitStream() (*result, error) {
	cfg, dc, be := p.cfg, p.dict, p.e.Backend()
	st := dc.stream
	m, l := len(dc.atoms), st.tr.x.Rows
	variant := cfg.Variant
	prefit := variant == PreFit
	running := st.plan.Mode == Streamed // all atoms every step
	if cfg.Deflation == Explicit {
		return nil, fmt.Errorf("kmp: explicit deflation needs the dictionary in memory, not the %s mode", st.plan.Mode)
	}

	search := newSearcher(p)
	ns := search.size
	var (
		resid  = append([]float64(nil), p.y...)
		fTrain = make([]float64, l)
		// The vectors the searched atoms are multiplied with, as float32
		// hi/lo row pairs: R, then (Streamed pre-fitting) the newest q or
		// (StochasticSearch pre-fitting) every q of the basis.
		vq     = make([]float32, 2*l, 4*l)
		score  = make([]float64, ns) // ⟨d_k, R⟩ of the searched atoms
		denom  = make([]float64, ns) // ‖d_k‖² or ‖d_k⊥‖²
		nrm    = make([]float64, ns) // ‖d_k‖²
		cskip  = make([]bool, ns)
		skip   = make([]bool, m) // chosen or numerically dependent
		nperp  []float64         // Streamed pre-fitting: ‖d_k⊥‖² of every atom
		qs     [][]float64
		rcols  [][]float64
		cs     []float64
		atoms  []int
		coef   []float64
		pos    = map[int]int{}
		lastQ  []float64
		v      = make([]float64, l)
		dk     = make([]float64, l)
		fVal   []float64
		basisN int // basis size checked against the budget so far
		// basic MP's atom and coefficient increment per step (Model.Truncate)
		stepAtoms []int
		stepInc   []float64
	)
	if prefit && running {
		nperp = append([]float64(nil), dc.nrm2...)
		vq = vq[:4*l]
	}
	if p.val != nil {
		fVal = make([]float64, len(p.valY))
	}
	tr := newTracker(p)
	ynorm := floats.Norm(p.y, 2)
	limit := p.maxSteps()

	for step := 1; step <= limit; step++ {
		if ynorm == 0 || floats.Norm(resid, 2) <= 1e-13*ynorm {
			break
		}
		splitHiLo(resid, vq[:l], vq[l:2*l])
		nv, nq := 2, 0
		switch {
		case prefit && running && lastQ != nil:
			nv = 4
		case prefit && !running:
			nq = len(qs)
			nv = 2 + 2*nq
		}
		vecs := backend.Matrix{Rows: nv, Cols: l, Stride: l, Data: vq[:nv*l]}
		cand := search.next()
		n := len(cand)
		err := st.scan(dc, cand, vecs, !running, func(b0, nb int, prod, bn []float64) error {
			for i := range nb {
				c, k := b0+i, cand[b0+i]
				score[c] = prod[i] + prod[nb+i]
				if running {
					nrm[c] = dc.nrm2[k]
				} else {
					nrm[c] = bn[i]
				}
				denom[c] = nrm[c]
				if prefit {
					switch {
					case running:
						if nv == 4 {
							pk := prod[2*nb+i] + prod[3*nb+i]
							nperp[k] -= pk * pk
						}
						denom[c] = nperp[k]
					case nq > 0:
						var pp float64
						for j := range nq {
							pj := prod[(2+2*j)*nb+i] + prod[(3+2*j)*nb+i]
							pp += pj * pj
						}
						denom[c] = nrm[c] - pp
					}
					if !skip[k] && denom[c] <= cfg.Tol*nrm[c] {
						skip[k] = true
						search.remove(k)
					}
				}
				cskip[c] = skip[k]
			}
			return nil
		})
		if err != nil {
			return nil, err
		}

		// Choose among the searched atoms.
		var (
			gi  int
			rnn float64
			rc  []float64
		)
		if variant == Basic {
			gi, _ = be.ScoredArgMax(score[:n], denom[:n], nil)
			if gi < 0 {
				break
			}
		} else {
			found := false
			for try := 0; ; try++ {
				gi, _ = be.ScoredArgMax(score[:n], denom[:n], cskip[:n])
				if gi < 0 {
					break
				}
				g := cand[gi]
				if err := st.row64(dc, g, dk); err != nil {
					return nil, err
				}
				rc = orthogonalize(v, dk, qs)
				nn := floats.Dot(v, v)
				if nn <= cfg.Tol*nrm[gi] {
					skip[g], cskip[gi] = true, true // numerically dependent on the basis
					search.remove(g)
					if prefit {
						denom[gi] = nn
						if running {
							nperp[g] = nn
						}
					}
					continue
				}
				// The computed ‖d⊥‖² is checked against the exact value;
				// if they differ, correct it and choose again.
				if prefit && try < 8 && math.Abs(nn-denom[gi]) > 1e-6*nn {
					denom[gi] = nn
					if running {
						nperp[g] = nn
					}
					continue
				}
				rnn = math.Sqrt(nn)
				found = true
				break
			}
			if !found {
				if search.canResample() {
					// Every sampled atom turned out dependent (and is now
					// out of the draw): sample again for this step.
					step--
					continue
				}
				break
			}
		}
		g := cand[gi]

		// Update.
		if variant == Basic {
			// The coefficient from an exact float64 product with the chosen
			// atom, as fitSquared does.
			if err := st.row64(dc, g, dk); err != nil {
				return nil, err
			}
			a := floats.Dot(dk, resid) / nrm[gi]
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
			// The basis is the one memory cost that grows with the steps:
			// check it against the budget each time it doubles.
			if len(qs)+1 > basisN {
				basisN = min(max(64, 2*basisN), limit)
				if err := p.e.Reserve(fmt.Sprintf("the orthonormal basis of %d functions at %d points", basisN, l), basisBytes(basisN, l, prefit && !running)); err != nil {
					return nil, fmt.Errorf("kmp: step %d: %w", step, err)
				}
				if prefit && !running {
					vq = append(make([]float32, 0, (2+2*basisN)*l), vq...)
				}
			}
			q := make([]float64, l)
			floats.ScaleTo(q, 1/rnn, v)
			col := append(rc, rnn)
			c := floats.Dot(q, resid)
			floats.AddScaled(resid, -c, q)
			qs, rcols, cs = append(qs, q), append(rcols, col), append(cs, c)
			atoms = append(atoms, g)
			skip[g] = true
			search.remove(g)
			lastQ = q
			if prefit {
				if running {
					nperp[g] = 0
					splitHiLo(q, vq[2*l:3*l], vq[3*l:4*l])
				} else {
					n0 := len(vq)
					vq = append(vq, make([]float32, 2*l)...)
					splitHiLo(q, vq[n0:n0+l], vq[n0+l:n0+2*l])
				}
			}
			if fVal != nil {
				var err error
				if coef, err = triSolve(rcols, cs); err != nil {
					return nil, err
				}
				clear(fVal)
				for i, a := range atoms {
					vr, err := p.val.row(a)
					if err != nil {
						return nil, err
					}
					floats.AddScaled(fVal, coef[i], vr)
				}
			}
		}
		resNorm := floats.Norm(resid, 2)
		floats.SubTo(fTrain, p.y, resid)
		if fVal == nil && variant != Basic {
			coef = coef[:0] // only the kept step's coefficients are needed
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

// basisBytes is the memory of an orthonormal basis of n vectors of length
// l in float64, plus its float32 hi/lo copy when withHiLo.
func basisBytes(n, l int, withHiLo bool) int64 {
	b := int64(n) * int64(l) * 8
	if withHiLo {
		b *= 2
	}
	return b
}
