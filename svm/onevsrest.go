package svm

import (
	"fmt"
	"slices"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Strategy is a multi-class decomposition.
type Strategy int

// The strategies.
const (
	OneVsOne  Strategy = iota // LIBSVM's k(k−1)/2 pairwise machines and voting
	OneVsRest                 // k machines "class c against the rest", largest decision wins
)

// Classifier is a trained multi-class (or binary) classifier.
type Classifier interface {
	// Predict returns the predicted label of each row of x.
	Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error)
	// TotalSV returns the number of support vectors (summed over the
	// machines of a one-vs-rest classifier).
	TotalSV() int
}

// TrainMulticlass trains a C-SVC classifier with the given strategy: a
// *Model for OneVsOne, a *OneVsRestModel for OneVsRest.
func TrainMulticlass(e *engine.Engine, x pursuit.Matrix, y []float64, p Params, s Strategy) (Classifier, error) {
	switch s {
	case OneVsOne:
		return Train(e, x, y, p)
	case OneVsRest:
		return TrainOneVsRest(e, x, y, p)
	}
	return nil, badInput("unknown multi-class strategy %d", int(s))
}

// OneVsRestModel holds one binary machine per class: Machines[c] separates
// Classes[c] (+1) from the other classes (−1).
type OneVsRestModel struct {
	Classes  []float64
	Machines []*Model
}

// TotalSV returns the support vectors summed over the machines (a point
// that is a support vector of several machines counts several times).
func (o *OneVsRestModel) TotalSV() int {
	t := 0
	for _, m := range o.Machines {
		t += m.TotalSV()
	}
	return t
}

// TrainOneVsRest trains one binary C-SVC per class (classes in increasing
// order) on all of x. The machines share one kernel-row cache of
// Params.CacheMB, so a kernel row computed for one machine serves the
// others. Params.Weights apply to the positive class of each machine
// (C·w[c] for class c, C·w[other] is not used: the rest has weight 1).
// Across ranks it takes each rank's rows as Train does.
func TrainOneVsRest(e *engine.Engine, x pursuit.Matrix, y []float64, p Params) (*OneVsRestModel, error) {
	if e == nil {
		return nil, badInput("nil engine")
	}
	if p.Checkpoint != nil {
		return nil, ckRefuseOneVsRest(e)
	}
	if isSharded(e) {
		return trainOneVsRestSharded(e, x, y, p)
	}
	if p.Type != CSVC {
		return nil, badInput("one-vs-rest needs C-SVC, got %v", p.Type)
	}
	if err := p.validate(x, y); err != nil {
		return nil, err
	}
	classes := distinctSorted(y)
	if len(classes) < 2 {
		return nil, badInput("all %d examples have the label %v; classification needs at least two classes", len(y), classes[0])
	}
	if _, err := classC(p, classes); err != nil {
		return nil, err
	}
	if p.Exact {
		return nil, badInput("exact float64 kernel rows (Params.Exact) are not available for one-vs-rest training; use Train (one-vs-one)")
	}
	rows, err := NewEngineRows(e, x, p.Kernel)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Release() }()
	if err := reserveCache(e, p, x.Rows); err != nil {
		return nil, err
	}
	o, err := p.options().withDefaults()
	if err != nil {
		return nil, badInput("%v", err)
	}
	cache := newRowCache(x.Rows, int64(o.CacheMB*(1<<20)), 4, fill32(rows))
	defer cache.release()
	out := &OneVsRestModel{Classes: classes}
	for _, cl := range classes {
		yc := data.Signs(y, cl)
		cPos := p.C
		if w, ok := p.Weights[cl]; ok {
			cPos *= w
		}
		m, err := trainBinaryShared(e, x, yc, cPos, p.C, p, rows, cache)
		if err != nil {
			return nil, fmt.Errorf("svm: one-vs-rest machine for class %v: %w", cl, err)
		}
		out.Machines = append(out.Machines, m)
	}
	return out, nil
}

// trainBinaryShared trains a ±1 machine on all of x using a shared cache.
func trainBinaryShared(e *engine.Engine, x pursuit.Matrix, y []float64, cPos, cNeg float64, p Params, rows *EngineRows, cache *rowCache[float32]) (*Model, error) {
	prob := Problem{Y: y, P: make([]float64, len(y)), C: make([]float64, len(y))}
	for i := range y {
		prob.P[i] = -1
		prob.C[i] = cNeg
		if y[i] > 0 {
			prob.C[i] = cPos
		}
		if p.InstanceWeights != nil {
			prob.C[i] *= p.InstanceWeights[i]
		}
	}
	alpha, diag, o, maxIter, err := prepare(rows, prob, p.options())
	if err != nil {
		return nil, err
	}
	h0, m0, c0 := cache.hits, cache.misses, cache.computed
	sol, err := runSolver(cache, rows.e, rows, prob, diag, alpha, o, maxIter)
	if err != nil {
		return nil, err
	}
	if o.Solver.resolve() != SolverBatched { // the batched solver counts its own rows and uses no cache
		sol.CacheHits, sol.CacheMisses, sol.RowsComputed = cache.hits-h0, cache.misses-m0, cache.computed-c0
	}
	var pos, neg []int
	for i, a := range sol.Alpha {
		if a > 0 {
			if y[i] > 0 {
				pos = append(pos, i)
			} else {
				neg = append(neg, i)
			}
		}
	}
	idx := append(pos, neg...)
	coef := make([]float64, len(idx))
	for t, i := range idx {
		coef[t] = y[i] * sol.Alpha[i]
	}
	m := &Model{
		Type: CSVC, Kernel: p.Kernel, Labels: []float64{1, -1}, NumSV: []int{len(pos), len(neg)},
		SV: gatherRows(x, idx), SVIndex: idx, Coef: [][]float64{coef}, Rho: []float64{sol.Rho},
		Stats: []TrainStats{statsOf(sol)},
	}
	if p.Probability {
		a, b, err := binaryProbability(e, x, y, cPos, cNeg, p)
		if err != nil {
			return nil, err
		}
		m.ProbA, m.ProbB = []float64{a}, []float64{b}
	}
	return m, nil
}

// Decision returns, for each row of x, the decision value of every machine
// (len(Classes) values per row).
func (o *OneVsRestModel) Decision(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	k := len(o.Machines)
	out := make([]float64, x.Rows*k)
	for c, m := range o.Machines {
		d, err := m.Decision(e, x)
		if err != nil {
			return nil, fmt.Errorf("svm: one-vs-rest machine for class %v: %w", o.Classes[c], err)
		}
		for r, v := range d {
			out[r*k+c] = v
		}
	}
	return out, nil
}

// Predict returns, for each row of x, the class whose machine gives the
// largest decision value (ties to the smaller class).
func (o *OneVsRestModel) Predict(e *engine.Engine, x pursuit.Matrix) ([]float64, error) {
	d, err := o.Decision(e, x)
	if err != nil {
		return nil, err
	}
	k := len(o.Machines)
	out := make([]float64, x.Rows)
	for r := range x.Rows {
		best := 0
		for c := 1; c < k; c++ {
			if d[r*k+c] > d[r*k+best] {
				best = c
			}
		}
		out[r] = o.Classes[best]
	}
	return out, nil
}

func distinctSorted(y []float64) []float64 {
	seen := map[float64]bool{}
	var out []float64
	for _, v := range y {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sortFloats(out)
	return out
}

func sortFloats(v []float64) { slices.Sort(v) }
