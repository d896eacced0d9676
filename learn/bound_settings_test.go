package learn_test

import (
	"errors"
	"testing"

	"github.com/pursuit-ml/pursuit/learn"
)

// TestBoundSettings checks the refusals, and that BoundOf is File.Bound
// on a binary model and refuses one-vs-rest models, and the model's
// training-row check and scaling.
func TestBoundSettings(t *testing.T) {
	off := learn.BoundSettings{Delta: 0.1}
	var se *learn.SettingError
	if err := off.Validate("kmp", false, map[string]bool{"delta": true}); !errors.As(err, &se) || se.Text(flagNames) != "--delta applies only with --bound" {
		t.Errorf("delta without the bound: %v", err)
	}
	on := learn.BoundSettings{On: true, Delta: 0.1}
	if err := on.Validate("kmp", false, map[string]bool{"delta": true}); err != nil {
		t.Error(err)
	}
	if err := on.Validate("slmc", false, nil); !errors.As(err, &se) || se.Setting != "bound" {
		t.Errorf("slmc: %v", err)
	}

	e := newEngine(t)
	ds := blobs(60, 2, 7)
	s := learn.DefaultSettings()
	s.Basis = 4
	d := learn.DataSettings{Scale: "minmax"}
	binary := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	f, pr, err := learn.FitSettings(e, &s, &d, binary, ds, nil, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := on.BoundOf(e, f.Model, pr.Train, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.Model.Bound(e, pr.Train, 0.1, 0, false)
	if err != nil || *got != *want {
		t.Errorf("BoundOf %+v, Bound %+v (%v)", got, want, err)
	}
	ovr := learn.LabelPlan{Task: learn.TaskOneVsRest, Classes: []float64{1, 2, 3}}
	f3, _, err := learn.FitSettings(e, &s, &d, ovr, blobs(60, 3, 7), nil, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := on.BoundOf(e, f3.Model, pr.Train, false); !errors.As(err, &se) || se.Setting != "positive" {
		t.Errorf("one-vs-rest: %v", err)
	}

	f.Model.Header.Train.NTrain = 60
	if err := f.Model.CheckTrainingRows("d.svm", blobs(50, 2, 1), "m.model"); !errors.As(err, &se) ||
		se.Text(flagNames) != "--data d.svm has 50 examples but m.model was trained on 60: the bound needs the training data itself" {
		t.Errorf("row check: %v", err)
	}
	if err := f.Model.CheckTrainingRows("d.svm", ds, "m.model"); err != nil {
		t.Error(err)
	}
	raw := blobs(60, 2, 7)
	if err := f.Model.ScaleData("d.svm", raw); err != nil {
		t.Fatal(err)
	}
	for i, v := range raw.X.Data {
		if v != pr.Train.X.Data[i] {
			t.Fatalf("ScaleData: value %d is %v, the training run's %v", i, v, pr.Train.X.Data[i])
		}
	}
}
