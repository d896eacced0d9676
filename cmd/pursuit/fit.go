package main

import (
	"fmt"
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
	"github.com/pursuit-ml/pursuit/learn"
)

// fitResult is what one training run produced and measured.
type fitResult struct {
	model          *learn.File
	trainSeconds   float64
	predictSeconds float64 // on the test set, when there is one
	trainErr       float64
	valErr         float64 // NaN without validation set
	testErr        float64 // NaN without test set
	nTest          int
	testPred       []float64
	// The scaled sets the model was trained and evaluated on (set by
	// fitSplit).
	tr, val, test *data.Dataset
	held          int64 // bytes of those sets charged to the engine (fitSplit's copies)
}

// fit trains the binary models of plan on the (already scaled) training set
// and evaluates them on the training, validation and test sets. bar may be
// nil.
func fit(e *engine.Engine, algo *algorithm, p *trainParams, plan learn.LabelPlan, tr, val, test *data.Dataset, bar *progressBar) (*fitResult, error) {
	if algo.learner == nil {
		return nil, fmt.Errorf("algorithm %q is not part of this build", algo.name)
	}
	if plan.Task == learn.TaskRegression && !algo.regression {
		return nil, fmt.Errorf("--algo %s does not fit real-valued targets (use one of the classifiers' data, or kmp / svm for regression)", algo.name)
	}
	nTrain := tr.Len()
	if p.nTrain > 0 {
		nTrain = p.nTrain // across ranks: every rank's rows
	}
	multi := e.Comm().Size() > 1
	if plan.Task != learn.TaskRegression && nTrain < 2 {
		return nil, fmt.Errorf("%s: %d training example(s) are too few to train a classifier", tr.Name, nTrain)
	}
	m := &learn.File{Header: learn.Header{Algorithm: algo.name, Labels: plan, Dim: tr.Dim(), Kernel: p.kernel.String()}}
	var xVal pursuit.Matrix
	if val != nil {
		xVal = val.X
	}
	start := time.Now()
	pk := *p
	if bar != nil {
		if plan.Task == learn.TaskOneVsRest {
			bar.setLabel(fmt.Sprintf("train %s one-vs-rest (%d classes)", algo.name, plan.NumModels()))
		} else {
			bar.setLabel("train " + algo.name)
		}
		pk.progress = bar.Update
	}
	l, err := algo.learner(&pk)
	if err != nil {
		return nil, err
	}
	var yVal []float64
	if val != nil {
		yVal = val.Y
	}
	m.Models, err = learn.Train(e, l, plan, tr.X, tr.Y, xVal, yVal)
	if err != nil {
		return nil, notDistributed(e, algo.name, err) // err names the algorithm's package
	}
	bar.Done()
	res := &fitResult{model: m, trainSeconds: time.Since(start).Seconds(), valErr: math.NaN(), testErr: math.NaN()}
	m.Header.NBasis = m.NBasis()
	if res.trainErr, _, err = evaluate(e, m, tr); err != nil {
		return nil, err
	}
	if val != nil {
		if res.valErr, _, err = evaluate(e, m, val); err != nil {
			return nil, err
		}
	}
	if test != nil {
		t0 := time.Now()
		res.testErr, res.testPred, err = evaluate(e, m, test)
		if err != nil {
			return nil, err
		}
		res.predictSeconds = time.Since(t0).Seconds()
		res.nTest = test.Len()
		if multi {
			if res.nTest, err = e.Group().Sum(test.Len()); err != nil {
				return nil, err
			}
		}
	}
	return res, nil
}

// evaluate predicts ds (scaled) with m and returns the error rate (or MSE)
// and the predictions. Across ranks (e's communicator), ds is this rank's
// rows, and the rate is over every rank's rows (a collective).
func evaluate(e *engine.Engine, m *learn.File, ds *data.Dataset) (float64, []float64, error) {
	var pred []float64
	if ds.Len() > 0 || e.Comm().Size() == 1 {
		dec, err := m.Decisions(e, ds.X)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", ds.Name, err)
		}
		pred = m.Header.Labels.Decide(dec)
	}
	lp := &m.Header.Labels
	if c := e.Comm(); c.Size() > 1 {
		sum := []float64{lp.ErrorSum(pred, lp.Truth(ds.Y)), float64(len(pred))}
		if err := c.AllreduceSum(sum); err != nil {
			return 0, nil, err
		}
		if sum[1] == 0 {
			return math.NaN(), pred, nil
		}
		return sum[0] / sum[1], pred, nil
	}
	return lp.ErrorRate(pred, lp.Truth(ds.Y)), pred, nil
}

// learningCurve returns the learning curve of m: evaluated with its first
// n basis functions for about maxPoints values of n on each set (nil sets
// give NaN) when the algorithm can predict with a prefix of its basis and
// prefix is true; else the curve the algorithm recorded while training
// (training and validation error only), for a single binary model; else
// nil.
func learningCurve(e *engine.Engine, m *learn.File, tr, val, test *data.Dataset, maxPoints int, prefix bool) ([]learn.CurvePoint, error) {
	maxN := 0
	canPrefix := prefix
	for _, f := range m.Models {
		pd, ok := f.(learn.Prefixer)
		if !ok || !pd.CanPrefix() {
			canPrefix = false
			continue
		}
		maxN = max(maxN, pd.PrefixLen())
	}
	if !canPrefix {
		if len(m.Models) == 1 {
			if c, ok := m.Models[0].(learn.Curver); ok && !learn.IsMulti(m.Models[0]) {
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
	curve := make([]learn.CurvePoint, len(ns))
	for i, n := range ns {
		curve[i] = learn.CurvePoint{N: n, Train: learn.JSONNum(a[i]), Val: learn.JSONNum(b[i]), Test: learn.JSONNum(c[i])}
	}
	return curve, nil
}
