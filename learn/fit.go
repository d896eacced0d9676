package learn

import (
	"math"
	"time"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/engine"
)

// Fitted is what one training run produced and measured.
type Fitted struct {
	Model          *File
	TrainSeconds   float64
	PredictSeconds float64 // on the test set, when there is one
	TrainError     float64
	ValError       float64 // NaN without a validation set
	TestError      float64 // NaN without a test set
	NTest          int     // the test rows of every rank
	TestPred       []float64
}

// FitEvaluate trains l for plan on tr (scaled; val, may be nil, is the
// validation set for early stopping) and evaluates the model on the
// training, validation and test (may be nil) sets: across e's ranks, tr,
// val and test are this rank's rows and the figures every rank's. The
// model file's header names the algorithm and kernel; the caller fills in
// the scaling and the training summary. trained, when not nil, is called
// as soon as the training ends (a progress display's end).
func FitEvaluate(e *engine.Engine, algorithm string, kernel pursuit.Kernel, l Learner, plan LabelPlan, tr, val, test *data.Dataset, trained func()) (*Fitted, error) {
	m := &File{Header: Header{Algorithm: algorithm, Labels: plan, Dim: tr.Dim(), Kernel: kernel.String()}}
	var xVal pursuit.Matrix
	var yVal []float64
	if val != nil {
		xVal, yVal = val.X, val.Y
	}
	start := time.Now()
	var err error
	if m.Models, err = Train(e, l, plan, tr.X, tr.Y, xVal, yVal); err != nil {
		return nil, err
	}
	if trained != nil {
		trained()
	}
	res := &Fitted{Model: m, TrainSeconds: time.Since(start).Seconds(), ValError: math.NaN(), TestError: math.NaN()}
	m.Header.NBasis = m.NBasis()
	if res.TrainError, _, err = m.Evaluate(e, tr); err != nil {
		return nil, err
	}
	if val != nil {
		if res.ValError, _, err = m.Evaluate(e, val); err != nil {
			return nil, err
		}
	}
	if test != nil {
		if err := res.EvaluateTest(e, test); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// EvaluateTest measures f's model on the test set (scaled as the training
// set was; across e's ranks, this rank's rows): it sets TestError,
// TestPred, PredictSeconds and NTest. FitEvaluate calls it when given a
// test set; a caller that holds the test set only once the training rows
// are gone (the pursuit command: the peak memory is then the larger of the
// two phases, not their sum) calls it after FitEvaluate without one.
func (f *Fitted) EvaluateTest(e *engine.Engine, test *data.Dataset) error {
	t0 := time.Now()
	var err error
	if f.TestError, f.TestPred, err = f.Model.Evaluate(e, test); err != nil {
		return err
	}
	f.PredictSeconds = time.Since(t0).Seconds()
	f.NTest, err = e.Group().Sum(test.Len())
	return err
}

// Record fills the model header with the scaling the data were given and
// the summary of this run: nTrain training examples (every rank's), the
// validation part (nVal examples, 0 for none) and the training figures,
// with the backend, the seed and the program's version. The data file's
// name is the caller's.
func (f *Fitted) Record(scaler *data.Scaler, nTrain, nVal int, backend string, seed int64, version string) {
	h := &f.Model.Header
	h.Scaler = scaler
	h.Train = TrainSummary{NTrain: nTrain, TrainError: f.TrainError, TrainSeconds: f.TrainSeconds, Backend: backend, Seed: seed, Version: version}
	if nVal > 0 {
		h.Train.NVal, h.Train.ValError = nVal, f.ValError
	}
}

// Fit is one whole training run on unscaled data, in one process: p's
// preprocessing of tr and test (may be nil), with copies charged to e's
// budget unless p.InPlace; FitEvaluate of l on the prepared sets; and
// Fitted.Record of the run with p's seed and the program's version (the
// data file's name is the caller's). It returns the prepared sets too
// (Prepared.Release gives their copies back); on an error nothing stays
// charged. A classifier needs at least 2 training examples.
func (p Prep) Fit(e *engine.Engine, algorithm string, kernel pursuit.Kernel, l Learner, plan LabelPlan, tr, test *data.Dataset, version string, trained func()) (*Fitted, *Prepared, error) {
	pr, err := p.Apply(e, plan, tr, test)
	if err != nil {
		return nil, nil, err
	}
	if n := pr.Train.Len(); plan.Task != TaskRegression && n < 2 {
		pr.Release(e)
		return nil, nil, pursuit.BadInputf("%s: %d training example(s) are too few to train a classifier", pr.Train.Name, n)
	}
	f, err := FitEvaluate(e, algorithm, kernel, l, plan, pr.Train, pr.Val, pr.Test, trained)
	if err != nil {
		pr.Release(e)
		return nil, nil, err
	}
	nVal := 0
	if pr.Val != nil {
		nVal = pr.Val.Len()
	}
	f.Record(pr.Scaler, pr.Train.Len(), nVal, e.BackendName(), int64(p.Seed), version)
	return f, pr, nil
}
