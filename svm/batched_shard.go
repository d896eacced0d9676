package svm

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pursuit-ml/pursuit"
)

// The batched working-set solver across ranks.
//
// Each rank holds the variables of its own rows (α, G, the status) and, of
// every working-set member's kernel row, the part at its own points, as
// the SMO solver across ranks does (shard.go). An outer iteration takes two
// collectives, whatever the working-set size q:
//
//   - the selection exchange (Allgatherv): every rank sends its q best
//     variables of I_up by −y_a G_a and its q best of I_low by y_a G_a
//     (value, variable of the whole problem, kernel point, non-zeros of the
//     point: bRecWidth values each, padded to q a side). Every rank merges
//     them in the one-process order (value descending, then variable
//     ascending), takes the gap (the best of each side) for the stopping
//     test, and chooses the same working set by the one-process rule
//     (selectFrom): the global best q of each side are among the ranks'
//     best q.
//   - the working-set gather (Allgatherv): the owners of the set's
//     variables send their y, C, G and α, and the owners of the points
//     whose rows are not held send the points (norm and features; the
//     non-zero counts of the first exchange size the sparse ones), so every
//     rank knows every rank's count in advance.
//
// Then every rank computes, without communicating, the missing rows at its
// own points (one engine kernel block against its prepared points), the
// q×q block among the set's points (one kernel block of the set's points,
// kept from the gathers, against themselves), solves the subproblem (every
// rank the same, from the same values), stores the new α of its own
// variables and updates its own gradients from its parts of the rows.
//
// Determinism: the values compared and summed are the one-process run's
// bits. Every gradient entry is computed on its owner by the one-process
// arithmetic from the same kernel values; the kernel values of the rows
// and of the block are those of one process because the engine's prepared
// kernel blocks compute each value alike whatever the rows and columns
// beside it (see shard.go); the subproblem is solved by the one-process
// code on the same inputs. So on the CPU backends the model is the
// one-process batched model, bit for bit, statistics included.

// bRecWidth is the number of float64 in a selection record of the batched
// solver: value, variable, kernel point, non-zeros of the point (sparse
// rows; 0 for dense).
const bRecWidth = 4

// batchedShard is the batched solver's state on one rank of a problem
// split across ranks.
type batchedShard struct {
	sh    *shard
	dense bool
	// Per slot of the row pool: its point's record (the squared norm,
	// then appendRow's record).
	pts [][]float64
	// The kernel point and non-zeros of each variable of the last merged
	// rankings (whole-problem variables).
	keyOf      map[int][2]int
	send, recv []float64
	counts     []int
	up, low    []int
	ranked     []cand
	block      []float32
}

// runBatchedSharded solves this rank's part of a problem split across
// ranks by the batched working-set solver, from α = 0 (see runSharded for
// prob and the solution's fields).
func runBatchedSharded(sh *shard, prob Problem, o Options) (*Solution, error) {
	if prob.Alpha0 != nil {
		return nil, fmt.Errorf("svm: a problem split across ranks starts from α = 0")
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	s := newShardSMO(sh, prob, o)
	copy(s.g, s.p) // G = Qα + p at α = 0
	keys, width := sh.lay.total(), len(sh.lay.keys)
	q := workingSetSize(o.WorkingSet, sh.nVars, keys, 4, int64(o.CacheMB*(1<<20)))
	// Agreed, so that no rank is left waiting in the first exchange.
	if err := agreed(sh.c, sh.e.Reserve("this rank's part of the batched solver's kernel rows", int64(q)*int64(width)*4)); err != nil {
		return nil, err
	}
	b := &batched[float32]{
		s: s, q: q, l: width,
		pool: newRowPool[float32](keys, width, poolSlots(q, keys, 4, o.CacheMB)),
		inWS: make([]bool, sh.nVars),
		bs:   &batchedShard{sh: sh, dense: !sh.x.IsSparse(), keyOf: map[int][2]int{}, counts: make([]int, sh.lay.size)},
	}
	if err := b.runSharded(); err != nil {
		return nil, fmt.Errorf("svm: batched solver across ranks: %w", err)
	}
	rho, obj, nsv, nbsv, err := s.finishSharded()
	if err != nil {
		return nil, err
	}
	return &Solution{
		Alpha: s.alpha, Grad: s.g, Iter: s.iter, Gap: s.gap, Converged: s.converged, Obj: obj,
		Rho: rho, Bias: -rho, NumSV: nsv, NumBSV: nbsv, RowsComputed: b.computed, OuterIter: b.outer, DeviceSubproblems: b.deviceSubs,
	}, nil
}

// runSharded is run across ranks.
func (b *batched[T]) runSharded() error {
	s := b.s
	for {
		gap, err := b.rankShared()
		if err != nil {
			return err
		}
		s.gap = gap
		if s.gap < s.eps {
			s.converged = true
			return nil
		}
		if s.iter >= s.maxIter {
			return nil
		}
		b.outer++
		b.prevWS = append(b.prevWS[:0], b.ws...)
		b.selectFrom(b.bs.up, b.bs.low)
		if err := b.gatherSet(); err != nil {
			return err
		}
		if err := b.solveSub(); err != nil {
			return err
		}
		for i, a := range b.ws {
			if own := b.own(a); own >= 0 {
				s.alpha[own] = b.aa[i]
				s.setStatus(own)
			}
		}
		if err := b.updateGradient(); err != nil {
			return err
		}
	}
}

// own returns the own variable of whole-problem variable a, or −1.
func (b *batched[T]) own(a int) int {
	vars := b.s.sh.vars
	if t, ok := slices.BinarySearch(vars, a); ok {
		return t
	}
	return -1
}

// rankShared is the selection exchange: it sets bs.up and bs.low to the
// whole problem's q best of each side (whole-problem variables, best
// first), records their kernel points and non-zeros, and returns the gap.
func (b *batched[T]) rankShared() (float64, error) {
	s, bs, q := b.s, b.bs, b.q
	sh := bs.sh
	w := 2 * q * bRecWidth
	send := grow(&bs.send, w)
	for side := range 2 {
		top := b.localTop(side == 0)
		for t := range q {
			r := send[(side*q+t)*bRecWidth : (side*q+t+1)*bRecWidth]
			if t >= len(top) {
				r[0], r[1], r[2], r[3] = 0, -1, -1, 0
				continue
			}
			a := top[t].a
			r[0], r[1], r[2], r[3] = top[t].v, float64(s.global(a)), float64(s.key(a)), 0
			if !bs.dense {
				cols, _ := sh.x.SparseRow(s.ki(a))
				r[3] = float64(len(cols))
			}
		}
	}
	for r := range bs.counts {
		bs.counts[r] = w
	}
	all := grow(&bs.recv, w*sh.lay.size)
	if err := sh.c.Allgatherv(send, bs.counts, all); err != nil {
		return 0, fmt.Errorf("svm: working-set selection exchange: %w", err)
	}
	clear(bs.keyOf)
	gap := 0.0
	for side := range 2 {
		cs := bs.ranked[:0]
		for r := range sh.lay.size {
			for t := range q {
				rec := all[r*w+(side*q+t)*bRecWidth : r*w+(side*q+t+1)*bRecWidth]
				if rec[1] < 0 {
					break
				}
				a := int(rec[1])
				cs = append(cs, cand{v: rec[0], a: a})
				bs.keyOf[a] = [2]int{int(rec[2]), int(rec[3])}
			}
		}
		slices.SortFunc(cs, byValueThenVar)
		out := make([]int, 0, min(len(cs), q))
		for _, c := range cs[:min(len(cs), q)] {
			out = append(out, c.a)
		}
		best := math.Inf(-1)
		if len(cs) > 0 {
			best = cs[0].v
		}
		gap += best
		if side == 0 {
			bs.up = out
		} else {
			bs.low = out
		}
		bs.ranked = cs
	}
	return gap, nil
}

// byValueThenVar orders candidates by value descending, then variable
// ascending: the one-process ranking (batched.sorted).
func byValueThenVar(x, y cand) int {
	switch {
	case x.v > y.v:
		return -1
	case x.v < y.v:
		return 1
	}
	return cmp.Compare(x.a, y.a)
}

// localTop returns the rank's own variables of I_up (up) or I_low ranked
// as the one-process solver ranks them, the q best at most; cand.a is the
// own variable.
func (b *batched[T]) localTop(up bool) []cand {
	s := b.s
	cs := b.cands[:0]
	for a := range s.n {
		v := s.lowSign[a] * s.g[a]
		if up {
			v = s.upSign[a] * s.g[a]
		}
		if v == v { // NaN: not in the set
			cs = append(cs, cand{v: v, a: a})
		}
	}
	// The own variables are in the whole problem's order, so ordering by
	// own variable orders by whole-problem variable.
	b.cands = cs
	return topCands(cs, b.q)
}

// gatherSet is the working-set gather: every rank learns the set's y, C,
// G and α and the points whose rows it does not hold, computes those rows
// at its own points, and the set's q×q kernel block.
func (b *batched[T]) gatherSet() error {
	s, bs := b.s, b.bs
	sh := bs.sh
	m := len(b.ws)
	// The members' kernel points: the previous set's are still in wkey,
	// in the previous order; the others come from the rankings.
	prevKey := make(map[int]int, m)
	for i, a := range b.prevWS {
		prevKey[a] = b.wkey[i]
	}
	b.grow(m)
	for i, a := range b.ws {
		if k, ok := prevKey[a]; ok {
			b.wkey[i] = k
		} else {
			b.wkey[i] = bs.keyOf[a][0]
		}
	}
	// The rows held stay; list the missing points.
	miss := b.pool.plan(b.wkey)
	nnz := map[int]int{}
	for i, k := range b.wkey {
		nnz[k] = bs.keyOf[b.ws[i]][1]
	}
	// The gather: per rank, its members' (y, C, G, α) in set order, then
	// its missing points (norm, appendRow's record) in miss order.
	rowLen := func(k int) int {
		if bs.dense {
			return 1 + sh.x.Cols
		}
		return 2 + 2*nnz[k]
	}
	clear(bs.counts)
	send := bs.send[:0]
	for i, a := range b.ws {
		r, _ := sh.lay.owner(b.wkey[i])
		bs.counts[r] += 4
		if r == sh.lay.rank {
			o := b.own(a)
			send = append(send, s.y[o], s.c[o], s.g[o], s.alpha[o])
		}
	}
	for _, k := range miss {
		r, p := sh.lay.owner(k)
		bs.counts[r] += rowLen(k)
		if r == sh.lay.rank {
			send = append(send, float64(sh.norms[p]))
			send = appendRow(send, sh.x, p)
		}
	}
	bs.send = send
	total := 0
	for _, c := range bs.counts {
		total += c
	}
	recv := grow(&bs.recv, total)
	if err := sh.c.Allgatherv(send, bs.counts, recv); err != nil {
		return fmt.Errorf("svm: gathering the working set: %w", err)
	}
	off := make([]int, sh.lay.size)
	for r := 1; r < len(off); r++ {
		off[r] = off[r-1] + bs.counts[r-1]
	}
	for i := range b.ws {
		r, _ := sh.lay.owner(b.wkey[i])
		v := recv[off[r] : off[r]+4]
		off[r] += 4
		b.wy[i], b.wc[i], b.ga[i], b.aa[i], b.a0[i] = v[0], v[1], v[2], v[3], v[3]
	}
	recs := make([][]float64, len(miss))
	for t, k := range miss {
		r, _ := sh.lay.owner(k)
		n := rowLen(k)
		recs[t] = slices.Clone(recv[off[r] : off[r]+n])
		off[r] += n
	}
	// The missing rows at the own points.
	if len(miss) > 0 {
		at := make(map[int]int, len(miss)) // key → position in miss
		for t, k := range miss {
			at[k] = t
		}
		slots, err := b.pool.fillRuns(miss, func(dst []T, keys []int) error {
			if b.l == 0 {
				return nil
			}
			sub := make([][]float64, len(keys))
			for t, k := range keys {
				sub[t] = recs[at[k]]
			}
			pts, pn := bs.matrix(sub)
			out := pursuit.Matrix{Rows: len(keys), Cols: b.l, Stride: b.l, Data: any(dst).([]float32)}
			return sh.e.KernelBlockPrepared(out, sh.k, pts, pn, sh.rows.xp)
		})
		if err != nil {
			return fmt.Errorf("kernel rows %v…: %w", miss[0], err)
		}
		b.computed += len(miss)
		for t, slot := range slots {
			for len(bs.pts) <= slot {
				bs.pts = append(bs.pts, nil)
			}
			bs.pts[slot] = recs[t]
		}
	}
	return b.setBlock()
}

// setBlock computes the kernel block among the working set's points (one
// kernel block of the points against themselves, prepared) and fills kb.
func (b *batched[T]) setBlock() error {
	bs := b.bs
	sh := bs.sh
	pos := make(map[int]int, len(b.wkey)) // point → position in the block
	var recs [][]float64
	for _, k := range b.wkey {
		if _, ok := pos[k]; !ok {
			pos[k] = len(recs)
			recs = append(recs, bs.pts[b.pool.slotOf[k]])
		}
	}
	h := len(recs)
	pts, pn := bs.matrix(recs)
	prep, err := sh.e.Prepare(pts)
	if err != nil {
		return fmt.Errorf("the working set's points: %w", err)
	}
	if cap(bs.block) < h*h {
		bs.block = make([]float32, h*h)
	}
	blk := bs.block[:h*h]
	err = sh.e.KernelBlockPrepared(pursuit.Matrix{Rows: h, Cols: h, Stride: h, Data: blk}, sh.k, pts, pn, prep)
	if rerr := prep.Release(); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("the working set's kernel block: %w", err)
	}
	m := len(b.ws)
	// The upper triangle, mirrored, as solveBlock takes it in one process.
	for i := range m {
		ri := pos[b.wkey[i]] * h
		for j := i; j < m; j++ {
			v := float64(blk[ri+pos[b.wkey[j]]])
			b.kb[i*m+j], b.kb[j*m+i] = v, v
		}
	}
	return nil
}

// matrix returns the points of recs (norm, then appendRow's record) as a
// matrix and their norms.
func (bs *batchedShard) matrix(recs [][]float64) (pursuit.Matrix, []float32) {
	pn := make([]float32, len(recs))
	for t, r := range recs {
		pn[t] = float32(r[0])
	}
	return readRows(len(recs), bs.sh.x.Cols, !bs.dense, func(t int) []float64 { return recs[t][1:] }), pn
}
