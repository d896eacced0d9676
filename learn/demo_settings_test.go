package learn

import (
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/engine"
)

// TestDemoSettings checks the settings, the row and the recorded figures
// of one demo run.
func TestDemoSettings(t *testing.T) {
	p := DemoProblems(3, true)[0]
	svmAlgo, _ := FindAlgorithm("svm")
	kmpAlgo, _ := FindAlgorithm("kmp")
	s, d := p.Settings(svmAlgo, 5)
	if s.Algo != "svm" || s.Gamma != p.Gamma || s.C != p.C || s.Basis != 0 || s.Seed != 5 || d.ValFrac != 0 || d.Scale != string(p.Scale) {
		t.Errorf("svm's settings: %+v, %+v", s, d)
	}
	s, d = p.Settings(kmpAlgo, 5)
	if s.Basis != p.Basis || d.ValFrac != p.ValFrac || s.Patience != DefaultPatience {
		t.Errorf("kmp's settings: %+v, %+v", s, d)
	}
	if r := p.Row(svmAlgo, "go"); r.C == nil || *r.C != p.C || r.NTrain != p.Train.Len() || r.Algorithm != "svm" {
		t.Errorf("svm's row: %+v", r)
	}
	r := p.Row(kmpAlgo, "go")
	if r.C != nil {
		t.Errorf("kmp's row has C %v", *r.C)
	}
	s.Basis = 5
	e, err := engine.New(engine.WithBackend("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	k, _ := s.KernelFor(p.Train.Dim())
	l, err := s.Learner(LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}, Run{Kernel: k})
	if err != nil {
		t.Fatal(err)
	}
	prep, _ := d.Prep(s.Seed)
	f, pr, err := prep.Fit(e, s.Algo, k, l, LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}, p.Train, p.Test, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Release(e)
	if err := r.Record(f); err != nil {
		t.Fatal(err)
	}
	size, _ := f.Model.Size()
	if r.NBasis != f.Model.NBasis() || r.NBasis > 5 || r.NVal != pr.Val.Len() || r.NTrain != pr.Train.Len() || *r.TestError != f.TestError || r.ModelBytes != size {
		t.Errorf("recorded row %+v from %+v", r, f)
	}
	// FitSettings is the same run in one call.
	f2, pr2, err := FitSettings(e, &s, &d, LabelPlan{Task: TaskBinary, Classes: []float64{-1, 1}}, p.Train, p.Test, nil, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pr2.Release(e)
	if f2.TrainError != f.TrainError || f2.TestError != f.TestError || f2.Model.NBasis() != f.Model.NBasis() || f2.Model.Header.Algorithm != "kmp" {
		t.Errorf("FitSettings: train %v test %v basis %d; the composed run: %v %v %d", f2.TrainError, f2.TestError, f2.Model.NBasis(), f.TrainError, f.TestError, f.Model.NBasis())
	}
	d.Regression = true
	if r, err := s.RunFor(2, &d); err != nil || !r.Regression || r.Kernel.String() != pursuit.NewRBF(p.Gamma).String() {
		t.Errorf("RunFor with regression data settings: %+v, %v", r, err)
	}
	if got := strings.Join(DemoFullData(), " "); got != "svm mpkfda slmc" {
		t.Errorf("DemoFullData = %q", got)
	}
}
