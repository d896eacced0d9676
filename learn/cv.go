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

// CrossValidate estimates the error of l for plan on ds by k-fold
// cross-validation: for each fold, Train on the other folds and measure the
// error on it. The data are used as they are (scale them first).
func CrossValidate(e *engine.Engine, l Learner, plan LabelPlan, ds *data.Dataset, cv CV) (CVResult, error) {
	if cv.Folds < 2 {
		return CVResult{}, pursuit.Configf("cross-validation with %d folds: need at least 2", cv.Folds)
	}
	if ds.Len() < 2*cv.Folds {
		return CVResult{}, pursuit.BadInputf("%d examples are too few for %d folds", ds.Len(), cv.Folds)
	}
	var strat []float64
	if plan.Task != TaskRegression {
		strat = ds.Y
	}
	folds := data.KFold(ds.Len(), cv.Folds, cv.Seed, strat)
	var res CVResult
	errs := make([]float64, len(folds))
	curveOK := cv.Steps != nil
	curve := make([]CurvePoint, len(cv.Steps))
	for f := range folds {
		var trIdx []int
		for g, fold := range folds {
			if g != f {
				trIdx = append(trIdx, fold...)
			}
		}
		tr, te := ds.Subset(trIdx), ds.Subset(folds[f])
		t0 := time.Now()
		ms, err := Train(e, l, plan, tr.X, tr.Y, pursuit.Matrix{}, nil)
		if err != nil {
			return CVResult{}, fmt.Errorf("fold %d/%d: %w", f+1, len(folds), err)
		}
		res.Seconds += time.Since(t0).Seconds()
		m := NewFile(plan, ds.Dim(), pursuit.Kernel{}, ms)
		if errs[f], err = m.ErrorRate(e, te.X, te.Y); err != nil {
			return CVResult{}, fmt.Errorf("fold %d/%d: %w", f+1, len(folds), err)
		}
		trErr, err := m.ErrorRate(e, tr.X, tr.Y)
		if err != nil {
			return CVResult{}, fmt.Errorf("fold %d/%d: %w", f+1, len(folds), err)
		}
		res.TrainError += trErr / float64(len(folds))
		res.NBasis += float64(m.NBasis()) / float64(len(folds))
		if curveOK {
			teC, ok, err := m.PrefixErrors(e, te.X, te.Y, cv.Steps)
			if err != nil {
				return CVResult{}, fmt.Errorf("fold %d/%d: learning curve: %w", f+1, len(folds), err)
			}
			trC, _, err := m.PrefixErrors(e, tr.X, tr.Y, cv.Steps)
			if err != nil {
				return CVResult{}, fmt.Errorf("fold %d/%d: learning curve: %w", f+1, len(folds), err)
			}
			curveOK = ok
			for i, n := range cv.Steps {
				if ok {
					curve[i].N = n
					curve[i].Test += JSONNum(teC[i] / float64(len(folds)))
					curve[i].Train += JSONNum(trC[i] / float64(len(folds)))
					curve[i].Val = JSONNum(math.NaN())
				}
			}
		}
	}
	res.Error, res.Std = meanStd(errs)
	if curveOK {
		res.Curve = curve
	}
	return res, nil
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
// first of equals). Any numeric setting of any learner can be searched:
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
	for _, vals := range combos {
		l, err := newLearner(vals)
		if err != nil {
			return nil, 0, err
		}
		r, err := CrossValidate(e, l, plan, ds, cv)
		if err != nil {
			return nil, 0, fmt.Errorf("grid point %v: %w", vals, err)
		}
		points = append(points, GridPoint{Values: vals, CVResult: r})
		if r.Error < points[best].Error {
			best = len(points) - 1
		}
	}
	return points, best, nil
}
