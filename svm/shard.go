package svm

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// The SMO solver across ranks.
//
// The training rows are split across the ranks of a communicator; each rank
// holds the variables of its own rows (α, the gradient G, G-bar, the bound
// status) and, for every cached kernel row K(x_k, ·), the part at its own
// points. Every rank runs the one-process solver's code on its own
// variables, and the solver exchanges with the other ranks at the few
// places where it needs the whole problem:
//
//   - working-set selection: each rank finds its own best i (max −y_a G_a
//     over I_up), the ranks exchange one record each (Allgatherv of 12
//     float64: the candidate's value, its variable in the whole problem, and
//     the owner's y, G, α, C, Q_ii, status and kernel point), and every rank
//     takes the same winner; then each rank finds its best j against its
//     part of row i (the second-order rule) and a second exchange of one
//     record each (with max y_a G_a over I_low for the stopping test and the
//     owner's K_ij) gives every rank j, the gap and everything the
//     two-variable update needs. Every rank computes the same new α_i, α_j
//     and updates its own gradient from its parts of rows i and j. Two
//     collectives, 2·12·8·N bytes received per rank, per iteration. (An
//     AllreduceMaxLoc would find the winner alone and take a Bcast from
//     its owner besides: four collectives per iteration instead of two.)
//     The first record also carries the rank's checkpoint flag, so the
//     ranks agree on a checkpoint or a stop at no extra collective
//     (checkpoint.go).
//   - kernel rows: every rank keeps the same cache (the slot count of a
//     one-process cache of the whole problem, the same LRU order, the same
//     prefetch choices: the ranks' best uncached violators are merged by
//     one Allgatherv), so all ranks miss together; on a miss the owners of
//     the batch's points send them to every rank (one Allgatherv of
//     (d+1)·batch float64) and each rank computes the batch's rows at its
//     own points with one engine kernel block.
//   - shrinking (the two bounds: one Allgatherv), the unshrinking test (one
//     AllreduceSum), the reconstruction of the gradient (the free
//     variables' weights gathered in variable order), and ρ and the
//     objective at the end (summed in variable order).
//
// Determinism. Every rank receives the same records and applies the same
// rule, so all ranks choose the same working set. The rule is the one
// process's: the largest value wins, and among equal values the variable
// that comes last in the whole problem's order (the one-process loops keep
// the last of equal values, scanning in variable order); prefetch
// candidates of equal score go to the earliest variable, as the one-process
// top lists keep them. Selection never adds values across ranks: the
// gradient entries compared are each computed on one rank by the
// one-process arithmetic from the same kernel values, and the sums that
// are taken across ranks (ρ, the objective, the reconstructed gradient) are
// added in the one-process order. The kernel values are the same bits as
// in one process because the engine's prepared kernel blocks compute each
// value alike whatever the rows and columns beside it (engine.Engine.Prepare):
// a rank's part of a row is the whole row's values at its points. So on
// the CPU backends the
// ranks take the one-process run's every step, and two candidates tied
// within rounding are resolved exactly as one process resolves them: the
// values compared are bit-identical. (A backend whose kernel values depend
// on a block's shape in other ways, such as a GPU library's, may differ in
// the last bits; a near tie can then go the other way, and the model agrees
// to the solver's tolerance only.)

// shardLayout says which rank holds which kernel points of a problem split
// across ranks. The points of the whole problem (its cache keys) form
// segments (one for a one-vs-rest machine or ε-SVR; two, class i then
// class j, for a one-vs-one pair), and each segment lists every rank's
// points in rank order. A rank's own points are its points of segment 0,
// then of segment 1, …, in that order.
type shardLayout struct {
	rank, size int
	seg        []int   // seg[s]: the first key of segment s; seg[S] the number of keys
	pre        [][]int // pre[s][r]: rank r's first position within segment s; pre[s][size] its length
	keys       []int   // own point → key
}

// newShardLayout makes the layout of segments with counts[s][r] points of
// rank r in segment s, as seen by rank.
func newShardLayout(rank, size int, counts [][]int) *shardLayout {
	l := &shardLayout{rank: rank, size: size, seg: make([]int, len(counts)+1), pre: make([][]int, len(counts))}
	for s, cs := range counts {
		l.pre[s] = make([]int, size+1)
		for r, n := range cs {
			l.pre[s][r+1] = l.pre[s][r] + n
		}
		l.seg[s+1] = l.seg[s] + l.pre[s][size]
		for q := l.pre[s][rank]; q < l.pre[s][rank+1]; q++ {
			l.keys = append(l.keys, l.seg[s]+q)
		}
	}
	return l
}

// total returns the number of keys.
func (l *shardLayout) total() int { return l.seg[len(l.seg)-1] }

// owner returns the rank holding key k and k's position among that rank's
// own points.
func (l *shardLayout) owner(k int) (int, int) {
	s := sort.Search(len(l.pre), func(s int) bool { return l.seg[s+1] > k })
	q := k - l.seg[s]
	pre := l.pre[s]
	r := sort.Search(l.size, func(r int) bool { return pre[r+1] > q })
	local := q - pre[r]
	for t := range s {
		local += l.pre[t][r+1] - l.pre[t][r]
	}
	return r, local
}

// shard is one rank's part of a problem split across ranks: the layout of
// the kernel points, the rank's own points (prepared for the engine's
// kernel blocks), the map from its variables to the whole problem's, and
// the working set the ranks chose.
type shard struct {
	c     engine.Group
	lay   *shardLayout
	vars  []int // own variable → variable of the whole problem (increasing)
	nVars int   // variables of the whole problem

	e     *engine.Engine
	k     pursuit.Kernel
	x     pursuit.Matrix // the own points
	rows  *EngineRows    // nil on an empty shard
	diag  []float64      // K(x, x) of every own point
	norms []float32      // ‖x‖² of every own point (as the engine prepared them)

	vi, vj pick    // the working set chosen by the last selectWSSharded
	kij    float64 // K(x_i, x_j), from the owner of j

	rec, all []float64 // exchange buffers
	counts   []int
	send     []float64
	pts      pursuit.Matrix
	pn       []float32
}

// pick is the winner of a working-set exchange: its selection value, its
// variable in the whole problem (−1 for none), the rank that owns it and
// its index there, and the owner's data for the two-variable update.
type pick struct {
	v                  float64
	a, rank, local     int
	y, g, alpha, c, qd float64
	status             uint8
	key                int
	x2                 float64 // the record's second extra
}

// recWidth is the number of float64 in a working-set record: value,
// variable, local index, y, G, α, C, Q_aa, status, key and two extras
// (the rank's checkpoint flag for the i exchange; max y G over I_low and
// K_ij for the j exchange).
const recWidth = 12

// newShard prepares this rank's points x (in the layout's order) for the
// kernel k. vars maps its variables to the whole problem's nVars; the
// problem's Index maps them to own points.
func newShard(e *engine.Engine, lay *shardLayout, x pursuit.Matrix, k pursuit.Kernel, vars []int, nVars int) (*shard, error) {
	sh := &shard{c: e.Group(), lay: lay, vars: vars, nVars: nVars, e: e, k: k, x: x}
	if x.Rows != len(lay.keys) {
		return nil, fmt.Errorf("svm: shard of %d points for %d keys", x.Rows, len(lay.keys))
	}
	if x.Rows > 0 {
		rows, err := NewEngineRows(e, sh.x, k)
		if err != nil {
			return nil, err
		}
		sh.rows, sh.diag, sh.norms = rows, rows.diag, rows.xp.Norms()
	}
	sh.counts = make([]int, lay.size)
	return sh, nil
}

// release frees the engine's prepared copy of the own points.
func (sh *shard) release() error {
	if sh.rows != nil {
		return sh.rows.Release()
	}
	return nil
}

// newCache returns the rank's kernel-row cache: the slots of a one-process
// cache of the whole problem under budget, each holding the row's part at
// the own points.
func (sh *shard) newCache(budget int64) *rowCache[float32] {
	w := len(sh.lay.keys)
	return newRowCacheWidth(sh.lay.total(), w, budget, 4, max(chunkBytes/(sh.lay.total()*4), 16), arenaMin, sh.fill)
}

// fill computes the rows of the keys in batch at the own points: the
// owners send the batch's points (with their squared norms) to every rank,
// and each rank computes one kernel block against its prepared points.
// Every rank calls it with the same batch (the caches are alike).
func (sh *shard) fill(dst []float32, batch []int) error {
	if sh.x.IsSparse() {
		return sh.fillSparse(dst, batch)
	}
	d := sh.x.Cols
	w := d + 1
	clear(sh.counts)
	sh.send = sh.send[:0]
	for _, k := range batch {
		r, p := sh.lay.owner(k)
		sh.counts[r] += w
		if r == sh.lay.rank {
			sh.send = append(sh.send, float64(sh.norms[p]))
			for _, v := range sh.x.Row(p) {
				sh.send = append(sh.send, float64(v))
			}
		}
	}
	recv := grow(&sh.all, len(batch)*w)
	if err := sh.c.Allgatherv(sh.send, sh.counts, recv); err != nil {
		return fmt.Errorf("svm: gathering the points of kernel rows: %w", err)
	}
	lp := len(sh.lay.keys)
	if lp == 0 {
		return nil
	}
	// Rank r's records start at the sum of the earlier ranks' counts and
	// come in batch order.
	off := make([]int, sh.lay.size)
	for r := 1; r < len(off); r++ {
		off[r] = off[r-1] + sh.counts[r-1]
	}
	n := len(batch)
	if cap(sh.pts.Data) < n*d {
		sh.pts.Data = make([]float32, n*d)
	}
	sh.pts = pursuit.Matrix{Rows: n, Cols: d, Stride: d, Data: sh.pts.Data[:n*d]}
	if cap(sh.pn) < n {
		sh.pn = make([]float32, n)
	}
	pn := sh.pn[:n]
	for t, k := range batch {
		r, _ := sh.lay.owner(k)
		rec := recv[off[r] : off[r]+w]
		off[r] += w
		pn[t] = float32(rec[0])
		for j, v := range rec[1:] {
			sh.pts.Data[t*d+j] = float32(v)
		}
	}
	out := pursuit.Matrix{Rows: n, Cols: lp, Stride: lp, Data: dst[:n*lp]}
	return sh.e.KernelBlockPrepared(out, sh.k, sh.pts, pn, sh.rows.xp)
}

// fillSparse is fill for sparse points: each owner sends its points' norms
// and non-zeros (appendRow), the ranks first telling each other how many
// values they send, and the batch's points become sparse rows.
func (sh *shard) fillSparse(dst []float32, batch []int) error {
	sh.send = sh.send[:0]
	for _, k := range batch {
		if r, p := sh.lay.owner(k); r == sh.lay.rank {
			sh.send = append(sh.send, float64(sh.norms[p]))
			sh.send = appendRow(sh.send, sh.x, p)
		}
	}
	sizes, err := sh.c.Allgather([]float64{float64(len(sh.send))})
	if err != nil {
		return fmt.Errorf("svm: gathering the sizes of the points of kernel rows: %w", err)
	}
	total := 0
	for r, v := range sizes {
		sh.counts[r] = int(v)
		total += int(v)
	}
	recv := grow(&sh.all, total)
	if err := sh.c.Allgatherv(sh.send, sh.counts, recv); err != nil {
		return fmt.Errorf("svm: gathering the points of kernel rows: %w", err)
	}
	lp := len(sh.lay.keys)
	if lp == 0 {
		return nil
	}
	off := make([]int, sh.lay.size)
	for r := 1; r < len(off); r++ {
		off[r] = off[r-1] + sh.counts[r-1]
	}
	n := len(batch)
	if cap(sh.pn) < n {
		sh.pn = make([]float32, n)
	}
	pn := sh.pn[:n]
	rows := make([][]float64, n)
	for t, k := range batch {
		r, _ := sh.lay.owner(k)
		p := off[r]
		nz := int(recv[p+1])
		pn[t] = float32(recv[p])
		rows[t] = recv[p+1 : p+2+2*nz]
		off[r] = p + 2 + 2*nz
	}
	pts := readRows(n, sh.x.Cols, true, func(t int) []float64 { return rows[t] })
	out := pursuit.Matrix{Rows: n, Cols: lp, Stride: lp, Data: dst[:n*lp]}
	return sh.e.KernelBlockPrepared(out, sh.k, pts, pn, sh.rows.xp)
}

// grow returns (*buf)[:n], reallocating when it is too short.
func grow(buf *[]float64, n int) []float64 {
	if cap(*buf) < n {
		*buf = make([]float64, n)
	}
	return (*buf)[:n]
}

// exchange sends this rank's record (recWidth values) and returns every
// rank's, in rank order.
func (sh *shard) exchange(rec []float64) ([]float64, error) {
	for r := range sh.counts {
		sh.counts[r] = recWidth
	}
	all := grow(&sh.all, recWidth*sh.lay.size)
	if err := sh.c.Allgatherv(rec, sh.counts, all); err != nil {
		return nil, fmt.Errorf("svm: working-set exchange: %w", err)
	}
	return all, nil
}

// choose exchanges the records and returns the winner (the largest value;
// among equal values the largest variable; variable −1 means none) and the
// largest first extra.
func (sh *shard) choose(rec []float64) (pick, float64, error) {
	all, err := sh.exchange(rec)
	if err != nil {
		return pick{}, 0, err
	}
	best := pick{v: math.Inf(-1), a: -1}
	extra := math.Inf(-1)
	for r := range sh.lay.size {
		q := all[r*recWidth : (r+1)*recWidth]
		extra = math.Max(extra, q[10])
		v, a := q[0], int(q[1])
		if a < 0 || !(v > best.v || (v == best.v && a > best.a)) {
			continue
		}
		best = pick{v: v, a: a, rank: r, local: int(q[2]), y: q[3], g: q[4], alpha: q[5], c: q[6], qd: q[7],
			status: uint8(q[8]), key: int(q[9]), x2: q[11]}
	}
	return best, extra, nil
}

// record fills the rank's working-set record for its own variable a (−1:
// none) with value v and the two extras.
func (s *smo[T]) record(v float64, a int, e1, e2 float64) []float64 {
	rec := grow(&s.sh.rec, recWidth)
	clear(rec)
	rec[0], rec[1] = math.Inf(-1), -1
	if a >= 0 {
		rec[0], rec[1], rec[2] = v, float64(s.global(a)), float64(a)
		rec[3], rec[4], rec[5], rec[6], rec[7] = s.y[a], s.g[a], s.alpha[a], s.c[a], s.qd[a]
		rec[8], rec[9] = float64(s.status[a]), float64(s.key(a))
	}
	rec[10], rec[11] = e1, e2
	return rec
}

// selectWSSharded is selectWS across ranks (see the comment at the top of
// this file). It returns the variables of the whole problem; the update
// reads their data from s.sh.vi and s.sh.vj.
func (s *smo[T]) selectWSSharded() (int, int, bool, error) {
	sh := s.sh
	gmax, imax := s.maxUp()
	// The record's first extra carries the rank's checkpoint flag; the
	// ranks act on the largest at this iteration's boundary (checkpoint.go).
	vi, flag, err := sh.choose(s.record(gmax, imax, s.ckPoll(), 0))
	if err != nil {
		return 0, 0, false, err
	}
	if s.ck != nil {
		s.ck.flag = flag
	}
	if vi.a < 0 {
		gmax2, _, err := sh.c.AllreduceMaxLoc(s.maxLow(), 0)
		if err != nil {
			return 0, 0, false, err
		}
		s.gap = vi.v + gmax2
		return 0, 0, true, nil
	}
	qi, err := s.rowKey(vi.key)
	if err != nil {
		return 0, 0, false, err
	}
	jmin, objMin, gmax2 := s.pickJ(vi.v, vi.qd, qi)
	kij := 0.0
	if jmin >= 0 {
		kij = float64(qi[s.ki(jmin)])
	}
	vj, gmax2, err := sh.choose(s.record(-objMin, jmin, gmax2, kij))
	if err != nil {
		return 0, 0, false, err
	}
	s.gap = vi.v + gmax2
	if vj.a < 0 || s.gap < s.eps {
		return 0, 0, true, nil
	}
	sh.vi, sh.vj, sh.kij = vi, vj, vj.x2
	return vi.a, vj.a, false, nil
}

// updateSharded is update for the working set the ranks chose: every rank
// computes the same new α_i, α_j; the owners store them; every rank
// updates its own gradient and G-bar.
func (s *smo[T]) updateSharded() error {
	sh := s.sh
	vi, vj := sh.vi, sh.vj
	qi, err := s.rowKey(vi.key)
	if err != nil {
		return err
	}
	misses := s.cache.misses
	qj, err := s.rowJ(vj.key)
	if err != nil {
		return err
	}
	// A batch brought in for qj may have moved qi (see update).
	if s.cache.misses != misses {
		if qi, err = s.rowKey(vi.key); err != nil {
			return err
		}
	}
	ai, aj := pairStep(vi.y, vj.y, vi.g, vj.g, vi.alpha, vj.alpha, vi.c, vj.c, vi.qd+vj.qd-2*sh.kij)
	if vi.rank == sh.lay.rank {
		s.alpha[vi.local] = ai
		s.setStatus(vi.local)
	}
	if vj.rank == sh.lay.rank {
		s.alpha[vj.local] = aj
		s.setStatus(vj.local)
	}
	s.addPair(qi, qj, vi.y*(ai-vi.alpha), vj.y*(aj-vj.alpha))
	if ui := vi.status == atUpper; ui != (statusOf(ai, vi.c) == atUpper) {
		s.addGbar(qi, vi.y*vi.c, ui)
	}
	if uj := vj.status == atUpper; uj != (statusOf(aj, vj.c) == atUpper) {
		s.addGbar(qj, vj.y*vj.c, uj)
	}
	return nil
}

// mergeTop replaces the rank's prefetch top lists (own variables) by the
// top lists of the whole problem: the ranks exchange theirs (half entries
// each, padded), and every rank keeps the half best of each side, ordered
// as one process's pushTop orders them (score descending, then variable
// ascending). The returned candidates carry whole-problem variables.
func (sh *shard) mergeTop(up, low []cand, half int) ([]cand, []cand, error) {
	w := 2 * half * 3
	rec := grow(&sh.send, w)
	for t := range 2 * half {
		list, i := up, t
		if t >= half {
			list, i = low, t-half
		}
		q := rec[3*t : 3*t+3]
		if i < len(list) {
			q[0], q[1], q[2] = list[i].v, float64(list[i].k), float64(sh.vars[list[i].a])
		} else {
			q[0], q[1], q[2] = 0, -1, -1
		}
	}
	for r := range sh.counts {
		sh.counts[r] = w
	}
	all := grow(&sh.all, w*sh.lay.size)
	if err := sh.c.Allgatherv(rec, sh.counts, all); err != nil {
		return nil, nil, fmt.Errorf("svm: prefetch exchange: %w", err)
	}
	up, low = up[:0], low[:0]
	for r := range sh.lay.size {
		for t := range 2 * half {
			q := all[r*w+3*t : r*w+3*t+3]
			if q[2] < 0 {
				continue
			}
			c := cand{v: q[0], k: int(q[1]), a: int(q[2])}
			if t < half {
				up = append(up, c)
			} else {
				low = append(low, c)
			}
		}
	}
	order := func(x, y cand) int {
		if x.v != y.v {
			if x.v > y.v {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.a, y.a)
	}
	slices.SortFunc(up, order)
	slices.SortFunc(low, order)
	return up[:min(half, len(up))], low[:min(half, len(low))], nil
}

// maxPair returns the largest a and the largest b over the ranks.
func (sh *shard) maxPair(a, b float64) (float64, float64, error) {
	for r := range sh.counts {
		sh.counts[r] = 2
	}
	all := grow(&sh.all, 2*sh.lay.size)
	if err := sh.c.Allgatherv([]float64{a, b}, sh.counts, all); err != nil {
		return 0, 0, fmt.Errorf("svm: shrinking bounds: %w", err)
	}
	a, b = math.Inf(-1), math.Inf(-1)
	for r := range sh.lay.size {
		a, b = math.Max(a, all[2*r]), math.Max(b, all[2*r+1])
	}
	return a, b, nil
}

// noneShrunk reports whether no rank has shrunk variables, given this
// rank's count.
func (sh *shard) noneShrunk(inactive int) (bool, error) {
	buf := []float64{float64(inactive)}
	if err := sh.c.AllreduceSum(buf); err != nil {
		return false, fmt.Errorf("svm: counting shrunk variables: %w", err)
	}
	return buf[0] == 0, nil
}

// gatherFree returns every rank's free variables' kernel points and
// weights y_a α_a, in the whole problem's variable order; vars, keys and
// ws are this rank's (vars in whole-problem numbering).
func (sh *shard) gatherFree(vars, keys []int, ws []float64) ([]int, []float64, error) {
	send := make([]float64, 0, 3*len(keys))
	for t := range keys {
		send = append(send, float64(vars[t]), float64(keys[t]), ws[t])
	}
	all, err := sh.c.Gatherv(send)
	if err != nil {
		return nil, nil, fmt.Errorf("svm: gathering the free variables: %w", err)
	}
	recs := make([][3]float64, len(all)/3)
	for t := range recs {
		copy(recs[t][:], all[3*t:])
	}
	slices.SortFunc(recs, func(x, y [3]float64) int { return cmp.Compare(x[0], y[0]) })
	keys, ws = make([]int, len(recs)), make([]float64, len(recs))
	for t, q := range recs {
		keys[t], ws[t] = int(q[1]), q[2]
	}
	return keys, ws, nil
}

// finishSharded returns ρ, the objective and the numbers of support
// vectors and of bounded ones of the whole problem, every sum taken in the
// whole problem's variable order as one process takes it.
func (s *smo[T]) finishSharded() (float64, float64, int, int, error) {
	sh := s.sh
	ub, lb := math.Inf(1), math.Inf(-1)
	var send []float64 // (kind, variable, value): kind 0 a free y G, 1 an objective term
	nsv, nbsv := 0, 0
	for a := range s.n {
		yg := s.y[a] * s.g[a]
		if s.narrowRho(a, yg, &ub, &lb) {
			send = append(send, 0, float64(s.global(a)), yg)
		} else if s.status[a] == atUpper {
			nbsv++
		}
		if s.alpha[a] != 0 {
			// Terms with α = 0 add ±0, which leaves a sum unchanged.
			send = append(send, 1, float64(s.global(a)), s.alpha[a]*(s.g[a]+s.p[a]))
		}
		if s.alpha[a] > 0 {
			nsv++
		}
	}
	fail := func(err error) (float64, float64, int, int, error) {
		return 0, 0, 0, 0, fmt.Errorf("svm: the solution's sums: %w", err)
	}
	negUB, lb, err := sh.maxPair(-ub, lb)
	if err != nil {
		return fail(err)
	}
	ub = -negUB
	counts := []float64{float64(nsv), float64(nbsv)}
	if err := sh.c.AllreduceSum(counts); err != nil {
		return fail(err)
	}
	all, err := sh.c.Gatherv(send)
	if err != nil {
		return fail(err)
	}
	recs := make([][3]float64, len(all)/3)
	for t := range recs {
		copy(recs[t][:], all[3*t:])
	}
	slices.SortFunc(recs, func(x, y [3]float64) int {
		if c := cmp.Compare(x[0], y[0]); c != 0 {
			return c
		}
		return cmp.Compare(x[1], y[1])
	})
	nfree, sum, obj := 0, 0.0, 0.0
	for _, q := range recs {
		if q[0] == 0 {
			nfree++
			sum += q[2]
		} else {
			obj += q[2]
		}
	}
	rho := (ub + lb) / 2
	if nfree > 0 {
		rho = sum / float64(nfree)
	}
	return rho, obj / 2, int(counts[0]), int(counts[1]), nil
}

// newShardSMO returns the SMO state of this rank's variables of prob at
// α = 0 (their diagonal, every one active, their bound status), with o's
// tolerance and iteration limit (o has its defaults); the callers add the
// row cache or the batched solver.
func newShardSMO(sh *shard, prob Problem, o Options) *smo[float32] {
	maxIter := o.MaxIter
	if maxIter == 0 {
		maxIter = max(10000000, 100*sh.nVars)
	}
	n := len(prob.Y)
	s := &smo[float32]{
		n: n, kidx: prob.Index, y: prob.Y, p: prob.P, c: prob.C,
		qd: make([]float64, n), alpha: make([]float64, n), g: make([]float64, n), gbar: make([]float64, n),
		status: make([]uint8, n), upSign: make([]float64, n), lowSign: make([]float64, n),
		active: make([]int32, n), inAct: make([]bool, n),
		scan: sh.e, eps: o.Tol, maxIter: maxIter, sh: sh, nAll: sh.nVars,
	}
	for a := range n {
		s.qd[a] = sh.diag[s.ki(a)]
		s.active[a] = int32(a)
		s.inAct[a] = true
		s.setStatus(a)
	}
	return s
}

// runSharded solves this rank's part of a problem split across ranks from
// α = 0: prob holds the rank's own variables (Y, P, C, and Index into its
// own points, or nil when its variables are its points); Alpha0 must be
// nil. The solution's Alpha and Grad are the own variables'; its other
// fields describe the whole problem and are the same on every rank.
func runSharded(sh *shard, cache *rowCache[float32], prob Problem, o Options) (*Solution, error) {
	if prob.Alpha0 != nil {
		return nil, fmt.Errorf("svm: a problem split across ranks starts from α = 0")
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.Batch == 0 {
		// One process's default, agreed by the ranks (the largest tile:
		// ranks on different machines may have different backends; a
		// rank without points has no say).
		own := 0
		if sh.rows != nil {
			own = sh.e.TileRowsOf(sh.rows.xp)
		}
		tile, _, err := sh.c.AllreduceMaxLoc(float64(own), 0)
		if err != nil {
			return nil, fmt.Errorf("svm: agreeing on the row batch: %w", err)
		}
		o.Batch = batchFor(int(tile))
	}
	s := newShardSMO(sh, prob, o)
	s.cache, s.batch, s.shrinking, s.ck = cache, o.Batch, !o.NoShrinking, o.ck
	h0, m0, c0 := cache.hits, cache.misses, cache.computed
	if err := s.run(); err != nil {
		return nil, fmt.Errorf("svm: SMO across ranks: %w", err)
	}
	rho, obj, nsv, nbsv, err := s.finishSharded()
	if err != nil {
		return nil, err
	}
	return &Solution{
		Alpha: s.alpha, Grad: s.g, Iter: s.iter, Gap: s.gap, Converged: s.converged, Obj: obj,
		Rho: rho, Bias: -rho, NumSV: nsv, NumBSV: nbsv,
		CacheHits: cache.hits - h0, CacheMisses: cache.misses - m0, RowsComputed: cache.computed - c0,
	}, nil
}
