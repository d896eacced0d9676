package svm

import (
	"math"
	"sort"

	"github.com/pursuit-ml/pursuit/engine"
)

// tau replaces a non-positive curvature in working-set selection and in the
// two-variable update (LIBSVM's TAU).
const tau = 1e-12

const (
	atLower uint8 = iota
	atUpper
	free
)

// smo is the SMO solver of min ½αᵀQα + pᵀα, yᵀα = 0, 0 ≤ α ≤ C, with
// Q_ab = y_a y_b K(kidx_a, kidx_b).
type smo[T real] struct {
	n      int       // number of variables
	kidx   []int     // variable → kernel point (nil: identity)
	y      []float64 // ±1
	p      []float64
	c      []float64
	qd     []float64 // Q_aa
	alpha  []float64
	g      []float64 // gradient Qα + p
	gbar   []float64 // Σ_{b at upper} C_b Q_ab
	status []uint8
	// upSign[a] is −y_a when a is active and in I_up and NaN otherwise,
	// lowSign[a] y_a when a is active and in I_low and NaN otherwise (kept
	// by setStatus, shrink and reconstruct): upSign[a]·G_a is a's I_up
	// violation and lowSign[a]·G_a its y_a G_a on the I_low side, or NaN,
	// which fails every comparison, so the selection loops need no branch on
	// y, the status or activity, and can run over all variables in order
	// (the active set is kept in increasing order) instead of the active
	// list. Scans over all variables also update the gradient of inactive
	// ones, which is harmless: reconstruct recomputes it before it is read.
	upSign, lowSign []float64
	active          []int32 // the active variables (order irrelevant)
	inAct           []bool

	cache *rowCache[T]
	// scan runs the scans over all variables (the gradient update with the
	// next i, the selection of j, G-bar's update) on float32 rows when the
	// variables are the kernel points (kidx nil): the engine's, with vector
	// kernels on the CPU backends. nil: the loops below.
	scan      engine.SMOScanner
	batch     int
	eps       float64
	shrinking bool
	unshrink  bool
	maxIter   int

	iter      int
	gap       float64
	converged bool

	pre   []int     // prefetch buffer
	obj   []float64 // the objectives of the selection of j, when kept
	topUp []cand
	// jTop holds the batch best uncached candidates of the last
	// second-order selection of j, best first (usually j among them): j's
	// runners-up are the points most likely to be chosen as j in the next
	// iterations, prefetched with j's row when it misses.
	jTop []cand
	// nextI and nextGmax are the maximal I_up violator and its violation,
	// found by addPair's gradient loop; valid while haveNext (shrink and
	// reconstruct change the active set and clear it).
	nextI    int
	nextGmax float64
	haveNext bool

	// sh is this rank's part of a problem split across ranks (shard.go);
	// nil in one process. With it, the variables above are this rank's
	// own, and nAll counts those of the whole problem.
	sh   *shard
	nAll int

	ck *ckRun // checkpoints (checkpoint.go); nil without
}

// cand is a prefetch candidate: its score, kernel point and (global)
// variable.
type cand struct {
	v float64
	k int
	a int
}

func (s *smo[T]) ki(a int) int {
	if s.kidx == nil {
		return a
	}
	return s.kidx[a]
}

// key returns the cache key of variable a's kernel point: the point itself
// in one process, its index in the whole problem on a rank of a sharded one.
func (s *smo[T]) key(a int) int {
	if s.sh != nil {
		return s.sh.lay.keys[s.ki(a)]
	}
	return s.ki(a)
}

// global returns variable a's index in the whole problem.
func (s *smo[T]) global(a int) int {
	if s.sh != nil {
		return s.sh.vars[a]
	}
	return a
}

func (s *smo[T]) setStatus(a int) {
	s.status[a] = statusOf(s.alpha[a], s.c[a])
	s.upSign[a], s.lowSign[a] = -s.y[a], s.y[a]
	if !s.inUp(a) || !s.inAct[a] {
		s.upSign[a] = math.NaN()
	}
	if !s.inLow(a) || !s.inAct[a] {
		s.lowSign[a] = math.NaN()
	}
}

// scanAll reports whether the scans run over all variables through scan:
// the variables are the kernel points and at least a 32nd of them are
// active. Below that the loops over the active list do less work: on the
// 15k problem (AVX2) the vector scan took 0.8 ns per variable and the Go
// loop of pickJTop 23 ns per active one (scattered loads of the kernel
// row); with an eighth as the bound, the loops took 9% of the training.
func (s *smo[T]) scanAll() bool {
	return s.scan != nil && s.kidx == nil && 32*len(s.active) >= s.n
}

// statusOf returns the bound status of a variable α with upper bound c.
func statusOf(alpha, c float64) uint8 {
	switch {
	case alpha >= c:
		return atUpper
	case alpha <= 0:
		return atLower
	}
	return free
}

func (s *smo[T]) inUp(a int) bool {
	if s.y[a] > 0 {
		return s.status[a] != atUpper
	}
	return s.status[a] != atLower
}

func (s *smo[T]) inLow(a int) bool {
	if s.y[a] > 0 {
		return s.status[a] != atLower
	}
	return s.status[a] != atUpper
}

// row returns the kernel row of variable a's point, computing it together
// with the rows most likely needed next when it is not cached.
func (s *smo[T]) row(a int) ([]T, error) { return s.rowKey(s.key(a)) }

// rowKey returns the kernel row of the point with cache key k.
func (s *smo[T]) rowKey(k int) ([]T, error) {
	if s.cache.has(k) {
		return s.cache.get(k, nil)
	}
	pre, err := s.prefetch(k)
	if err != nil {
		return nil, err
	}
	return s.cache.get(k, pre)
}

// rowJ returns the kernel row of the point with cache key k, the second
// working-set variable's, computing it together with the runners-up of its
// selection (jTop; on a sharded problem, merged over every rank's) when it
// is not cached.
func (s *smo[T]) rowJ(k int) ([]T, error) {
	if s.cache.has(k) {
		return s.cache.get(k, nil)
	}
	if s.sh != nil {
		var err error
		if s.jTop, _, err = s.sh.mergeTop(s.jTop, nil, s.batch); err != nil {
			return nil, err
		}
	}
	// jTop holds batch candidates, usually k itself among them: the batch
	// is k and up to batch−1 others, a whole micro-kernel tile of rows
	// (the default batch) rather than one row short of it.
	s.pre = s.pre[:0]
	for _, c := range s.jTop {
		if len(s.pre) == s.batch-1 {
			break
		}
		if c.k != k && !containsInt(s.pre, c.k) { // SVR: two variables share a point
			s.pre = append(s.pre, c.k)
		}
	}
	return s.cache.get(k, s.pre)
}

// prefetch lists up to batch−1 uncached kernel points whose variables
// violate the optimality conditions most on the I_up side (on a sharded
// problem, over every rank's variables): the candidates for i in the next
// iterations. (Candidates for j come from the second-order selection itself
// (rowJ), which predicts them far better than the I_low violations do: on
// a 15,000-point problem with 6,800 support vectors, this split computed
// 15,062 rows where prefetching half by I_up and half by I_low violation
// computed 37,911.)
func (s *smo[T]) prefetch(k int) ([]int, error) {
	want := s.batch - 1
	if want <= 0 {
		return nil, nil
	}
	s.topUp = s.topUp[:0]
	worst := math.Inf(-1) // the violation a candidate must beat once topUp is full
	for _, a32 := range s.active {
		a := int(a32)
		// upSign·G is −y_a G_a in I_up and NaN outside it; the cheap test
		// on the value comes first (pushTop would refuse what it refuses).
		v := s.upSign[a] * s.g[a]
		if v != v || len(s.topUp) == want && !(v > worst) {
			continue
		}
		kk := s.key(a)
		if kk == k || s.cache.has(kk) {
			continue
		}
		s.topUp = pushTop(s.topUp, cand{v, kk, a}, want)
		if len(s.topUp) == want {
			worst = s.topUp[want-1].v
		}
	}
	if s.sh != nil {
		var err error
		if s.topUp, _, err = s.sh.mergeTop(s.topUp, nil, want); err != nil {
			return nil, err
		}
	}
	s.pre = s.pre[:0]
	for _, c := range s.topUp {
		if !containsInt(s.pre, c.k) { // SVR: two variables share a point
			s.pre = append(s.pre, c.k)
		}
	}
	return s.pre, nil
}

// pushTop keeps the m largest candidates in decreasing order.
func pushTop(top []cand, c cand, m int) []cand {
	if len(top) == m && c.v <= top[m-1].v {
		return top
	}
	i := sort.Search(len(top), func(i int) bool { return top[i].v < c.v })
	if len(top) < m {
		top = append(top, cand{})
	}
	copy(top[i+1:], top[i:len(top)-1])
	top[i] = c
	return top
}

// selectWS chooses the working set by Fan, Chen & Lin's second-order rule.
// It returns done when the maximal violation is below eps.
func (s *smo[T]) selectWS() (int, int, bool, error) {
	if s.sh != nil {
		return s.selectWSSharded()
	}
	gmax, imax := s.maxUp()
	jmin, gmax2 := -1, math.Inf(-1)
	if imax >= 0 {
		qi, err := s.row(imax)
		if err != nil {
			return 0, 0, false, err
		}
		jmin, _, gmax2 = s.pickJ(gmax, s.qd[imax], qi)
	} else {
		// No I_up candidate: the gap is still needed for reporting.
		gmax2 = s.maxLow()
	}
	s.gap = gmax + gmax2
	if imax < 0 || jmin < 0 || s.gap < s.eps {
		return 0, 0, true, nil
	}
	return imax, jmin, false, nil
}

// maxUp returns max over the active I_up of −y_a G_a and the last variable
// (in active order) attaining it, −1 when I_up is empty.
func (s *smo[T]) maxUp() (float64, int) {
	if s.haveNext {
		s.haveNext = false
		return s.nextGmax, s.nextI
	}
	gmax := math.Inf(-1)
	imax := -1
	for _, a32 := range s.active {
		a := int(a32)
		if v := s.upSign[a] * s.g[a]; v >= gmax {
			gmax, imax = v, a
		}
	}
	return gmax, imax
}

// maxLow returns max over the active I_low of y_a G_a.
func (s *smo[T]) maxLow() float64 {
	gmax2 := math.Inf(-1)
	for _, a32 := range s.active {
		if yg := s.lowSign[a32] * s.g[a32]; yg >= gmax2 {
			gmax2 = yg
		}
	}
	return gmax2
}

// pickJ returns, for the chosen i (with gmax = −y_i G_i, Q_ii = qdi and
// kernel row qi), the active variable j minimising the second-order
// objective −diff²/quad (the last in active order among equal values, −1
// when none has diff > 0), that minimum, and max over the active I_low of
// y_a G_a.
func (s *smo[T]) pickJ(gmax, qdi float64, qi []T) (int, float64, float64) {
	if s.sh == nil && s.scanAll() {
		if q, ok := any(qi).([]float32); ok {
			n := s.n
			jmin, objMin, gmax2 := s.scan.SMOSelect(s.lowSign[:n], s.g[:n], s.qd[:n], q[:n], gmax, qdi, nil)
			// jTop is needed only when j's row is missing (rowJ; a sharded
			// solver's j may be another rank's, so it always keeps jTop)
			// and rows come in batches (its runners-up are the batch):
			// then the scan runs again, writing every objective, and jTop
			// is kept from those.
			s.jTop = s.jTop[:0]
			if jmin >= 0 && s.batch > 1 && !s.cache.has(s.key(jmin)) {
				if len(s.obj) < n {
					s.obj = make([]float64, n)
				}
				obj := s.obj[:n]
				s.scan.SMOSelect(s.lowSign[:n], s.g[:n], s.qd[:n], q[:n], gmax, qdi, obj)
				jWant, jWorst := s.batch, math.Inf(-1)
				for a, o := range obj {
					// Candidates (o < +∞) in order, as pickJTop keeps them.
					if o < jWorst || len(s.jTop) < jWant && o < math.Inf(1) {
						jWorst = s.keepJ(o, a, jWant)
					}
				}
			}
			return jmin, objMin, gmax2
		}
	}
	return s.pickJTop(gmax, qdi, qi)
}

// pickJTop is pickJ keeping jTop, in Go loops.
func (s *smo[T]) pickJTop(gmax, qdi float64, qi []T) (int, float64, float64) {
	jmin := -1
	objMin := math.Inf(1)
	gmax2 := math.Inf(-1)
	s.jTop = s.jTop[:0]
	jWant := s.batch       // j itself (when uncached) and batch−1 runners-up
	jWorst := math.Inf(-1) // the objective a candidate must beat to enter jTop
	for _, a32 := range s.active {
		a := int(a32)
		yg := s.lowSign[a] * s.g[a]
		if yg >= gmax2 {
			gmax2 = yg
		}
		if diff := gmax + yg; diff > 0 {
			quad := qdi + s.qd[a] - 2*float64(qi[s.ki(a)])
			if quad <= 0 {
				quad = tau
			}
			o := -diff * diff / quad
			if o <= objMin {
				objMin, jmin = o, a
			}
			if o < jWorst || len(s.jTop) < jWant {
				jWorst = s.keepJ(o, a, jWant)
			}
		}
	}
	return jmin, objMin, gmax2
}

// keepJ records candidate a with second-order objective o in jTop (the
// jWant lowest objectives among uncached points, the earliest variable
// first among equal ones) and returns the objective a candidate must now
// beat to enter.
func (s *smo[T]) keepJ(o float64, a, jWant int) float64 {
	if jWant <= 0 {
		return math.Inf(-1)
	}
	if k := s.key(a); !s.cache.has(k) {
		s.jTop = pushTop(s.jTop, cand{-o, k, a}, jWant)
	}
	if len(s.jTop) < jWant {
		return math.Inf(-1)
	}
	return -s.jTop[jWant-1].v
}

// update optimises the two-variable subproblem on (i, j) and updates the
// gradient over the active set and G-bar over all variables.
func (s *smo[T]) update(i, j int) error {
	if s.sh != nil {
		return s.updateSharded()
	}
	qi, err := s.row(i)
	if err != nil {
		return err
	}
	misses := s.cache.misses
	qj, err := s.rowJ(s.key(j))
	if err != nil {
		return err
	}
	// A batch brought in for qj may have moved qi (fetched again, a hit:
	// the cache never evicts its two most recent rows).
	if s.cache.misses != misses {
		if qi, err = s.row(i); err != nil {
			return err
		}
	}
	ci, cj := s.c[i], s.c[j]
	oldI, oldJ := s.alpha[i], s.alpha[j]
	kij := float64(qi[s.ki(j)])
	ai, aj := pairStep(s.y[i], s.y[j], s.g[i], s.g[j], oldI, oldJ, ci, cj, s.qd[i]+s.qd[j]-2*kij)
	s.alpha[i], s.alpha[j] = ai, aj
	ui, uj := s.status[i] == atUpper, s.status[j] == atUpper
	s.setStatus(i)
	s.setStatus(j)
	s.addPair(qi, qj, s.y[i]*(ai-oldI), s.y[j]*(aj-oldJ))
	if ui != (s.status[i] == atUpper) {
		s.addGbar(qi, s.y[i]*ci, ui)
	}
	if uj != (s.status[j] == atUpper) {
		s.addGbar(qj, s.y[j]*cj, uj)
	}
	return nil
}

// pairStep solves the two-variable subproblem on (i, j): labels yi, yj,
// gradients gi, gj, current values ai, aj, bounds ci, cj and curvature
// quad = Q_ii + Q_jj − 2 K_ij (tau when not positive). It returns the new
// α_i, α_j (engine.PairStep: the one step of every solver, device included).
func pairStep(yi, yj, gi, gj, ai, aj, ci, cj, quad float64) (float64, float64) {
	return engine.PairStep(yi, yj, gi, gj, ai, aj, ci, cj, quad)
}

// addPair adds y_a (wi K_ia + wj K_ja) to the gradient of every active
// variable a, from the kernel rows qi and qj, and finds in the same pass the
// next iteration's i (maxUp's scan, over the same variables in the same
// order; the statuses must be up to date).
func (s *smo[T]) addPair(qi, qj []T, wi, wj float64) {
	gmax, imax := math.Inf(-1), -1
	qi32, ok := any(qi).([]float32)
	qj32, _ := any(qj).([]float32)
	if ok && s.scanAll() {
		n := s.n
		imax, gmax = s.scan.SMOGradient(s.g[:n], s.y[:n], s.upSign[:n], qi32[:n], qj32[:n], wi, wj)
	} else if s.kidx == nil && len(s.active) == s.n {
		// Nothing shrunk: the active set is 0, 1, …, n−1 (see pickJ).
		n := s.n
		g, y, up, qi, qj := s.g[:n], s.y[:n], s.upSign[:n], qi[:n], qj[:n]
		for a := range n {
			ga := g[a] + y[a]*(wi*float64(qi[a])+wj*float64(qj[a]))
			g[a] = ga
			if v := up[a] * ga; v >= gmax {
				gmax, imax = v, a
			}
		}
	} else if s.kidx == nil {
		for _, a32 := range s.active {
			a := int(a32)
			g := s.g[a] + s.y[a]*(wi*float64(qi[a])+wj*float64(qj[a]))
			s.g[a] = g
			if v := s.upSign[a] * g; v >= gmax {
				gmax, imax = v, a
			}
		}
	} else {
		for _, a32 := range s.active {
			a := int(a32)
			k := s.kidx[a]
			g := s.g[a] + s.y[a]*(wi*float64(qi[k])+wj*float64(qj[k]))
			s.g[a] = g
			if v := s.upSign[a] * g; v >= gmax {
				gmax, imax = v, a
			}
		}
	}
	s.nextI, s.nextGmax, s.haveNext = imax, gmax, true
}

// addGbar adds (or, when remove, subtracts) w·y_a·K_row[a] to G-bar.
func (s *smo[T]) addGbar(row []T, w float64, remove bool) {
	if remove {
		w = -w
	}
	gbar, y := s.gbar[:s.n], s.y[:s.n]
	if q, ok := any(row).([]float32); ok && s.scan != nil && s.kidx == nil {
		s.scan.SMOAddScaled(gbar, y, q[:s.n], w)
		return
	}
	if s.kidx == nil {
		row := row[:s.n]
		for a := range gbar {
			gbar[a] += w * y[a] * float64(row[a])
		}
		return
	}
	for a, k := range s.kidx[:s.n] {
		gbar[a] += w * y[a] * float64(row[k])
	}
}

func (s *smo[T]) beShrunk(a int, gmax1, gmax2 float64) bool {
	switch s.status[a] {
	case atUpper:
		if s.y[a] > 0 {
			return -s.g[a] > gmax1
		}
		return -s.g[a] > gmax2
	case atLower:
		if s.y[a] > 0 {
			return s.g[a] > gmax2
		}
		return s.g[a] > gmax1
	}
	return false
}

func (s *smo[T]) shrink() error {
	gmax1, gmax2 := s.shrinkBounds()
	if s.sh != nil {
		var err error
		if gmax1, gmax2, err = s.sh.maxPair(gmax1, gmax2); err != nil {
			return err
		}
	}
	if !s.unshrink && gmax1+gmax2 <= s.eps*10 {
		s.unshrink = true
		if err := s.reconstruct(); err != nil {
			return err
		}
	}
	kept := s.active[:0]
	for _, a32 := range s.active {
		if s.beShrunk(int(a32), gmax1, gmax2) {
			s.inAct[a32] = false
			s.upSign[a32], s.lowSign[a32] = math.NaN(), math.NaN()
		} else {
			kept = append(kept, a32)
		}
	}
	s.active = kept
	s.haveNext = false
	return nil
}

// shrinkBounds returns LIBSVM's Gmax1 = max over the active I_up of
// −y_a G_a and Gmax2 = max over the active I_low of y_a G_a.
func (s *smo[T]) shrinkBounds() (float64, float64) {
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	for _, a32 := range s.active {
		a := int(a32)
		if s.y[a] > 0 {
			if s.status[a] != atUpper && -s.g[a] >= gmax1 {
				gmax1 = -s.g[a]
			}
			if s.status[a] != atLower && s.g[a] >= gmax2 {
				gmax2 = s.g[a]
			}
		} else {
			if s.status[a] != atUpper && -s.g[a] >= gmax2 {
				gmax2 = -s.g[a]
			}
			if s.status[a] != atLower && s.g[a] >= gmax1 {
				gmax1 = s.g[a]
			}
		}
	}
	return gmax1, gmax2
}

// allActive reports whether no variable is shrunk (on any rank).
func (s *smo[T]) allActive() (bool, error) {
	if s.sh != nil {
		return s.sh.noneShrunk(s.n - len(s.active))
	}
	return len(s.active) == s.n, nil
}

// reconstruct recomputes the gradient of the inactive variables from G-bar
// and the free variables, and makes every variable active.
func (s *smo[T]) reconstruct() error {
	if all, err := s.allActive(); err != nil || all {
		return err
	}
	var inactive []int
	for a := range s.n {
		if !s.inAct[a] {
			inactive = append(inactive, a)
			s.g[a] = s.gbar[a] + s.p[a]
		}
	}
	// The free variables' kernel points and weights y_a α_a, in variable
	// order (of the whole problem on a sharded one).
	var vars, keys []int
	var ws []float64
	for a := range s.n {
		if s.status[a] == free {
			vars = append(vars, s.global(a))
			keys = append(keys, s.key(a))
			ws = append(ws, s.y[a]*s.alpha[a])
		}
	}
	if s.sh != nil {
		var err error
		if keys, ws, err = s.sh.gatherFree(vars, keys, ws); err != nil {
			return err
		}
	}
	// Bring the free rows in by batches and apply them. With the vector
	// kernels (float32 rows, the variables are the kernel points) a row is
	// added to every gradient, the same products and sums as the loop
	// over the inactive ones (SMOAddScaled's w·y_b·row_b), and the active
	// ones are put back afterwards: when most variables are inactive this
	// costs less than the indexed loop.
	var err error
	if saved, ok := s.addAllRows(inactive); ok {
		err = s.eachRow(len(keys), func(t int) int { return keys[t] }, func(t int, row []T) {
			s.scan.SMOAddScaled(s.g[:s.n], s.y[:s.n], any(row).([]float32)[:s.n], ws[t])
		})
		for k, a := range s.active {
			s.g[a] = saved[k]
		}
	} else {
		err = s.eachRow(len(keys), func(t int) int { return keys[t] }, func(t int, row []T) {
			w := ws[t]
			for _, b := range inactive {
				s.g[b] += s.y[b] * w * float64(row[s.ki(b)])
			}
		})
	}
	if err != nil {
		return err
	}
	s.active = s.active[:0]
	for a := range s.n {
		s.active = append(s.active, int32(a))
		s.inAct[a] = true
	}
	for _, a := range inactive {
		s.setStatus(a)
	}
	s.haveNext = false
	return nil
}

// addAllRows reports whether reconstruct adds the free rows to every
// gradient with the vector kernel (float32 rows, no kidx, one process,
// more inactive variables than active ones), and returns the active
// gradients to put back.
func (s *smo[T]) addAllRows(inactive []int) ([]float64, bool) {
	var zero T
	if _, f32 := any(zero).(float32); !f32 || s.scan == nil || s.kidx != nil || s.sh != nil || len(inactive) <= len(s.active) {
		return nil, false
	}
	saved := make([]float64, len(s.active))
	for k, a := range s.active {
		saved[k] = s.g[a]
	}
	return saved, true
}

func (s *smo[T]) batchLimit() int {
	b := s.batch
	if b < 1 {
		b = 1
	}
	if b > s.cache.slots-1 {
		b = s.cache.slots - 1
	}
	if b < 1 {
		b = 1
	}
	return b
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// initGradient sets G = Qα + p and G-bar from a (possibly non-zero) start.
// A sharded problem starts from α = 0 (runSharded), where no row is needed.
func (s *smo[T]) initGradient() error {
	copy(s.g, s.p)
	for a := range s.gbar {
		s.gbar[a] = 0
	}
	var nz []int
	for a := range s.n {
		if s.alpha[a] != 0 {
			nz = append(nz, a)
		}
	}
	return s.eachRow(len(nz), func(t int) int { return s.key(nz[t]) }, func(t int, row []T) {
		a := nz[t]
		w := s.y[a] * s.alpha[a]
		for b := range s.n {
			s.g[b] += s.y[b] * w * float64(row[s.ki(b)])
		}
		if s.status[a] == atUpper {
			wc := s.y[a] * s.c[a]
			for b := range s.n {
				s.gbar[b] += s.y[b] * wc * float64(row[s.ki(b)])
			}
		}
	})
}

// eachRow calls fn(t, row) with the kernel row of the point with cache key
// keyOf(t), for t < n in order, first loading the rows missing from the
// cache in batches of up to batchLimit through one engine call each.
func (s *smo[T]) eachRow(n int, keyOf func(t int) int, fn func(t int, row []T)) error {
	for start := 0; start < n; {
		var miss []int
		end := start
		for end < n && len(miss) < s.batchLimit() {
			k := keyOf(end)
			if !s.cache.has(k) && !containsInt(miss, k) {
				miss = append(miss, k)
			}
			end++
		}
		if len(miss) > 0 {
			if err := s.cache.load(miss); err != nil {
				return err
			}
		}
		for t := start; t < end; t++ {
			row, err := s.cache.get(keyOf(t), nil)
			if err != nil {
				return err
			}
			fn(t, row)
		}
		start = end
	}
	return nil
}

// run iterates SMO to the tolerance or the iteration limit.
func (s *smo[T]) run() error {
	counter := min(s.nAll, 1000) + 1
	if resumed, err := s.ckResume(&counter); err != nil {
		return err
	} else if !resumed {
		if err := s.initGradient(); err != nil {
			return err
		}
	}
	for s.iter < s.maxIter {
		counter--
		if counter == 0 {
			counter = min(s.nAll, 1000)
			if s.shrinking {
				if err := s.shrink(); err != nil {
					return err
				}
			}
		}
		i, j, done, err := s.selectWS()
		if err != nil {
			return err
		}
		if done {
			all, err := s.allActive()
			if err != nil {
				return err
			}
			if !all {
				if err := s.reconstruct(); err != nil {
					return err
				}
				i, j, done, err = s.selectWS()
				if err != nil {
					return err
				}
				counter = 1
			}
			if done {
				s.converged = true
				break
			}
		}
		s.iter++
		if err := s.update(i, j); err != nil {
			return err
		}
		if s.ck != nil {
			if err := s.ckBoundary(counter); err != nil {
				return err
			}
		}
	}
	if !s.converged {
		if err := s.reconstruct(); err != nil {
			return err
		}
		if _, _, done, err := s.selectWS(); err != nil {
			return err
		} else if done {
			s.converged = true
		}
	}
	return nil
}

// rho computes ρ as LIBSVM does: the mean of y_a G_a over free variables, or
// the midpoint of the feasible interval when none is free.
func (s *smo[T]) rho() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	nfree, sum := 0, 0.0
	for a := range s.n {
		yg := s.y[a] * s.g[a]
		if s.narrowRho(a, yg, &ub, &lb) {
			nfree++
			sum += yg
		}
	}
	if nfree > 0 {
		return sum / float64(nfree)
	}
	return (ub + lb) / 2
}

// narrowRho narrows ρ's feasible interval [lb, ub] by bounded variable a
// (yg = y_a G_a) as LIBSVM does, and reports whether a is free instead (a
// free variable's yg enters the mean that is ρ when any is free).
func (s *smo[T]) narrowRho(a int, yg float64, ub, lb *float64) (free bool) {
	switch s.status[a] {
	case atUpper:
		if s.y[a] < 0 {
			*ub = math.Min(*ub, yg)
		} else {
			*lb = math.Max(*lb, yg)
		}
	case atLower:
		if s.y[a] > 0 {
			*ub = math.Min(*ub, yg)
		} else {
			*lb = math.Max(*lb, yg)
		}
	default:
		return true
	}
	return false
}

// objective returns ½αᵀQα + pᵀα = ½ Σ α_a (G_a + p_a).
func (s *smo[T]) objective() float64 {
	var v float64
	for a := range s.n {
		v += s.alpha[a] * (s.g[a] + s.p[a])
	}
	return v / 2
}
