package svm

import (
	"fmt"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/internal/hugemem"
)

// Train trains a model on the rows of x with labels (C-SVC) or targets
// (ε-SVR) y. C-SVC with more than two classes trains LIBSVM's one-vs-one
// machines; use TrainOneVsRest (or TrainMulticlass) for one-vs-rest. Class
// order follows first appearance in y, except that labels −1/+1 always put
// +1 first (as LIBSVM ≥ 3.18), so a binary ±1 model's decision value is
// positive for +1.
//
// Across ranks (an engine whose communicator has more than one rank), x and
// y are this rank's rows (a 0×d matrix on a rank without rows) and the
// training set is the ranks' rows concatenated in rank order: every rank
// returns the same model, the one one process trains on that set (SVIndex
// counts in it). The ranks first compare their parameters and the validity
// of their rows, and stop together with an error wrapping engine.ErrConfigMismatch
// when they differ. Params.InstanceWeights, when used, holds the weights of
// the rank's own rows (non-nil on every rank, empty on an empty shard).
// Probability estimates are not available across ranks (an error wrapping
// engine.ErrNotDistributed).
func Train(e *engine.Engine, x pursuit.Matrix, y []float64, p Params) (*Model, error) {
	if e == nil {
		return nil, badInput("nil engine")
	}
	if isSharded(e) {
		return trainSharded(e, x, y, p)
	}
	if err := p.validate(x, y); err != nil {
		return nil, err
	}
	var err error
	if p.ck, err = startCheckpoint(p, x, y, e.Group()); err != nil {
		return nil, err
	}
	if p.Type == EpsilonSVR {
		return trainSVR(e, x, y, p)
	}
	return trainOVO(e, x, y, p)
}

func trainSVR(e *engine.Engine, x pursuit.Matrix, y []float64, p Params) (*Model, error) {
	rows, release, err := p.rowSource(e, x)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := reserveCache(e, p, x.Rows); err != nil {
		return nil, err
	}
	sol, err := solveSVRWeighted(rows, y, p.C, p.Epsilon, p.InstanceWeights, p.options())
	if err != nil {
		return nil, fmt.Errorf("svm: training ε-SVR: %w", err)
	}
	coef := SVRCoef(sol)
	var idx []int
	var cs []float64
	for i, c := range coef {
		if c != 0 {
			idx = append(idx, i)
			cs = append(cs, c)
		}
	}
	m := &Model{
		Type: EpsilonSVR, Kernel: p.Kernel, SV: gatherRows(x, idx), SVIndex: idx,
		Coef: [][]float64{cs}, Rho: []float64{sol.Rho}, Stats: []TrainStats{statsOf(sol)},
	}
	return m, nil
}

func statsOf(s *Solution) TrainStats {
	return TrainStats{Obj: s.Obj, Rho: s.Rho, Iter: s.Iter, OuterIter: s.OuterIter, DeviceSubproblems: s.DeviceSubproblems, DeviceRows: s.DeviceRows, NumSV: s.NumSV, NumBSV: s.NumBSV, Converged: s.Converged,
		RowsComputed: s.RowsComputed, CacheHits: s.CacheHits, CacheMisses: s.CacheMisses}
}

// rowSource returns the kernel rows of x that p asks for (the engine's
// float32 rows, or ExactRows when p.Exact) and the function that releases
// them.
func (p Params) rowSource(e *engine.Engine, x pursuit.Matrix) (RowSource, func(), error) {
	if p.Exact {
		rows, err := NewExactRows(e, x, p.Kernel)
		return rows, func() {}, err
	}
	rows, err := NewEngineRows(e, x, p.Kernel)
	if err != nil {
		return nil, nil, err
	}
	return rows, func() { _ = rows.Release() }, nil
}

// reserveCache checks the kernel cache against the engine's memory budget.
func reserveCache(e *engine.Engine, p Params, l int) error {
	o, _ := p.options().withDefaults()
	b := int64(o.CacheMB * (1 << 20))
	elem := int64(4)
	if p.Exact {
		elem = 8
	}
	if full := int64(l) * int64(l) * elem; b > full {
		b = full
	}
	return e.Reserve("the SVM kernel-row cache", b)
}

// gatherRows copies rows idx of x into a new matrix, held as x is: dense
// rows, or sparse rows holding their non-zeros only.
func gatherRows(x pursuit.Matrix, idx []int) pursuit.Matrix {
	if x.IsSparse() {
		return gatherSparse(x, idx)
	}
	out := pursuit.NewMatrix(len(idx), x.Cols)
	for r, i := range idx {
		copy(out.Row(r), x.Row(i))
	}
	return out
}

// gatherSparse is gatherRows for a sparse x: O(the rows' non-zeros).
func gatherSparse(x pursuit.Matrix, idx []int) pursuit.Matrix {
	var nnz int64
	c := x.Sparse
	for _, i := range idx {
		nnz += c.Offsets[i+1] - c.Offsets[i]
	}
	off := make([]int64, 1, len(idx)+1)
	ind := make([]int32, 0, nnz)
	val := make([]float32, 0, nnz)
	for _, i := range idx {
		ri, rv := x.SparseRow(i)
		ind = append(ind, ri...)
		val = append(val, rv...)
		off = append(off, int64(len(ind)))
	}
	return pursuit.Matrix{Rows: len(idx), Cols: x.Cols, Sparse: &pursuit.CSR{Offsets: off, Indices: ind, Values: val}}
}

// gatheredBytes is the memory gatherRows(x, idx) takes: Matrix.Bytes of
// the copy.
func gatheredBytes(x pursuit.Matrix, idx []int) int64 {
	if !x.IsSparse() {
		return int64(len(idx)) * int64(x.Cols) * 4
	}
	var nnz int64
	c := x.Sparse
	for _, i := range idx {
		nnz += c.Offsets[i+1] - c.Offsets[i]
	}
	return 8*nnz + 8*int64(len(idx)+1)
}

// gatherRowsScratch is gatherRows into memory that the returned function
// gives back, after which the matrix must not be used: a hugemem.Arena where the
// platform has one (the copy of a class pair, a few megabytes, then faults
// in a few huge pages instead of hundreds of 4 KiB ones), else the Go heap.
// Sparse rows are copied to the Go heap (gatherRows).
func gatherRowsScratch(x pursuit.Matrix, idx []int) (pursuit.Matrix, func()) {
	if x.IsSparse() {
		return gatherSparse(x, idx), func() {}
	}
	a := hugemem.New(len(idx) * x.Cols * 4)
	data := hugemem.Slice[float32](a, len(idx)*x.Cols)
	if data == nil {
		a.Free()
		return gatherRows(x, idx), func() {}
	}
	out := pursuit.Matrix{Rows: len(idx), Cols: x.Cols, Stride: x.Cols, Data: data}
	for r, i := range idx {
		copy(out.Row(r), x.Row(i))
	}
	return out, a.Free
}

// groupClasses returns the labels in order of first appearance (±1 with +1
// first) and, for each, the indices of its examples in order.
func groupClasses(y []float64) ([]float64, [][]int) {
	var labels []float64
	pos := map[float64]int{}
	var groups [][]int
	for i, v := range y {
		c, ok := pos[v]
		if !ok {
			c = len(labels)
			pos[v] = c
			labels = append(labels, v)
			groups = append(groups, nil)
		}
		groups[c] = append(groups[c], i)
	}
	if len(labels) == 2 && labels[0] == -1 && labels[1] == 1 {
		labels[0], labels[1] = labels[1], labels[0]
		groups[0], groups[1] = groups[1], groups[0]
	}
	return labels, groups
}

// classC returns C times the weight of each label.
func classC(p Params, labels []float64) ([]float64, error) {
	cs := make([]float64, len(labels))
	for c, lab := range labels {
		cs[c] = p.C
		if w, ok := p.Weights[lab]; ok {
			cs[c] *= w
		}
	}
	for lab := range p.Weights {
		found := false
		for _, l := range labels {
			found = found || l == lab
		}
		if !found {
			return nil, badInput("a weight is given for class %v, which is not in the training labels", lab)
		}
	}
	return cs, nil
}

// binaryFit is the result of one pairwise machine.
type binaryFit struct {
	alpha []float64 // y_i α_i over the pair's examples (class i first, then class j)
	rho   float64
	probA float64
	probB float64
	stats TrainStats
}

// setSolution fills the fit from the C-SVC solution over labels y (±1):
// the signed coefficients y_i α_i, ρ and the statistics.
func (fit *binaryFit) setSolution(y []float64, sol *Solution) {
	fit.alpha = make([]float64, len(y))
	for t := range y {
		fit.alpha[t] = y[t] * sol.Alpha[t]
	}
	fit.rho = sol.Rho
	fit.stats = statsOf(sol)
}

func trainOVO(e *engine.Engine, x pursuit.Matrix, y []float64, p Params) (*Model, error) {
	labels, groups := groupClasses(y)
	k := len(labels)
	if k < 2 {
		return nil, badInput("all %d examples have the label %v; classification needs at least two classes", len(y), labels[0])
	}
	cs, err := classC(p, labels)
	if err != nil {
		return nil, err
	}
	start := make([]int, k+1)
	for c := range k {
		start[c+1] = start[c] + len(groups[c])
	}
	nonzero := make([]bool, len(y)) // in class-grouped order
	fits := make([]binaryFit, 0, k*(k-1)/2)
	for i := range k {
		for j := i + 1; j < k; j++ {
			idx := append(append([]int(nil), groups[i]...), groups[j]...)
			sy := make([]float64, len(idx))
			for t := range sy {
				if t < len(groups[i]) {
					sy[t] = 1
				} else {
					sy[t] = -1
				}
			}
			copied := k > 2 || !isIdentity(idx)
			if copied {
				if err := e.Reserve("the training rows of a class pair", gatheredBytes(x, idx)); err != nil {
					return nil, err
				}
			}
			sub, release := x, func() {}
			if copied {
				sub, release = gatherRowsScratch(x, idx)
			}
			q := p
			if p.InstanceWeights != nil {
				q.InstanceWeights = pickFloats(p.InstanceWeights, idx)
			}
			fit, err := trainBinary(e, sub, sy, cs[i], cs[j], q)
			release()
			if err != nil {
				return nil, fmt.Errorf("svm: training classes %v vs %v: %w", labels[i], labels[j], err)
			}
			for t, a := range fit.alpha {
				if a != 0 {
					if t < len(groups[i]) {
						nonzero[start[i]+t] = true
					} else {
						nonzero[start[j]+t-len(groups[i])] = true
					}
				}
			}
			fits = append(fits, fit)
		}
	}
	// Assemble LIBSVM's layout.
	m := &Model{Type: CSVC, Kernel: p.Kernel, Labels: labels, NumSV: make([]int, k)}
	var svIdx []int
	pos := make([]int, len(y)) // grouped position → SV index
	for c := range k {
		for t, orig := range groups[c] {
			if nonzero[start[c]+t] {
				pos[start[c]+t] = len(svIdx)
				svIdx = append(svIdx, orig)
				m.NumSV[c]++
			}
		}
	}
	m.SV = gatherRows(x, svIdx)
	m.SVIndex = svIdx
	m.Coef = make([][]float64, k-1)
	for r := range m.Coef {
		m.Coef[r] = make([]float64, len(svIdx))
	}
	q := 0
	for i := range k {
		for j := i + 1; j < k; j++ {
			f := fits[q]
			ni := len(groups[i])
			for t, a := range f.alpha {
				if a == 0 {
					continue
				}
				if t < ni {
					m.Coef[j-1][pos[start[i]+t]] = a
				} else {
					m.Coef[i][pos[start[j]+t-ni]] = a
				}
			}
			m.Rho = append(m.Rho, f.rho)
			m.Stats = append(m.Stats, f.stats)
			if p.Probability {
				m.ProbA = append(m.ProbA, f.probA)
				m.ProbB = append(m.ProbB, f.probB)
			}
			q++
		}
	}
	return m, nil
}

// pickFloats returns v[i] for i in idx.
func pickFloats(v []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for t, i := range idx {
		out[t] = v[i]
	}
	return out
}

func isIdentity(idx []int) bool {
	for i, v := range idx {
		if i != v {
			return false
		}
	}
	return true
}

// trainBinary solves one ±1 problem on x (and, with probability, fits the
// Platt sigmoid on cross-validated decision values first).
func trainBinary(e *engine.Engine, x pursuit.Matrix, y []float64, cPos, cNeg float64, p Params) (binaryFit, error) {
	var fit binaryFit
	if p.Probability {
		a, b, err := binaryProbability(e, x, y, cPos, cNeg, p)
		if err != nil {
			return fit, err
		}
		fit.probA, fit.probB = a, b
	}
	rows, release, err := p.rowSource(e, x)
	if err != nil {
		return fit, err
	}
	defer release()
	if err := reserveCache(e, p, x.Rows); err != nil {
		return fit, err
	}
	sol, err := SolveCSVCWeighted(rows, y, cPos, cNeg, p.InstanceWeights, nil, p.options())
	if err != nil {
		return fit, err
	}
	fit.setSolution(y, sol)
	return fit, nil
}
