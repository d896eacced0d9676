package learn_test

import (
	"sort"
	"testing"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/bpdn"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/greedy"
	"github.com/pursuit-ml/pursuit/kmp"
	"github.com/pursuit-ml/pursuit/learn"
	"github.com/pursuit-ml/pursuit/slmc"
	"github.com/pursuit-ml/pursuit/svm"
)

// loadBoston returns the shared Boston housing set (unscaled), skipping
// the test when it is absent.
func loadBoston(t *testing.T) *data.Dataset {
	t.Helper()
	p, err := data.SharedFile("boston", "boston.gz")
	if err != nil {
		t.Skipf("shared data set boston unavailable: %v", err)
	}
	d, err := data.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// reference64 computes a model's outputs on x in the test, from its
// expansion, with pursuit.Kernel.Eval and float64 sums.
func reference64(t *testing.T, m learn.Model, x pursuit.Matrix) []float64 {
	t.Helper()
	var (
		k    pursuit.Kernel
		v    pursuit.Matrix
		coef []float64
		bias float64
		sign = 1.0
	)
	switch f := m.(type) {
	case *learn.SVMModel:
		k, v, coef, bias = f.SVM.Kernel, f.SVM.SV, f.SVM.Coef[0], -f.SVM.Rho[0]
		if f.SVM.Type == svm.CSVC && f.SVM.Labels[0] != 1 {
			sign = -1
		}
	case learn.Expander:
		var err error
		if k, v, coef, bias, err = f.Expansion(); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("%s: no reference", m.Kind())
	}
	out := make([]float64, x.Rows)
	xr, vr := make([]float32, x.Cols), make([]float32, v.Cols)
	for i := range out {
		s := bias
		for j := range v.Rows {
			s += coef[j] * k.Eval(x.RowTo(xr, i), v.RowTo(vr, j))
		}
		out[i] = sign * s
	}
	return out
}

// TestPrecisionFloat64 (issue 29): on Boston unscaled every expansion's
// float64 decisions (File.DecisionsIn with PrecisionFloat64) equal a
// float64 reference computed here, and on scaled data the float32 and
// float64 decisions agree to 1e-5 relative.
func TestPrecisionFloat64(t *testing.T) {
	e := newEngine(t)
	raw := loadBoston(t)
	med := append([]float64(nil), raw.Y...)
	sort.Float64s(med)
	cut := med[len(med)/2]
	yBin := make([]float64, raw.Len())
	for i, v := range raw.Y {
		yBin[i] = -1
		if v > cut {
			yBin[i] = 1
		}
	}
	scaled := pursuit.NewMatrix(raw.X.Rows, raw.X.Cols)
	for i := range raw.X.Rows {
		copy(scaled.Row(i), raw.X.Row(i))
	}
	sc, err := data.FitScaler(data.ScaleMinMax, scaled)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Apply(scaled); err != nil {
		t.Fatal(err)
	}
	binary := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 1}}
	reg := learn.LabelPlan{Task: learn.TaskRegression}
	for _, s := range []struct {
		name  string
		x     pursuit.Matrix
		gamma float64
	}{{"unscaled", raw.X, 1e-3}, {"scaled", scaled, 0.5}} {
		rbf := pursuit.NewRBF(s.gamma)
		for _, c := range []struct {
			name string
			l    learn.Learner
			plan learn.LabelPlan
		}{
			{"kmp", learn.KMP{Config: kmp.Config{Task: kmp.Regression, Variant: kmp.BackFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{rbf}, Bias: true, Seed: 1}, Basis: 20}, reg},
			{"mpkfda", learn.MPKFDA{Config: greedy.KFDAConfig{Kernel: rbf, Steps: 10, Seed: 1}}, binary},
			{"slmc", learn.SLMC{Config: slmc.Config{Kernel: rbf, C: 1, NumXV: 8, Seed: 1, Optim: slmc.OptimOptions{MaxIter: 5}}}, binary},
			{"svm", learn.SVM{Params: svm.Params{Kernel: rbf, C: 10}}, binary},
			{"svr", learn.SVM{Params: svm.Params{Type: svm.EpsilonSVR, Kernel: rbf, C: 10, Epsilon: 1}}, reg},
			{"bpdn", learn.BPDN{Kernel: rbf, Params: bpdn.Params{Epsilon: 2, C: 10}}, reg},
		} {
			t.Run(s.name+"/"+c.name, func(t *testing.T) {
				y := raw.Y
				if c.plan.Task == learn.TaskBinary {
					y = yBin
				}
				ms, err := learn.Train(e, c.l, c.plan, s.x, y, pursuit.Matrix{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				f := learn.NewFile(c.plan, s.x.Cols, rbf, ms)
				d64, err := f.DecisionsIn(e, s.x, learn.PrecisionFloat64)
				if err != nil {
					t.Fatal(err)
				}
				d32, err := f.DecisionsIn(e, s.x, learn.PrecisionFloat32)
				if err != nil {
					t.Fatal(err)
				}
				want := [][]float64{reference64(t, ms[0], s.x)}
				ref := maxRel(want, d64)
				rel := maxRel(d64, d32)
				t.Logf("%d basis functions: float64 within %.3g of the reference, float32 within %.3g of float64", f.NBasis(), ref, rel)
				if ref > 1e-12 {
					t.Errorf("float64 decisions differ from the reference by %.3g relative", ref)
				}
				if s.name == "scaled" && rel > 1e-5 {
					t.Errorf("float32 and float64 decisions differ by %.3g relative", rel)
				}
			})
		}
	}
}

// TestPrecisionSparse: the float64 path gives the same decisions on dense
// and sparse rows of the same data.
func TestPrecisionSparse(t *testing.T) {
	e := newEngine(t)
	dd, ds := textLike(t)
	rbf := pursuit.NewRBF(1)
	plan := learn.LabelPlan{Task: learn.TaskBinary, Classes: []float64{-1, 1}}
	for _, train := range []*data.Dataset{dd, ds} {
		ms, err := learn.Train(e, learn.KMP{Config: kmp.Config{Variant: kmp.BackFit, Loss: kmp.Squared, Kernels: []pursuit.Kernel{rbf}, Bias: true, Seed: 1}, Basis: 10}, plan, train.X, train.Y, pursuit.Matrix{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := learn.NewFile(plan, dd.Dim(), rbf, ms)
		want := [][]float64{reference64(t, ms[0], dd.X)}
		for _, x := range []pursuit.Matrix{dd.X, ds.X} {
			got, err := f.DecisionsIn(e, x, learn.PrecisionFloat64)
			if err != nil {
				t.Fatal(err)
			}
			if r := maxRel(want, got); r > 1e-12 {
				t.Errorf("vectors sparse %v, rows sparse %v: %.3g relative from the reference", train.X.IsSparse(), x.IsSparse(), r)
			}
		}
	}
}

// TestParsePrecision checks the names ParsePrecision takes.
func TestParsePrecision(t *testing.T) {
	for s, want := range map[string]learn.Precision{"": learn.PrecisionFloat32, "float32": learn.PrecisionFloat32, "float64": learn.PrecisionFloat64} {
		if got, err := learn.ParsePrecision(s); err != nil || got != want {
			t.Errorf("ParsePrecision(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := learn.ParsePrecision("double"); err == nil {
		t.Error("ParsePrecision(\"double\") accepted")
	}
}

// TestPrecisionOneVsRest: a one-vs-rest KMP model (one Multi model with an
// output per class) gives its outputs in class order on the float64 path,
// within 1e-5 relative of the float32 ones on scaled Boston in three
// classes.
func TestPrecisionOneVsRest(t *testing.T) {
	e := newEngine(t)
	raw := loadBoston(t)
	x := pursuit.NewMatrix(raw.X.Rows, raw.X.Cols)
	for i := range raw.X.Rows {
		copy(x.Row(i), raw.X.Row(i))
	}
	sc, err := data.FitScaler(data.ScaleMinMax, x)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Apply(x); err != nil {
		t.Fatal(err)
	}
	y := make([]float64, raw.Len())
	for i, v := range raw.Y {
		switch {
		case v < 18:
			y[i] = 1
		case v < 25:
			y[i] = 2
		default:
			y[i] = 3
		}
	}
	rbf := pursuit.NewRBF(0.5)
	plan := learn.LabelPlan{Task: learn.TaskOneVsRest, Classes: []float64{1, 2, 3}}
	ms, err := learn.Train(e, learn.KMP{Config: kmp.Config{Variant: kmp.PreFit, Kernels: []pursuit.Kernel{rbf}, Bias: true, Seed: 1}, Basis: 15}, plan, x, y, pursuit.Matrix{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := learn.NewFile(plan, x.Cols, rbf, ms)
	d32, err := f.DecisionsIn(e, x, learn.PrecisionFloat32)
	if err != nil {
		t.Fatal(err)
	}
	d64, err := f.DecisionsIn(e, x, learn.PrecisionFloat64)
	if err != nil {
		t.Fatal(err)
	}
	if len(d64) != 3 {
		t.Fatalf("%d outputs, want 3", len(d64))
	}
	if r := maxRel(d64, d32); r > 1e-5 {
		t.Errorf("float32 and float64 outputs differ by %.3g relative", r)
	} else {
		t.Logf("%d outputs within %.3g relative", len(d64), r)
	}
}
