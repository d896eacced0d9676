package kmp

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/hugemem"
)

// problem is the training of one output (one binary machine, one class of
// one-vs-rest, or a regression) on a dictionary shared by all outputs.
type problem struct {
	e      *engine.Engine
	cfg    *Config
	dict   *dictionary
	y      []float64 // targets at the training points (±1 or real)
	val    *valSet   // nil without validation
	valY   []float64 // validation targets for this output
	output int
	batch  *lockstep // not nil: the dictionary passes are shared with the other outputs
	// sh is the rank's share of the training rows (nil: one rank holds them
	// all); y, valY and every vector over the points are this rank's part.
	sh *shard
	// n and nVal are the numbers of training and validation points of all
	// ranks together.
	n, nVal int
}

// valSet evaluates dictionary atoms at the validation points, caching them
// across the outputs of one-vs-rest (whose fitters may run at once).
type valSet struct {
	e     *engine.Engine
	cfg   *Config
	dict  *dictionary // the atoms and their centres
	pts   trainSet    // validation points
	mu    sync.Mutex  // guards cache
	cache map[int][]float64
}

// row returns dictionary atom k evaluated at the validation points.
func (v *valSet) row(k int) ([]float64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.cache[k]; ok {
		return r, nil
	}
	dst := pursuit.NewMatrix(1, v.pts.x.Rows)
	if err := v.dict.fill(v.e, v.cfg, []atom{v.dict.atoms.at(k)}, v.pts, dst, nil); err != nil {
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
	kept  int // steps kept (the best validation step, or all)
	stop  StopReason
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
	return t.recordSums(step, k, basis, resid, lossSum(t.p.cfg.Loss, t.p.y, fTrain), errorSum(t.p.cfg.Task, t.p.y, fTrain), fVal, atoms, coef)
}

// recordSums is record with this rank's sums of the training loss and
// error given (computed where the outputs live: on the device for
// deviceFit).
func (t *tracker) recordSums(step, k int, basis int, resid, trainLoss, trainErr float64, fVal []float64, atoms []int, coef []float64) bool {
	p := t.p
	a := p.dict.atoms.at(k)
	// The sums over the points (every rank's, when sharded), then the means.
	sums := []float64{trainLoss, trainErr, 0, 0}
	if fVal != nil {
		sums[2], sums[3] = lossSum(p.cfg.Loss, p.valY, fVal), errorSum(p.cfg.Task, p.valY, fVal)
	}
	p.sh.sum(sums)
	s := Step{
		Step: step, Basis: basis, Atom: k, Support: int(a.center), Kernel: int(a.kernel), Output: p.output,
		Residual:  resid,
		TrainLoss: meanOf(sums[0], p.n),
		TrainErr:  meanOf(sums[1], p.n),
		ValLoss:   math.NaN(), ValErr: math.NaN(),
		Elapsed: time.Since(t.start),
	}
	improved := false
	if fVal != nil {
		s.ValLoss = meanOf(sums[2], p.nVal)
		s.ValErr = meanOf(sums[3], p.nVal)
		switch p.cfg.Select {
		case SelectLoss:
			improved = s.ValLoss < t.bestLoss
		case SelectErrorLoss:
			improved = s.ValErr < t.bestErr || (s.ValErr == t.bestErr && s.ValLoss < t.bestLoss)
		default:
			improved = s.ValErr < t.bestErr || (p.cfg.Task == Regression && s.ValErr == t.bestErr && s.ValLoss < t.bestLoss)
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
	switch {
	case p.cfg.Progress == nil:
	case p.batch != nil:
		p.batch.step(p.output, s) // delivered in order between passes
	default:
		p.cfg.Progress(s)
	}
	return fVal != nil && p.cfg.Patience > 0 && step-t.bestStep >= p.cfg.Patience
}

func (t *tracker) result() *result {
	return &result{atoms: t.bestAtoms, coef: t.bestCoef, curve: t.curve, kept: t.bestStep}
}

// rdotRefresh is how many steps full-search pre-fitting goes on updating
// ⟨d_k, R⟩ from ⟨d_k, q⟩ before it takes them from a pass again: the
// updates add the products' rounding (about 1e-7 of ‖d‖·‖R‖ each) step
// after step.
const rdotRefresh = 8

// maxSteps is the step limit: N, or (N = 0, early stopping) the dictionary
// size for the variants that never repeat an atom.
func (p *problem) maxSteps() int {
	if p.cfg.N > 0 {
		return p.cfg.N
	}
	if p.cfg.Variant == Basic {
		return math.MaxInt
	}
	return p.dict.atoms.len()
}

// fit trains the output with the configured variant and loss.
func (p *problem) fit() (*result, error) {
	if p.cfg.Loss != Squared {
		return p.fitGeneral()
	}
	return p.fitSquared()
}

// basisFloats is the memory per basis function and training point, in
// float64s: the orthonormal basis, plus its float32 hi/lo copy when
// withHiLo.
func basisFloats(withHiLo bool) int64 {
	if withHiLo {
		return 2
	}
	return 1
}

// growBasis checks the memory of the basis (perPoint float64s per function
// and training point) against the budget each time it doubles, when the
// dictionary is computed on the fly: the basis is then the one memory cost
// that grows with the steps (in memory it is reserved at once when N is
// set). basisN is the size checked so far.
func (p *problem) growBasis(ob *orthoBasis, basisN *int, limit, step int, perPoint int64) error {
	if p.dict.stream == nil || ob.size() < *basisN {
		return nil
	}
	l := len(p.y)
	*basisN = min(max(64, 2**basisN), limit, p.dict.atoms.len())
	if err := p.reserve(fmt.Sprintf("the basis of %d chosen functions at %d points (float64)", *basisN, l), int64(*basisN)*int64(l)*8*perPoint); err != nil {
		return fmt.Errorf("kmp: step %d: %w", step, err)
	}
	// The most functions the basis can ever hold: the mapping of its
	// vectors is made that large at once (see orthoBasis.reserve).
	most := min(limit, p.dict.atoms.len())
	if fit := p.e.Available() / (int64(max(l, 1)) * 8 * perPoint); fit < int64(most) { // l = 0: an empty rank
		most = int(fit)
	}
	ob.reserve(*basisN, most)
	return nil
}

// reserve is e.Reserve, agreed among the ranks (shard.agree): every rank
// fails when one does.
func (p *problem) reserve(what string, bytes int64) error {
	return p.sh.agree(p.e.Reserve(what, bytes))
}

// negligible reports whether an atom d (squared norm nrm) is numerically
// orthogonal to the residual r, given dr = ⟨d, r⟩ and rr = ‖r‖²:
// ⟨d, r⟩² ≤ tol·‖d‖²·‖r‖². A matching pursuit step along it would change
// nothing.
func negligible(dr, rr, nrm, tol float64) bool {
	return dr*dr <= tol*nrm*rr
}

// orthoBasis is the orthonormal basis Q of the atoms in an expansion
// (float64, n×l row-major, projected by cgs2, re-orthogonalised when
// needed) and the triangular factor Rf with D_Γ = Q Rf. Every fitter but
// basic matching pursuit (repeats) keeps one: an atom whose
// part orthogonal to it has squared norm ≤ Tol·‖d_k‖² is numerically
// dependent on the expansion and may not join it (dependent); squared-loss
// back-fitting and pre-fitting also solve for their coefficients with it.
type orthoBasis struct {
	e          *engine.Engine // runs the parallel passes (cgs2)
	l, threads int
	sh         *shard      // the rank's rows of a sharded run (nil: all rows)
	qs         []float64   // the basis, row-major n×l
	rcols      [][]float64 // column j of Rf, length j+1
	// external: the basis vectors live elsewhere (deviceFit) and only
	// rcols is kept here.
	external bool
	// projections and reorths count the projections and those that
	// needed cgs2's second pass (reported by tests and benchmarks).
	projections, reorths int
	v                    []float64 // the last projected atom's orthogonal part
	rc                   []float64 // and its projection coefficients Qᵀd
	nn                   float64   // and ‖v‖²
	// arena holds qs when its first reservation was large (release frees
	// it): huge pages outside the Go heap, 2 MiB faults instead of 4 KiB
	// ones (one-vs-rest reserves ten 16 MiB bases at once on USPS).
	arena *hugemem.Arena
}

func newOrthoBasis(e *engine.Engine, l int, sh *shard) *orthoBasis {
	return &orthoBasis{e: e, l: l, threads: e.Threads(), sh: sh}
}

// size is the number of basis vectors n.
func (b *orthoBasis) size() int { return len(b.rcols) }

// reserve makes room for n basis vectors in all; most (≥ n) is the most
// the basis can ever hold. When the vectors take huge pages, the mapping is
// made for most at once: it is address space, whose pages are touched only
// as vectors are pushed, and the basis then grows in place. (Grown by
// copying, a basis that ended at 2,100 vectors of 50,000 points, 840 MB,
// took 2.65 GB of peak RSS: old and new copies, and the garbage collector's
// slack on top.)
func (b *orthoBasis) reserve(n, most int) {
	if b.external {
		return
	}
	if b.arena == nil && len(b.qs) == 0 && n*b.l*8 >= 1<<20 {
		sizes := []int{n}
		if most > n {
			sizes = []int{most, n} // n when the larger mapping is refused
		}
		for _, m := range sizes {
			if a := hugemem.New(m * b.l * 8); a != nil {
				b.arena, b.qs = a, hugemem.Slice[float64](a, m*b.l)[:0]
				return
			}
		}
	}
	b.qs = slices.Grow(b.qs, n*b.l-len(b.qs))
}

// release frees the basis vectors; the basis is not used afterwards.
func (b *orthoBasis) release() {
	b.qs = nil
	b.arena.Free()
	b.arena = nil
}

// project computes the part of d orthogonal to the basis, keeps it for
// push, and returns its squared norm.
func (b *orthoBasis) project(d []float64) float64 {
	// A goroutine per 128K elements of Q (1 MiB): on a 16-core Xeon, Q of
	// 7,291 × 32 ran fastest on one thread (38.6 GB/s of the four passes,
	// 26–35 on 2–16), 7,291 × 64 on 4 (46 against 22), 7,291 × 275 on 16
	// (95 against 22.5), and 50,000 × 1,200 on 16 (130 against 15). The
	// old bound, one per 1M elements, kept USPS-sized bases on 1–2 threads.
	if b.v == nil { // made at the first projection: basic MP never projects
		b.v = make([]float64, b.l)
	}
	var reorth bool
	b.rc, reorth = cgs2(b.e, b.v, d, b.qs, b.l, b.size(), min(b.threads, len(b.qs)>>17), b.sh)
	b.projections++
	if reorth {
		b.reorths++
	}
	b.nn = b.sh.dot(b.v, b.v)
	return b.nn
}

// dependent projects d (whose squared norm is nrm) and reports whether it
// is numerically dependent on the basis: ‖d⊥‖² ≤ tol·‖d‖². Pre-fitting's
// deflated norms use the same test.
func (b *orthoBasis) dependent(d []float64, nrm, tol float64) bool {
	return b.project(d) <= tol*nrm
}

// push appends the last projected atom to the basis (q = v/‖v‖, and the
// column (Qᵀd, ‖v‖) of Rf) and returns q.
func (b *orthoBasis) push() []float64 {
	rnn := math.Sqrt(b.nn)
	n0 := len(b.qs)
	b.qs = append(b.qs, b.v...)
	q := b.qs[n0:]
	floats.Scale(1/rnn, q)
	b.rcols = append(b.rcols, append(b.rc, rnn))
	b.rc = nil
	return q
}

// deflate applies D ← D − (D q) qᵀ to the explicit copy dx through the
// backend's RankUpdate; prod (2·M) and vecs (2×l) are scratch.
func deflate(be engine.Ops, sh *shard, dx pursuit.Matrix, q []float64, prod []float64, vecs pursuit.Matrix) error {
	m, l := dx.Rows, dx.Cols
	if l > 0 {
		splitHiLo(q, vecs.Row(0), vecs.Row(1))
		if err := be.DictProducts(prod, dx, vecs); err != nil {
			return fmt.Errorf("kmp: explicit deflation products: %w", err)
		}
	} else {
		clear(prod)
	}
	sh.sum(prod)
	if l == 0 {
		return sh.failed()
	}
	u := pursuit.NewMatrix(1, m)
	for k := range m {
		u.Data[k] = float32(prod[k] + prod[m+k])
	}
	qv := pursuit.NewMatrix(1, l)
	for i, x := range q {
		qv.Data[i] = float32(x)
	}
	if err := be.RankUpdate(dx, -1, u, qv); err != nil {
		return fmt.Errorf("kmp: explicit deflation: %w", err)
	}
	return nil
}

// reorthTol is the size of the second projection's coefficients r₂ = Qv₁,
// relative to the first projection's remainder v₁, above which cgs2
// applies it. r₂ is what the first pass left of d in span Q (rounding
// amplified by ‖d‖/‖v₁‖, and whatever orthogonality the basis lost);
// skipping it leaves the new basis vector orthogonal to the others to
// reorthTol, measured, not assumed. On the covtype-like set (20k points,
// 1,000 back-fitting steps) ‖r₂‖/‖v₁‖ ranged from 1e-15 to 1e-10, and a
// threshold of 1e-12 still re-projected 85% of the atoms. A basis
// orthogonal to 1e-9 is far below what the atoms carry (float32 kernel
// values, 6e-8 relative), and it costs back-fitting nothing in exactness:
// the model is f = D_Γ α = Q c with D_Γ = Q Rf by construction, so it fits
// exactly the residual the steps computed; only c's optimality is off, by
// about reorthTol. An atom nearly in span Q (‖d‖/‖v₁‖ large) gets its
// second projection.
const reorthTol = 1e-9

// cgsTileBytes is the size of the block of Q the fused pass of cgs2 reads
// twice (once for v₁ = d − Qᵀr₁, once for Qv₁), so that the second read
// comes from cache. BenchmarkCGS2 (one thread, 50,000 points, on the shared
// 2-core machine under load) projected in 55–60 ms at n = 600 and 167–173
// ms at n = 1,800 with 8 MiB tiles (L3), against 62 and 182–212 with 256
// KiB tiles (L2: 64 columns of 400 KB rows, too short for the prefetcher)
// and 79–85 and 214–239 for CGS applied twice. A variable for the
// benchmark.
var cgsTileBytes = 8 << 20

// cgs2 writes into v the component of d orthogonal to the rows of the
// orthonormal basis qs (n×l, row-major) by classical Gram–Schmidt with
// selective re-orthogonalisation (reorthTol), and returns the projection
// coefficients Qᵀd, the new column of the triangular factor (with room for its
// diagonal), and whether the second projection was applied.
//
// Pass 1 computes r₁ = Qd. Pass 2 goes over Q once, tile by tile (columns
// of Q, cgsTileBytes at a time, kept in cache): it writes the tile's
// part of v₁ = d − Qᵀr₁ and adds its part of r₂ = Qv₁. Only when ‖r₂‖ >
// reorthTol·‖v₁‖ (classical Gram–Schmidt lost orthogonality: the atom is
// nearly in span Q, or the basis is less than orthonormal) does a third
// pass subtract Qᵀr₂, which is what applying classical Gram–Schmidt twice
// (CGS2) does every time. So a projection usually reads Q twice instead of
// four times: the re-orthogonalisation it skips would change v₁ by less
// than reorthTol of its norm. Each pass goes through
// gonum's BLAS, split over threads by column blocks of Q. With sh (a
// sharded run) the products are summed over the ranks and every rank takes
// the same decision.
func cgs2(e *engine.Engine, v, d []float64, qs []float64, l, n, threads int, sh *shard) ([]float64, bool) {
	copy(v, d)
	rc := make([]float64, n, n+1)
	if n == 0 {
		return rc, false
	}
	threads = max(1, min(threads, l))
	chunk := (l + threads - 1) / threads
	parts := make([][]float64, threads)
	for t := range parts {
		parts[t] = make([]float64, n)
	}
	sumParts := func() []float64 {
		r := parts[0]
		for t := 1; t < threads; t++ {
			floats.Add(r, parts[t])
		}
		sh.sum(r)
		return r
	}
	tile := qTile(n)
	// Pass 1: r₁ = Q d, as a sum of the column blocks' partial products.
	parallelFor(e, threads, threads, func(lo, hi int) {
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
	r1 := sumParts()
	copy(rc, r1)
	// Pass 2: v₁ = d − Qᵀ r₁ (r₁ now in rc) and r₂ = Q v₁, tile by tile.
	vv := make([]float64, threads) // each block's part of ‖v₁‖²
	parallelFor(e, threads, threads, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			c0, c1 := t*chunk, min((t+1)*chunk, l)
			r := parts[t]
			clear(r)
			for b0 := c0; b0 < c1; b0 += tile {
				b1 := min(b0+tile, c1)
				q := blas64.General{Rows: n, Cols: b1 - b0, Stride: l, Data: qs[b0:]}
				vb := blas64.Vector{N: b1 - b0, Inc: 1, Data: v[b0:b1]}
				blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: n, Inc: 1, Data: rc}, 1, vb)
				blas64.Gemv(blas.NoTrans, 1, q, vb, 1, blas64.Vector{N: n, Inc: 1, Data: r})
				vv[t] += floats.Dot(v[b0:b1], v[b0:b1])
			}
		}
	})
	r2 := sumParts()
	// ‖v₁‖², summed over the blocks (and ranks); r₂ is the same on every
	// rank, so is the decision.
	vn := []float64{floats.Sum(vv)}
	sh.sum(vn)
	if !(floats.Dot(r2, r2) > reorthTol*reorthTol*vn[0]) {
		return rc, false
	}
	// Pass 3: v = v₁ − Qᵀ r₂, block by block.
	parallelFor(e, threads, threads, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			c0, c1 := t*chunk, min((t+1)*chunk, l)
			if c0 >= c1 {
				continue
			}
			q := blas64.General{Rows: n, Cols: c1 - c0, Stride: l, Data: qs[c0:]}
			blas64.Gemv(blas.Trans, -1, q, blas64.Vector{N: n, Inc: 1, Data: r2}, 1, blas64.Vector{N: c1 - c0, Inc: 1, Data: v[c0:c1]})
		}
	})
	floats.Add(rc, r2)
	return rc, true
}

// qTile is the number of columns of an n-row basis in one tile of cgs2's
// fused pass (cgsTileBytes, at least 64 columns, a multiple of 8).
func qTile(n int) int {
	return max(64, cgsTileBytes/(8*max(n, 1))) &^ 7
}

// triSolve solves Rf α = c for the upper-triangular factor given by columns
// (rcols[j] is column j, length ≥ j+1), by back substitution column by
// column: O(n²) and no n×n matrix, since it runs every step with a
// validation set.
func triSolve(rcols [][]float64, c []float64) ([]float64, error) {
	a := append([]float64(nil), c...)
	for j := len(a) - 1; j >= 0; j-- {
		d := rcols[j][j]
		if d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("kmp: solving for the coefficients: diagonal %d of the triangular factor is %v", j, d)
		}
		a[j] /= d
		floats.AddScaled(a[:j], -a[j], rcols[j][:j])
	}
	return a, nil
}
