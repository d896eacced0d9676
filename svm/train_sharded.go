package svm

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Training across ranks: Train, TrainOneVsRest and TrainMulticlass with an
// engine whose communicator has more than one rank. Each rank passes its
// own rows; the training set is the ranks' rows concatenated in rank order,
// and every rank returns the same model, the one a single process trains
// on that set (see shard.go for the solver and its determinism).

// isSharded reports whether the engine trains across several ranks.
func isSharded(e *engine.Engine) bool { return e.Group().Sharded() }

// shardStart is what every rank knows once a training across ranks has
// started: the rows of every rank and this rank's first row in the whole
// training set.
type shardStart struct {
	c      engine.Group
	counts []int // rows per rank
	offset int   // this rank's first row
	l      int   // rows in all
}

// startSharded checks, collectively, that every rank was started alike and
// holds valid rows, and gathers the shard sizes. Every rank returns the
// same error or none, so no rank is left waiting in a collective.
func startSharded(e *engine.Engine, x pursuit.Matrix, y []float64, p Params, method string) (*shardStart, error) {
	c := e.Group()
	// A rank whose own rows are bad must not return before the first
	// collective: its error is one of the entries every rank compares.
	input := "valid"
	dataErr := p.validateData(x, y, true)
	if dataErr != nil {
		input = dataErr.Error()
	}
	err := c.CheckConfig(
		engine.NewSetting("input", input),
		engine.NewSetting("SVM parameters", p.digest()),
		engine.NewSetting("features", fmt.Sprint(x.Cols)),
		engine.NewSetting("storage of the training rows (sparse or dense)", storageName(x)),
		engine.NewSetting("checkpoints", checkpointsSetting(p)),
	)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if dataErr != nil { // alike on every rank
		return nil, fmt.Errorf("%s: every rank's training rows are bad; rank %d's: %w", method, c.Rank(), dataErr)
	}
	if err := p.validateParams(); err != nil {
		return nil, err
	}
	if p.Probability {
		return nil, fmt.Errorf("%s: probability estimates (Params.Probability: Platt sigmoids on cross-validated decision values) are not available across ranks: %w", method, engine.ErrNotDistributed)
	}
	if p.Exact {
		return nil, fmt.Errorf("%s: exact float64 kernel rows (Params.Exact) are not available across ranks: %w", method, engine.ErrNotDistributed)
	}
	sizes, err := c.Allgather([]float64{float64(x.Rows)})
	if err != nil {
		return nil, fmt.Errorf("%s: gathering the shard sizes: %w", method, err)
	}
	st := &shardStart{c: c, counts: make([]int, len(sizes))}
	for r, v := range sizes {
		st.counts[r] = int(v)
		if r < c.Rank() {
			st.offset += st.counts[r]
		}
		st.l += st.counts[r]
	}
	if st.l == 0 {
		return nil, badInput("empty training data: every rank's shard is empty")
	}
	return st, nil
}

// checkpointsSetting says whether p checkpoints, and whether it resumes:
// what every rank must share for the ranks to take the same collectives.
func checkpointsSetting(p Params) string {
	switch {
	case p.Checkpoint == nil:
		return "none"
	case p.Checkpoint.Resume != "":
		return "on, resuming"
	}
	return "on"
}

// storageName is "sparse" or "dense", as x is held.
func storageName(x pursuit.Matrix) string {
	if x.IsSparse() {
		return "sparse"
	}
	return "dense"
}

// classCounts returns counts[c][r], the rows of class labels[c] on rank r,
// and this rank's rows of each class in order.
func classCounts(c engine.Group, labels, y []float64) ([][]int, [][]int, error) {
	pos := make(map[float64]int, len(labels))
	for i, v := range labels {
		pos[v] = i
	}
	k := len(labels)
	groups := make([][]int, k)
	for i, v := range y {
		groups[pos[v]] = append(groups[pos[v]], i)
	}
	mine := make([]float64, k)
	for i := range groups {
		mine[i] = float64(len(groups[i]))
	}
	counts := make([]int, c.Size())
	for r := range counts {
		counts[r] = k
	}
	all := make([]float64, k*c.Size())
	if err := c.Allgatherv(mine, counts, all); err != nil {
		return nil, nil, fmt.Errorf("svm: gathering the class sizes: %w", err)
	}
	out := make([][]int, k)
	for i := range out {
		out[i] = make([]int, c.Size())
		for r := range out[i] {
			out[i][r] = int(all[r*k+i])
		}
	}
	return out, groups, nil
}

// svRecords gathers the support vectors of every rank: each record is
// (group, training index, coefficients…, features…) with nc coefficients
// and the features of x's storage: d values of a dense row, or the number
// of non-zeros followed by their columns and values for a sparse one.
// They come back sorted by group, then training index: LIBSVM's order.
func svRecords(c engine.Group, send []float64, nc int, x pursuit.Matrix) ([][]float64, error) {
	all, err := c.Gatherv(send)
	if err != nil {
		return nil, fmt.Errorf("svm: gathering the support vectors: %w", err)
	}
	var recs [][]float64
	for p := 0; p < len(all); {
		w := 2 + nc + x.Cols
		if x.IsSparse() {
			if p+2+nc >= len(all) {
				return nil, fmt.Errorf("svm: gathering the support vectors: a record cut short at %d of %d values", p, len(all))
			}
			w = 2 + nc + 1 + 2*int(all[p+2+nc])
		}
		if p+w > len(all) {
			return nil, fmt.Errorf("svm: gathering the support vectors: a record of %d values at %d of %d", w, p, len(all))
		}
		recs = append(recs, all[p:p+w:p+w])
		p += w
	}
	slices.SortFunc(recs, func(a, b []float64) int {
		if c := cmp.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return cmp.Compare(a[1], b[1])
	})
	return recs, nil
}

// appendSV appends the record of own row i of x (training index gi) in
// group with coefficients coef (see svRecords).
func appendSV(send []float64, group, gi int, coef []float64, x pursuit.Matrix, i int) []float64 {
	send = append(send, float64(group), float64(gi))
	send = append(send, coef...)
	return appendRow(send, x, i)
}

// appendRow appends row i of x: its Cols values when dense; its number of
// non-zeros, their columns and their values when sparse.
func appendRow(send []float64, x pursuit.Matrix, i int) []float64 {
	if x.IsSparse() {
		cols, vals := x.SparseRow(i)
		send = append(send, float64(len(cols)))
		for _, j := range cols {
			send = append(send, float64(j))
		}
		for _, v := range vals {
			send = append(send, float64(v))
		}
		return send
	}
	for _, v := range x.Row(i) {
		send = append(send, float64(v))
	}
	return send
}

// readRows builds an n×d matrix from n rows written by appendRow in recs
// (recs[t][skip:] holds row t), sparse when sparse.
func readRows(n, d int, sparse bool, row func(t int) []float64) pursuit.Matrix {
	if !sparse {
		m := pursuit.NewMatrix(n, d)
		for t := range n {
			for j, v := range row(t) {
				m.Data[t*d+j] = float32(v)
			}
		}
		return m
	}
	off := make([]int64, 1, n+1)
	var ind []int32
	var val []float32
	for t := range n {
		r := row(t)
		nz := int(r[0])
		for _, j := range r[1 : 1+nz] {
			ind = append(ind, int32(j))
		}
		for _, v := range r[1+nz : 1+2*nz] {
			val = append(val, float32(v))
		}
		off = append(off, int64(len(ind)))
	}
	return pursuit.Matrix{Rows: n, Cols: d, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
}

// svFrom fills a model's SV (held as x is), SVIndex and coefficient rows
// (nc of them) from sorted records.
func svFrom(m *Model, recs [][]float64, nc int, x pursuit.Matrix) {
	m.SV = readRows(len(recs), x.Cols, x.IsSparse(), func(t int) []float64 { return recs[t][2+nc:] })
	m.SVIndex = make([]int, len(recs))
	m.Coef = make([][]float64, nc)
	for q := range m.Coef {
		m.Coef[q] = make([]float64, len(recs))
	}
	for s, r := range recs {
		m.SVIndex[s] = int(r[1])
		for q := range nc {
			m.Coef[q][s] = r[2+q]
		}
	}
}

// reserveShardCache checks the rank's part of the kernel-row cache
// against the engine's memory budget.
func reserveShardCache(e *engine.Engine, p Params, sh *shard) error {
	o, _ := p.options().withDefaults()
	l := int64(sh.lay.total())
	slots := min(max(int64(o.CacheMB*(1<<20))/(l*4), 2), l)
	return e.Reserve("this rank's part of the SVM kernel-row cache", slots*int64(len(sh.lay.keys))*4)
}

// openShard makes this rank's shard of a problem (newShard) and checks its
// memory (the problem's own rows x(), pairRows bytes when they are a
// gathered copy, and the rank's part of the row cache) against the engine's budget,
// as one collective: when any rank fails, every rank returns an error (its
// own, or one naming the failing rank), so none waits for the others in
// the solver.
func openShard(e *engine.Engine, p Params, lay *shardLayout, x func() pursuit.Matrix, vars []int, nVars int, pairRows int64) (*shard, error) {
	var sh *shard
	var err error
	if pairRows > 0 {
		err = e.Reserve("the training rows of a class pair", pairRows)
	}
	if err == nil {
		sh, err = newShard(e, lay, x(), p.Kernel, vars, nVars)
	}
	if err == nil {
		err = reserveShardCache(e, p, sh)
	}
	if err = agreed(e.Group(), err); err != nil && sh != nil {
		_ = sh.release()
	}
	return sh, err
}

// agreed is engine.Agree for svm: a rank's own failure becomes every
// rank's (see there), with the messages of the other ranks prefixed "svm:".
func agreed(c engine.Group, err error) error {
	ag, cerr := c.Agree(err)
	switch {
	case cerr != nil:
		return errors.Join(err, fmt.Errorf("svm: agreeing on failures: %w", cerr))
	case ag != nil && err == nil:
		return fmt.Errorf("svm: %w", ag)
	}
	return ag
}

// solveSharded solves this rank's part of a problem split across ranks by
// the solver o.Solver chooses: SMO on the ranks' shared cache
// (runSharded) or the batched solver (runBatchedSharded).
func solveSharded(sh *shard, cache *rowCache[float32], prob Problem, o Options) (*Solution, error) {
	if o.Solver.resolve() == SolverBatched {
		return runBatchedSharded(sh, prob, o)
	}
	return runSharded(sh, cache, prob, o)
}

// trainSharded is Train across ranks.
func trainSharded(e *engine.Engine, x pursuit.Matrix, y []float64, p Params) (*Model, error) {
	st, err := startSharded(e, x, y, p, "svm.Train")
	if err != nil {
		return nil, err
	}
	if p.ck, err = startCheckpoint(p, x, y, st.c); err != nil {
		return nil, err
	}
	if p.Type == EpsilonSVR {
		return trainSVRSharded(e, st, x, y, p)
	}
	return trainOVOSharded(e, st, x, y, p)
}

func trainSVRSharded(e *engine.Engine, st *shardStart, x pursuit.Matrix, y []float64, p Params) (*Model, error) {
	c := st.c
	lay := newShardLayout(c.Rank(), c.Size(), [][]int{st.counts})
	lp, l := x.Rows, st.l
	// Variables α_i of the whole problem are 0…l−1, α*_i are l…2l−1.
	vars := make([]int, 2*lp)
	for i := range lp {
		vars[i], vars[lp+i] = lay.keys[i], l+lay.keys[i]
	}
	sh, err := openShard(e, p, lay, func() pursuit.Matrix { return x }, vars, 2*l, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sh.release() }()
	prob := Problem{Y: make([]float64, 2*lp), P: make([]float64, 2*lp), C: make([]float64, 2*lp), Index: make([]int, 2*lp)}
	for i := range lp {
		prob.Y[i], prob.Y[i+lp] = 1, -1
		prob.P[i], prob.P[i+lp] = p.Epsilon-y[i], p.Epsilon+y[i]
		prob.C[i], prob.C[i+lp] = p.C, p.C
		if p.InstanceWeights != nil {
			prob.C[i], prob.C[i+lp] = p.C*p.InstanceWeights[i], p.C*p.InstanceWeights[i]
		}
		prob.Index[i], prob.Index[i+lp] = i, i
	}
	o, _ := p.options().withDefaults()
	cache := sh.newCache(int64(o.CacheMB * (1 << 20)))
	defer cache.release()
	sol, err := solveSharded(sh, cache, prob, p.options())
	if err != nil {
		return nil, fmt.Errorf("svm: training ε-SVR: %w", err)
	}
	var send []float64
	for i := range lp {
		if cf := sol.Alpha[i] - sol.Alpha[i+lp]; cf != 0 {
			send = appendSV(send, 0, st.offset+i, []float64{cf}, x, i)
		}
	}
	recs, err := svRecords(c, send, 1, x)
	if err != nil {
		return nil, err
	}
	m := &Model{Type: EpsilonSVR, Kernel: p.Kernel, Rho: []float64{sol.Rho}, Stats: []TrainStats{statsOf(sol)}}
	svFrom(m, recs, 1, x)
	return m, nil
}

func trainOVOSharded(e *engine.Engine, st *shardStart, x pursuit.Matrix, y []float64, p Params) (*Model, error) {
	c := st.c
	labels, err := c.Labels(y)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	if len(labels) == 2 && labels[0] == -1 && labels[1] == 1 {
		labels[0], labels[1] = labels[1], labels[0]
	}
	k := len(labels)
	if k < 2 {
		return nil, badInput("all %d examples have the label %v; classification needs at least two classes", st.l, labels[0])
	}
	cs, err := classC(p, labels)
	if err != nil {
		return nil, err
	}
	counts, groups, err := classCounts(c, labels, y)
	if err != nil {
		return nil, err
	}
	// coef[i][q]: own row i's coefficient in row q of the model's Coef.
	coef := make([][]float64, x.Rows)
	for i := range coef {
		coef[i] = make([]float64, k-1)
	}
	nonzero := make([]bool, x.Rows)
	m := &Model{Type: CSVC, Kernel: p.Kernel, Labels: labels, NumSV: make([]int, k)}
	for i := range k {
		for j := i + 1; j < k; j++ {
			idx := append(append([]int(nil), groups[i]...), groups[j]...)
			sy := make([]float64, len(idx))
			for t := range sy {
				sy[t] = -1
				if t < len(groups[i]) {
					sy[t] = 1
				}
			}
			q := p
			if p.InstanceWeights != nil {
				q.InstanceWeights = pickFloats(p.InstanceWeights, idx)
			}
			lay := newShardLayout(c.Rank(), c.Size(), [][]int{counts[i], counts[j]})
			fit, err := trainBinarySharded(e, lay, x, idx, sy, cs[i], cs[j], q)
			if err != nil {
				return nil, fmt.Errorf("svm: training classes %v vs %v: %w", labels[i], labels[j], err)
			}
			for t, a := range fit.alpha {
				if a == 0 {
					continue
				}
				nonzero[idx[t]] = true
				if t < len(groups[i]) {
					coef[idx[t]][j-1] = a
				} else {
					coef[idx[t]][i] = a
				}
			}
			m.Rho = append(m.Rho, fit.rho)
			m.Stats = append(m.Stats, fit.stats)
		}
	}
	var send []float64
	for cl, g := range groups {
		for _, i := range g {
			if nonzero[i] {
				send = appendSV(send, cl, st.offset+i, coef[i], x, i)
			}
		}
	}
	recs, err := svRecords(c, send, k-1, x)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		m.NumSV[int(r[0])]++
	}
	svFrom(m, recs, k-1, x)
	return m, nil
}

// trainBinarySharded solves one ±1 problem split across ranks: rows idx of
// x, with labels y, are this rank's points of the problem, in the layout's
// order.
func trainBinarySharded(e *engine.Engine, lay *shardLayout, x pursuit.Matrix, idx []int, y []float64, cPos, cNeg float64, p Params) (binaryFit, error) {
	var fit binaryFit
	sh, err := openShard(e, p, lay, func() pursuit.Matrix { return gatherRows(x, idx) }, append([]int(nil), lay.keys...), lay.total(), gatheredBytes(x, idx))
	if err != nil {
		return fit, err
	}
	defer func() { _ = sh.release() }()
	o, _ := p.options().withDefaults()
	prob := csvcProblem(y, cPos, cNeg, p.InstanceWeights)
	cache := sh.newCache(int64(o.CacheMB * (1 << 20)))
	defer cache.release()
	sol, err := solveSharded(sh, cache, prob, p.options())
	if err != nil {
		return fit, err
	}
	fit.setSolution(y, sol)
	return fit, nil
}

// trainOneVsRestSharded is TrainOneVsRest across ranks; the machines share
// one kernel-row cache, as in one process.
func trainOneVsRestSharded(e *engine.Engine, x pursuit.Matrix, y []float64, p Params) (*OneVsRestModel, error) {
	st, err := startSharded(e, x, y, p, "svm.TrainOneVsRest")
	if err != nil {
		return nil, err
	}
	if p.Type != CSVC {
		return nil, badInput("one-vs-rest needs C-SVC, got %v", p.Type)
	}
	c := st.c
	classes, err := c.Labels(y)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	sortFloats(classes)
	if len(classes) < 2 {
		return nil, badInput("all %d examples have the label %v; classification needs at least two classes", st.l, classes[0])
	}
	if _, err := classC(p, classes); err != nil {
		return nil, err
	}
	lay := newShardLayout(c.Rank(), c.Size(), [][]int{st.counts})
	sh, err := openShard(e, p, lay, func() pursuit.Matrix { return x }, append([]int(nil), lay.keys...), st.l, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sh.release() }()
	o, _ := p.options().withDefaults()
	cache := sh.newCache(int64(o.CacheMB * (1 << 20)))
	defer cache.release()
	out := &OneVsRestModel{Classes: classes}
	for _, cl := range classes {
		yc := data.Signs(y, cl)
		if yc == nil {
			yc = []float64{} // an empty shard
		}
		cPos := p.C
		if w, ok := p.Weights[cl]; ok {
			cPos *= w
		}
		prob := csvcProblem(yc, cPos, p.C, p.InstanceWeights)
		sol, err := solveSharded(sh, cache, prob, p.options())
		if err != nil {
			return nil, fmt.Errorf("svm: one-vs-rest machine for class %v: %w", cl, err)
		}
		// Positive support vectors first, then negative, each in training
		// order.
		var send []float64
		for i, a := range sol.Alpha {
			if a > 0 {
				group := 0
				if yc[i] < 0 {
					group = 1
				}
				send = appendSV(send, group, st.offset+i, []float64{yc[i] * a}, x, i)
			}
		}
		recs, err := svRecords(c, send, 1, x)
		if err != nil {
			return nil, err
		}
		m := &Model{Type: CSVC, Kernel: p.Kernel, Labels: []float64{1, -1}, NumSV: []int{0, 0},
			Rho: []float64{sol.Rho}, Stats: []TrainStats{statsOf(sol)}}
		for _, r := range recs {
			m.NumSV[int(r[0])]++
		}
		svFrom(m, recs, 1, x)
		out.Machines = append(out.Machines, m)
	}
	return out, nil
}
