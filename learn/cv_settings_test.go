package learn_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/learn"
)

func flagNames(s string) string { return "--" + s }

// TestCVSettingsGrid checks the grid's refusals (the setting named, the
// text with a caller's names) and the grid made of the lists and the
// model settings' single values.
func TestCVSettingsGrid(t *testing.T) {
	kmpS, svmS := learn.DefaultSettings(), learn.DefaultSettings()
	svmS.Algo = "svm"
	for _, c := range []struct {
		cv      learn.CVSettings
		s       learn.Settings
		given   string
		setting string
		text    string
	}{
		{learn.CVSettings{Folds: 1}, kmpS, "", "folds", "--folds 1: need at least 2"},
		{learn.CVSettings{Folds: 3, Gamma: "1,a"}, kmpS, "", "grid-gamma", `--grid-gamma "1,a": want comma-separated positive numbers, e.g. 1,10,100`},
		{learn.CVSettings{Folds: 3, Basis: "1.5"}, kmpS, "", "grid-basis", `--grid-basis "1.5": want comma-separated positive integers, e.g. 1,10,100`},
		{learn.CVSettings{Folds: 3, Epsilon: "0.1"}, kmpS, "", "grid-epsilon", "--grid-epsilon does not apply to --algo kmp (it is for bpdn, and svm with --svr-epsilon)"},
		{learn.CVSettings{Folds: 3, Epsilon: "0.1"}, svmS, "", "grid-epsilon", "--grid-epsilon with --algo svm needs ε-SVR: give --svr-epsilon too (or --regression)"},
		{learn.CVSettings{Folds: 3, Gamma: "1,2"}, kmpS, "sigma", "grid-gamma", "give --grid-gamma or --gamma/--sigma, not both"},
		{learn.CVSettings{Folds: 3, Params: []string{"foo=1"}}, kmpS, "", "grid", ""},
	} {
		_, err := c.cv.Grid(&c.s, map[string]bool{c.given: true})
		var se *learn.SettingError
		if !errors.As(err, &se) || se.Setting != c.setting || !errors.Is(err, pursuit.ErrConfig) {
			t.Errorf("%+v: %v, want a SettingError about %s", c.cv, err, c.setting)
		} else if c.text != "" && se.Text(flagNames) != c.text {
			t.Errorf("%+v: %q, want %q", c.cv, se.Text(flagNames), c.text)
		}
	}
	g, err := (&learn.CVSettings{Folds: 3, Gamma: "0.5, 2", Basis: "3,6"}).Grid(&kmpS, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Gamma, []float64{0.5, 2}) || !slices.Equal(g.Basis, []int{3, 6}) || !slices.Equal(g.C, []float64{kmpS.C}) || g.ShowC || !g.ShowBasis || g.Epsilon != nil {
		t.Errorf("grid %+v", g)
	}
	svmS.SVREpsilon = 0.1
	g, err = (&learn.CVSettings{Folds: 3, C: "1,10", Epsilon: "0.1,0.2"}).Grid(&svmS, map[string]bool{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.C, []float64{1, 10}) || !g.ShowC || g.ShowBasis || !slices.Equal(g.Basis, []int{svmS.Basis}) || len(g.Epsilon) != 2 {
		t.Errorf("svm grid %+v", g)
	}
}

// TestCVSettingsSearch checks Search against CV.Search with the learners
// of the settings made by hand, then the report, the retraining of the
// best setting and the text.
func TestCVSettingsSearch(t *testing.T) {
	ds, test := blobs(90, 2, 5), blobs(30, 2, 6)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	s := learn.DefaultSettings()
	s.Gamma = 1
	d := learn.DataSettings{Scale: "minmax"}
	c := learn.CVSettings{Folds: 3, Basis: "2,5"}
	g, err := c.Grid(&s, map[string]bool{"gamma": true})
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(t)
	prep, err := d.Prep(s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	cv := learn.CV{Seed: 3, Prep: prep}
	points, best, err := c.Search(e, cv, &s, &d, g, plan, ds, flagNames)
	if err != nil {
		t.Fatal(err)
	}
	byHand := func(p learn.CVPoint, basis int) (learn.Learner, error) {
		ps, _ := s.AtPoint(p, basis)
		r, _ := ps.RunFor(ds.Dim(), &d)
		return ps.Learner(plan, r)
	}
	cv.Folds = 3
	want, wantBest, err := cv.Search(e, g, byHand, true, plan, ds)
	if err != nil {
		t.Fatal(err)
	}
	if best != wantBest || len(points) != 2 {
		t.Fatalf("best %d of %d, want %d", best, len(points), wantBest)
	}
	for i := range points {
		if points[i].CVError != want[i].CVError || points[i].NBasis != want[i].NBasis {
			t.Errorf("%s: %+v, by hand %+v", points[i].Describe(), points[i], want[i])
		}
	}
	r := learn.NewCVReport(points, best, 3, "kmp", e.BackendName(), plan, ds, &d, nil, 1.5)
	if r.CVError != points[best].CVError || r.NTrain != 90 || r.Scale != "minmax" || r.TestError != nil || r.TrainSeconds != 1.5 {
		t.Errorf("report %+v", r)
	}
	m, err := r.Retrain(e, &s, &d, g.Basis[best], plan, ds, test, "blobs", "test")
	if err != nil {
		t.Fatal(err)
	}
	if m.NBasis() != r.NBasis || r.NBasis != g.Basis[best] || r.TestError == nil || r.NTest != 30 || m.Header.Train.Data != "blobs" {
		t.Errorf("retrained: model %d basis, report %+v", m.NBasis(), r)
	}
	r.Model, r.ModelBytes = "m.model", 2048
	var b bytes.Buffer
	r.WriteText(&b, "blobs.svm", "test.svm", plan)
	for _, want := range []string{"3-fold cross-validation of kmp on blobs.svm (90 examples, ", "* " + points[best].Describe(),
		fmt.Sprintf("retrained on all 90 examples: %s on test.svm", plan.ErrorText(*r.TestError, 30)), "saved m.model (2.0 KiB)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

func TestNamed(t *testing.T) {
	s := learn.DefaultSettings()
	s.Basis = 0
	err := learn.Named(s.Validate(map[string]bool{"basis": true}, nil), flagNames)
	if err == nil || err.Error() != "--basis 0: must be at least 1" || !errors.Is(err, pursuit.ErrConfig) {
		t.Errorf("named: %v", err)
	}
	plain := errors.New("x")
	if learn.Named(plain, flagNames) != plain || learn.Named(nil, flagNames) != nil {
		t.Error("Named changed an error that is not a SettingError")
	}
}
