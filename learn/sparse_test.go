package learn_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/slmc"
)

// textLike returns a small text-like set (labels ±1) held dense and
// sparse.
func textLike(t *testing.T) (dense, sparse *data.Dataset) {
	t.Helper()
	d, err := data.TextLike(data.TextLikeConfig{Rows: 160, Dim: 60, NNZPerRow: 8, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := data.Densify(d, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return dd, d
}

// maxRel is the largest |a − b| over every output relative to the largest
// |a| of that output.
func maxRel(a, b [][]float64) float64 {
	var worst float64
	for o := range a {
		var scale, d float64
		for i := range a[o] {
			scale = math.Max(scale, math.Abs(a[o][i]))
			d = math.Max(d, math.Abs(a[o][i]-b[o][i]))
		}
		if scale > 0 {
			d /= scale
		}
		worst = math.Max(worst, d)
	}
	return worst
}

// TestSparseLearners: every learner but svm (tested in package svm), on
// dense and sparse storage of the same rows through the contract, gives
// model files that decide alike within 1e-5 relative, on dense and sparse
// rows and after a write and parse.
func TestSparseLearners(t *testing.T) {
	e := newEngine(t)
	dd, ds := textLike(t)
	rbf := pursuit.NewRBF(1)
	binary := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 1}}
	reg := learn.LabelPlan{Task: learn.TaskRegression}
	kmpCfg := kmp.Config{Variant: kmp.BackFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{rbf}, Bias: true, Seed: 1}
	tight := slmc.SolverOptions{Tol: 1e-9}
	yReal := make([]float64, dd.Len())
	for i := range yReal {
		for j, v := range dd.X.Row(i) {
			yReal[i] += float64(v) * math.Cos(float64(j))
		}
	}
	for _, c := range []struct {
		name string
		l    learn.Learner
		plan learn.LabelPlan
	}{
		{"kmp", learn.KMP{Config: kmpCfg, Basis: 10}, binary},
		{"mpkfda", learn.MPKFDA{Config: greedy.KFDAConfig{Kernel: rbf, Steps: 8, Seed: 1}}, binary},
		{"slmc", learn.SLMC{Config: slmc.Config{Kernel: rbf, C: 1, NumXV: 4, Seed: 1, Solver: tight, Optim: slmc.OptimOptions{MaxIter: 2}}}, binary},
		{"bpdn", learn.BPDN{Kernel: rbf, Params: bpdn.Params{Epsilon: 0.1, C: 10}}, reg},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := make([]*learn.File, 2)
			for s, d := range []*data.Dataset{dd, ds} {
				y := d.Y
				if c.plan.Task == learn.TaskRegression {
					y = yReal
				}
				ms, err := learn.Train(e, c.l, c.plan, d.X, y, pursuit.Matrix{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				files[s] = learn.NewFile(c.plan, d.Dim(), rbf, ms)
			}
			if files[0].NBasis() != files[1].NBasis() {
				t.Fatalf("%d basis functions dense, %d sparse", files[0].NBasis(), files[1].NBasis())
			}
			want, err := files[0].Decisions(e, dd.X)
			if err != nil {
				t.Fatal(err)
			}
			check := files
			if c.name != "bpdn" {
				// bpdn's model is svm's, whose LIBSVM writer takes sparse
				// support vectors with svm's sparse work (issue 28).
				var b bytes.Buffer
				if _, err := files[1].Write(&b); err != nil {
					t.Fatal(err)
				}
				back, err := learn.ParseModel(b.Bytes(), 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				check = append(check, back)
			}
			var worst float64
			for _, f := range check {
				for _, x := range []pursuit.Matrix{dd.X, ds.X} {
					got, err := f.Decisions(e, x)
					if err != nil {
						t.Fatal(err)
					}
					worst = math.Max(worst, maxRel(want, got))
				}
			}
			t.Logf("%d basis functions, decisions within %.3g relative", files[0].NBasis(), worst)
			if worst > 1e-5 {
				t.Errorf("decisions differ by %.3g relative", worst)
			}
		})
	}
}

// TestSparseCrossValidate: k-fold cross-validation of KMP on sparse rows
// measures what it measures on the same rows held dense.
func TestSparseCrossValidate(t *testing.T) {
	e := newEngine(t)
	dd, ds := textLike(t)
	l := learn.KMP{Config: kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{pursuit.NewRBF(1)}, Bias: true, Seed: 1}, Basis: 8}
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 1}}
	cv := learn.CV{Folds: 4, Seed: 2, Steps: []int{2, 8}}
	rd, err := learn.CrossValidate(e, l, plan, dd, cv)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := learn.CrossValidate(e, l, plan, ds, cv)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("dense %+v, sparse %+v", rd.Error, rs.Error)
	if rd.Error != rs.Error || rd.TrainError != rs.TrainError || rd.NBasis != rs.NBasis || len(rd.Curve) != len(rs.Curve) {
		t.Fatalf("dense: error %v, training error %v, %v basis functions; sparse: %v, %v, %v", rd.Error, rd.TrainError, rd.NBasis, rs.Error, rs.TrainError, rs.NBasis)
	}
	for i := range rd.Curve {
		if rd.Curve[i].Test != rs.Curve[i].Test || rd.Curve[i].Train != rs.Curve[i].Train {
			t.Errorf("curve point %d: dense %+v, sparse %+v", i, rd.Curve[i], rs.Curve[i])
		}
	}
}
