package kmp

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// searcher is the part of a step that differs between the dictionary modes:
// which atoms are searched and how their products with the step's vectors
// are obtained. In memory (one DictProducts pass over the stored
// dictionary) and Streamed (every atom recomputed block by block) search
// every atom every step; StochasticSearch a random active set. The fitters
// (fitSquared, fitGeneral) are the same for all three.
type searcher struct {
	dc *dictionary
	e  *engine.Engine
	be engine.Ops
	// batch, when not nil, makes the in-memory passes over the shared
	// dictionary together with the other outputs' (lockstep.go).
	batch  *lockstep
	output int
	size   int   // atoms searched per step (the length of next's result)
	all    []int // every atom, in order (full search)
	smp    *sampler
	// running: every atom is searched every step (in memory or Streamed),
	// so per-atom state such as pre-fitting's ‖d_k⊥‖² can be kept up to
	// date across steps.
	running bool
	d       pursuit.Matrix // in memory: the matrix the pass reads
	row     pursuit.Matrix // streamed: this output's scratch for one atom (row64)
	prod    []float64      // in memory: the pass's products
	// Filled by scan for the searched atoms, in the order of next's result:
	// ⟨d_k, v_0⟩ (the first hi/lo pair of rows of vecs) and ‖d_k‖².
	score, nrm []float64
	// skip flags the atoms that may not be chosen (in the expansion where
	// the variant never repeats one, or refused for good: numerically
	// dependent, or a repeat); cskip is skip of the searched atoms, in the
	// order of next's result, which the fitters fill during a scan.
	skip, cskip []bool
	// Stochastic search: atoms found dependent in a row since the last
	// accepted one, and how many of them make it give up (canResample).
	dependentRun, giveUp int
	red                  []float64 // sharded stream: every block's products, reduced at once
}

func newSearcher(p *problem) *searcher {
	dc := p.dict
	m := dc.atoms.len()
	s := &searcher{dc: dc, e: p.e, be: p.e, batch: p.batch, output: p.output, size: m, d: dc.d, running: true}
	if st := dc.stream; st != nil {
		s.running = st.plan.Mode == Streamed
		if st.plan.Mode == StochasticSearch && st.plan.ActiveSet < m {
			s.size = st.plan.ActiveSet
			s.smp = newSampler(m, p.cfg.Seed, p.output)
			paperS, _ := ActiveSetSize(DefaultEps, DefaultQ)
			s.giveUp = 10 * max(s.size, paperS)
		}
	}
	if s.smp == nil {
		s.all = make([]int, m)
		for i := range s.all {
			s.all[i] = i
		}
	}
	s.score, s.nrm = make([]float64, s.size), make([]float64, s.size)
	s.skip, s.cskip = make([]bool, m), make([]bool, s.size)
	return s
}

// next returns the atoms to search this step, in increasing order; the
// slice is reused by the next call.
func (s *searcher) next() []int {
	if s.smp != nil {
		return s.smp.next(s.size)
	}
	return s.all
}

// remove takes atom k out of the random active sets (the full search keeps
// searching it and relies on the fitters' skip flags).
func (s *searcher) remove(k int) {
	if s.smp != nil {
		s.smp.remove(k)
	}
}

// drop takes atom k, found numerically dependent on the expansion, out of
// the search for good.
func (s *searcher) drop(k int) {
	s.remove(k)
	s.dependentRun++
}

// refuse takes atom k, at position c of this step's search, out of the
// search for good: it is numerically dependent on the expansion (or a
// repeat of an atom in it).
func (s *searcher) refuse(k, c int) {
	s.skip[k], s.cskip[c] = true, true
	s.drop(k)
}

// retire marks atom k, which joined an expansion whose variant never
// chooses an atom twice, as no longer eligible.
func (s *searcher) retire(k int) {
	s.skip[k] = true
	s.remove(k)
}

// verdict is a fitter's decision on the best-scoring eligible atom of a
// search (choose).
type verdict uint8

const (
	take    verdict = iota // the atom is the step's
	refuse                 // dependent on the expansion, or a repeat: out for good
	rescore                // its score was corrected: choose again
)

// choice is how choose ended.
type choice uint8

const (
	chosen    choice = iota // an atom was taken
	resample                // none was: run the step again on a new active set
	exhausted               // none was, and none is left: stop (StopExhausted)
)

// choose finds the step's atom among the searched atoms cand: the best
// score over denom (ScoredArgMax, skipping cskip) that check takes. check
// sees the atom's position gi in cand and its index k. An atom it refuses
// leaves the search for good (refuse) and the next best is tried; one it
// rescores (after correcting score or denom) is compared again. When
// check takes none, a stochastic search that may (canResample) runs the
// step again on a new active set, without the refused atoms; otherwise
// training stops. Every fitter decides "drop the dependent atom, resample
// or stop" here.
func (s *searcher) choose(cand []int, denom []float64, check func(gi, k int) (verdict, error)) (int, choice, error) {
	n := len(cand)
	for {
		gi, _ := s.e.ScoredArgMax(s.score[:n], denom[:n], s.cskip[:n])
		if gi < 0 {
			break
		}
		v, err := check(gi, cand[gi])
		if err != nil {
			return -1, chosen, err
		}
		switch v {
		case take:
			return gi, chosen, nil
		case refuse:
			s.refuse(cand[gi], gi)
		}
	}
	if s.canResample() {
		return -1, resample, nil
	}
	return -1, exhausted, nil
}

// accepted records that the step found a new atom k for the expansion (a
// sharded run keeps its centre's point for the model).
func (s *searcher) accepted(k int) {
	s.dependentRun = 0
	if cs := s.dc.cs; cs != nil {
		cs.keep(s.dc.atoms.at(k))
	}
}

// canResample says whether a step whose searched atoms all turned out
// unusable may draw another active set: while atoms are left to draw and
// fewer than giveUp sampled atoms were found dependent since the last new
// atom joined the expansion, giveUp being 10·s with s the active set size,
// at least the paper's 59 (ε = 0.05, q = 0.95). After 590 dependent atoms
// in a row, with probability at least 95% fewer than 0.5% of the atoms left
// are independent (Proposition 2 applied to dependence), and the fitters
// stop (StopExhausted) rather than examine every atom left, which costs a
// kernel row and a projection each: on a numerically low-rank dictionary of
// 50k atoms, minutes (skmp on 50k two-moons rows, 278 s instead of 3 s).
func (s *searcher) canResample() bool {
	return s.smp != nil && s.smp.Avail() > 0 && s.dependentRun < s.giveUp
}

// scan computes the products of the atoms cand (as returned by next) with
// the rows of vecs (length l each; row 0 the vector scored, and row 1 its
// lo half when lo is set), fills score and nrm, and calls each (if not nil), block by
// block, with the block's offset b0 in cand, its size nb and prod[j*nb+i] =
// <d_{cand[b0+i]}, v_j>. The slices are reused by the next block.
//
// In a sharded run the centres of cand are first gathered from their owners
// (when they are not all held), and the products and norms are the sums of
// every rank's, added by one collective: each is then called once, for all
// of cand.
func (s *searcher) scan(cand []int, vecs pursuit.Matrix, lo bool, each func(b0, nb int, prod []float64)) error {
	dc := s.dc
	if dc.cs != nil {
		if err := dc.cs.fetch(dc.atoms, cand); err != nil {
			return err
		}
	}
	block := func(b0, nb int, prod, bn []float64) { s.block(b0, nb, lo, prod, bn, each) }
	st := dc.stream
	if s.batch != nil && (st != nil || sameMatrix(s.d, dc.d)) {
		// Every atom, in one pass for all the outputs (lockstep): over the
		// shared in-memory dictionary, or gathering each resident block
		// once (scanSets). The pass sums its products over the ranks.
		m := len(cand)
		s.prod = grow(s.prod, vecs.Rows*m)
		if err := s.batch.products(s.output, s.prod[:vecs.Rows*m], vecs); err != nil {
			return err
		}
		block(0, m, s.prod, dc.nrm2)
		return nil
	}
	if st == nil {
		// In memory: this output's own pass over the whole matrix
		// (DictProductsSets with one set: the same products as in a shared
		// pass), or over explicit deflation's working copy, its alone.
		m := s.d.Rows
		s.prod = grow(s.prod, vecs.Rows*m)
		var err error
		if sameMatrix(s.d, dc.d) {
			err = s.e.DictProductsSets([][]float64{s.prod[:vecs.Rows*m]}, s.d, []pursuit.Matrix{vecs})
		} else {
			err = s.be.DictProducts(s.prod, s.d, vecs)
		}
		if err != nil {
			return fmt.Errorf("kmp: dictionary products: %w", err)
		}
		dc.sh.sum(s.prod[:vecs.Rows*m])
		if err := dc.sh.failed(); err != nil {
			return err
		}
		block(0, m, s.prod, dc.nrm2)
		return nil
	}
	if dc.sh.sharded() {
		return s.scanSharded(cand, vecs, block)
	}
	return st.scan(dc, cand, vecs, !s.running, func(b0, nb int, prod, bn []float64) {
		if s.running {
			bn = dc.nrm2[b0 : b0+nb] // cand is every atom in order
		}
		block(b0, nb, prod, bn)
	})
}

// splits reports whether scanSplit can scan: a stream on the host, this
// output's own pass, one rank (a sharded run fetches its centres, dc.cs).
func (s *searcher) splits() bool {
	st := s.dc.stream
	return st != nil && !st.resident && s.batch == nil && !s.dc.sh.sharded()
}

// scanSplit is scan with the float32 hi/lo pair of r as the vectors, made
// a chunk of points at a time (streamer.scanSplit); splits must hold.
func (s *searcher) scanSplit(cand []int, r []float64, each func(b0, nb int, prod []float64)) error {
	dc := s.dc
	return dc.stream.scanSplit(dc, cand, r, !s.running, func(b0, nb int, prod, bn []float64) {
		if s.running {
			bn = dc.nrm2[b0 : b0+nb] // cand is every atom in order
		}
		s.block(b0, nb, true, prod, bn, each)
	})
}

// block fills score and nrm for the block of nb atoms at b0 of a scan and
// calls each; lo says whether the vector scored is a hi/lo pair (rows 0
// and 1) or row 0 alone.
func (s *searcher) block(b0, nb int, lo bool, prod, bn []float64, each func(b0, nb int, prod []float64)) {
	for i := range nb {
		s.score[b0+i] = prod[i]
		if lo {
			s.score[b0+i] += prod[nb+i]
		}
		s.nrm[b0+i] = bn[i]
	}
	if each != nil {
		each(b0, nb, prod)
	}
}

// scanRows is scan with the rows of resident vectors (deviceFit) in place
// of vecs, each float64 vector taking the place of a hi/lo pair; the
// dictionary must be a resident stochastic stream.
func (s *searcher) scanRows(cand []int, vr vecRows, each func(b0, nb int, prod []float64)) error {
	return s.dc.stream.scanRows(s.dc, cand, vr, !s.running, func(b0, nb int, prod, bn []float64) {
		s.block(b0, nb, true, prod, bn, each)
	})
}

// row64 writes atom k at the training points into dst as float64.
func (s *searcher) row64(k int, dst []float64) error {
	if st := s.dc.stream; st != nil {
		return st.row64(s.dc, k, dst, &s.row)
	}
	s.dc.row64(k, dst)
	return nil
}

// sameMatrix reports whether a and b are views of the same elements.
func sameMatrix(a, b pursuit.Matrix) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && a.Stride == b.Stride &&
		len(a.Data) == len(b.Data) && (len(a.Data) == 0 || &a.Data[0] == &b.Data[0])
}

// scanSharded is scan's stream for a sharded run: the blocks' partial
// products (and, for a random active set, norms) over this rank's points go
// into one buffer, one collective sums it over the ranks, and block is
// called once for all of cand.
func (s *searcher) scanSharded(cand []int, vecs pursuit.Matrix, block func(b0, nb int, prod, bn []float64)) error {
	dc := s.dc
	n, k := len(cand), vecs.Rows
	norms := !s.running
	size := k * n
	if norms {
		size += n
	}
	s.red = grow(s.red, size)
	buf := s.red[:size]
	clear(buf)
	err := dc.stream.scan(dc, cand, vecs, norms, func(b0, nb int, prod, bn []float64) {
		for j := range k {
			copy(buf[j*n+b0:j*n+b0+nb], prod[j*nb:(j+1)*nb])
		}
		if norms {
			copy(buf[k*n+b0:k*n+b0+nb], bn)
		}
	})
	if err != nil {
		return err
	}
	dc.sh.sum(buf)
	if err := dc.sh.failed(); err != nil {
		return err
	}
	bn := dc.nrm2 // every atom in order, norms summed when the dictionary was set up
	if norms {
		bn = buf[k*n:]
	}
	block(0, n, buf[:k*n], bn)
	return nil
}
