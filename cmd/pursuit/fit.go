package main

import (
	"fmt"
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// fitResult is what one training run produced and measured.
type fitResult struct {
	model          *cliModel
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
func fit(e *engine.Engine, algo *algorithm, p *trainParams, plan labelPlan, tr, val, test *data.Dataset, bar *progressBar) (*fitResult, error) {
	if algo.train == nil {
		return nil, fmt.Errorf("algorithm %q is not part of this build", algo.name)
	}
	if plan.Task == taskRegression && !algo.regression {
		return nil, fmt.Errorf("--algo %s does not fit real-valued targets (use one of the classifiers' data, or kmp / svm for regression)", algo.name)
	}
	nTrain := tr.Len()
	if p.nTrain > 0 {
		nTrain = p.nTrain // across ranks: every rank's rows
	}
	multi := e.Comm().Size() > 1
	if plan.Task != taskRegression && nTrain < 2 {
		return nil, fmt.Errorf("%s: %d training example(s) are too few to train a classifier", tr.Name, nTrain)
	}
	m := &cliModel{hdr: modelHeader{Algorithm: algo.name, Labels: plan, Dim: tr.Dim(), Kernel: p.kernel.String()}}
	var xVal pursuit.Matrix
	if val != nil {
		xVal = val.X
	}
	start := time.Now()
	pk := *p
	if plan.Task == taskOneVsRest {
		if algo.trainOVR == nil {
			return nil, fmt.Errorf("--algo %s has no one-vs-rest training (use --positive LABEL for one class against the rest)", algo.name)
		}
		nm := plan.models()
		if bar != nil {
			bar.setLabel(fmt.Sprintf("train %s one-vs-rest (%d classes)", algo.name, nm))
			pk.progress = bar.Update
		}
		var yVal []float64
		if val != nil {
			yVal = val.Y
		}
		fs, err := algo.trainOVR(e, &pk, tr.X, tr.Y, plan.Classes, xVal, yVal)
		if err != nil {
			return nil, notDistributed(e, algo.name, fmt.Errorf("one-vs-rest training: %w", err))
		}
		if got := outputsOf(fs); got != nm {
			return nil, fmt.Errorf("%s one-vs-rest: %d outputs for %d classes (does every class have training examples?)", algo.name, got, nm)
		}
		m.models = fs
	} else {
		t := plan.targets(tr.Y, 0)
		var tVal []float64
		if val != nil {
			tVal = plan.targets(val.Y, 0)
		}
		if plan.Task != taskRegression && !multi { // across ranks, the plan saw every rank's labels
			if err := data.CheckBinary(t); err != nil {
				return nil, fmt.Errorf("model for class %s: %w", formatLabel(plan.Classes[0]), err)
			}
		}
		if bar != nil {
			bar.setLabel("train " + algo.name)
			pk.progress = bar.Update
		}
		f, err := algo.train(e, &pk, tr.X, t, xVal, tVal)
		if err != nil {
			return nil, notDistributed(e, algo.name, fmt.Errorf("training: %w", err)) // err names the algorithm's package
		}
		m.models = []fitted{f}
	}
	bar.Done()
	res := &fitResult{model: m, trainSeconds: time.Since(start).Seconds(), valErr: math.NaN(), testErr: math.NaN()}
	m.hdr.NBasis = m.nBasis()
	var err error
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

// outputsOf is the number of outputs of the models fs.
func outputsOf(fs []fitted) int {
	n := 0
	for _, f := range fs {
		if mf, ok := f.(multiFitted); ok {
			n += mf.Outputs()
		} else {
			n++
		}
	}
	return n
}

// evaluate predicts ds (scaled) with m and returns the error rate (or MSE)
// and the predictions. Across ranks (e's communicator), ds is this rank's
// rows, and the rate is over every rank's rows (a collective).
func evaluate(e *engine.Engine, m *cliModel, ds *data.Dataset) (float64, []float64, error) {
	var pred []float64
	if ds.Len() > 0 || e.Comm().Size() == 1 {
		dec, err := m.decisions(e, ds.X)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", ds.Name, err)
		}
		pred = m.hdr.Labels.decide(dec)
	}
	lp := &m.hdr.Labels
	if c := e.Comm(); c.Size() > 1 {
		sum := []float64{lp.errorSum(pred, lp.truth(ds.Y)), float64(len(pred))}
		if err := c.AllreduceSum(sum); err != nil {
			return 0, nil, err
		}
		if sum[1] == 0 {
			return math.NaN(), pred, nil
		}
		return sum[0] / sum[1], pred, nil
	}
	return lp.errorRate(pred, lp.truth(ds.Y)), pred, nil
}

// learningCurve returns the learning curve of m: evaluated with its first
// n basis functions for about maxPoints values of n on each set (nil sets
// give NaN) when the algorithm can predict with a prefix of its basis and
// prefix is true; else the curve the algorithm recorded while training
// (training and validation error only), for a single binary model; else
// nil.
func learningCurve(e *engine.Engine, m *cliModel, tr, val, test *data.Dataset, maxPoints int, prefix bool) ([]curvePoint, error) {
	maxN := 0
	canPrefix := prefix
	for _, f := range m.models {
		pd, ok := f.(prefixDecider)
		if !ok || !pd.CanPrefix() {
			canPrefix = false
			continue
		}
		maxN = max(maxN, pd.PrefixLen())
	}
	if !canPrefix {
		if len(m.models) == 1 {
			if c, ok := m.models[0].(curver); ok && !isMulti(m.models[0]) {
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
	lp := &m.hdr.Labels
	errs := func(ds *data.Dataset) ([]float64, error) {
		out := make([]float64, len(ns))
		if ds == nil {
			for i := range out {
				out[i] = math.NaN()
			}
			return out, nil
		}
		decs, _, err := m.prefixDecisions(e, ds.X, ns)
		if err != nil {
			return nil, fmt.Errorf("learning curve on %s: %w", ds.Name, err)
		}
		truth := lp.truth(ds.Y)
		for i, dec := range decs {
			out[i] = lp.errorRate(lp.decide(dec), truth)
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
	curve := make([]curvePoint, len(ns))
	for i, n := range ns {
		curve[i] = curvePoint{N: n, Train: jsonNum(a[i]), Val: jsonNum(b[i]), Test: jsonNum(c[i])}
	}
	return curve, nil
}
