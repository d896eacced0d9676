package svm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// SolverKind chooses the dual solver.
type SolverKind int

// The solvers.
const (
	// SolverAuto picks the solver: SMO on the CPU backends, where the
	// batched solver was measured slower at 1 and 2 threads on every set
	// of issue 32 (BenchmarkBatchedSets on the shared 2-core machine,
	// November 2026, CPU time batched/SMO at one thread: USPS 8 vs rest
	// 1.12–1.37 in three rounds, 10-class USPS 1.40, mushrooms 1.34,
	// covtype-like 15k 1.54 and 50k 1.41), and, for want of a measurement
	// on a GPU, on cuda too, although there the batched solver keeps its
	// rows, subproblem and gradient update on the device
	// (engine.NewSVMPool).
	SolverAuto SolverKind = iota
	// SolverSMO is LIBSVM's SMO: one pair of variables per iteration,
	// with shrinking and the kernel-row cache.
	SolverSMO
	// SolverBatched is the batched working-set solver (batched.go): q
	// variables per outer iteration, their kernel rows in one gathered
	// block, an inner SMO on the q×q block, one block update of the
	// gradient.
	SolverBatched
)

func (k SolverKind) String() string {
	switch k {
	case SolverAuto:
		return "auto"
	case SolverSMO:
		return "smo"
	case SolverBatched:
		return "batched"
	}
	return fmt.Sprintf("svm.SolverKind(%d)", int(k))
}

// ParseSolver parses "smo", "batched" or "auto".
func ParseSolver(s string) (SolverKind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto", "":
		return SolverAuto, nil
	case "smo":
		return SolverSMO, nil
	case "batched":
		return SolverBatched, nil
	}
	return 0, pursuit.Configf("svm: unknown solver %q (want smo, batched or auto)", s)
}

// resolve returns the solver that SolverAuto stands for.
func (k SolverKind) resolve() SolverKind {
	if k == SolverAuto {
		return SolverSMO
	}
	return k
}

// Working-set sizes of the batched solver.
const (
	minWorkingSet = 64
	maxWorkingSet = 1024
)

// workingSetSize returns the batched solver's q for n variables over l
// kernel points with rows of elem bytes under a budget of budget bytes: a
// power of two near 4√n, within [64, 1024], at most n (and even), and no
// more rows than the budget holds (at least 2).
func workingSetSize(want, n, l, elem int, budget int64) int {
	q := want
	if q == 0 {
		q = minWorkingSet
		for q < maxWorkingSet && q*q < 16*n {
			q *= 2
		}
	}
	if byBudget := int(budget / int64(l*elem)); q > byBudget {
		q = byBudget
	}
	q = min(q, n)
	q &^= 1
	return max(q, 2)
}

// batched is the batched working-set solver. It keeps every gradient up to
// date (one block product per outer iteration), so it does not shrink.
type batched[T real] struct {
	s *smo[T] // the variables, gradient and statuses; solution, rho, objective
	q int     // working-set size

	fill func(dst []T, idx []int) error
	l    int         // row length: the kernel points (across ranks, the rank's own)
	pool *rowPool[T] // the kernel rows held

	ws         []int // the working set (variables)
	prevWS     []int // the previous working set (across ranks)
	inWS       []bool
	computed   int // kernel rows computed
	outer      int
	deviceSubs int // subproblems solved on the device (engine.SMOSubproblem)

	// dev, when not nil, holds the working sets' kernel rows on the device
	// (engine.NewSVMPool): pool keeps only the bookkeeping of its slots,
	// and the block, the subproblem and the gradient update run there.
	dev               engine.SVMPool
	devSlots, devKeys []int
	devW              []float64

	// The subproblem on the working set, m variables, indexed by position
	// in ws.
	kb     []float64 // m×m kernel block K(k_b, k_c)
	wy, wc []float64 // y and C
	wkey   []int     // kernel point (cache key)
	ga, aa []float64 // local gradient and α
	a0     []float64 // α at the start of the outer iteration
	cands  []cand

	// bs is this rank's part of a problem split across ranks
	// (batched_shard.go); nil in one process.
	bs *batchedShard
}

// runBatched runs the batched working-set solver on the problem, taking
// kernel rows through c's fill function (in one gathered block per outer
// iteration, kept in the solver's row pool under c's budget; the cache's
// slots are not used) and the gradient update
// through scan where the rows are float32 and the variables are the kernel
// points (nil: Go loops).
func runBatched[T real](c *rowCache[T], scan engine.SMOScanner, er *EngineRows, prob Problem, diag, alpha []float64, o Options, maxIter int) (*Solution, error) {
	s := newSMO(c, scan, prob, diag, alpha, o, maxIter)
	var zero T
	elem := 4
	if any(zero) == any(float64(0)) {
		elem = 8
	}
	n, l := s.n, c.l
	q := workingSetSize(o.WorkingSet, n, l, elem, int64(o.CacheMB*(1<<20)))
	slots := poolSlots(q, l, elem, o.CacheMB)
	b := &batched[T]{
		s: s, q: q, fill: c.fill, l: l,
		pool: newRowPool[T](l, l, slots),
		inWS: make([]bool, n),
	}
	if er != nil && !o.HostRows && elem == 4 {
		dev, ok, err := er.e.NewSVMPool(er.xp, er.k, slots, s.y[:n], s.kidx)
		if err != nil {
			return nil, fmt.Errorf("svm: batched solver: %w", err)
		}
		if ok {
			b.dev = dev
			defer func() { _ = dev.Release() }()
		}
	}
	if err := b.run(); err != nil {
		return nil, fmt.Errorf("svm: batched solver: %w", err)
	}
	sol := s.solution()
	sol.CacheHits, sol.CacheMisses, sol.RowsComputed = 0, 0, b.computed
	sol.OuterIter = b.outer
	sol.DeviceSubproblems = b.deviceSubs
	if b.dev != nil {
		sol.DeviceRows = b.computed
	}
	return sol, nil
}

// run iterates to the tolerance or the iteration limit.
func (b *batched[T]) run() error {
	s := b.s
	// Shrinking is off: every variable stays active, and the gradient of
	// every variable is kept exact.
	s.shrinking = false
	if err := s.initGradient(); err != nil {
		return err
	}
	for {
		gmax, gmax2 := s.shrinkBounds()
		s.gap = gmax + gmax2
		if s.gap < s.eps {
			s.converged = true
			return nil
		}
		if s.iter >= s.maxIter {
			return nil
		}
		b.outer++
		b.selectWS()
		if err := b.loadRows(); err != nil {
			return err
		}
		if err := b.solveBlock(); err != nil {
			return err
		}
		if err := b.updateGradient(); err != nil {
			return err
		}
	}
}

// selectWS chooses the working set: the most violating variables, half by
// −y_a G_a over I_up and half by y_a G_a over I_low, for half of the set
// (all of it on the first iteration); the rest keeps members of the
// previous set, free ones first (ThunderSVM's reuse: their rows are
// already computed).
func (b *batched[T]) selectWS() {
	b.selectFrom(b.sorted(true), b.sorted(false))
}

// selectFrom is selectWS from the ranked variables up (I_up, by decreasing
// −y_a G_a) and low (I_low, by decreasing y_a G_a), at least q of each
// where there are. The previous set's statuses come from its subproblem's
// α and C (b.aa, b.wc), which hold them until the next solveBlock.
func (b *batched[T]) selectFrom(up, low []int) {
	q := b.q
	prev := slices.Clone(b.ws)
	for _, a := range b.ws {
		b.inWS[a] = false
	}
	b.ws = b.ws[:0]
	fresh := q
	if len(prev) > 0 {
		fresh = q / 2
	}
	iu, il := 0, 0
	add := func(a int) {
		if !b.inWS[a] {
			b.inWS[a] = true
			b.ws = append(b.ws, a)
		}
	}
	for len(b.ws) < fresh && (iu < len(up) || il < len(low)) {
		if iu < len(up) && (len(b.ws)%2 == 0 || il >= len(low)) {
			add(up[iu])
			iu++
		} else if il < len(low) {
			add(low[il])
			il++
		}
	}
	for pass := 0; pass < 2; pass++ {
		for i, a := range prev {
			if len(b.ws) == q {
				break
			}
			if (statusOf(b.aa[i], b.wc[i]) == free) == (pass == 0) {
				add(a)
			}
		}
	}
	// Fill up from the rankings when the previous set was too small.
	for len(b.ws) < q && (iu < len(up) || il < len(low)) {
		if iu < len(up) {
			add(up[iu])
			iu++
		}
		if il < len(low) && len(b.ws) < q {
			add(low[il])
			il++
		}
	}
	slices.Sort(b.ws)
}

// sorted returns the variables of I_up by decreasing −y_a G_a (up) or of
// I_low by decreasing y_a G_a, as many as a working set can take.
func (b *batched[T]) sorted(up bool) []int {
	s := b.s
	cs := b.cands[:0]
	for a := range s.n {
		var v float64
		if up {
			v = s.upSign[a] * s.g[a]
		} else {
			v = s.lowSign[a] * s.g[a]
		}
		if v == v { // NaN: not in the set
			cs = append(cs, cand{v: v, a: a})
		}
	}
	top := topCands(cs, b.q)
	b.cands = cs
	out := make([]int, len(top))
	for i, c := range top {
		out[i] = c.a
	}
	return out
}

// poolSlots returns the rows the batched solver keeps for q-variable
// working sets over keys kernel points with rows of elem bytes each (as
// one process holds them): as many as cacheMB holds, at least q, at most
// keys.
func poolSlots(q, keys, elem int, cacheMB float64) int {
	byBudget := int(int64(cacheMB*(1<<20)) / (int64(keys) * int64(elem)))
	return max(q, min(byBudget, keys))
}

// loadRows makes the working set's kernel rows present: the rows held stay,
// the others are computed in gathered blocks (straight into runs of
// consecutive slots) and replace the rows
// least recently wanted.
func (b *batched[T]) loadRows() error {
	s := b.s
	keys := make([]int, len(b.ws))
	for i, a := range b.ws {
		keys[i] = s.ki(a)
	}
	miss := b.pool.plan(keys)
	if len(miss) == 0 {
		return nil
	}
	if b.dev != nil {
		slots := b.pool.take(len(miss))
		if err := b.dev.Fill(slots, miss); err != nil {
			for _, s := range slots {
				b.pool.keyOf[s] = -1
			}
			return fmt.Errorf("kernel rows %v… on the device: %w", miss[0], err)
		}
		b.pool.commit(miss, slots)
		b.computed += len(miss)
		return nil
	}
	if _, err := b.pool.fillRuns(miss, b.fill); err != nil {
		return fmt.Errorf("kernel rows %v…: %w", miss[0], err)
	}
	b.computed += len(miss)
	return nil
}

// row returns the held kernel row of point k.
func (b *batched[T]) row(k int) []T { return b.pool.row(k) }

// solveBlock solves the subproblem on the working set in one process:
// it loads the block, the variables' y, C, G and α from the solver and
// stores the new α back (solveSub).
func (b *batched[T]) solveBlock() error {
	s, ws := b.s, b.ws
	m := len(ws)
	b.grow(m)
	for i, a := range ws {
		// The upper triangle from the rows, mirrored (half the scattered
		// reads; the one rule across ranks too, see setBlock); on the
		// device, the pool builds it there alike.
		if b.dev == nil {
			r := b.row(s.ki(a))
			for j := i; j < m; j++ {
				v := float64(r[s.ki(ws[j])])
				b.kb[i*m+j], b.kb[j*m+i] = v, v
			}
		}
		b.wy[i], b.wc[i], b.wkey[i] = s.y[a], s.c[a], s.ki(a)
		b.ga[i] = s.g[a]
		b.aa[i] = s.alpha[a]
		b.a0[i] = s.alpha[a]
	}
	if err := b.solveSub(); err != nil {
		return err
	}
	for i, a := range ws {
		s.alpha[a] = b.aa[i]
		s.setStatus(a)
	}
	return nil
}

// grow sizes the subproblem's buffers for m variables.
func (b *batched[T]) grow(m int) {
	if b.dev == nil { // with the device pool the block is built on the device
		b.kb = growF(b.kb, m*m)
	}
	b.wy, b.wc = growF(b.wy, m), growF(b.wc, m)
	if cap(b.wkey) < m {
		b.wkey = make([]int, m)
	}
	b.wkey = b.wkey[:m]
	b.ga, b.aa, b.a0 = growF(b.ga, m), growF(b.aa, m), growF(b.a0, m)
}

// solveSub solves the subproblem on the working set (the other variables
// fixed) by SMO with Fan, Chen & Lin's second-order selection, in memory on
// the m×m kernel block kb with the set's y, C, gradient and α (wy, wc, ga,
// aa), to max(tol, gap₀/10) where gap₀ is the set's starting violation
// (ThunderSVM's local tolerance), or 100·m steps (engine.SolveSubproblem).
// With an engine whose backend solves it where it computes (a device, one
// launch: engine.SMOSubproblem), it runs there, with the same bits.
func (b *batched[T]) solveSub() error {
	s := b.s
	m := len(b.ws)
	limit := max(min(100*m, s.maxIter-s.iter), 0)
	wy, wc, ga, aa := b.wy[:m], b.wc[:m], b.ga[:m], b.aa[:m]
	steps := 0
	if b.dev != nil {
		b.devSlots = b.devSlots[:0]
		for _, k := range b.wkey[:m] {
			b.devSlots = append(b.devSlots, b.pool.slotOf[k])
		}
		var err error
		if steps, err = b.dev.Solve(b.devSlots, b.wkey[:m], wy, wc, ga, aa, s.eps, limit); err != nil {
			return err
		}
		b.deviceSubs++
	} else if e, ok := s.scan.(*engine.Engine); ok {
		kb := b.kb[:m*m]
		var err error
		var device bool
		if steps, device, err = e.SMOSubproblem(kb, wy, wc, ga, aa, s.eps, limit); err != nil {
			return err
		}
		if device {
			b.deviceSubs++
		}
	} else {
		steps = engine.SolveSubproblem(b.kb[:m*m], wy, wc, ga, aa, s.eps, limit)
	}
	s.iter += steps
	return nil
}

// updateGradient adds Σ_b y_a y_b K(k_b, k_a) Δα_b to every gradient G_a,
// over the working set's rows (the block product Q_{·,B} Δα_B); across
// ranks, to the gradients of the rank's own variables from its parts of
// the rows.
func (b *batched[T]) updateGradient() error {
	s := b.s
	n := s.n
	if b.dev != nil {
		b.devSlots, b.devW = b.devSlots[:0], b.devW[:0]
		for i := range b.ws {
			if d := b.aa[i] - b.a0[i]; d != 0 {
				b.devSlots = append(b.devSlots, b.pool.slotOf[b.wkey[i]])
				b.devW = append(b.devW, b.wy[i]*d)
			}
		}
		if err := b.dev.Update(b.devSlots, b.devW, s.g[:n]); err != nil {
			return fmt.Errorf("the gradient update on the device: %w", err)
		}
		return nil
	}
	for i := range b.ws {
		d := b.aa[i] - b.a0[i]
		if d == 0 {
			continue
		}
		w := b.wy[i] * d
		row := b.row(b.wkey[i])
		if q, ok := any(row).([]float32); ok && s.scan != nil && s.kidx == nil {
			s.scan.SMOAddScaled(s.g[:n], s.y[:n], q[:n], w)
			continue
		}
		if s.kidx == nil {
			for t := range n {
				s.g[t] += w * s.y[t] * float64(row[t])
			}
			continue
		}
		for t, k := range s.kidx[:n] {
			s.g[t] += w * s.y[t] * float64(row[k])
		}
	}
	return nil
}

// growF returns a slice of n float64s, reusing buf when large enough.
func growF(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}
