package learn_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestPredictDataAndResult trains a binary SVM, predicts a test set with
// one foreign label, and checks the error against a plain count and the
// Result against the header.
func TestPredictDataAndResult(t *testing.T) {
	e := newEngine(t)
	tr, te := blobs(120, 2, 4), blobs(40, 2, 5)
	te.Y[0] = 7 // none of the model's classes
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	l := learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: pursuit.NewRBF(0.5), C: 1, Seed: 1}}
	fit, err := learn.FitEvaluate(e, "svm", pursuit.NewRBF(0.5), l, plan, tr, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := fit.Model
	m.Header.Train = learn.TrainSummary{NTrain: tr.Len(), TrainError: fit.TrainError, TrainSeconds: 1.5}
	p, err := m.PredictData(e, te, learn.PrecisionFloat64)
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i, y := range te.Y { // the reference: label 2 where the decision is positive
		want := 1.0
		if p.Decisions[0][i] > 0 {
			want = 2
		}
		if p.Labels[i] != want {
			t.Fatalf("example %d: label %v, decision %v", i, p.Labels[i], p.Decisions[0][i])
		}
		if want != y {
			wrong++
		}
	}
	if got := float64(wrong) / float64(te.Len()); math.Abs(p.Error-got) > 1e-12 || p.Foreign != 1 || len(p.ForeignValues) != 1 || p.ForeignValues[0] != 7 {
		t.Fatalf("error %v (want %v), foreign %d %v", p.Error, got, p.Foreign, p.ForeignValues)
	}
	r := m.Result("go")
	if r.Algorithm != "svm" || r.Backend != "go" || r.Task != learn.TaskBinary || r.NTrain != tr.Len() || r.NBasis != m.Header.NBasis ||
		r.TrainError == nil || *r.TrainError != fit.TrainError || r.ValError != nil || r.TrainSeconds != 1.5 || strings.Join(r.Classes, ",") != "1,2" {
		t.Fatalf("result %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil || !bytes.Contains(b, []byte(`"val_error":null`)) || !bytes.Contains(b, []byte(`"test_error":null`)) {
		t.Fatalf("JSON %s (%v)", b, err)
	}
	if learn.Num(math.NaN()) != nil || *learn.Num(0.25) != 0.25 {
		t.Fatal("Num")
	}
}

func TestWritePredictions(t *testing.T) {
	p := &learn.Prediction{Labels: []float64{1, -1, 2.5}, Decisions: [][]float64{{0.123456789, -2, math.NaN()}, {1e-9, 3, 4}}}
	var b bytes.Buffer
	if err := p.WritePredictions(&b, false); err != nil || b.String() != "1\n-1\n2.5\n" {
		t.Fatalf("labels only: %q %v", b.String(), err)
	}
	b.Reset()
	if err := p.WritePredictions(&b, true); err != nil || b.String() != "1 0.123456789 1e-09\n-1 -2 3\n2.5 nan 4\n" {
		t.Fatalf("with decisions: %q %v", b.String(), err)
	}
}

func TestFittedRecord(t *testing.T) {
	f := &learn.Fitted{Model: &learn.File{}, TrainError: 0.25, ValError: 0.5, TrainSeconds: 2}
	sc := &data.Scaler{Mode: data.ScaleNone}
	f.Record(sc, 10, 0, "go", 7, "1.0")
	want := learn.TrainSummary{NTrain: 10, TrainError: 0.25, TrainSeconds: 2, Backend: "go", Seed: 7, Version: "1.0"}
	if f.Model.Header.Train != want || f.Model.Header.Scaler != sc {
		t.Fatalf("no validation: %+v", f.Model.Header.Train)
	}
	f.Record(sc, 10, 4, "go", 7, "1.0")
	want.NVal, want.ValError = 4, 0.5
	if f.Model.Header.Train != want {
		t.Fatalf("with validation: %+v", f.Model.Header.Train)
	}
}

// TestPrepFit: Prep.Fit is Prep.Apply, FitEvaluate and Record in one
// step: the same figures as the steps done by hand, the copies charged
// until Release, and nothing charged after a refusal.
func TestPrepFit(t *testing.T) {
	e := newEngine(t)
	tr, te := blobs(120, 2, 6), blobs(40, 2, 7)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	rbf := pursuit.NewRBF(0.5)
	l := learn.SVM{Params: svm.Params{Type: svm.CSVC, Kernel: rbf, C: 1, Seed: 1}}
	p := learn.Prep{ValFrac: 0.25, Seed: 3, Scale: data.ScaleMinMax}
	avail := e.Available()
	f, pr, err := p.Fit(e, "svm", rbf, l, plan, tr, te, "v9", nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Available() != avail-pr.Held || pr.Held == 0 {
		t.Errorf("charged %d bytes, held %d", avail-e.Available(), pr.Held)
	}
	h := f.Model.Header.Train
	if h.NTrain != pr.Train.Len() || h.NVal != pr.Val.Len() || h.NVal != 30 || h.Seed != 3 || h.Version != "v9" || h.Backend != "go" || f.Model.Header.Scaler != pr.Scaler {
		t.Errorf("header %+v", h)
	}
	// The reference: the same steps by hand.
	ref, err := p.Apply(e, plan, tr, te)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := learn.FitEvaluate(e, "svm", rbf, l, plan, ref.Train, ref.Val, ref.Test, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rf.TrainError != f.TrainError || rf.ValError != f.ValError || rf.TestError != f.TestError || rf.Model.NBasis() != f.Model.NBasis() {
		t.Errorf("by hand: errors %v %v %v, %d basis; Fit: %v %v %v, %d", rf.TrainError, rf.ValError, rf.TestError, rf.Model.NBasis(), f.TrainError, f.ValError, f.TestError, f.Model.NBasis())
	}
	ref.Release(e)
	pr.Release(e)
	if e.Available() != avail {
		t.Errorf("after Release: %d bytes still charged", avail-e.Available())
	}
	one := &data.Dataset{X: tr.X.Slice(0, 1, 0, 2), Y: tr.Y[:1], Name: "one"}
	if _, _, err := (learn.Prep{}).Fit(e, "svm", rbf, l, plan, one, nil, "", nil); err == nil || !strings.Contains(err.Error(), "one: 1 training example(s) are too few") {
		t.Errorf("one example: %v", err)
	}
	if e.Available() != avail {
		t.Errorf("after a refusal: %d bytes still charged", avail-e.Available())
	}
}
