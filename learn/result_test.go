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
	if err := p.WritePredictions(&b, true); err != nil || b.String() != "1 0.12345679 1e-09\n-1 -2 3\n2.5 nan 4\n" {
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
