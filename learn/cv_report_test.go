package learn_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
)

// TestCVGridPoints checks the order of a grid's points (the named settings
// outermost, the basis size fastest) and their names.
func TestCVGridPoints(t *testing.T) {
	g := learn.CVGrid{Settings: []learn.Param{{Name: "nz", Values: []float64{5, 10}}}, Gamma: []float64{0.1, 1},
		C: []float64{1}, Basis: []int{0, 20}, ShowBasis: true}
	var names []string
	for _, p := range g.Points() {
		names = append(names, p.Describe())
	}
	want := []string{"gamma=0.1 nz=5 basis=default", "gamma=0.1 nz=5 basis=20", "gamma=1 nz=5 basis=default", "gamma=1 nz=5 basis=20",
		"gamma=0.1 nz=10 basis=default", "gamma=0.1 nz=10 basis=20", "gamma=1 nz=10 basis=default", "gamma=1 nz=10 basis=20"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("points\n%q\nwant\n%q", names, want)
	}
	if got := (learn.CVPoint{}).Describe(); got != "(flags as given)" {
		t.Errorf("empty setting: %q", got)
	}
	if n := len(learn.CVGrid{C: []float64{1, 10}, ShowC: true, Epsilon: []float64{0.1, 0.5}, Basis: []int{3}}.Points()); n != 4 {
		t.Errorf("%d points for 2 C × 2 ε, want 4", n)
	}
}

// TestCVSearch checks Search against cross-validating every point on its
// own (CrossValidate), with the basis sizes sharing one training per fold,
// and its choice of the best point.
func TestCVSearch(t *testing.T) {
	ds := blobs(90, 2, 5)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{1, 2}}
	newL := func(p learn.CVPoint, basis int) (learn.Learner, error) {
		cfg := kmp.Config{Variant: kmp.PreFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{pursuit.NewRBF(*p.Gamma)}, Bias: true, Seed: 1}
		return learn.KMP{Name: "kmp", Config: cfg, Basis: basis}, nil
	}
	cv := learn.CV{Folds: 3, Seed: 4, Prep: learn.Prep{Scale: learn.ScaleAuto}}
	e := newEngine(t)
	g := learn.CVGrid{Gamma: []float64{0.5, 2}, C: []float64{1}, Basis: []int{2, 5, 8}, ShowBasis: true}
	points, best, err := cv.Search(e, g, newL, true, plan, ds)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 6 {
		t.Fatalf("%d points, want 6", len(points))
	}
	lowest := math.Inf(1)
	for i, p := range points {
		l, _ := newL(p, *p.Basis)
		r, err := learn.CrossValidate(e, l, plan, ds, cv)
		if err != nil {
			t.Fatal(err)
		}
		if r.Error != p.CVError || r.TrainError != p.TrainError || r.NBasis != p.NBasis || r.Std != p.CVStd {
			t.Errorf("%s: searched %+v, alone %+v", p.Describe(), p, r)
		}
		if r.Error < lowest {
			lowest = r.Error
			if best != i && points[best].CVError != r.Error {
				t.Errorf("best %d (%g), but %d has %g", best, points[best].CVError, i, r.Error)
			}
		}
	}
	var b bytes.Buffer
	learn.WriteCVTable(&b, points, best, false)
	if !strings.Contains(b.String(), "* "+points[best].Describe()) || !strings.Contains(b.String(), "best: "+points[best].Describe()) {
		t.Errorf("table:\n%s", b.String())
	}
}

func TestLabelPlanText(t *testing.T) {
	pos := 8.0
	for _, c := range []struct {
		p    learn.LabelPlan
		want string
		err  string
	}{
		{learn.LabelPlan{Task: learn.TaskRegression}, "regression", "MSE 0.25"},
		{learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 8}, Positive: &pos}, "class 8 vs the rest (+1/-1)", "error 25.00% (10/40)"},
		{learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 1}}, "binary, 1 (+) vs -1 (-)", "error 25.00% (10/40)"},
		{learn.LabelPlan{Task: learn.TaskOneVsRest, Classes: []float64{1, 2, 3}}, "3 classes, one vs rest", "error 25.00% (10/40)"},
	} {
		if got := c.p.Describe(); got != c.want {
			t.Errorf("Describe: %q, want %q", got, c.want)
		}
		if got := c.p.ErrorText(0.25, 40); got != c.err {
			t.Errorf("ErrorText: %q, want %q", got, c.err)
		}
	}
}
