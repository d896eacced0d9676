package kmp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// Row-sharded training (issue 15). When the engine's communicator has more
// than one rank, Train, TrainOneVsRest and TrainStochastic take x and y as
// this rank's rows; the training set is every rank's rows concatenated in
// rank order. Every vector over the training points (targets, residual,
// gradient, the orthonormal basis, dictionary rows) is held only at the
// rank's own rows, and every sum over the training points becomes the sum
// of the ranks' partial sums, added by comm's AllreduceSum in rank order,
// so every rank holds bit-identical results and makes the same choices:
//
//   - a search pass computes the searched atoms' partial products with the
//     step's vectors (and, for a random active set, their squared norms),
//     and one AllreduceSum adds them (for one-vs-rest in lock-step, every
//     output's products in the same one);
//   - the atoms' centres come from their owners: the candidate points are
//     gathered once (Allgatherv) when every atom is searched every step, or
//     the active set's centres every step (stochastic search);
//   - inner products and norms (projections on the basis, coefficients,
//     line searches and refits of the non-squared losses, the training and
//     validation losses and errors) are summed the same way.
//
// Ranks that would diverge (a memory budget that holds on one rank and not
// on another, a bad input on one rank) first agree on it (shard.agree), so
// every rank returns an error together instead of leaving the others
// waiting in a collective.
type shard struct {
	c engine.Group
	// offset[r] is the first training row (after a ValFrac split, in the
	// global order) that rank r holds; offset[size] is the number of
	// training rows.
	offset []int
	// inOffset is offset for the caller's rows (before a ValFrac split).
	inOffset []int
	// orig maps a global training row to the row of the concatenated input
	// (the model's SupportIndex); nil: the identity (no split).
	orig []int
	err  error // the first failed collective: later ones are skipped
}

// sharded reports whether training is split across ranks.
func (s *shard) sharded() bool { return s != nil }

// lo is the first global training row this rank holds.
func (s *shard) lo() int { return s.offset[s.c.Rank()] }

// rows is the number of training rows of every rank together.
func (s *shard) rows() int { return s.offset[len(s.offset)-1] }

// sum replaces buf by the sum over the ranks (nothing on one rank). A
// failure is kept (failed) and turns later collectives into no-ops, so that
// the closures gonum's optimisers call need not return errors; the fitters
// check failed after each step.
func (s *shard) sum(buf []float64) {
	if s == nil || s.err != nil || len(buf) == 0 {
		return
	}
	if err := s.c.AllreduceSum(buf); err != nil {
		s.err = fmt.Errorf("kmp: sharded training: %w", err)
	}
}

// failed returns the first collective failure, if any.
func (s *shard) failed() error {
	if s == nil {
		return nil
	}
	return s.err
}

// dot returns ⟨a, b⟩ over every rank's rows.
func (s *shard) dot(a, b []float64) float64 {
	if s == nil {
		return floats.Dot(a, b)
	}
	buf := []float64{floats.Dot(a, b)}
	s.sum(buf)
	return buf[0]
}

// dots returns ⟨a_i, b_i⟩ for the pairs (v[2i], v[2i+1]), summed over the
// ranks in one collective.
func (s *shard) dots(v ...[]float64) []float64 {
	out := make([]float64, len(v)/2)
	for i := range out {
		out[i] = floats.Dot(v[2*i], v[2*i+1])
	}
	s.sum(out)
	return out
}

// norm returns ‖a‖ over every rank's rows (floats.Norm on one rank).
func (s *shard) norm(a []float64) float64 {
	if s == nil {
		return floats.Norm(a, 2)
	}
	return math.Sqrt(s.dot(a, a))
}

// agreedError marks an error that every rank of a sharded run returns at
// the same point (a configuration error, or one that agree spread), so that
// none is left waiting in a collective and train need not abort the group.
type agreedError struct{ error }

func (a agreedError) Unwrap() error { return a.error }

// together marks err (if not nil) as returned by every rank together.
func together(err error) error {
	if err == nil {
		return nil
	}
	return agreedError{err}
}

// agree is a collective that makes a local failure (a memory budget that
// holds here and not on another rank) everyone's: every rank returns an
// error when any rank's err is not nil. A rank's own error is returned as
// it is; the others get one naming the first failing rank (engine.Agree:
// it wraps engine.ErrRankFailed, and engine.ErrBudget when that rank ran
// out of budget; no "kmp:" prefix, callers wrap it). On one rank it
// returns err.
func (s *shard) agree(err error) error {
	if s == nil {
		return err
	}
	if s.err != nil {
		return s.err
	}
	agreed, cerr := s.c.Agree(err)
	if cerr != nil {
		s.err = fmt.Errorf("kmp: sharded training: %w", cerr)
		return errors.Join(err, s.err)
	}
	return together(agreed)
}

// holdAll is e.Hold agreed among the ranks: it charges nothing and every
// rank fails when the bytes do not fit on one of them.
func holdAll(e *engine.Engine, sh *shard, what string, bytes int64) error {
	err := e.Hold(what, bytes)
	if aerr := sh.agree(err); aerr != nil {
		if err == nil {
			e.Release(bytes)
		}
		return aerr
	}
	return nil
}

// startShard begins a sharded run on rank c.Rank(): the ranks compare their
// configurations and the validity of their own rows (comm.CheckConfig, so
// that a rank started differently or given bad rows stops every rank with
// one error instead of pairing collectives wrongly), then learn each
// other's numbers of rows; cfg's valRows is set to every rank's validation
// rows together.
func startShard(c engine.Group, x pursuit.Matrix, y []float64, cfg *Config) (*shard, error) {
	input := "valid"
	bad := checkInput(x, y, cfg, true)
	if bad != nil {
		input = bad.Error()
	}
	entries := append([]engine.Setting{engine.NewSetting("input", input)}, configEntries(cfg, x.Cols)...)
	if err := c.CheckConfig(entries...); err != nil {
		return nil, fmt.Errorf("kmp: sharded training: %w", err)
	}
	if bad != nil { // alike on every rank
		return nil, fmt.Errorf("kmp: sharded training: every rank's input is bad; rank %d's: %w", c.Rank(), bad)
	}
	sizes, err := gatherInts(c, x.Rows, cfg.ValX.Rows)
	if err != nil {
		return nil, fmt.Errorf("kmp: sharded training: %w", err)
	}
	sh := &shard{c: c, offset: make([]int, c.Size()+1)}
	for r := range c.Size() {
		sh.offset[r+1] = sh.offset[r] + sizes[2*r]
		cfg.valRows += sizes[2*r+1]
	}
	sh.inOffset = sh.offset
	if sh.rows() == 0 {
		return nil, fmt.Errorf("kmp: the training rows of all %d ranks are empty", c.Size())
	}
	return sh, nil
}

// configEntries lists the settings every rank of a sharded run must share.
func configEntries(cfg *Config, cols int) []engine.Setting {
	custom, stoch := "", "none"
	if cfg.Custom != nil {
		custom = cfg.Custom.Name
	}
	if cfg.Stochastic != nil {
		stoch = fmt.Sprintf("%+v", *cfg.Stochastic)
	}
	set := func(name string, v any) engine.Setting { return engine.NewSetting(name, fmt.Sprintf("%v", v)) }
	return []engine.Setting{
		set("variant", cfg.Variant), set("loss", cfg.Loss), set("task", cfg.Task),
		engine.NewSetting("kernel", fmt.Sprintf("%#v", cfg.Kernels)), set("custom kernel", custom),
		set("bias", cfg.Bias), set("candidates", cfg.Candidates), set("N", cfg.N),
		set("validation fraction", cfg.ValFrac), set("patience", cfg.Patience),
		set("early-stopping criterion", cfg.Select), set("refit every", cfg.RefitEvery),
		set("refit iterations", cfg.RefitIterations), set("scale", cfg.Scale), set("tol", cfg.Tol),
		set("deflation", cfg.Deflation), set("seed", cfg.Seed), set("stochastic search", stoch),
		set("features", cols),
	}
}

// union returns the distinct values of every rank's v, in increasing order.
func (s *shard) union(v []float64) ([]float64, error) {
	counts, err := gatherInts(s.c, len(v))
	if err != nil {
		return nil, fmt.Errorf("kmp: sharded training: %w", err)
	}
	all, err := s.gatherAll(v, counts)
	if err != nil {
		return nil, err
	}
	return distinct(all), nil
}

// gatherAll returns every rank's v (counts[r] values on rank r) in rank
// order.
func (s *shard) gatherAll(v []float64, counts []int) ([]float64, error) {
	n := 0
	for _, k := range counts {
		n += k
	}
	all := make([]float64, n)
	if err := s.c.Allgatherv(v, counts, all); err != nil {
		return nil, fmt.Errorf("kmp: sharded training: %w", err)
	}
	return all, nil
}

// inRows returns every rank's number of input rows.
func (s *shard) inRows() []int {
	n := make([]int, s.c.Size())
	for r := range n {
		n[r] = s.inOffset[r+1] - s.inOffset[r]
	}
	return n
}

// localPart takes global input rows (increasing) and returns this rank's
// among them, as indices into its own rows, and every rank's offset into
// them.
func (s *shard) localPart(rows []int) ([]int, []int) {
	offset := make([]int, len(s.inOffset))
	var mine []int
	lo, hi := s.inOffset[s.c.Rank()], s.inOffset[s.c.Rank()+1]
	for _, g := range rows {
		offset[ownerOf(s.inOffset, g)+1]++
		if g >= lo && g < hi {
			mine = append(mine, g-lo)
		}
	}
	for r := 1; r < len(offset); r++ {
		offset[r] += offset[r-1]
	}
	return mine, offset
}

// gatherInts returns every rank's values of v (each rank passes the same
// length) in rank order.
func gatherInts(c engine.Group, v ...int) ([]int, error) {
	send := make([]float64, len(v))
	for i, x := range v {
		send[i] = float64(x)
	}
	recv, err := c.Allgather(send)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(recv))
	for i, x := range recv {
		out[i] = int(x)
	}
	return out, nil
}

// centres holds the points the dictionary's atoms are centred on when the
// training rows are sharded: the atoms name global training rows, which
// other ranks may hold. fetch gathers the points of the atoms a search
// needs from their owners; every chosen atom's point is kept for the model.
type centres struct {
	sh   *shard
	e    *engine.Engine
	held int64          // bytes held against the budget (every candidate's point)
	x    pursuit.Matrix // this rank's training rows (scaled)
	// all: pts holds every candidate point, gathered once, in candidate
	// order (Streamed, InMemory); else the last fetch's points.
	all  bool
	pts  trainSet
	at   map[int]int            // global training row → row of pts
	kept map[int]pursuit.Matrix // chosen centres, one row each
	// sparse: the points travel and are held as sparse rows (some rank's
	// rows are sparse; every rank agrees), each row sent as its non-zeros'
	// count, columns and values; else dense rows of Cols values.
	sparse bool
	// scratch
	need  []int
	send  []float64
	recv  []float64
	remap []atom
}

// newCentres sets up the centres of atoms for this rank's training rows x:
// when every atom is searched every step (deterministic search, or an
// active set as large as the dictionary) every candidate's point is
// gathered now, once; a random active set's are fetched each step.
func newCentres(e *engine.Engine, sh *shard, cfg *Config, x pursuit.Matrix, atoms atomList, candidates int) (*centres, error) {
	cs := &centres{sh: sh, e: e, x: x, at: map[int]int{}, kept: map[int]pursuit.Matrix{}}
	// Sparse rows on any rank make the points travel sparse; the gathered
	// candidates then cost their non-zeros.
	lo, hi := sh.lo(), sh.offset[sh.c.Rank()+1]
	nnz, flag := 0, 0
	if x.IsSparse() {
		flag = 1
	}
	for _, g := range cs.needed(atoms, nil) {
		if g >= lo && g < hi {
			x.ForEachNonZero(g-lo, func(int, float32) { nnz++ })
		}
	}
	info, err := gatherInts(sh.c, flag, nnz)
	if err != nil {
		return nil, fmt.Errorf("kmp: gathering the ranks' storage: %w", err)
	}
	var total int64
	for r := 0; r+1 < len(info); r += 2 {
		cs.sparse = cs.sparse || info[r] == 1
		total += int64(info[r+1])
	}
	if cfg.Stochastic != nil {
		if s, err := cfg.Stochastic.Size(); err != nil || s < atoms.len() {
			return cs, together(err) // every rank computes the same
		}
	}
	bytes := int64(candidates) * int64(x.Cols) * 4
	if cs.sparse {
		bytes = 8*total + 8*int64(candidates+1)
	}
	if err := holdAll(e, sh, fmt.Sprintf("the %d candidate centres gathered from every rank", candidates), bytes); err != nil {
		return nil, fmt.Errorf("kmp: %w", err)
	}
	cs.held = bytes
	if err := cs.fetch(atoms, nil); err != nil {
		e.Release(bytes)
		return nil, err
	}
	cs.all = true
	cs.send, cs.recv = nil, nil // the float64 transfer buffers
	return cs, nil
}

// fetch makes pts hold the centres of atoms (global atoms of the
// dictionary) for the atoms cand (nil: every atom). It is a collective:
// every rank passes the same atoms.
func (cs *centres) fetch(atoms atomList, cand []int) error {
	if cs.all {
		return nil
	}
	need := cs.needed(atoms, cand)
	if cs.sparse {
		return cs.fetchSparse(need)
	}
	d, c := cs.x.Cols, cs.sh.c
	// Rank r sends the rows it owns, in increasing order: the concatenation
	// is need's order.
	counts := make([]int, c.Size())
	send := cs.send[:0]
	lo, hi := cs.sh.lo(), cs.sh.offset[c.Rank()+1]
	for _, g := range need {
		r := ownerOf(cs.sh.offset, g)
		counts[r] += d
		if g >= lo && g < hi {
			for _, v := range cs.x.Row(g - lo) {
				send = append(send, float64(v))
			}
		}
	}
	cs.send = send
	cs.recv = grow(cs.recv, len(need)*d)
	if err := c.Allgatherv(send, counts, cs.recv); err != nil {
		return fmt.Errorf("kmp: gathering the candidate centres: %w", err)
	}
	if cap(cs.pts.x.Data) < len(need)*d {
		cs.pts.x = pursuit.NewMatrix(len(need), d)
	} else {
		cs.pts.x = pursuit.Matrix{Rows: len(need), Cols: d, Stride: d, Data: cs.pts.x.Data[:len(need)*d]}
	}
	for i, v := range cs.recv {
		cs.pts.x.Data[i] = float32(v)
	}
	return cs.fetched(need)
}

// needed returns the global training rows of the centres of atoms cand
// (nil: every atom), increasing and distinct, in cs.need's storage.
func (cs *centres) needed(atoms atomList, cand []int) []int {
	need := cs.need[:0]
	add := func(k int) {
		if c := atoms.at(k).center; c >= 0 {
			need = append(need, int(c))
		}
	}
	if cand == nil {
		for k := range atoms.len() {
			add(k)
		}
	} else {
		for _, k := range cand {
			add(k)
		}
	}
	slices.Sort(need)
	need = slices.Compact(need)
	cs.need = need
	return need
}

// fetchSparse is fetch's transfer of sparse rows: each rank sends the rows
// of need it owns (dense rows of a rank too) as their non-zeros' count,
// columns and values, and pts becomes compressed sparse rows in need's
// order.
func (cs *centres) fetchSparse(need []int) error {
	c := cs.sh.c
	send := cs.send[:0]
	lo, hi := cs.sh.lo(), cs.sh.offset[c.Rank()+1]
	for _, g := range need {
		if g < lo || g >= hi {
			continue
		}
		at := len(send)
		send = append(send, 0)
		cs.x.ForEachNonZero(g-lo, func(j int, v float32) {
			send = append(send, float64(j), float64(v))
		})
		send[at] = float64((len(send) - at - 1) / 2)
	}
	cs.send = send
	counts, err := gatherInts(c, len(send))
	if err != nil {
		return fmt.Errorf("kmp: gathering the candidate centres: %w", err)
	}
	n := 0
	for _, k := range counts {
		n += k
	}
	cs.recv = grow(cs.recv, n)
	if err := c.Allgatherv(send, counts, cs.recv[:n]); err != nil {
		return fmt.Errorf("kmp: gathering the candidate centres: %w", err)
	}
	recv := cs.recv[:n]
	nnz := max(0, (n-len(need))/2)
	off := make([]int64, 1, len(need)+1)
	ind, val := make([]int32, 0, nnz), make([]float32, 0, nnz)
	for p := 0; p < n; {
		k := int(recv[p])
		p++
		for range k {
			ind = append(ind, int32(recv[p]))
			val = append(val, float32(recv[p+1]))
			p += 2
		}
		off = append(off, int64(len(ind)))
	}
	if len(off) != len(need)+1 {
		return fmt.Errorf("kmp: gathering the candidate centres: %d rows came for %d", len(off)-1, len(need))
	}
	cs.pts.x = pursuit.Matrix{Rows: len(need), Cols: cs.x.Cols, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
	return cs.fetched(need)
}

// fetched indexes the points pts now holds (the rows need) and takes
// their norms.
func (cs *centres) fetched(need []int) error {
	clear(cs.at)
	for i, g := range need {
		cs.at[g] = i
	}
	var err error
	if cs.pts.norms, err = cs.e.SqNorms(cs.pts.x); err != nil {
		return fmt.Errorf("kmp: %w", err)
	}
	return nil
}

// keep records the point of atom a (which the last fetch holds) for the
// model.
func (cs *centres) keep(a atom) {
	if a.center < 0 {
		return
	}
	if _, ok := cs.kept[int(a.center)]; ok {
		return
	}
	cs.kept[int(a.center)] = pursuit.RowsOf(cs.pts.x, []int{cs.at[int(a.center)]})
}

// local returns atoms with their centres renumbered as rows of pts.
func (cs *centres) local(atoms []atom) []atom {
	cs.remap = append(cs.remap[:0], atoms...)
	for i, a := range cs.remap {
		if a.center >= 0 {
			cs.remap[i].center = int32(cs.at[int(a.center)])
		}
	}
	return cs.remap
}

// modelRows returns, for the model, the matrix of the kept centres, the
// original row (of the concatenated input) of each, and the dictionary's
// atoms renumbered as rows of that matrix (−1 for centres never chosen).
func (cs *centres) modelRows(atoms atomList) (pursuit.Matrix, []int, []atom) {
	rows := make([]int, 0, len(cs.kept))
	for g := range cs.kept {
		rows = append(rows, g)
	}
	slices.Sort(rows)
	kept := make([]pursuit.Matrix, len(rows))
	orig := make([]int, len(rows))
	slot := make(map[int]int, len(rows))
	for i, g := range rows {
		kept[i] = cs.kept[g]
		orig[i] = cs.sh.origRow(g)
		slot[g] = i
	}
	x := stackRows(kept, cs.x.Cols, cs.sparse)
	out := slices.Clone(atoms.all())
	for i, a := range out {
		if a.center < 0 {
			continue
		}
		if r, ok := slot[int(a.center)]; ok {
			out[i].center = int32(r)
		} else {
			out[i].center = -1
		}
	}
	return x, orig, out
}

// origRow maps a global training row to its row in the concatenated input.
func (s *shard) origRow(g int) int {
	if s.orig == nil {
		return g
	}
	return s.orig[g]
}

// ownerOf returns the rank whose rows [offset[r], offset[r+1]) hold row g:
// the last r with offset[r] ≤ g (an empty rank shares its offset with the
// next one and owns nothing).
func ownerOf(offset []int, g int) int {
	lo, hi := 0, len(offset)-2
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if offset[mid] <= g {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// stackRows returns the one-row matrices rows as one matrix of cols
// columns: sparse rows when sparse, else dense.
func stackRows(rows []pursuit.Matrix, cols int, sparse bool) pursuit.Matrix {
	if !sparse {
		x := pursuit.NewMatrix(len(rows), cols)
		for i, r := range rows {
			r.RowTo(x.Row(i), 0)
		}
		return x
	}
	off := make([]int64, 1, len(rows)+1)
	var ind []int32
	var val []float32
	for _, r := range rows {
		r.ForEachNonZero(0, func(j int, v float32) {
			ind = append(ind, int32(j))
			val = append(val, v)
		})
		off = append(off, int64(len(ind)))
	}
	return pursuit.Matrix{Rows: len(rows), Cols: cols, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
}
