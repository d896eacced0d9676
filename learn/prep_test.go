package learn_test

import (
	"errors"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestPrep checks the preprocessing step: the validation split, the
// scaling fitted on the training part, the copies charged to the budget
// and given back, and the sets left as they are unless in place.
func TestPrep(t *testing.T) {
	e := newEngine(t)
	ds, test := blobs(100, 2, 7), blobs(40, 2, 8)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	x0 := ds.X.At(0, 0)
	avail := e.Available()
	pr, err := learn.Prep{ValFrac: 0.2, Seed: 3, Scale: learn.ScaleAuto, KeepRaw: true}.Apply(e, plan, ds, test)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Train.Len() != 80 || pr.Val.Len() != 20 || pr.Test.Len() != 40 || pr.Raw.Len() != 80 {
		t.Fatalf("parts %d/%d/%d raw %d, want 80/20/40 raw 80", pr.Train.Len(), pr.Val.Len(), pr.Test.Len(), pr.Raw.Len())
	}
	if pr.Scaler == nil || pr.Scaler.Mode != data.ScaleMinMax {
		t.Fatalf("scaler %v, want minmax", pr.Scaler)
	}
	for i := range pr.Train.Len() {
		for j := range 2 {
			if v := pr.Train.X.At(i, j); v < -1 || v > 1 {
				t.Fatalf("scaled training value %v outside [-1, 1]", v)
			}
		}
	}
	if ds.X.At(0, 0) != x0 {
		t.Fatal("the training set was changed without InPlace")
	}
	if want := ds.Bytes() + test.Bytes() + pr.Raw.Bytes(); pr.Held != want || e.Available() != avail-want {
		t.Fatalf("held %d (available %d of %d), want %d", pr.Held, e.Available(), avail, want)
	}
	pr.Release(e)
	if e.Available() != avail {
		t.Fatalf("available %d after Release, want %d", e.Available(), avail)
	}
	in, err := learn.Prep{Scale: data.ScaleStandard, InPlace: true}.Apply(e, plan, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Held != 0 || in.Train != ds || ds.X.At(0, 0) == x0 {
		t.Fatalf("in place: held %d, same set %v, scaled %v", in.Held, in.Train == ds, ds.X.At(0, 0) != x0)
	}
	_, err = learn.Prep{ValFrac: 0.001}.Apply(e, plan, blobs(10, 2, 1), nil)
	var se *learn.SplitError
	if !errors.As(err, &se) || !errors.Is(err, pursuit.ErrBadInput) || e.Available() != avail {
		t.Fatalf("tiny validation part: %v (available %d, want %d)", err, e.Available(), avail)
	}
}

// TestFitEvaluate trains on a prepared split and checks the figures
// against the model's own evaluation.
func TestFitEvaluate(t *testing.T) {
	e := newEngine(t)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	pr, err := learn.Prep{ValFrac: 0.25, Seed: 1, Scale: learn.ScaleAuto, InPlace: true}.Apply(e, plan, blobs(120, 2, 3), blobs(40, 2, 4))
	if err != nil {
		t.Fatal(err)
	}
	l := learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: pursuit.NewRBF(0.5), C: 1, Seed: 1}}
	done := false
	r, err := learn.FitEvaluate(e, "svm", l.Params.Kernel, l, plan, pr.Train, pr.Val, pr.Test, func() { done = true })
	if err != nil {
		t.Fatal(err)
	}
	te, _, err := r.Model.Evaluate(e, pr.Test)
	if err != nil {
		t.Fatal(err)
	}
	if !done || r.NTest != 40 || len(r.TestPred) != 40 || r.TestError != te || math.IsNaN(r.ValError) || r.Model.Header.Algorithm != "svm" || r.Model.Header.NBasis == 0 {
		t.Fatalf("trained %v, %+v (test error %v)", done, r, te)
	}
}
