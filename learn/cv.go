package learn

import (
	"fmt"
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// PrefixErrors returns the error rate (MSE for regression) of m on the rows
// of x with labels y after each number of steps in ns; ok is false when a
// model cannot predict with a prefix of its steps (it is not a Prefixer, or
// was read from a file).
func (m *File) PrefixErrors(e *engine.Engine, x pursuit.Matrix, y []float64, ns []int) (errs []float64, ok bool, err error) {
	decs, ok, err := m.PrefixDecisions(e, x, ns)
	if !ok || err != nil {
		return nil, ok, err
	}
	lp := &m.Header.Labels
	truth := lp.Truth(y)
	errs = make([]float64, len(ns))
	for i, d := range decs {
		errs[i] = lp.ErrorRate(lp.Decide(d), truth)
	}
	return errs, true, nil
}

// ErrorRate returns the error rate (MSE for regression) of m on the rows of
// x with labels y.
func (m *File) ErrorRate(e *engine.Engine, x pursuit.Matrix, y []float64) (float64, error) {
	pred, err := m.Predict(e, x)
	if err != nil {
		return 0, err
	}
	return m.Header.Labels.ErrorRate(pred, m.Header.Labels.Truth(y)), nil
}

// CV configures k-fold cross-validation.
type CV struct {
	// Folds is k, at least 2.
	Folds int
	// Seed draws the folds (stratified by label for classification, as
	// data.KFold).
	Seed uint64
	// Steps, when not nil, are the step counts at which the learning curve
	// is measured on every held-out fold, for learners whose models are
	// Prefixers (the KMP family); CVResult.Curve is then their mean.
	Steps []int
	// Prep is each fold's preprocessing: the training folds are split and
	// scaled by it and the held-out fold is scaled with their scaling, on
	// the fold's own copies of the rows (copied once, charged to the
	// engine's budget while the fold trains). The zero Prep uses the data
	// as they are.
	Prep Prep
	// Ranks spreads the trainings (one per group of settings and fold,
	// item w to rank w mod Size) over its ranks: every rank holds all of
	// the data, trains its share in one process (the engine's own Group is
	// then one rank), and every rank returns the same results, gathered.
	// The zero Group is one rank.
	Ranks engine.Group
	// Progress, when not nil, is told after each of this rank's trainings:
	// Step and Total count this rank's settings, Value is the held-out
	// error of the last setting trained.
	Progress func(Progress)
	// Agree, when not nil, is where the ranks agree that every training
	// succeeded (a collective every rank reaches before the results are
	// gathered): it takes this rank's error and returns the agreed one,
	// for a command's own reporting; nil uses Ranks.Agree.
	Agree func(error) error
}

// CVResult is what cross-validation measured, averaged over the folds.
type CVResult struct {
	Error      float64 // mean held-out error rate (MSE for regression)
	Std        float64 // its standard deviation over the folds
	TrainError float64 // mean training error
	NBasis     float64 // mean number of basis functions
	Seconds    float64 // training time of all the folds
	// Curve is the mean learning curve at CV.Steps (Train and Test; Val
	// NaN), nil when the models cannot predict with a prefix.
	Curve []CurvePoint
}

// CVGroup is settings of a cross-validation grid that may share their
// trainings.
type CVGroup struct {
	// Learners are the settings, one learner each.
	Learners []Learner
	// Names name the settings in errors (none: unnamed).
	Names []string
	// Shared, when not nil, is a learner whose model, cut after the steps
	// that give Basis[k] basis functions (kmp's StepsForBasis), is the
	// model of Learners[k] (the KMP family without early stopping, with
	// the largest of Basis): then one training per fold serves the group,
	// its time counted for each setting. When its model cannot say (several
	// outputs), each setting is trained on its own.
	Shared Learner
	Basis  []int
}

// CrossValidate estimates the error of l for plan on ds by k-fold
// cross-validation: for each fold, preprocess the other folds (cv.Prep),
// Train on them and measure the error on the held-out fold.
func CrossValidate(e *engine.Engine, l Learner, plan LabelPlan, ds *data.Dataset, cv CV) (CVResult, error) {
	res, err := cv.Grid(e, []CVGroup{{Learners: []Learner{l}}}, plan, ds)
	if err != nil {
		return CVResult{}, err
	}
	return res[0], nil
}

// Grid cross-validates every setting of groups on the same folds of ds
// and returns their results, in order (group by group). Across cv.Ranks,
// the trainings are spread over the ranks and the results gathered; they
// are the same as in one process.
func (cv CV) Grid(e *engine.Engine, groups []CVGroup, plan LabelPlan, ds *data.Dataset) ([]CVResult, error) {
	if cv.Folds < 2 {
		return nil, pursuit.Configf("cross-validation with %d folds: need at least 2", cv.Folds)
	}
	if ds.Len() < 2*cv.Folds {
		return nil, pursuit.BadInputf("%d examples are too few for %d folds", ds.Len(), cv.Folds)
	}
	var strat []float64
	if plan.Task != TaskRegression {
		strat = ds.Y
	}
	folds := data.KFold(ds.Len(), cv.Folds, cv.Seed, strat)
	width := cv.figures()
	// The trainings: one per group and fold, spread over the ranks.
	rank, size := cv.Ranks.Rank(), cv.Ranks.Size()
	type item struct{ g, f int }
	var items []item
	total := 0
	for g := range groups {
		for f := range folds {
			if len(items)%size == rank {
				total += len(groups[g].Learners)
			}
			items = append(items, item{g, f})
		}
	}
	done := 0
	figures := make([][]float64, len(items)) // figures[w]: width values per setting
	var sendBuf []float64
	var failed error
	for w, it := range items {
		if w%size != rank {
			continue
		}
		grp := &groups[it.g]
		figures[w], failed = cv.fold(e, grp, plan, ds, folds, it.f)
		if failed != nil {
			break
		}
		sendBuf = append(sendBuf, figures[w]...)
		done += len(grp.Learners)
		if cv.Progress != nil {
			cv.Progress(Progress{Step: done, Total: total, Metric: "cv error", Value: figures[w][width*(len(grp.Learners)-1)], ValErr: math.NaN()})
		}
	}
	if cv.Agree != nil {
		failed = cv.Agree(failed)
	} else if agreed, err := cv.Ranks.Agree(failed); err != nil {
		return nil, err
	} else {
		failed = agreed
	}
	if failed != nil {
		return nil, failed
	}
	if size > 1 {
		// Every rank's figures, in rank order, each rank's in item order.
		counts := make([]int, size)
		for w, it := range items {
			counts[w%size] += width * len(groups[it.g].Learners)
		}
		n := 0
		for _, c := range counts {
			n += c
		}
		recv := make([]float64, n)
		if err := cv.Ranks.Allgatherv(sendBuf, counts, recv); err != nil {
			return nil, err
		}
		off := make([]int, size)
		for r := 1; r < size; r++ {
			off[r] = off[r-1] + counts[r-1]
		}
		for w, it := range items {
			k := width * len(groups[it.g].Learners)
			figures[w] = recv[off[w%size] : off[w%size]+k]
			off[w%size] += k
		}
	}
	// The figures summed in (setting, fold) order, as in one process.
	var out []CVResult
	nf := float64(len(folds))
	for g := range groups {
		for k := range groups[g].Learners {
			var r CVResult
			errs := make([]float64, len(folds))
			curveOK := cv.Steps != nil
			curve := make([]CurvePoint, len(cv.Steps))
			for f := range folds {
				v := figures[g*len(folds)+f][width*k : width*(k+1)]
				errs[f] = v[0]
				r.TrainError += v[1] / nf
				r.NBasis += v[2] / nf
				r.Seconds += v[3]
				if !curveOK || v[4] == 0 {
					curveOK = false
					continue
				}
				for i, n := range cv.Steps {
					curve[i].N = n
					curve[i].Test += JSONNum(v[5+i] / nf)
					curve[i].Train += JSONNum(v[5+len(cv.Steps)+i] / nf)
					curve[i].Val = JSONNum(math.NaN())
				}
			}
			r.Error, r.Std = meanStd(errs)
			if curveOK {
				r.Curve = curve
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// figures is the number of figures a fold's training gives per setting:
// the held-out error, the training error, the basis size, the seconds,
// whether there is a learning curve, and the curve's held-out and training
// errors at each of Steps.
func (cv CV) figures() int { return 5 + 2*len(cv.Steps) }

// fold trains the settings of grp on every fold but f and tests on fold f:
// cv.figures() figures per setting.
func (cv CV) fold(e *engine.Engine, grp *CVGroup, plan LabelPlan, all *data.Dataset, folds [][]int, f int) ([]float64, error) {
	nf := len(folds)
	name := func(k int) string {
		if k < len(grp.Names) && grp.Names[k] != "" {
			return grp.Names[k] + " "
		}
		return ""
	}
	var trIdx []int
	for g, fold := range folds {
		if g != f {
			trIdx = append(trIdx, fold...)
		}
	}
	// The fold's copies, charged to the memory budget while in use; the
	// preprocessing works on them in place.
	foldBytes := int64(all.Len()) * int64(all.Dim()*4+8)
	if all.X.IsSparse() {
		// Sparse rows: the folds hold all's non-zeros once, and a second
		// array of row offsets.
		foldBytes = all.Bytes() + 8
	}
	if err := e.Hold(fmt.Sprintf("the copies of fold %d/%d", f+1, nf), foldBytes); err != nil {
		return nil, err
	}
	defer e.Release(foldBytes)
	p := cv.Prep
	p.InPlace, p.KeepRaw = true, false
	pr, err := p.Apply(e, plan, all.Subset(trIdx), all.Subset(folds[f]))
	if err != nil {
		return nil, fmt.Errorf("%sfold %d/%d: %w", name(0), f+1, nf, err)
	}
	defer pr.Release(e)
	width := cv.figures()
	out := make([]float64, 0, width*len(grp.Learners))
	if grp.Shared != nil {
		last := len(grp.Learners) - 1
		m, secs, err := cv.train(e, grp.Shared, plan, pr)
		if err != nil {
			return nil, fmt.Errorf("%sfold %d/%d: %w", name(last), f+1, nf, err)
		}
		steps, ok := basisSteps(m, grp.Basis)
		var teErr, trErr []float64
		var sizes []int
		if ok {
			teErr, trErr, sizes, ok, err = prefixErrors(e, m, pr, steps)
		}
		if err != nil {
			return nil, fmt.Errorf("%sfold %d/%d: %w", name(last), f+1, nf, err)
		}
		if ok {
			for k := range grp.Learners {
				// One training shared by the group: its time for each.
				out = append(out, teErr[k], trErr[k], float64(sizes[k]), secs, 0)
				out = append(out, make([]float64, width-5)...)
			}
			return out, nil
		}
	}
	for k, l := range grp.Learners {
		m, secs, err := cv.train(e, l, plan, pr)
		var teErr, trErr float64
		if err == nil {
			teErr, err = m.ErrorRate(e, pr.Test.X, pr.Test.Y)
		}
		if err == nil {
			trErr, err = m.ErrorRate(e, pr.Train.X, pr.Train.Y)
		}
		if err != nil {
			return nil, fmt.Errorf("%sfold %d/%d: %w", name(k), f+1, nf, err)
		}
		out = append(out, teErr, trErr, float64(m.NBasis()), secs)
		curve := make([]float64, width-4)
		if cv.Steps != nil {
			teC, trC, _, ok, err := prefixErrors(e, m, pr, cv.Steps)
			if err != nil {
				return nil, fmt.Errorf("%sfold %d/%d: learning curve: %w", name(k), f+1, nf, err)
			}
			if ok {
				curve[0] = 1
				copy(curve[1:], teC)
				copy(curve[1+len(cv.Steps):], trC)
			}
		}
		out = append(out, curve...)
	}
	return out, nil
}

// train fits l on the prepared training (and validation) part and returns
// the model file and the training time.
func (cv CV) train(e *engine.Engine, l Learner, plan LabelPlan, pr *Prepared) (*File, float64, error) {
	var xVal pursuit.Matrix
	var yVal []float64
	if pr.Val != nil {
		xVal, yVal = pr.Val.X, pr.Val.Y
	}
	t0 := time.Now()
	ms, err := Train(e, l, plan, pr.Train.X, pr.Train.Y, xVal, yVal)
	if err != nil {
		return nil, 0, err
	}
	secs := time.Since(t0).Seconds()
	return NewFile(plan, pr.Train.Dim(), pursuit.Kernel{}, ms), secs, nil
}

// basisSteps returns, for each n of basis, the number of steps after which
// m is the model trained for n basis functions; ok is false when m cannot
// say (several outputs, or not a KMP model).
func basisSteps(m *File, basis []int) (steps []int, ok bool) {
	if len(m.Models) != 1 {
		return nil, false
	}
	sb, isKMP := m.Models[0].(interface{ StepsForBasis(n int) (int, bool) })
	if !isKMP {
		return nil, false
	}
	for _, b := range basis {
		n, ok := sb.StepsForBasis(b)
		if !ok {
			return nil, false
		}
		steps = append(steps, n)
	}
	return steps, true
}

// prefixErrors evaluates m after each number of steps in steps on the
// prepared test and training sets: the error rates and basis sizes; ok is
// false when the model cannot predict with a prefix of its steps.
func prefixErrors(e *engine.Engine, m *File, pr *Prepared, steps []int) (teErr, trErr []float64, sizes []int, ok bool, err error) {
	sizes, ok, err = m.PrefixSizes(steps)
	if !ok || err != nil {
		return nil, nil, nil, ok, err
	}
	if teErr, _, err = m.PrefixErrors(e, pr.Test.X, pr.Test.Y, steps); err != nil {
		return nil, nil, nil, true, err
	}
	if trErr, _, err = m.PrefixErrors(e, pr.Train.X, pr.Train.Y, steps); err != nil {
		return nil, nil, nil, true, err
	}
	return teErr, trErr, sizes, true, nil
}

func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)-1))
}

// Param is one numeric setting of a grid and the values to try.
type Param struct {
	Name   string
	Values []float64
}

// GridPoint is one setting of a grid (Values[i] for Params[i]) and its
// cross-validation result.
type GridPoint struct {
	Values []float64
	CVResult
}

// GridSearch cross-validates the learner newLearner builds for every
// combination of the params' values (the last param varying fastest) and
// returns every point and the index of the one with the lowest error (the
// first of equals); across cv.Ranks the points' trainings are spread over
// the ranks. Any numeric setting of any learner can be searched:
// newLearner maps the values to the learner's configuration.
func GridSearch(e *engine.Engine, params []Param, newLearner func(values []float64) (Learner, error), plan LabelPlan, ds *data.Dataset, cv CV) (points []GridPoint, best int, err error) {
	combos := [][]float64{nil}
	for _, p := range params {
		if len(p.Values) == 0 {
			return nil, 0, pursuit.Configf("grid: %s has no values", p.Name)
		}
		var next [][]float64
		for _, c := range combos {
			for _, v := range p.Values {
				next = append(next, append(append([]float64(nil), c...), v))
			}
		}
		combos = next
	}
	groups := make([]CVGroup, len(combos))
	for i, vals := range combos {
		l, err := newLearner(vals)
		if err != nil {
			return nil, 0, err
		}
		groups[i] = CVGroup{Learners: []Learner{l}, Names: []string{fmt.Sprintf("grid point %v", vals)}}
	}
	res, err := cv.Grid(e, groups, plan, ds)
	if err != nil {
		return nil, 0, err
	}
	for i, r := range res {
		points = append(points, GridPoint{Values: combos[i], CVResult: r})
		if r.Error < points[best].Error {
			best = i
		}
	}
	return points, best, nil
}

// Evaluate predicts the rows of ds (scaled) with m and returns the error
// rate (MSE for regression) and the predictions. Across ranks (e's Group
// has several), ds is this rank's rows and the rate is over every rank's
// rows (a collective; NaN when no rank has any).
func (m *File) Evaluate(e *engine.Engine, ds *data.Dataset) (float64, []float64, error) {
	g := e.Group()
	var pred []float64
	if ds.Len() > 0 || !g.Sharded() {
		dec, err := m.Decisions(e, ds.X)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", ds.Name, err)
		}
		pred = m.Header.Labels.Decide(dec)
	}
	lp := &m.Header.Labels
	if g.Sharded() {
		sum := []float64{lp.ErrorSum(pred, lp.Truth(ds.Y)), float64(len(pred))}
		if err := g.AllreduceSum(sum); err != nil {
			return 0, nil, err
		}
		if sum[1] == 0 {
			return math.NaN(), pred, nil
		}
		return sum[0] / sum[1], pred, nil
	}
	return lp.ErrorRate(pred, lp.Truth(ds.Y)), pred, nil
}

// LearningCurve returns the learning curve of m: its error with its first
// n steps for about maxPoints values of n on each set (nil sets give NaN)
// when every model can predict with a prefix of its steps and prefix is
// true; else the curve the model recorded while training (training and
// validation error only), for a single binary model (a Curver); else nil.
func (m *File) LearningCurve(e *engine.Engine, tr, val, test *data.Dataset, maxPoints int, prefix bool) ([]CurvePoint, error) {
	maxN := 0
	canPrefix := prefix
	for _, f := range m.Models {
		pd, ok := f.(Prefixer)
		if !ok || !pd.CanPrefix() {
			canPrefix = false
			continue
		}
		maxN = max(maxN, pd.PrefixLen())
	}
	if !canPrefix {
		if len(m.Models) == 1 {
			if c, ok := m.Models[0].(Curver); ok && !IsMulti(m.Models[0]) {
				return c.Curve(), nil
			}
		}
		return nil, nil
	}
	if maxN == 0 {
		return nil, nil
	}
	var ns []int
	step := max(1, maxN/maxPoints)
	for n := 1; n < maxN; n += step {
		ns = append(ns, n)
	}
	ns = append(ns, maxN)
	errs := func(ds *data.Dataset) ([]float64, error) {
		out := make([]float64, len(ns))
		if ds == nil {
			for i := range out {
				out[i] = math.NaN()
			}
			return out, nil
		}
		out, _, err := m.PrefixErrors(e, ds.X, ds.Y, ns)
		if err != nil {
			return nil, fmt.Errorf("learning curve on %s: %w", ds.Name, err)
		}
		return out, nil
	}
	a, err := errs(tr)
	if err != nil {
		return nil, err
	}
	b, err := errs(val)
	if err != nil {
		return nil, err
	}
	c, err := errs(test)
	if err != nil {
		return nil, err
	}
	curve := make([]CurvePoint, len(ns))
	for i, n := range ns {
		curve[i] = CurvePoint{N: n, Train: JSONNum(a[i]), Val: JSONNum(b[i]), Test: JSONNum(c[i])}
	}
	return curve, nil
}
