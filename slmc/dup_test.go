package slmc

import (
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/pursuit-ml/pursuit"
	"github.com/pursuit-ml/pursuit/data"
	"github.com/pursuit-ml/pursuit/svm"
)

// TestMergedEqualsUnmerged checks that merging identical rows (same label)
// into one point whose count weights its C leaves the problem unchanged:
// at fixed expansion vectors, W(Z), ∇W(Z), β and the bias equal those of the
// problem with every row kept.
func TestMergedEqualsUnmerged(t *testing.T) {
	ds := data.Coarse(60, 3)
	k := pursuit.NewRBF(0.5)
	const c = 50.0
	full, err := newProblem(nil, k, ds.X, ds.Y)
	if err != nil {
		t.Fatal(err)
	}
	md, counts := data.MergeDuplicates(ds)
	if md.Len() >= 30 {
		t.Fatalf("only %d of 60 rows merged away", 60-md.Len())
	}
	merged, err := newProblem(nil, k, md.X, md.Y)
	if err != nil {
		t.Fatal(err)
	}
	merged.w = counts
	z := mat.NewDense(3, 3, []float64{0.5, 0, 1, 2.2, 1, 0, 3, 0.3, 0.8})
	so := SolverOptions{Tol: 1e-11}
	ff, err := full.fit(z, c, nil, so)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := merged.fit(z, c, nil, so)
	if err != nil {
		t.Fatal(err)
	}
	close := func(what string, a, b, tol float64) {
		t.Helper()
		if math.Abs(a-b) > tol*math.Max(1, math.Abs(b)) {
			t.Errorf("%s: merged %.12g, all rows %.12g", what, a, b)
		}
	}
	close("W", fm.w, ff.w, 1e-9)
	close("bias", fm.bias, ff.bias, 1e-7)
	for u := range ff.beta {
		close("β", fm.beta[u], ff.beta[u], 1e-7)
	}
	grad := func(p *problem, f *fixedFit) *mat.Dense {
		g := mat.NewDense(3, 3, nil)
		neg := make([]float64, len(f.a))
		for i, v := range f.a {
			neg[i] = -v
		}
		p.rbfGrad(g, f.b, f.beta, neg, 1)
		return g
	}
	gf, gm := grad(full, ff), grad(merged, fm)
	for u := range 3 {
		for j := range 3 {
			close("∇W", gm.At(u, j), gf.At(u, j), 1e-6)
		}
	}
	// The decision function on new points, through the public models.
	m1 := newModel("slmc", k, z, fm.beta, fm.bias)
	m2 := newModel("slmc", k, z, ff.beta, ff.bias)
	test := data.Coarse(50, 4)
	d1, d2 := decisionRef(m1, test.X), decisionRef(m2, test.X)
	for i := range d1 {
		close("f(x)", d1[i], d2[i], 1e-6)
	}
	// And the training error is counted over the rows.
	close("training error", merged.errorRate(fm.b.decision(fm.beta, fm.bias)), full.errorRate(ff.b.decision(ff.beta, ff.bias)), 1e-12)
}

// TestSLMCDuplicateHeavy is issue 17's titanic-like case: 150 training rows
// of which about 90% repeat an earlier row, often with another label, and
// C = 1e5. SLMC at Nz = 10% of the SVM's SVs must match the SVM's test
// error within one point; the run time is logged (the measurement:
// at most 2 s).
func TestSLMCDuplicateHeavy(t *testing.T) {
	e := goEngine(t)
	k := pursuit.NewRBF(0.5)
	const c = 1e5
	var worst float64
	for seed := uint64(1); seed <= 4; seed++ {
		tr := data.Coarse(150, seed)
		te := data.Coarse(4000, 100+seed)
		dups := len(data.DuplicateRows(tr.X))
		t0 := time.Now()
		m, err := svm.Train(e, tr.X, tr.Y, svm.Params{Kernel: k, C: c})
		if err != nil {
			t.Fatal(err)
		}
		svmSecs := time.Since(t0).Seconds()
		exp, err := FromSVM(m, 1)
		if err != nil {
			t.Fatal(err)
		}
		svmErr, err := exp.AsModel().ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		nz := exp.NumXVFraction(0.10)
		t0 = time.Now()
		res, err := Train(e, tr.X, tr.Y, Config{Kernel: k, C: c, NumXV: nz, Init: InitKMeans, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		secs := time.Since(t0).Seconds()
		er, err := res.Model.ErrorRate(e, te.X, te.Y)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %d of 150 rows duplicate (%d merged points); SVM %d SVs, test error %.2f%% (%.3fs); SLMC Nz=%d: %.2f%%, %d iterations, %d evaluations, stop: %s (%s), %d restarts, %.3fs",
			seed, dups, 150-res.Duplicates, exp.Vectors.Rows, 100*svmErr, svmSecs, nz, 100*er, res.Iterations, res.Evaluations, res.Stop, res.Status, res.Restarts, secs)
		switch res.Stop {
		case StopConverged, StopGradient, StopIterationCap, StopLineSearch:
		default:
			t.Errorf("seed %d: stop reason %q", seed, res.Stop)
		}
		if dups < 130 {
			t.Errorf("seed %d: only %d duplicate rows", seed, dups)
		}
		if er > svmErr+0.01 {
			t.Errorf("seed %d: SLMC test error %.2f%% more than a point above the SVM's %.2f%%", seed, 100*er, 100*svmErr)
		}
		worst = math.Max(worst, secs)
	}
	t.Logf("slowest SLMC run: %.3fs", worst)
}

// TestSKFDMergedEqualsUnmerged checks that SKFD's W(Z) and ∇W(Z) on the
// problem with identical rows merged into weighted points equal those on
// every row (issue 30, item 4: SKFD dropped duplicates, which changes the
// class means and the scatter), and that TrainSKFD merges rather than
// drops: its training error is counted over all rows.
func TestSKFDMergedEqualsUnmerged(t *testing.T) {
	ds := data.Coarse(60, 3)
	k := pursuit.NewRBF(0.5)
	full, err := newProblem(nil, k, ds.X, ds.Y)
	if err != nil {
		t.Fatal(err)
	}
	md, counts := data.MergeDuplicates(ds)
	merged, err := newProblem(nil, k, md.X, md.Y)
	if err != nil {
		t.Fatal(err)
	}
	merged.w = counts
	z := mat.NewDense(3, 3, []float64{0.5, 0, 1, 2.2, 1, 0, 3, 0.3, 0.8})
	gf, gm := make([]float64, 9), make([]float64, 9)
	wf, err := newSKFDW(full, 0.05).eval(z, gf)
	if err != nil {
		t.Fatal(err)
	}
	wm, err := newSKFDW(merged, 0.05).eval(z, gm)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(wf-wm) > 1e-10*math.Abs(wf) {
		t.Errorf("W: merged %.12g, all rows %.12g", wm, wf)
	}
	for i := range gf {
		if math.Abs(gf[i]-gm[i]) > 1e-8*math.Max(1, math.Abs(gf[i])) {
			t.Errorf("∇W[%d]: merged %.12g, all rows %.12g", i, gm[i], gf[i])
		}
	}
	e := goEngine(t)
	res, err := TrainSKFD(e, ds.X, ds.Y, Config{Kernel: k, C: 10, NumXV: 3, Init: InitKMeans, Seed: 1, Optim: OptimOptions{MaxIter: 20}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicates != 60-md.Len() {
		t.Errorf("%d rows merged, want %d", res.Duplicates, 60-md.Len())
	}
	dec, err := res.Model.Decision(e, ds.X)
	if err != nil {
		t.Fatal(err)
	}
	if want := errorRate(dec, ds.Y); math.Abs(res.TrainError-want) > 1e-12 {
		t.Errorf("training error %v, over all rows %v", res.TrainError, want)
	}
}

var rbf05 = pursuit.NewRBF(0.5)

var _ = pursuit.Matrix{}
